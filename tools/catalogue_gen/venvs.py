"""``jax-<V>`` venvs (Python 3.12, CPU jaxlib from PyPI) for the run-time 'same object' check, built one at a time."""
from __future__ import annotations

import fcntl
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from catalogue_gen.releases import vkey

from catalogue_gen.venv_build import PYPI, bytecode_env, install, new_venv, pypi_env  # noqa: F401 (re-exported)

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
        # the tests build the same folders (tests/support/jaxenv.py): the same lock file, so one build at a time
        with open(jaxenvs / f".jax-{v}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (jaxenvs / f"jax-{v}" / ".complete").exists():
                _build_one(base, jaxenvs, v, jaxlibs)
    spent = time.perf_counter() - t0
    print(f"venv building: {spent:.1f}s for {len(missing)} missing", file=sys.stderr)
    return spent


def _smoke_test(py: str, v: str) -> subprocess.CompletedProcess:
    """A fresh venv's check: it imports JAX ``v`` and computes on the CPU (prints the jaxlib version)."""
    smoke = (f"import jax, jaxlib, jax.numpy as jnp; assert jax.__version__ == {v!r}, jax.__version__; "
             "float(jnp.ones(2).sum()); print(jaxlib.__version__)")
    return subprocess.run([py, "-W", "ignore", "-c", smoke], check=False, capture_output=True, text=True,
                          env=bytecode_env())


def _build_one(base: str, jaxenvs: Path, v: str, jaxlibs: set[str]) -> None:
    """Build ``<jaxenvs>/jax-<v>`` (the caller holds its lock); a failure is reported and leaves no folder."""
    env_dir = jaxenvs / f"jax-{v}"
    if v in jaxlibs:
        jaxlib = f"jaxlib=={v}"
    else:
        older = [x for x in jaxlibs if vkey(x) < vkey(v)]
        if not older:
            print(f"  skip jax {v}: no jaxlib <= {v} with a Python 3.12 wheel on PyPI", file=sys.stderr)
            return
        # a jax-only release (0.4.37 came with jaxlib 0.4.36): jax's own `jaxlib >=min, <=V` requirement decides
        jaxlib = f"jaxlib<={v}"
        print(f"  jax {v}: jaxlib {v} has no Python 3.12 wheel on PyPI; installing the jaxlib jax {v} requires",
              file=sys.stderr)
    # absl-py: jax.experimental.pallas.tpu imports it in some releases (0.9.x), and the probe must import it
    extra = ["absl-py"] + (["numpy<2", "scipy<1.13"] if vkey(v) < vkey(OLD_NUMPY_BEFORE) else [])
    t = time.perf_counter()
    py = str(new_venv(base, env_dir, jaxenvs))
    proc = install(py, [f"jax=={v}", jaxlib, *extra], jaxenvs)
    if proc.returncode == 0:
        proc = _smoke_test(py, v)
    if proc.returncode != 0:
        print(f"  skip jax {v}: {(proc.stderr.strip().splitlines() or ['?'])[-1][:300]}", file=sys.stderr)
        shutil.rmtree(env_dir, ignore_errors=True)
        return
    got = proc.stdout.strip().splitlines()[-1]
    (env_dir / ".complete").write_text(f"jax {v}\njaxlib {got}\n")
    print(f"  built {env_dir} (jaxlib {got}) in {time.perf_counter() - t:.0f}s", file=sys.stderr)


# Releases whose own jaxlib has no Linux wheel on PyPI (0.4.1-0.4.12 and 0.4.14-0.4.17 were published on Google's
# storage): jax's Python source (where the signatures live) paired with a jaxlib PyPI has, on the newest Python that
# jaxlib has wheels for, where jax accepts it. jax refuses a jaxlib newer than itself ("jaxlib version 0.4.13 is newer
# than and incompatible with jax version 0.4.12", tried for every release below) or older than its
# ``_minimum_jaxlib_version`` (0.4.14 for jax 0.4.16 and 0.4.17), so only 0.4.14 (minimum 0.4.11) gets one.
SUBSTITUTE_JAXLIB = {"0.4.13": ("0.4.13", "3.11"), "0.4.14": ("0.4.13", "3.11")}
# Why the others have no venv (the reason a row's check records).
NO_VENV = {v: f"jaxlib {v} has no Linux wheel on PyPI, and jax {v} refuses every jaxlib that has one"
           for v in ("0.4.1", "0.4.2", "0.4.3", "0.4.4", "0.4.5", "0.4.6", "0.4.7", "0.4.8", "0.4.9", "0.4.10",
                     "0.4.11", "0.4.12", "0.4.16", "0.4.17")}

def venv_dir(jaxenvs: Path, version: str) -> Path | None:
    """The complete venv of ``jax==version``: ``jax-<V>``, else ``jax-<V>-jaxlib-<W>`` (a substitute jaxlib)."""
    own = jaxenvs / f"jax-{version}"
    if (own / ".complete").exists():
        return own
    return next((p for p in sorted(jaxenvs.glob(f"jax-{version}-jaxlib-*")) if (p / ".complete").exists()), None)


def build_substitutes(jaxenvs: Path, versions: list[str]) -> float:
    """``jax-<V>-jaxlib-<W>`` (or ``jax-<V>`` where W is V) for the releases of ``SUBSTITUTE_JAXLIB`` that lack a
    venv, with pyenv's Python; built and marked as ``build_venvs`` does."""
    t0 = time.perf_counter()
    for v in sorted(versions, key=vkey):
        if v not in SUBSTITUTE_JAXLIB or venv_dir(jaxenvs, v) is not None:
            continue
        jaxlib, minor = SUBSTITUTE_JAXLIB[v]
        bases = sorted(Path.home().glob(f".pyenv/versions/{minor}.*/bin/python"))
        if not bases:
            print(f"  skip jax {v}: no Python {minor} (pyenv)", file=sys.stderr)
            continue
        name = f"jax-{v}" if jaxlib == v else f"jax-{v}-jaxlib-{jaxlib}"
        with open(jaxenvs / f".{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if (jaxenvs / name / ".complete").exists():
                continue
            env_dir = jaxenvs / name
            py = str(new_venv(str(bases[-1]), env_dir, jaxenvs))
            proc = install(py, [f"jax=={v}", f"jaxlib=={jaxlib}", "absl-py", "numpy<2", "scipy<1.13"], jaxenvs)
            if proc.returncode == 0:
                proc = _smoke_test(py, v)
            if proc.returncode != 0:
                print(f"  skip jax {v} with jaxlib {jaxlib}: "
                      f"{(proc.stderr.strip().splitlines() or ['?'])[-1][:300]}", file=sys.stderr)
                shutil.rmtree(env_dir, ignore_errors=True)
                continue
            (env_dir / ".complete").write_text(f"jax {v}\njaxlib {proc.stdout.strip().splitlines()[-1]}\n")
            print(f"  built {env_dir}", file=sys.stderr)
    return time.perf_counter() - t0
