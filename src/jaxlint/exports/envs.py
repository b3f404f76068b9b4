"""Virtual environments holding a given JAX release, built once with pip and reused.

They live in ``$JAXLINT_ENV_DIR`` (default ``~/.cache/jaxlint/envs``) as ``jax-<version>/``, with a ``.complete``
marker written only after a successful install (the same layout as the test helper, so the two can share a folder).
Only pip talks to the network, through the package index it is configured for.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from jaxlint.project.versions import Version


class EnvError(RuntimeError):
    pass


def env_dir() -> Path:
    configured = os.environ.get("JAXLINT_ENV_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "jaxlint" / "envs"


def _base_python() -> str:
    # JAX 0.11+ wheels need Python >= 3.11; 3.12 installs every release jaxlint knows.
    if sys.version_info[:2] >= (3, 11):
        return sys.executable
    found = shutil.which("python3.12") or shutil.which("python3.11")
    if not found:
        raise EnvError("building a JAX environment needs Python 3.11 or 3.12 on PATH")
    return found


# What ``jaxlint exports`` needs besides JAX: flatbuffers for ``jax.export.(de)serialize`` (JAX does not depend on
# it), NumPy for the verification inputs.
EXTRA_PACKAGES = ("flatbuffers", "numpy")


def python_for_jax(version: Version, log=print) -> Path:
    """The python of a cached venv with ``jax==version`` and ``EXTRA_PACKAGES``, building it first if needed."""
    env = env_dir() / f"jax-{version}"
    python = env / "bin" / "python"
    if (env / ".complete").exists():
        _complete_extras(python, log)
        return python
    log(f"building an environment with JAX {version} in {env} (once; later runs reuse it)")
    if env.exists():
        shutil.rmtree(env)  # an interrupted earlier build
    env.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([_base_python(), "-m", "venv", str(env)], check=True, capture_output=True)
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                           f"jax=={version}", *EXTRA_PACKAGES], capture_output=True, text=True)
    if proc.returncode != 0:
        raise EnvError(f"pip could not install jax=={version} into {env}:\n{_tail(proc.stderr)}\n"
                       f"(remove it with `rm -rf {env}`)")
    (env / ".complete").write_text(str(version))
    return python


def _complete_extras(python: Path, log) -> None:
    """An environment built before (by an older jaxlint, or by hand) may lack flatbuffers: add what is missing."""
    check = ("import importlib.util, sys; "
             f"sys.exit(0 if all(importlib.util.find_spec(m) for m in {list(EXTRA_PACKAGES)!r}) else 1)")
    if subprocess.run([str(python), "-c", check], capture_output=True).returncode == 0:
        return
    log(f"adding {', '.join(EXTRA_PACKAGES)} to {python.parents[1]}")
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                           *EXTRA_PACKAGES], capture_output=True, text=True)
    if proc.returncode != 0:
        raise EnvError(f"pip could not install {', '.join(EXTRA_PACKAGES)} into {python.parents[1]}:\n"
                       f"{_tail(proc.stderr)}")


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
