"""Virtual environments with a given JAX release, built once and reused by the tests.

They live in ``$JAXLINT_JAXENVS`` (default ``<repo>/.jaxenvs``, gitignored). They are made and filled by
``tools/catalogue_gen/venv_build.py`` (uv, installed once into ``.jaxenvs/uv-tool`` when jaxlint has none; pip
where uv cannot be had), which alone talks to the network, through the package index the tool is configured for.
"""
from __future__ import annotations

import os
import fcntl
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENVS = Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs"))

if str(REPO / "tools") not in sys.path:
    sys.path.append(str(REPO / "tools"))
from catalogue_gen.venv_build import bytecode_env, install, new_venv, uv_for  # noqa: E402


def _fill(env: Path, base: str, package_lists: list[list[str]]) -> subprocess.CompletedProcess:
    """A new venv of ``base`` at ``env`` with each list of ``package_lists`` installed in turn (the index the
    installer is configured for), then ``import jax`` once to write its bytecode; the first failure's result."""
    python = new_venv(base, env, ENVS, pypi_only=False)
    for packages in package_lists:
        proc = install(python, packages, ENVS, pypi_only=False)
        if proc.returncode != 0:
            return proc
    subprocess.run([str(python), "-W", "ignore", "-c", "import jax, jax.numpy"], capture_output=True,
                   env=bytecode_env())
    return proc


# For probe scripts run in a JAX venv (after ``import importlib``): the object a dotted name names, found as Python
# would (the longest importable module prefix, then ``getattr`` for the rest).
GET_DOTTED = """
def get(dotted):
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(dotted)
"""


def python312() -> str | None:
    """An interpreter that can install JAX 0.11+ (which needs Python 3.12)."""
    if sys.version_info[:2] == (3, 12):
        return sys.executable
    found = shutil.which("python3.12")
    if found:
        return found
    for candidate in sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python")):
        return str(candidate)
    return None


# The first jax release that depends on jaxlib (0.4.30's wheel: ``Requires-Dist: jaxlib <=0.4.30,>=0.4.27``; 0.4.28's
# names it only in extras): below it ``pip install jax`` gives a JAX that cannot import.
JAX_REQUIRES_JAXLIB = (0, 4, 30)


def jax_python(version: str) -> Path:
    """Path to the python of a venv holding ``jax==version`` (built on first use); skips the test if impossible.
    Below 0.4.30 it is ``old_jax_python(version, "3.12")``: the same folder, built the same way whichever test
    asks first (a jax without its jaxlib would fail every later test that imports it)."""
    if tuple(int(part) for part in re.findall(r"\d+", version)[:3]) < JAX_REQUIRES_JAXLIB:
        return old_jax_python(version, "3.12")
    return _built(f"jax-{version}", python312(), [[f"jax=={version}", "flatbuffers", "numpy"]], version,
                  on_failure=pytest.fail)


def _built(name: str, base: str | None, package_lists: list[list[str]], marker_text: str, *,
           on_failure=pytest.skip) -> Path:
    """The python of ``ENVS/name``: a venv of interpreter ``base`` with each list of ``package_lists`` installed
    in turn, built on first use and marked complete (``marker_text``: the JAX release, as every builder of these
    folders writes it). Parallel test workers (pytest-xdist) wait on one lock per folder, so none is built twice
    at once. Without ``base`` the test is skipped; a failed build is removed and the test is ``on_failure``."""
    env = ENVS / name
    python = env / "bin" / "python"
    marker = env / ".complete"
    if marker.exists():
        return python
    if base is None:
        pytest.skip(f"no Python interpreter to build {name} with")
    ENVS.mkdir(parents=True, exist_ok=True)
    with open(ENVS / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():
            return python
        proc = _fill(env, base, package_lists)
        if proc.returncode != 0:
            shutil.rmtree(env, ignore_errors=True)
            last = (proc.stderr.strip().splitlines() or ["?"])[-1]
            on_failure(f"cannot build {name} ({' '.join(p for ps in package_lists for p in ps)}): {last}")
        marker.write_text(marker_text)
    return python


def run_on_jax(version: str, source: str) -> str:
    """Run ``source`` with ``jax==version`` on CPU, warnings off; return its stdout (the test fails if it raises)."""
    proc = subprocess.run([str(jax_python(version)), "-W", "ignore", "-c", source], capture_output=True, text=True,
                          timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


# Pins an old release needs beside its own jaxlib (built against NumPy 1; SciPy's tril/triu went in 1.13).
OLD_RELEASE_PINS = ("numpy<2", "scipy<1.13")


def old_jax_python(version: str, python_minor: str) -> Path:
    """A venv of ``jax==version`` with ``jaxlib==version`` on an older Python from pyenv (``3.10``), for releases
    that have no Python 3.12 wheel; built once and reused. Skips the test when no such Python or wheel exists."""
    return _pyenv_venv(f"jax-{version}", python_minor, [f"jax=={version}", f"jaxlib=={version}", *OLD_RELEASE_PINS],
                       version, fail=False)


def python310_target(version: str = "0.6.2") -> Path:
    """A Python 3.10 venv with ``jax==version`` and its jaxlib at today's packages (the newest JAX that supports
    3.10): the target of a verify whose baseline is the oldest JAX that installs on 3.10. Skips without 3.10."""
    return _pyenv_venv(f"target-py310-jax-{version}", "3.10", [f"jax=={version}", f"jaxlib=={version}"],
                       version, fail=True)


def _pyenv_venv(name: str, python_minor: str, packages: list[str], version: str, *, fail: bool) -> Path:
    """``ENVS/name``: a venv of pyenv's newest Python ``python_minor`` with ``packages``, built once and reused.
    Without that Python the test is skipped; when the install fails it fails (``fail``) or is skipped (a release
    that has no wheel for that Python)."""
    if (ENVS / name / ".complete").exists():
        return ENVS / name / "bin" / "python"
    bases = sorted(Path.home().glob(f".pyenv/versions/{python_minor}.*/bin/python"))
    if not bases:
        pytest.skip(f"no Python {python_minor} (pyenv) to build {name} with")
    return _built(name, str(bases[-1]), [packages], version, on_failure=pytest.fail if fail else pytest.skip)


def uv_executable() -> str:
    """uv for the tests that build environments with it: the one jaxlint would find, else one installed once with
    pip into ``$JAXLINT_JAXENVS/uv-tool`` (skips the test when neither works)."""
    found = uv_for(ENVS)
    if not found:
        pytest.skip("cannot install uv")
    return found


# flax around the plain-dict change (0.7.0 returns FrozenDict, 0.7.1 dict), both on the same JAX; flax's heavier
# dependencies (orbax, tensorstore) are left out: ``flax.linen`` and ``flax.training.train_state`` do not need them.
FLAX_JAX = "0.4.20"
FLAX_LIGHT_DEPENDENCIES = ("msgpack", "rich", "typing_extensions", "pyyaml", "optax==0.1.7", "chex==0.1.85", "toolz",
                           "absl-py", "markdown-it-py", "mdurl", "pygments")


def flax_python(version: str) -> Path:
    """A Python 3.12 venv with ``flax==version`` on JAX 0.4.20, built once and reused; skips the test when it
    cannot be built."""
    return _built(f"flax-{version}-jax-{FLAX_JAX}", python312(),
                  [[f"jax=={FLAX_JAX}", f"jaxlib=={FLAX_JAX}", *OLD_RELEASE_PINS],
                   ["--no-deps", f"flax=={version}", *FLAX_LIGHT_DEPENDENCIES]], version)


# The environments named in test data (tests/data/breakages, tools/check_deprecation_warnings.py) that no other
# helper builds: their packages, as tests/data/breakages/README.md lists them.
NAMED_ENVS = {
    "warns-flax-0.12.12-optax-0.2.8-jax-0.12.0.1": ["jax==0.12.0.1", "jaxlib==0.12.0.1", "flax==0.12.12",
                                                    "optax==0.2.8"],
    "recall-flax-0.12.12-jax-0.12.0.1": ["jax==0.12.0.1", "jaxlib==0.12.0.1", "flax==0.12.12", "optax==0.2.8"],
    "recall-flax-0.10.2-jax-0.4.35": ["jax==0.4.35", "jaxlib==0.4.35", "flax==0.10.2", "optax==0.2.4", "numpy<2.2"],
}


# flax's light dependencies from 0.10 on (``flax.nnx`` imports treescope; orbax and tensorstore are left out)
NNX_LIGHT_DEPENDENCIES = ("msgpack", "rich", "typing_extensions", "pyyaml", "treescope")


def flax_optax_python(flax: str, optax: str, jax: str) -> Path:
    """``ENVS/flax-<flax>-optax-<optax>-jax-<jax>`` on Python 3.12: JAX and optax with their dependencies, flax
    without its heavy ones (the behaviour examples of rules/behaviour.toml compare two such envs on one JAX)."""
    return _built(f"flax-{flax}-optax-{optax}-jax-{jax}", python312(),
                  [[f"jax=={jax}", f"jaxlib=={jax}", f"optax=={optax}"],
                   ["--no-deps", f"flax=={flax}", *NNX_LIGHT_DEPENDENCIES]], jax)


def named_env(name: str) -> Path:
    """The python of the environment ``name`` as test data names it (``jax-0.4.20``, ``flax-0.7.0-jax-0.4.20``,
    ``recall-...``), built on first use by the helper that builds such folders, so that a test on a fresh machine
    runs instead of skipping. A name no helper knows skips the test."""
    if name in NAMED_ENVS:
        version = next(p.split("==")[1] for p in NAMED_ENVS[name] if p.startswith("jax=="))
        return _pyenv_venv(name, "3.12", NAMED_ENVS[name], version, fail=False)
    if name.startswith("flax-") and name.endswith(f"-jax-{FLAX_JAX}"):
        return flax_python(name.split("-")[1])
    if re.fullmatch(r"flax-[\d.]+-optax-[\d.]+-jax-[\d.]+", name):
        return flax_optax_python(*name.split("-")[1::2])
    if name.startswith("jax-"):
        version = name[len("jax-"):]
        if version == "0.4.13":
            return old_jax_python(version, "3.10")
        if version in ("0.4.20", "0.4.24"):  # no numpy 2 then: the old-release pins
            return old_jax_python(version, "3.12")
        return jax_python(version)
    pytest.skip(f"no helper builds the environment {name}")
