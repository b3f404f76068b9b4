"""Every replacement the catalogue names must import in the newest JAX; fixes claimed valid from an older min
version must import there too. Needs JAX venvs (``tests/support/jaxenv.py``)."""
from __future__ import annotations

import json
import subprocess

import pytest

from jaxlint.catalogue import load
from tests.support.jaxenv import GET_DOTTED, jax_python

CAT = load()

PROBE = r"""
import importlib, json, sys, warnings
warnings.simplefilter("ignore")
""" + GET_DOTTED + r"""bad = {}
for name in json.load(sys.stdin):
    try:
        get(name)
    except Exception as exc:
        bad[name] = repr(exc)
print(json.dumps(bad))
"""

# Replacements that live in modules needing hardware-specific extras (Mosaic GPU, TPU) are checked only if importable.
OPTIONAL_PREFIXES = ("jax.experimental.mosaic", "jax.experimental.pallas.mosaic_gpu", "jax.experimental.pallas.triton",
                     "jax.experimental.array_serialization.serialization")  # imports tensorstore


def missing(version: str, names: set[str]) -> dict[str, str]:
    python = jax_python(version)
    proc = subprocess.run([str(python), "-c", PROBE], input=json.dumps(sorted(names)), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    bad = json.loads(proc.stdout.strip().splitlines()[-1])
    return {k: v for k, v in bad.items() if not (k.startswith(OPTIONAL_PREFIXES) and "ModuleNotFound" in v)}


def replacements() -> set[str]:
    out = set()
    for e in CAT.entries:
        if e.kind == "config":
            continue
        for name in (e.replacement, e.any_version_replacement, e.portable):
            if name and not (name.startswith("jax.experimental.pallas.tpu") or name.startswith(OPTIONAL_PREFIXES)):
                out.add(name)
    return out


@pytest.mark.jax
def test_every_replacement_imports_in_the_newest_jax():
    assert missing(CAT.newest_version, replacements()) == {}


def claimed_older() -> dict[str, set[str]]:
    """min version -> names a safe fix would write there, for the min versions we test."""
    by_version: dict[str, set[str]] = {}
    for version in ("0.10.2",):
        for e in CAT.entries:
            if e.kind != "symbol" or e.removed_at(version) and e.last_seen is None:
                continue
            name = e.safe_replacement(version)
            if name and not name.startswith(OPTIONAL_PREFIXES):  # hardware extras, as in ``replacements``
                by_version.setdefault(version, set()).add(name)
    return by_version


@pytest.mark.jax
@pytest.mark.parametrize("version", ["0.10.2"])
def test_fixes_claimed_valid_at_an_older_min_version_import_there(version):
    names = claimed_older().get(version, set())
    assert names
    assert missing(version, names) == {}
