"""What besides a file and its settings decides the findings: jaxlint's code and data, libcst, Python.

Standard library only: the results cache keys its files by it, and a replayed check (``jaxlint.run.replay``)
compares it before it imports anything else.
"""
from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache

import jaxlint
from jaxlint import __version__

FORMAT = 1  # of the results cache's files: part of the fingerprint


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """What besides a file and its settings decides the findings: jaxlint's code and data, libcst, Python.

    jaxlint's own files count by name, size and modification time (a stat each, not a read: this runs before any
    file is linted, on every run); editing or reinstalling one changes its time."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{FORMAT}|{__version__}|{sys.version_info[:3]}|{_libcst_version()}".encode())
    package = os.path.dirname(os.path.realpath(jaxlint.__file__))  # the whole package, wherever this module lies
    for directory, subdirectories, names in os.walk(package):
        subdirectories[:] = sorted(name for name in subdirectories if name != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".toml", ".json")):
                path = os.path.join(directory, name)
                try:
                    status = os.stat(path)
                except OSError:
                    continue
                digest.update(f"{os.path.relpath(path, package)}|{status.st_size}|{status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _libcst_version() -> str:
    """libcst's version from its ``_version.py``, found without importing libcst (a third of a second) or
    ``importlib.metadata`` (30 ms); the distribution's metadata when that file is missing (a vendored copy)."""
    from importlib.util import find_spec

    try:
        spec = find_spec("libcst")
        if spec is not None and spec.origin:
            with open(os.path.join(os.path.dirname(spec.origin), "_version.py"), "rb") as handle:
                return handle.read().decode("utf-8", "replace")
    except (OSError, ImportError, ValueError):
        pass
    try:
        from importlib.metadata import version

        return version("libcst")
    except Exception:  # pragma: no cover - neither (libcst missing: nothing can be linted anyway)
        return "?"
