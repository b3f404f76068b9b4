"""A stand-in for the python of a JAX environment, for `jaxlint exports migrate` tests that need no JAX: it answers
jaxlint's probe with a JAX version and the worker scripts as a working JAX would (the re-serialized artifact is a
copy of a given modern one; every output matches).

An artifact whose name contains ``hang`` makes the re-serializing worker start a grandchild (``sleep``), write its
pid to ``$FAKE_JAX_HANG_PIDS`` and wait forever: the tests interrupt jaxlint there."""
from __future__ import annotations

import sys
from pathlib import Path

_SCRIPT = r'''#!{python}
import json, os, shutil, subprocess, sys, time
VERSION, WRITES = {version!r}, {writes!r}
PREFIX = "JAXLINT-RESULT "
args = sys.argv[1:]
if args[:1] == ["-c"]:  # jaxlint's probe of the interpreter
    print(PREFIX + json.dumps({{"jax": VERSION, "jax_error": None, "flatbuffers": True, "imports": {{}}}}))
    sys.exit(0)
script = os.path.basename(args[0])
request = json.loads(sys.stdin.read())
if script == "reserialize.py":
    if "hang" in os.path.basename(request["src"]):
        child = subprocess.Popen(["sleep", "300"])
        with open(os.environ["FAKE_JAX_HANG_PIDS"], "w") as out:
            out.write(f"{{os.getpid()}} {{child.pid}}\n")
        while True:
            time.sleep(1)
    shutil.copyfile(WRITES, request["dst"])
    result = {{"ok": True, "error": None, "used_flag": True, "rebuilt_shardings": []}}
elif script == "call_artifact.py":
    result = {{"ok": True, "error": None, "used_flag": False, "dims": {{}}, "inputs": [],
               "outputs": [{{"match": True, "max_abs_diff": 0.0}}]}}
else:
    result = {{}}
print(PREFIX + json.dumps({{"jax_version": VERSION, **result}}))
'''


def make(folder: Path, version: str, writes: Path) -> Path:
    """An executable ``folder/python`` that says it has JAX ``version`` and re-serializes into a copy of
    ``writes``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "python"
    path.write_text(_SCRIPT.format(python=sys.executable, version=version, writes=str(writes)))
    path.chmod(0o755)
    return path
