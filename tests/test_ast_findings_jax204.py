"""JAX204 (``ds(start, None)``) decided from ``ast``: the calls without a fix exactly as the libcst visit reports
them, and ``Undecidable`` where the finding has a fix (libcst rebuilds the call). See ``tests/test_ast_findings.py``.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings
from test_ast_findings import ast_decided, libcst_findings

JAX204 = rule_by_code("JAX204")
_PL = "from jax.experimental import pallas as pl\n"
DECIDED = {
    "no finding": _PL + "x = r[pl.ds(i, n)]\ny = r[pl.ds(n)]\nz = r[pl.ds(None)]\nw = pl.ds(i, n, 2)\n",
    "a None start with a size": _PL + "x = r[pl.ds(None, n)]\n",
    "a size by keyword": _PL + "x = r[pl.dslice(None, size=n + 1)]\n",
    "a None start and size, a call as stride": _PL + "x = pl.ds(None, None, f(x))\n",
    "a stride": _PL + "x = pl.ds(i, None, 2)\n",
    "keywords": _PL + "x = pl.ds(start=i * 2, size=None, stride=s)\n",
    "jax.ds": "import jax\nx = jax.ds(None, 4)\n",
    "through the module": "import jax.experimental.pallas\nx = jax.experimental.pallas.ds(None, k)\n",
    "text with spaces and a string": _PL + "x = pl.ds(None,   n [ 'a' ] )\n",
    "on lines": _PL + "x = pl.ds(\n    None,\n    n)\ny = pl.ds(None, m +\n          1)\n",
    "a star": _PL + "x = pl.ds(*a, None)\ny = pl.ds(None, **k)\n",
    "another ds": "from mylib import ds\nx = ds(i, None)\nfrom jax.experimental.mosaic.gpu import ds as d\n"
                  "y = d(i, None)\n",
    "non-ASCII before": _PL + "s = 'é€𝄞'; x = pl.ds(None, ñ)\n",
    "noqa": _PL + "x = pl.ds(None, n)  # noqa: JAX204\ny = pl.ds(None, n)\n",
    "compat": "from jax.experimental import pallas as pl\ntry:\n    x = pl.ds(None, n)\nexcept AttributeError:\n"
              "    pass\n",
}
NEW_ONLY = replace(Settings(), explicit_min_version=Version("0.11.1"), min_version_source="test")
SETTINGS_DECIDED = {
    "only the new meaning": (NEW_ONLY, _PL + "x = pl.ds(None, n)\ny = pl.ds(i, None, 2)\n"),
}
UNDECIDED = {
    "a fix": _PL + "x = pl.ds(i, None)\n",
    "a fix, None start": _PL + "x = pl.ds(None, None)\n",
    "a stride of one": _PL + "x = pl.ds(i, None, 1)\n",
    "an argument in parentheses": _PL + "x = pl.ds(None, (n))\n",
    "the first argument in parentheses": _PL + "x = pl.ds((i), None, 2)\n",
    "a string stride": _PL + "x = pl.ds(None, None, 'a')\n",
    "a comment before an argument": _PL + "y = pl.ds(None,  # c,\n    m)\n",
}
EXAMPLES = [*JAX204.VALID, *JAX204.INVALID]


@pytest.mark.parametrize("settings,source", [*((None, source) for source in DECIDED.values()),
                                             *SETTINGS_DECIDED.values()], ids=[*DECIDED, *SETTINGS_DECIDED])
def test_decided_from_ast_exactly_as_libcst(settings, source):
    decided = ast_decided(source, [JAX204], settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, [JAX204], settings)


@pytest.mark.parametrize("source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(source):
    assert ast_decided(source, [JAX204]) is None


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"JAX204-{index}" for index in range(len(EXAMPLES))])
def test_rule_examples_both_ways(example):
    """Every example: decided exactly as libcst, or undecided; never decided where a fix exists."""
    settings = example_settings(JAX204, example)
    expected = libcst_findings(example.code, [JAX204], settings)
    decided = ast_decided(example.code, [JAX204], settings)
    if any(finding["fix"] for finding in expected):
        assert decided is None
    elif decided is not None:
        assert decided == expected


def test_the_cases_are_not_vacuous():
    found = {name: libcst_findings(source, [JAX204]) for name, source in DECIDED.items()}
    assert {name for name, findings in found.items() if not findings} == {"no finding", "a star", "another ds",
                                                                          "compat"}
    assert len(found["on lines"]) == 2 and len(found["noqa"]) == 1
    assert not any(finding["fix"] for findings in found.values() for finding in findings)
    settings, source = SETTINGS_DECIDED["only the new meaning"]
    assert len(libcst_findings(source, [JAX204], settings)) == 1
    assert sum(ast_decided(example.code, [JAX204], example_settings(JAX204, example)) is not None
               for example in EXAMPLES) >= 8
    for name, source in UNDECIDED.items():
        assert libcst_findings(source, [JAX204]), name


def test_engine_skips_libcst_for_jax204(monkeypatch):
    """Through the gates: a kernel's ``pl.ds`` calls without a fix, decided from ``ast``."""
    from dataclasses import asdict

    from jaxlint.lint.engine import lint_source
    from test_ast_findings import _engine_without_libcst

    source = DECIDED["no finding"] + "y = pl.ds(None, n)\n"
    expected = libcst_findings(source, [JAX204])
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", Settings(), rules=[JAX204])
    assert [asdict(d) for d in result.diagnostics] == expected and len(expected) == 1
