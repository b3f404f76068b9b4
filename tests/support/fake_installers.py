"""Stand-ins for uv, pip and a venv's python, to test how jaxlint builds environments without the network: each
logs its command line (JSON, one a line, to ``$FAKE_INSTALLER_LOG``) and answers as the real tool does. With
``$FAKE_INSTALL_GATE`` set, uv's install creates ``GATE.started`` and waits for ``GATE.open``."""
from __future__ import annotations

import sys
from pathlib import Path

_SCRIPT = r'''#!{python}
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_INSTALLER_LOG"], "a") as log:
    log.write(json.dumps([os.path.basename(sys.argv[0])] + args) + "\n")
ROLE = {role!r}
if ROLE == "uv" and args[:1] == ["venv"]:
    env = args[-1]
    os.makedirs(os.path.join(env, "bin"))
    python = os.path.join(env, "bin", "python")
    with open(python, "w") as out:
        out.write(open(sys.argv[0]).read().replace("ROLE = 'uv'", "ROLE = 'env-python'"))
    os.chmod(python, 0o755)
elif ROLE == "base-python" and args[:2] == ["-m", "venv"]:
    env = args[2]
    os.makedirs(os.path.join(env, "bin"))
    python = os.path.join(env, "bin", "python")
    with open(python, "w") as out:
        out.write(open(sys.argv[0]).read().replace("ROLE = 'base-python'", "ROLE = 'env-python'"))
    os.chmod(python, 0o755)
elif ROLE == "uv" and args[:2] == ["pip", "install"]:
    print("Using Python 3.12.1 environment at: env", file=sys.stderr)
    gate = os.environ.get("FAKE_INSTALL_GATE")
    if gate:  # the test holds the install here until it creates GATE.open
        open(gate + ".started", "a").close()
        while not os.path.exists(gate + ".open"):
            __import__("time").sleep(0.05)
    if "flax==9.9" in args:
        print("error: No solution found when resolving dependencies\n  cause: flax==9.9 needs jax>=0.8.1",
              file=sys.stderr)
        sys.exit(1)
    print("Resolved 3 packages in 1ms\nInstalled 3 packages in 2ms\n + jax==0.4.30", file=sys.stderr)
elif ROLE == "uv" and args[:2] == ["pip", "check"]:
    print("Checked 3 packages in 1ms", file=sys.stderr)
elif ROLE == "uv" and args[:2] == ["pip", "freeze"]:
    print("flax==9.8\njax==0.4.30\njaxlib==0.4.30")
elif ROLE == "env-python" and args[:3] == ["-m", "pip", "install"]:
    print("Collecting jax==0.10.2\n  Downloading jax-0.10.2-py3-none-any.whl (2.0 MB)\n"
          "Installing collected packages: jax\nSuccessfully installed jax-0.10.2")
elif ROLE == "target-python" and args[:3] == ["-m", "pip", "freeze"]:
    print("flax==9.9\njax==0.12.0.1\njaxlib==0.12.0.1")
elif ROLE == "target-python":
    os.execv({python!r}, [{python!r}] + args)
# env-python: every other command (the smoke test) succeeds
'''


def make(folder: Path, role: str, name: str) -> Path:
    """An executable ``folder/name`` acting as ``role``: uv, base-python (makes venvs), target-python."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(_SCRIPT.format(python=sys.executable, role=role))
    path.chmod(0o755)
    return path
