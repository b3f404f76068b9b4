"""Virtual environments holding a given JAX release, built once (with uv when it is there, else pip) and reused.

They live in ``$JAXLINT_ENV_DIR`` (default ``~/.cache/jaxlint/envs``) as ``jax-<version>/``, marked as jaxlint's
when the build starts and with a ``.complete`` marker written only after a successful install (the same layout as
the test helper, so the two can share a folder; ``jaxlint.verify.env_store``).
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
from jaxlint.verify.env_store import COMPLETE, build_lock, is_ours, record_packages
from jaxlint.verify.envs import echo_failure, install, installed_versions, missing_packages, packages_built, \
    start_afresh, summarize
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
    """The python of a cached venv with ``jax==version`` and ``EXTRA_PACKAGES``, building it first if needed.

    Under the environment's lock (``verify.env_store``): a run that finds another building it waits, then reuses
    its build. A complete environment is reused only while it still holds what it was built with (one subprocess
    imports its packages); one that does not is rebuilt, and the user told why."""
    env = env_dir() / f"jax-{version}"
    python = env / "bin" / "python"
    with build_lock(env, log):
        if (env / COMPLETE).exists() and is_ours(env):
            problems = missing_packages(python, packages_built(env, {"jax": str(version)}), list(_IMPORTED))
            if not problems:
                return python
            log(f"the JAX {version} environment in {env} no longer holds what it was built with "
                f"({summarize(problems)}); rebuilding it")
        return _build(version, env, log)


# What a reuse imports: JAX (and its jaxlib) and EXTRA_PACKAGES.
_IMPORTED = ("jax", "jaxlib", *EXTRA_PACKAGES)


def _build(version: Version, env: Path, log) -> Path:
    python = env / "bin" / "python"
    installer = _installer()
    log(f"building an environment with JAX {version} in {env} with {installer.name} (once; later runs reuse it)")
    started = time.monotonic()
    try:
        start_afresh(env, {"jax": str(version), "builder": "exports"})
    except RuntimeError as err:
        raise EnvError(str(err)) from err
    made = subprocess.run(installer.create_venv(_base_python(), env), capture_output=True, text=True)
    if made.returncode != 0:
        raise EnvError(f"could not create a venv at {env}:\n{_tail(made.stderr)}")
    code, lines = install(installer, python, [f"jax=={version}", *EXTRA_PACKAGES], log)
    if code != 0:
        echo_failure(installer, lines, log)
        raise EnvError(f"{installer.name} could not install jax=={version} into {env} (its report above)\n"
                       f"(remove it with `jaxlint envs prune {env.name}`)")
    record_packages(env, installed_versions(str(python), installer, [f"jax=={version}", *_IMPORTED]))
    (env / COMPLETE).write_text(str(version))
    log(f"built the JAX {version} environment in {time.monotonic() - started:.0f}s with {installer.name} at {env}")
    return python


def _installer() -> Installer:
    try:
        return choose()
    except InstallerError as err:
        raise EnvError(str(err)) from err


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
