"""A cut of a file (``jaxlint.lint.cuts``): its text is linted alone, and what it finds (the place, the fix's edits
and probe) is moved back to the file's offsets, rows and columns. Both ``focus`` and ``large_files`` rely on it."""
from __future__ import annotations

import pytest

from jaxlint.lint import engine
from jaxlint.lint.cuts import Cut, OffsetMap, binds_of, moved
from jaxlint.lint.diagnostics import Applicability, Diagnostic, Edit, Fix, LineIndex, Location
from jaxlint.lint.fixes import apply_edits
from jaxlint.project.settings import Settings
from jaxlint.rules import rule_by_code


def test_offsets_within_a_range_and_where_two_ranges_meet():
    # text "bcd" + "hij" from "abcdefghijk"
    offsets = OffsetMap([(1, 4), (7, 10)])
    assert [offsets.to_file(offset) for offset in range(7)] == [1, 2, 3, 7, 8, 9, 10]
    # the end of a span that ends where the first range ends is that range's end, not the next range's start
    assert offsets.to_file(3, end=True) == 4
    assert offsets.to_file(0, end=True) == 1
    assert offsets.span_to_file(1, 3) == (2, 4)
    assert offsets.span_to_file(3, 3) == (7, 7)  # an insertion stays a point, before what follows it
    assert offsets.span_to_file(2, 5) == (3, 9)


def _statement(source: str, text: str) -> tuple[int, int]:
    """The range of the line(s) of ``source`` starting with ``text``, through the end of its last line."""
    start = source.index(text)
    end = source.find("\n", start)
    return start, len(source) if end == -1 else end + 1


def _lint_whole(source: str) -> list[Diagnostic]:
    return engine.lint_source(source, "x.py", Settings(), rules=[rule_by_code("JAX101")], whole=True).diagnostics


def _lint_cut(source: str, cut: Cut) -> list[Diagnostic]:
    text = cut.text(source)
    found = engine.lint_source(text, "x.py", Settings(), rules=[rule_by_code("JAX101")], whole=True,
                               file_text=source).diagnostics
    return cut.findings_in_file(found, LineIndex(source))


def _edits(diagnostics: list[Diagnostic]) -> list[tuple]:
    # ``Edit`` compares offsets and content only: the rows and columns are checked here
    return [(edit.start, edit.end, edit.content, edit.location, edit.end_location)
            for diagnostic in diagnostics for edit in diagnostic.fix.edits]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_cut_finds_and_fixes_at_the_files_places(newline):
    # Non-ASCII before, between and after the cut's ranges; the last statement has no final newline.
    lines = ["import jax", "# café, ünïcode", "X = 'naïve ß'", "def f(t):", "    y = 'é'; return jax.tree_map(g, t)",
             "W = 'ΩΩΩ'", "Z = jax.tree_map"]
    source = newline.join(lines)
    header = _statement(source, "import jax")
    function = (source.index("def f"), source.index("W = "))
    last = (source.index("Z = "), len(source))
    cut = Cut([header, function, last], [function, last])
    assert cut.text(source) == newline.join(["import jax", *lines[3:5], "Z = jax.tree_map"])

    found = _lint_cut(source, cut)
    whole = _lint_whole(source)
    assert [d.code for d in found] == ["JAX101", "JAX101"]
    assert found == whole and _edits(found) == _edits(whole)
    first, second = found
    assert (first.start_offset, first.end_offset) == (source.index("jax.tree_map(g"),
                                                      source.index("jax.tree_map(g") + len("jax.tree_map"))
    assert (first.start, first.end, first.noqa_row) == (Location(5, 21), Location(5, 33), 5)
    assert (second.start_offset, second.end_offset) == (len(source) - len("jax.tree_map"), len(source))
    assert (second.start, second.end) == (Location(7, 5), Location(7, 17))
    assert _edits(found)[-1] == (len(source) - len("jax.tree_map"), len(source), "jax.tree.map", Location(7, 5),
                                 Location(7, 17))
    fixed = apply_edits(source, [edit for diagnostic in found for edit in diagnostic.fix.edits])
    assert fixed == source.replace("jax.tree_map", "jax.tree.map")


def test_only_the_own_ranges_findings_are_kept():
    source = "import jax\nA = jax.tree_map\nB = jax.tree_map\n"
    both = (source.index("A"), len(source))
    cut = Cut([(0, len(source))], [_statement(source, "B = ")])
    assert [d.start.row for d in _lint_cut(source, cut)] == [3]
    assert [d.start.row for d in _lint_cut(source, Cut([(0, len(source))], [both]))] == [2, 3]


def test_the_end_of_the_file_belongs_to_the_cut_that_ends_there():
    source = "x = 1\ny = ("
    assert Cut([(0, 11)], [(6, 11)]).owns(11, len(source))
    assert not Cut([(0, 11)], [(0, 6)]).owns(11, len(source))
    assert not Cut([(0, 6)], [(0, 6)]).owns(6, len(source))  # a range's end is the next one's start
    assert Cut([(0, 6)], [(0, 6)]).owns(5, len(source))


def test_moved_places_a_fix_at_range_boundaries():
    # the cut's text "import jax\n" + "A = x\n" from a file with a statement between them
    source = "import jax\nQ = 'ü'\nA = x\n"
    cut = Cut([(0, 11), (19, 25)], [(19, 25)])
    assert cut.text(source) == "import jax\nA = x\n"
    index = LineIndex(source)
    # a finding on "import jax\n" (ending where the first range ends), an insertion where the two ranges meet,
    # a replacement of "x" and a probe on it
    edits = (Edit(11, 11, "import os\n"), Edit(15, 16, "y"))
    diagnostic = Diagnostic("JAX101", "m", "x.py", Location(1, 1), Location(2, 1), start_offset=0, end_offset=11,
                            fix=Fix(Applicability.SAFE, "f", edits, probe=(15, 16)), noqa_row=1)
    result = moved(diagnostic, cut.offsets, index)
    assert (result.start_offset, result.end_offset) == (0, 11)  # not stretched to 19 over the cut statement
    assert (result.start, result.end, result.noqa_row) == (Location(1, 1), Location(2, 1), 1)
    assert [(e.start, e.end, e.location, e.end_location) for e in result.fix.edits] == [
        (19, 19, Location(3, 1), Location(3, 1)), (23, 24, Location(3, 5), Location(3, 6))]
    assert result.fix.probe == (23, 24)
    assert apply_edits(source, list(result.fix.edits)) == "import jax\nQ = 'ü'\nimport os\nA = y\n"
    unsuppressible = moved(Diagnostic("JAX000", "m", "x.py", Location(2, 1), Location(2, 1), 11, 11), cut.offsets,
                           index)
    assert (unsuppressible.start_offset, unsuppressible.start, unsuppressible.noqa_row) == (19, Location(3, 1), None)


@pytest.mark.parametrize("text, binds", [
    ("x = 1\n", {"x"}),
    ("a.b[i] += f(c)\n", {"a", "b", "i"}),
    ("def jax(x=1):\n    y = 2\n", {"jax"}),
    ("@dec\nclass Model:\n    x = 1\n", {"Model"}),
    ("def f():\n    global jax, np\n    jax = 1\n", {"f", "jax", "np"}),
    ("print(y := 3)\n", {"y"}),
    ("f(x)\n", set()),
])
def test_what_a_statement_may_bind(text, binds):
    assert binds_of(text) == binds
