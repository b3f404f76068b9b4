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

from jaxlint.versions import Version


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


def python_for_jax(version: Version, log=print) -> Path:
    """The python of a cached venv with ``jax==version``, building it first if needed."""
    env = env_dir() / f"jax-{version}"
    python = env / "bin" / "python"
    if (env / ".complete").exists():
        return python
    log(f"building an environment with JAX {version} in {env} (once; later runs reuse it)")
    if env.exists():
        shutil.rmtree(env)  # an interrupted earlier build
    env.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([_base_python(), "-m", "venv", str(env)], check=True, capture_output=True)
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", f"jax=={version}", "numpy"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise EnvError(f"pip could not install jax=={version}: {proc.stderr.strip().splitlines()[-1:]}")
    (env / ".complete").write_text(str(version))
    return python
