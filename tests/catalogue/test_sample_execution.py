"""The catalogue's rows checked by execution: what a row says is gone must fail in the newest JAX, and what it says
worked must work in an older release inside the row's [first_seen, last_seen] range.

Names are resolved as user code reaches them (attribute, else import); a keyword counts as accepted when
``inspect.signature`` has it as a positional-or-keyword or keyword-only parameter (or the function takes
``**kwargs``); a config option exists when ``jax.config`` knows it. The old releases are those a venv can be built
for from PyPI (jaxlib wheels on PyPI start at 0.4.13, which needs Python <= 3.11); rows last seen before 0.4.13 stay
static-only on the old side (their absence in the newest release is still checked). Venvs are built once and reused
(``tests/support/jaxenv.py``); one that cannot be built skips.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from jaxlint.catalogue import load
from jaxlint.project.versions import parse_version
from tests.support.jaxenv import jax_python, old_jax_python

CAT = load()
RESOLVE = Path(__file__).resolve().parents[2] / "tools" / "catalogue_gen" / "resolve.py"

# Names are reached as the catalogue generator reaches them (tools/catalogue_gen/resolve.py, prepended).
PROBE = RESOLVE.read_text() + "\n" + r"""
import functools, inspect, json, sys, warnings
warnings.simplefilter("ignore")
import jax

def resolves(dotted):
    try:
        get(dotted)
        return True
    except Exception:
        return False

def accepts(function, keyword):
    # [the signature as functools.wraps shows it (the def's own), the outermost wrapper's own]
    try:
        f = get(function)
    except Exception:
        return None  # the function itself is not reachable: not this row's question
    if isinstance(f, functools.partial):
        return None  # a linear_util transformation (``@lu.transformation``): the static signature is the generator's
    out = []
    for follow in (True, False):
        try:
            params = inspect.signature(f, follow_wrapped=follow).parameters
        except Exception:
            out.append(None)
            continue
        p = params.get(keyword)
        out.append(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) if p is not None
                   else any(q.kind == q.VAR_KEYWORD for q in params.values()))
    return out

def has_option(name):
    values = getattr(jax.config, "values", None) or getattr(jax.config, "_value_holders", {})
    return name in values or hasattr(jax.config, name)

job = json.load(sys.stdin)
print(json.dumps({
    "names": {n: resolves(n) for n in job["names"]},
    "keywords": {f"{f}({k}=)": accepts(f, k) for f, k in job["keywords"]},
    "options": {o: has_option(o) for o in job["options"]},
}))
"""

# Modules whose import needs hardware-specific or optional extras (TensorFlow for jax2tf, Mosaic GPU, TPU), so
# "cannot import" in a CPU venv says nothing about the row.
OPTIONAL = ("jax.experimental.jax2tf", "jax.experimental.mosaic", "jax.experimental.pallas", "jax.experimental.gda",
            "jax.experimental.global_device_array", "jax.experimental.jax2tf", "jax.experimental.host_callback",
            "jax.experimental.array_api", "jax.tools", "jax.experimental.array_serialization")
# Options defined in a module that ``import jax`` loads only when an optional package is installed.
CONDITIONAL_OPTIONS = frozenset({"jax_iree_backend"})  # jax/_src/iree.py, imported only with IREE


def probe(python, names=(), keywords=(), options=()) -> dict:
    job = {"names": sorted(names), "keywords": sorted(keywords), "options": sorted(options)}
    proc = subprocess.run([str(python), "-c", PROBE], input=json.dumps(job), capture_output=True, text=True,
                          timeout=900, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def removed_rows(in_range=lambda first, last: True):
    """(names, keywords, options) of the removed rows whose [first_seen, last_seen] satisfies ``in_range``."""
    names, keywords, options = set(), set(), set()
    for e in CAT.entries:
        if not e.removed_in or not e.first_seen or not e.last_seen or e.name.startswith(OPTIONAL):
            continue
        if e.source == "overlay" or e.attribute_survives or \
                not in_range(parse_version(e.first_seen), parse_version(e.last_seen)):
            continue
        if e.name not in CONDITIONAL_OPTIONS:
            (options if e.kind == "config" else names).add(e.name)
    for p in CAT.parameters:
        if p.first_seen and p.last_seen and not p.name.startswith(OPTIONAL) and p.reason is None and \
                in_range(parse_version(p.first_seen), parse_version(p.last_seen)):
            keywords.add((p.name, p.parameter))
    return names, keywords, options


@pytest.mark.jax
@pytest.mark.slow
def test_every_removed_row_fails_in_the_newest_jax():
    names, keywords, options = removed_rows()
    assert names and keywords and options
    got = probe(jax_python(CAT.newest_version), names, keywords, options)
    assert [n for n, ok in got["names"].items() if ok] == []
    # the def's own signature rejects it (a decorator's ``*args, **kwargs`` wrapper passes it on to the def)
    assert [k for k, ok in got["keywords"].items() if ok and ok[0]] == []
    assert [o for o, ok in got["options"].items() if ok] == []


@pytest.mark.jax
@pytest.mark.slow
@pytest.mark.parametrize("version, python", [("0.4.13", "3.10"), ("0.10.2", None)])
def test_rows_work_in_an_older_release_of_their_range(version, python):
    old = parse_version(version)
    names, keywords, options = removed_rows(lambda first, last: first <= old <= last)
    assert names or keywords or options
    got = probe(old_jax_python(version, python) if python else jax_python(version), names, keywords, options)
    assert [n for n, ok in got["names"].items() if not ok] == []
    # accepted by the def or by the wrapper the user calls (``jax.checkpoint(concrete=)`` in 0.4.13); None: the
    # function is not reachable in that release under this name
    assert [k for k, ok in got["keywords"].items() if ok is not None and True not in ok] == []
    assert [o for o, ok in got["options"].items() if not ok] == []
