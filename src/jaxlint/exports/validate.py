"""Checks of the ``jaxlint exports`` arguments that can be wrong, done before any environment is built or any
artifact is touched (an environment costs minutes and hundreds of megabytes; a typo must not)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.exports.jaxrun import RESULT_PREFIX, worker_env
from jaxlint.project.versions import Version, parse_version


class InvalidArgument(ValueError):
    """A usage error found before anything was built or run (``jaxlint exports: error: ...``, exit 2)."""


# Run in the interpreter being checked, from the current directory (where --import modules are looked up, as the
# workers do): its JAX, whether jax.export can (de)serialize there, and whether each --import module imports.
_PROBE = r"""
import importlib, importlib.util, json, os, sys
sys.path.insert(0, os.getcwd())
out = {"jax": None, "jax_error": None, "flatbuffers": False, "imports": {}}
try:
    import jax
    out["jax"] = jax.__version__
except Exception as err:
    out["jax_error"] = f"{type(err).__name__}: {err}"
out["flatbuffers"] = importlib.util.find_spec("flatbuffers") is not None
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except BaseException as err:
        text = str(err).strip().splitlines()
        out["imports"][name] = f"{type(err).__name__}: {text[0] if text else ''}"
print(PREFIX + json.dumps(out))
"""


@dataclass
class Interpreter:
    python: Path
    jax: Version
    import_errors: dict[str, str] = field(default_factory=dict)


def probe(python: Path, option: str, imports: tuple[str, ...] = ()) -> Interpreter:
    """The interpreter's JAX; refused when it cannot run, has no JAX or no flatbuffers, or an ``--import`` fails."""
    script = _PROBE.replace("PREFIX", repr(RESULT_PREFIX))
    try:
        proc = subprocess.run([str(python), "-c", script, *imports], capture_output=True, text=True, timeout=300,
                              env=worker_env())
    except OSError as err:
        raise InvalidArgument(f"{option} {python}: cannot run it ({err.strerror})") from None
    except subprocess.TimeoutExpired:
        raise InvalidArgument(f"{option} {python}: importing JAX there took more than 300 s") from None
    lines = [line for line in proc.stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    if not lines:
        last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        raise InvalidArgument(f"{option} {python}: not a Python interpreter jaxlint can use ({last})")
    found = json.loads(lines[-1][len(RESULT_PREFIX):])
    if found["jax"] is None:
        raise InvalidArgument(f"{option} {python} has no JAX ({found['jax_error']}): give the python of an "
                              "environment with JAX installed")
    if not found["flatbuffers"]:
        raise InvalidArgument(f"{option} {python} has JAX {found['jax']} but not flatbuffers, which jax.export "
                              "needs to read and write artifacts (`pip install flatbuffers` there)")
    for name, error in found["imports"].items():
        raise InvalidArgument(f"--import {name}: {error} (imported in {python}, from {os.getcwd()})")
    try:
        version = parse_version(found["jax"])
    except ValueError:
        version = Version(found["jax"].split("+")[0].split(".dev")[0])
    return Interpreter(python, version)


# What an environment jaxlint builds holds besides the standard library (jax, its dependencies, EXTRA_PACKAGES).
_IN_BUILT_ENVS = {"jax", "jaxlib", "numpy", "flatbuffers", "ml_dtypes", "opt_einsum", "scipy"}


def check_import_names(imports: tuple[str, ...], *, built_env_too: bool) -> None:
    """Each ``--import`` is a dotted module name; with ``built_env_too`` (an environment jaxlint is about to build
    will import it) its top-level package must be findable now: in the current directory, the standard library or
    what such an environment holds. Whether it imports is checked in each interpreter (``probe``)."""
    for name in imports:
        if not name or not all(part.isidentifier() for part in name.split(".")):
            raise InvalidArgument(f"--import {name!r}: not a module name (e.g. mypackage.effects)")
        if not built_env_too:
            continue
        top = name.split(".")[0]
        if top in _IN_BUILT_ENVS or top in getattr(sys, "stdlib_module_names", ()) or _in_folder(top, Path.cwd()):
            continue
        raise InvalidArgument(f"--import {name}: no module {top!r} in the current directory ({os.getcwd()}), and "
                              "the environment jaxlint builds holds only JAX, NumPy and flatbuffers: run from the "
                              "folder that holds it, or give --target-python/--baseline-python of an environment "
                              "where it is installed")


def _in_folder(top: str, folder: Path) -> bool:
    return (folder / f"{top}.py").is_file() or (folder / top).is_dir() or any(folder.glob(f"{top}.*.so"))


def check_published(version: Version, option: str, pip_python: str) -> None:
    """A JAX release to build an environment for must exist on the package index (asked through pip)."""
    from jaxlint.verify.validate import _distance, published_jax_versions

    available = published_jax_versions(pip_python)
    if available is not None and str(version) not in available:
        near = sorted(available, key=lambda v: _distance(v, version))[:5]
        raise InvalidArgument(f"{option} {version}: the package index has no jax {version} (closest: "
                              f"{', '.join(near)})")


def same_version_note(baseline: Version, target: Version) -> str | None:
    if baseline != target:
        return None
    return (f"warning: the baseline and the target are both JAX {target}: the comparison proves nothing about the "
            "upgrade")

