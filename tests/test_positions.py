"""jaxlint.positions gives the spans libcst's PositionProvider gives, as character offsets."""
from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from jaxlint.diagnostics import LineIndex
from jaxlint.engine import lint_source
from jaxlint.positions import SpanError, node_spans
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings

SOURCES = [
    "import jax\nx = jax.tree_map(f, t)\n",
    "def f(a,\n      b):\n\tif a:  # c\n\t\treturn (a +\n\t\t        b)\n",
    "x = 1\r\ny = [1,\r\n     2]\r\n",
    "@dec\nclass A:\n    '''doc'''\n\n    def m(self): return f'{self!r:>10}'\n",
    "x = 1",  # no final newline
]


@pytest.mark.parametrize("source", SOURCES)
def test_spans_match_position_provider(source):
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    index = LineIndex(source)
    rows = source.count("\n") + (not source.endswith("\n"))

    def offset(position):  # PositionProvider counts the newline libcst adds to a file that lacks one
        return len(source) if position.line > rows else min(index.offset(position.line, position.column),
                                                              len(source))

    spans = node_spans(module, source)
    for node, code_range in positions.items():
        expected = (offset(code_range.start), offset(code_range.end))
        assert spans[node] == expected, type(node).__name__


def test_trailing_blank_lines_without_final_newline():
    # libcst drops whitespace-only lines at the end of such a file when it regenerates it (found by fuzzing): the
    # spans before them are still exact, the module's own span is refused rather than wrong.
    source = "import jax\ny = jax.tree_map(f, tree)\nA\n\n "
    module = cst.parse_module(source)
    assert module.code != source
    spans = node_spans(module, source)
    statement = module.body[1]
    start, end = spans[statement]
    assert source[start:end] == "y = jax.tree_map(f, tree)"
    with pytest.raises(SpanError):
        spans[module]
    rule = rule_by_code("JAX101")
    settings = example_settings(rule, rule.INVALID[0])
    found = lint_source(source, "example.py", settings, rules=[rule]).diagnostics
    assert [(d.code, d.start.row, d.start.column) for d in found] == [("JAX101", 2, 5)]
