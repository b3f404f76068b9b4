"""The public successors the generator found by origin (``source = "...+origin"``), executed: where the catalogue
says "same object", both names are one object at run time in the release that had both; every successor imports
in the newest JAX. Needs JAX venvs (``tests/support/jaxenv.py``)."""
from __future__ import annotations

import json
import subprocess

import pytest

from jaxlint.catalogue import load
from tests.catalogue.test_execution import OPTIONAL_PREFIXES
from tests.support.jaxenv import GET_DOTTED, jax_python

CAT = load()
ORIGIN_ROWS = [e for e in CAT.entries if e.source.endswith("+origin")]

PROBE = r"""
import importlib, json, sys, warnings
warnings.simplefilter("ignore")
""" + GET_DOTTED + r"""
def same(old, new):
    try:
        return get(old) is get(new)
    except Exception as exc:
        return repr(exc)
print(json.dumps({old: same(old, new) for old, new in json.load(sys.stdin)}))
"""

IMPORTS = r"""
import importlib, json, sys, warnings
warnings.simplefilter("ignore")
""" + GET_DOTTED + r"""
bad = {}
for name in json.load(sys.stdin):
    try:
        get(name)
    except Exception as exc:
        bad[name] = repr(exc)
print(json.dumps(bad))
"""


def run(version: str, probe: str, payload) -> dict:
    proc = subprocess.run([str(jax_python(version)), "-c", probe], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_there_are_successors_found_by_origin():
    assert len(ORIGIN_ROWS) > 100


@pytest.mark.jax
def test_every_successor_imports_in_the_newest_jax():
    names = {e.replacement for e in ORIGIN_ROWS if not e.replacement.startswith(OPTIONAL_PREFIXES)}
    assert run(CAT.newest_version, IMPORTS, sorted(names)) == {}


# Releases whose venvs the other execution tests build too: each "same object" claim checked there is run.
SHARED_RELEASES = ("0.10.2",)  # the only shared venv release that decided any (4 rows, runtime:0.10.2)


@pytest.mark.jax
@pytest.mark.parametrize("version", SHARED_RELEASES)
def test_same_object_claims_hold_at_run_time(version):
    pairs = [(e.name, e.replacement) for e in ORIGIN_ROWS if e.same_object
             and e.same_object_checked in (f"static:{version}", f"runtime:{version}")]
    if not pairs:
        pytest.skip(f"no same-object successor was decided at {version}")
    assert {old: r for old, r in run(version, PROBE, pairs).items() if r is not True} == {}
