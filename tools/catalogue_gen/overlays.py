"""Venvs to read every flax and optax release without a full venv each (~500 MB, 1-2 min apiece): a few base venvs
``libbase-jax-<V>`` (jax, jaxlib and the libraries' dependencies of one era, pulled in by installing that era's
flax and optax) and one overlay per release, installed ``--no-deps --target overlay-<library>-<V>`` (uv or pip:
``venv_build.install``), put first on ``PYTHONPATH`` so that it shadows the base's own copy. Built one at a time under the venv lock of ``venvs.py``."""
from __future__ import annotations

import fcntl
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from catalogue_gen.releases import vkey
from catalogue_gen.venv_build import install, new_venv
from catalogue_gen.venvs import python312

# base -> what is installed in it; the era's newest flax/optax bring the dependencies (msgpack, orbax, chex, ...)
BASES = {
    # jaxlib 0.4.13 (the oldest on PyPI) has no Python 3.12 wheel: this base is built with pyenv's 3.11 (BASE_PYTHON)
    "libbase-jax-0.4.13": ["jax==0.4.13", "jaxlib==0.4.13", "numpy<2", "scipy<1.13", "flax==0.6.11", "optax==0.1.7"],
    "libbase-jax-0.4.20": ["jax==0.4.20", "jaxlib==0.4.20", "numpy<2", "scipy<1.13", "flax==0.7.5", "optax==0.1.7"],
    "libbase-jax-0.4.35": ["jax==0.4.35", "jaxlib==0.4.35", "flax==0.10.2", "optax==0.2.4", "treescope"],
    "libbase-jax-0.6.2": ["jax==0.6.2", "jaxlib==0.6.2", "flax<0.12", "optax"],
    "libbase-jax-0.8.1": ["jax==0.8.1", "jaxlib==0.8.1", "flax<0.12.8", "optax"],
    # flax 0.12.7-0.12.9's nnx subclasses ``jax.experimental.hijax`` types: 0.12.7 and 0.12.8 (jax >= 0.10.0)
    # ``MutableHiType``, gone in jax 0.11.1; 0.12.9 (jax >= 0.11.1) ``HiPrimitive``, gone in jax 0.11.2
    "libbase-jax-0.11.0": ["jax==0.11.0", "jaxlib==0.11.0", "flax==0.12.8", "optax"],
    "libbase-jax-0.11.1": ["jax==0.11.1", "jaxlib==0.11.1", "flax==0.12.9", "optax"],
    "libbase-jax-0.12.0.1": ["jax==0.12.0.1", "jaxlib==0.12.0.1", "flax", "optax"],
}
BASE_PYTHON = {"libbase-jax-0.4.13": "3.11"}
# library -> (first release of an era, the base of that era), oldest first, as tried on 2026-12-06: flax <= 0.6.7
# imports ``jax.ShapedArray`` (gone in 0.4.14), 0.8.0-0.8.2 ``jax.experimental.maps`` (gone by 0.4.35), 0.10+ nnx
# needs treescope, 0.12.7-0.12.8 nnx ``hijax.MutableHiType`` (jax 0.10.0-0.11.0), 0.12.9 ``hijax.HiPrimitive`` with
# jax >= 0.11.1 (so jax 0.11.1 only), 0.12.10+ ``jax.extend.core.Effect``
# (not in 0.8.1); optax 0.2.5+ still needs chex, which the newer bases' optax no longer installs. A release whose
# own ``Requires-Dist: jax>=`` its era's base does not meet (flax 0.10.7: jax>=0.6.0) goes to the bases that do.
ERAS = {
    "flax": [("0.0", "libbase-jax-0.4.13"), ("0.7.0", "libbase-jax-0.4.20"), ("0.8.3", "libbase-jax-0.4.35"),
             ("0.11.0", "libbase-jax-0.6.2"), ("0.12.0", "libbase-jax-0.8.1"), ("0.12.7", "libbase-jax-0.11.0"),
             ("0.12.9", "libbase-jax-0.11.1"), ("0.12.10", "libbase-jax-0.12.0.1")],
    "optax": [("0.0", "libbase-jax-0.4.35")],
}


def base_jax(base: str) -> str:
    """The jax release that base ``base`` pins."""
    return next(spec.partition("==")[2] for spec in BASES[base] if spec.startswith("jax=="))


def bases_for(library: str, version: str, jax_floor: str | None = None) -> list[str]:
    """The bases to try for ``library==version``: its era's first, then the others nearest to it (a release that
    imports on neither side of its era boundary is unreadable, not misread); with ``jax_floor`` (the release's own
    ``jax>=``), the bases whose jax meets it before those too old for it, each group in that order."""
    eras = ERAS[library]
    own = max(i for i, (first, _) in enumerate(eras) if vkey(first) <= vkey(version))
    order = sorted(range(len(eras)), key=lambda i: (abs(i - own), i < own))
    bases = [eras[i][1] for i in order]
    if jax_floor:
        bases.sort(key=lambda base: vkey(base_jax(base)) < vkey(jax_floor))  # stable: the order within each group
    return bases


def jax_floor(target: Path, library: str) -> str | None:
    """The lowest jax that ``library``'s release in overlay ``target`` asks for: the ``>=`` bound of its
    ``Requires-Dist: jax`` (``jax>=0.6.0`` or the older ``jax (>=0.4.2)``, extras' requirements left out)."""
    for metadata in target.glob("*.dist-info/METADATA"):
        if not metadata.parent.name.lower().startswith(f"{library}-"):
            continue
        for line in metadata.read_text(encoding="utf-8", errors="replace").splitlines():
            found = re.match(r"Requires-Dist:\s*jax\b(?![-_.\w])\s*\(?([^;)]*)\)?\s*(?:;(.*))?$", line)
            if found and "extra" not in (found.group(2) or ""):
                floor = re.search(r">=\s*([\w.]+)", found.group(1))
                return floor.group(1) if floor else None
    return None


def _locked(envs: Path, name: str):
    envs.mkdir(parents=True, exist_ok=True)
    lock = open(envs / f".{name}.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def _interpreter(name: str) -> str | None:
    if name not in BASE_PYTHON:
        return python312()
    found = sorted(Path.home().glob(f".pyenv/versions/{BASE_PYTHON[name]}.*/bin/python"))
    return str(found[-1]) if found else None


def base_python(envs: Path, name: str) -> Path | None:
    """The python of base ``name``, built on first use (marked ``.complete`` after ``import jax`` computes)."""
    env_dir = envs / name
    if (env_dir / ".complete").exists():
        return env_dir / "bin" / "python"
    with _locked(envs, name):
        if not (env_dir / ".complete").exists():
            base = _interpreter(name)
            if base is None:
                return None
            t = time.perf_counter()
            py = str(new_venv(base, env_dir, envs))
            proc = install(py, ["absl-py", *BASES[name]], envs)
            if proc.returncode == 0:  # its environment writes bytecode: uv installs none
                proc = subprocess.run([py, "-W", "ignore", "-c", "import jax, jax.numpy as jnp, flax, optax; "
                                       "float(jnp.ones(2).sum()); print(jax.__version__, flax.__version__)"],
                                      capture_output=True, text=True, env={"JAX_PLATFORMS": "cpu"})
            if proc.returncode != 0:
                print(f"  skip {name}: {(proc.stderr.strip().splitlines() or ['?'])[-1][:300]}", file=sys.stderr)
                shutil.rmtree(env_dir, ignore_errors=True)
                return None
            (env_dir / ".complete").write_text(proc.stdout)
            print(f"  built {env_dir} ({proc.stdout.strip()}) in {time.perf_counter() - t:.0f}s", file=sys.stderr)
    return env_dir / "bin" / "python"


def overlay(envs: Path, library: str, version: str, python: Path) -> Path | None:
    """``overlay-<library>-<version>``: the release's own files only (``--no-deps``), installed with ``python``."""
    name = f"overlay-{library}-{version}"
    target = envs / name
    if (target / ".complete").exists():
        return target
    with _locked(envs, name):
        if not (target / ".complete").exists():
            shutil.rmtree(target, ignore_errors=True)
            proc = install(python, ["--no-deps", f"{library}=={version}"], envs, target=target)
            if proc.returncode != 0:
                print(f"  skip {name}: {(proc.stderr.strip().splitlines() or ['?'])[-1][:300]}", file=sys.stderr)
                shutil.rmtree(target, ignore_errors=True)
                return None
            (target / ".complete").write_text(f"{library} {version}\n")
    return target
