"""Virtual environments holding a given JAX release, built once (with uv when it is there, else pip) and reused.

They live in ``$JAXLINT_ENV_DIR`` (default ``~/.cache/jaxlint/envs``) as ``jax-<version>/``, with a ``.complete``
marker written only after a successful install (the same layout as the test helper, so the two can share a folder).
Only the installer (``jaxlint.verify.installer``) talks to the network, through the package index it is configured
for.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from jaxlint.project.versions import Version
from jaxlint.verify.envs import echo_failure, install
from jaxlint.verify.installer import Installer, InstallerError, choose


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
    installer = _installer()
    log(f"building an environment with JAX {version} in {env} with {installer.name} (once; later runs reuse it)")
    started = time.monotonic()
    if env.exists():
        shutil.rmtree(env)  # an interrupted earlier build
    env.parent.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(installer.create_venv(_base_python(), env), capture_output=True, text=True)
    if made.returncode != 0:
        raise EnvError(f"could not create a venv at {env}:\n{_tail(made.stderr)}")
    code, lines = install(installer, python, [f"jax=={version}", *EXTRA_PACKAGES], log)
    if code != 0:
        echo_failure(installer, lines, log)
        raise EnvError(f"{installer.name} could not install jax=={version} into {env} (its report above)\n"
                       f"(remove it with `rm -rf {env}`)")
    (env / ".complete").write_text(str(version))
    log(f"built the JAX {version} environment in {time.monotonic() - started:.0f}s with {installer.name} at {env}")
    return python


def _installer() -> Installer:
    try:
        return choose()
    except InstallerError as err:
        raise EnvError(str(err)) from err


def _complete_extras(python: Path, log) -> None:
    """An environment built before (by an older jaxlint, or by hand) may lack flatbuffers: add what is missing."""
    check = ("import importlib.util, sys; "
             f"sys.exit(0 if all(importlib.util.find_spec(m) for m in {list(EXTRA_PACKAGES)!r}) else 1)")
    if subprocess.run([str(python), "-c", check], capture_output=True).returncode == 0:
        return
    # An environment uv built has no pip: it is completed with uv.
    installer = Installer() if (python.parent / "pip").exists() else _installer()
    log(f"adding {', '.join(EXTRA_PACKAGES)} to {python.parents[1]} with {installer.name}")
    code, lines = install(installer, python, list(EXTRA_PACKAGES), log)
    if code != 0:
        echo_failure(installer, lines, log)
        raise EnvError(f"{installer.name} could not install {', '.join(EXTRA_PACKAGES)} into {python.parents[1]} "
                       "(its report above)")


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
