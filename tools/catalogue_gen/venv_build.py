"""Making a JAX venv and installing into it, for the tools' and the tests' environments: uv where it can be had,
pip otherwise.

Why uv: measured here (2 cores, 2026-12-06), ``python -m venv`` + ``pip install jax==0.4.30 jaxlib==0.4.30`` took
15 s of wall time (13 CPU-s, pip unzips and byte-compiles every file), ``uv venv --seed`` + ``uv pip install`` from
uv's cache 0.5 s (hard links). A full test run builds about 45 such venvs. uv is jaxlint's own (``find_uv``: the
``uv`` package beside jaxlint or on ``PATH``), else installed once with pip into ``<envs>/uv-tool``.
uv writes no ``.pyc`` files: a new venv's smoke test runs in ``bytecode_env`` so that its first import writes them.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

PYPI = "https://pypi.org/simple"


def pypi_env() -> dict[str, str]:
    """pip's environment for the venv builds: PyPI only (no configured extra indexes, find-links or constraints)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONSTRAINT")
           and not k.startswith("UV_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["UV_NO_CONFIG"] = "1"
    return env


def uv_for(envs: Path) -> str | None:
    """The uv executable to build with: jaxlint's (``find_uv``), else ``<envs>/uv-tool/bin/uv``, installed with pip
    on first use (locked against parallel test workers); None when neither can be had (the builds use pip)."""
    if os.environ.get("JAXLINT_BUILD_WITH") == "pip":
        return None
    try:
        from jaxlint.verify.installer import find_uv
        found = find_uv()
    except ImportError:
        found = None
    if found:
        return found
    tool = envs / "uv-tool"
    uv = tool / "bin" / "uv"
    if (tool / ".complete").exists():
        return str(uv)
    envs.mkdir(parents=True, exist_ok=True)
    with open(envs / ".uv-tool.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (tool / ".complete").exists():
            return str(uv)
        shutil.rmtree(tool, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(tool)], check=True)
        proc = subprocess.run([str(tool / "bin" / "python"), "-m", "pip", "install", "-q", "uv"],
                              capture_output=True, text=True)
        if proc.returncode != 0 or not uv.exists():
            print(f"  cannot install uv ({(proc.stderr.strip().splitlines() or ['?'])[-1]}); building with pip",
                  file=sys.stderr)
            shutil.rmtree(tool, ignore_errors=True)
            return None
        (tool / ".complete").write_text("uv")
    return str(uv)


def new_venv(base: str, env_dir: Path, envs: Path, *, pypi_only: bool = True) -> Path:
    """A fresh venv of interpreter ``base`` at ``env_dir`` (whatever was there is removed); returns its python.
    It has pip in it either way (``--seed``, which uv fetches from the same index as ``install``): callers and
    tests run ``python -m pip`` in some of them."""
    shutil.rmtree(env_dir, ignore_errors=True)
    uv = uv_for(envs)
    if uv:
        subprocess.run([uv, "venv", "--quiet", "--seed", "--python", base, str(env_dir)], check=True,
                       env=pypi_env() if pypi_only else None, capture_output=True)
    else:
        subprocess.run([base, "-m", "venv", str(env_dir)], check=True)
    return env_dir / "bin" / "python"


def install(python: Path | str, args: list[str], envs: Path, *, pypi_only: bool = True,
            target: Path | None = None) -> subprocess.CompletedProcess:
    """Install ``args`` into the venv of ``python`` (or, with ``target``, into that folder, as ``pip --target``),
    quietly; from PyPI alone with ``pypi_only`` (else from the index pip or uv is configured for)."""
    uv = uv_for(envs)
    where = ["--target", str(target)] if target is not None else []
    index = ["--index-url", PYPI] if pypi_only else []
    if uv:
        command = [uv, "pip", "install", "--quiet", "--python", str(python), *index, *where, *args]
    else:
        command = [str(python), "-m", "pip", "install", "-q", *index, *where, *args]
    return subprocess.run(command, capture_output=True, text=True, env=pypi_env() if pypi_only else None)


def bytecode_env() -> dict[str, str]:
    """The environment of a fresh venv's smoke test (CPU, bytecode writing on): uv installs no ``.pyc`` files, so the
    first import writes them for the modules every later run imports (which may run with ``PYTHONDONTWRITEBYTECODE``
    set; pip compiled every file at install time, at 8 CPU-s a venv)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["JAX_PLATFORMS"] = "cpu"
    return env
