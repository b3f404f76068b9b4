"""``jax-<V>`` venvs (Python 3.12, CPU jaxlib from PyPI) for the run-time 'same object' check, built one at a time."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from catalogue_gen.releases import vkey

PYPI = "https://pypi.org/simple"
# Releases whose jaxlib was built against NumPy 1 and whose jax.scipy.linalg wraps scipy.linalg.tril/triu (gone in
# SciPy 1.13).
OLD_NUMPY_BEFORE = "0.4.26"


def python312() -> str | None:
    """A Python 3.12 interpreter to build the venvs with (JAX 0.11+ needs 3.12; older jaxlibs have 3.12 wheels)."""
    candidates = [sys.executable] if sys.version_info[:2] == (3, 12) else []
    found = shutil.which("python3.12")
    if found:
        candidates.append(found)
    candidates += [str(p) for p in sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python"))]
    for c in candidates:
        proc = subprocess.run([c, "-c", "import sys; print(sys.version_info[:2] == (3, 12))"],
                              check=False, capture_output=True, text=True)
        if proc.returncode == 0 and proc.stdout.strip() == "True":  # a pyenv shim may exist and still fail
            return c
    return None


def pypi_env() -> dict[str, str]:
    """pip's environment for the venv builds: PyPI only (no configured extra indexes, find-links or constraints)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONSTRAINT")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def jaxlib_versions(base: str) -> set[str]:
    """jaxlib releases on PyPI that have a wheel this Python 3.12 can install."""
    proc = subprocess.run([base, "-m", "pip", "index", "versions", "jaxlib", "--index-url", PYPI],
                          check=False, capture_output=True, text=True, env=pypi_env())
    m = re.search(r"Available versions:\s*(.*)", proc.stdout)
    return {v.strip() for v in m.group(1).split(",")} if m else set()


def build_venvs(jaxenvs: Path, versions: list[str]) -> float:
    """Create ``<jaxenvs>/jax-<V>`` (CPU jaxlib from PyPI, Python 3.12) for each version that lacks a complete one.

    Sequential on purpose: one pip at a time. A venv is marked ``.complete`` only after ``import jax`` and a tiny
    computation work in it; a failed build is removed and reported, and the run goes on (those answers stay static).
    """
    missing = [v for v in sorted(versions, key=vkey) if not (jaxenvs / f"jax-{v}" / ".complete").exists()]
    if not missing:
        return 0.0
    base = python312()
    if base is None:
        print("  --build-venvs: no Python 3.12 interpreter found; no venv built", file=sys.stderr)
        return 0.0
    free = shutil.disk_usage(jaxenvs if jaxenvs.exists() else jaxenvs.parent).free
    need = len(missing) * 700 * 2**20  # ~600 MB a venv, plus pip's cache
    if free < need + 2 * 2**30:
        print(f"  --build-venvs: {len(missing)} venvs need ~{need / 2**30:.1f} GB, only {free / 2**30:.1f} GB free; "
              "no venv built", file=sys.stderr)
        return 0.0
    jaxlibs = jaxlib_versions(base)
    jaxenvs.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for v in missing:
        env_dir = jaxenvs / f"jax-{v}"
        if v in jaxlibs:
            jaxlib = f"jaxlib=={v}"
        else:
            older = [x for x in jaxlibs if vkey(x) < vkey(v)]
            if not older:
                print(f"  skip jax {v}: no jaxlib <= {v} with a Python 3.12 wheel on PyPI", file=sys.stderr)
                continue
            # a jax-only release (0.4.37 came with jaxlib 0.4.36): jax's own `jaxlib >=min, <=V` requirement decides
            jaxlib = f"jaxlib<={v}"
            print(f"  jax {v}: jaxlib {v} has no Python 3.12 wheel on PyPI; installing the jaxlib jax {v} requires",
                  file=sys.stderr)
        # absl-py: jax.experimental.pallas.tpu imports it in some releases (0.9.x), and the probe must import it
        extra = ["absl-py"] + (["numpy<2", "scipy<1.13"] if vkey(v) < vkey(OLD_NUMPY_BEFORE) else [])
        t = time.perf_counter()
        if env_dir.exists():
            shutil.rmtree(env_dir)
        subprocess.run([base, "-m", "venv", str(env_dir)], check=True)
        py = str(env_dir / "bin" / "python")
        proc = subprocess.run([py, "-m", "pip", "install", "-q", "--index-url", PYPI, f"jax=={v}", jaxlib, *extra],
                              check=False, capture_output=True, text=True, env=pypi_env())
        if proc.returncode == 0:
            smoke = (f"import jax, jaxlib, jax.numpy as jnp; assert jax.__version__ == {v!r}, jax.__version__; "
                     "float(jnp.ones(2).sum()); print(jaxlib.__version__)")
            proc = subprocess.run([py, "-W", "ignore", "-c", smoke], check=False, capture_output=True, text=True,
                                  env={**os.environ, "JAX_PLATFORMS": "cpu"})
        if proc.returncode != 0:
            print(f"  skip jax {v}: {(proc.stderr.strip().splitlines() or ['?'])[-1][:300]}", file=sys.stderr)
            shutil.rmtree(env_dir, ignore_errors=True)
            continue
        got = proc.stdout.strip().splitlines()[-1]
        (env_dir / ".complete").write_text(f"jax {v}\njaxlib {got}\n")
        print(f"  built {env_dir} (jaxlib {got}) in {time.perf_counter() - t:.0f}s", file=sys.stderr)
    spent = time.perf_counter() - t0
    print(f"venv building: {spent:.1f}s for {len(missing)} missing", file=sys.stderr)
    return spent
