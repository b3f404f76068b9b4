"""Engine guarantees independent of any one rule: bad fixes never written, fix loop convergence, deletions,
span mapping for the verifier, prefilter, compat-code skipping."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxlint.lint.diagnostics import Edit
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.lint.fixes import apply_edits, invert_edits, map_span
from jaxlint.rules.base import DeleteStatement, InsertAfter, InsertBefore, Replace, Rule, safe_fix, unsafe_fix
from jaxlint.project.settings import Settings

SETTINGS = Settings()


class _TestRule(Rule):
    code = "JAX999"
    name = "test-rule"
    summary = "test only"
    explanation = "test only"
    since = "0.4.20"
    triggers = ("boom",)


class BreaksCode(_TestRule):
    """Replaces every call to ``boom`` with text that does not parse."""

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "boom":
            self.report(node, "boom", safe_fix("break it", Replace(node, "boom(")))


class WrapsInList(_TestRule):
    def visit_Call(self, node: cst.Call) -> None:
        ancestors = self.context.ancestors
        wrapped = len(ancestors) >= 3 and isinstance(ancestors[-3], cst.Call) and \
            getattr(ancestors[-3].func, "value", "") == "list"
        if isinstance(node.func, cst.Name) and node.func.value == "boom" and not wrapped:
            self.report(node, "wrap", safe_fix("wrap", InsertBefore(node, "list("), InsertAfter(node, ")"),
                                                probe=node))


class DeletesBoom(_TestRule):
    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call) and getattr(node.value.func, "value", "") == "boom":
            self.report(node, "delete", safe_fix("delete", DeleteStatement(node)))


class RenamesForever(_TestRule):
    """A buggy rule whose fix re-triggers itself: the loop must stop."""

    def visit_Name(self, node: cst.Name) -> None:
        if node.value.startswith("boom"):
            self.report(node, "grow", safe_fix("grow", Replace(node, node.value + "x")))


class UnsafeOnly(_TestRule):
    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "boom":
            self.report(node, "unsafe", unsafe_fix("rename", Replace(node.func, "bang")))


def fix(rule, source: str, unsafe: bool = False):
    return fix_source(textwrap.dedent(source), "t.py", SETTINGS, rules=[rule], unsafe=unsafe)


def test_a_fix_that_breaks_the_code_is_rejected_and_never_applied():
    outcome = fix(BreaksCode, "x = boom(1)\n")
    assert outcome.source == "x = boom(1)\n"
    assert [d.message for d in outcome.rejected] == ["boom"]
    assert not outcome.applied


def test_good_fixes_still_apply_when_another_breaks():
    class Mixed(_TestRule):
        def visit_Call(self, node: cst.Call) -> None:
            name = getattr(node.func, "value", "")
            if name == "boom":
                self.report(node, "bad", safe_fix("bad", Replace(node, "boom(")))
            elif name == "boomok":
                self.report(node, "good", safe_fix("good", Replace(node.func, "fine")))

    outcome = fix(Mixed, "a = boom(1)\nb = boomok(2)\n")
    assert outcome.source == "a = boom(1)\nb = fine(2)\n"
    assert len(outcome.rejected) == 1


def test_fix_loop_is_bounded():
    outcome = fix(RenamesForever, "boom = 1\n")
    assert outcome.source.startswith("boom") and len(outcome.applied) == 10


def test_unsafe_fixes_need_opt_in():
    assert fix(UnsafeOnly, "boom(1)\n").source == "boom(1)\n"
    assert fix(UnsafeOnly, "boom(1)\n", unsafe=True).source == "bang(1)\n"


def test_nested_fixes_converge_over_iterations():
    outcome = fix(WrapsInList, "y = boom(boom(1))\n")
    # Nested sites: each call is wrapped exactly once, and the result is stable.
    assert outcome.source == "y = list(boom(list(boom(1))))\n"
    assert len(outcome.applied) == 2


@pytest.mark.parametrize("source,expected", [
    ("a = 1\nboom()\nb = 2\n", "a = 1\nb = 2\n"),
    ("a = 1\nboom()  # why\nb = 2\n", "a = 1\nb = 2\n"),
    ("if x:\n    boom()\n", "if x:\n    pass\n"),
    ("if x:\n    boom()\n    y = 1\n", "if x:\n    y = 1\n"),
    ("if x: boom()\n", "if x: pass\n"),
    ("a = 1; boom(); b = 2\n", "a = 1; b = 2\n"),
    ("a = 1; boom()\n", "a = 1\n"),
    ("boom(); a = 1\n", "a = 1\n"),
    ("boom(\n    1,\n)\nz = 0\n", "z = 0\n"),
    ("a = 1\r\nboom()\r\nb = 2\r\n", "a = 1\r\nb = 2\r\n"),
    ("boom()\n", ""),
])
def test_delete_statement(source, expected):
    assert fix(DeletesBoom, source).source == expected


def test_probe_spans_cover_the_rewritten_expression():
    source = "a = 1\ny = boom(2) + 3\n"
    outcome = fix(WrapsInList, source)
    (applied,) = outcome.applied
    start, end = applied.probe_original
    assert source[start:end] == "boom(2)"
    start, end = applied.probe_fixed
    assert outcome.source[start:end] == "list(boom(2))"
    assert (applied.row, applied.column) == (2, 5)


def test_map_span_and_invert():
    source = "0123456789"
    edits = [Edit(2, 2, "(("), Edit(5, 7, "X")]
    new = apply_edits(source, edits)
    assert new == "01((234X789"
    assert map_span((2, 5), edits) == (2, 7)  # the insertion at the start goes inside
    assert apply_edits(new, invert_edits(edits, source)) == source


def test_code_after_a_jax_feature_test_in_and_is_compat_code():
    source = textwrap.dedent("""
        import jax
        ok = hasattr(jax, "pxla") and hasattr(jax.pxla, "X") and boom(1)
        bad = boom(2) and hasattr(jax, "pxla")
        other = hasattr(obj, "pxla") and boom(3)
    """)
    rows = [d.start.row for d in lint_source(source, "t.py", SETTINGS, rules=[WrapsInList]).diagnostics]
    assert rows == [4, 5]


def test_prefilter_skips_files_without_triggers():
    result = lint_source("import jax\n", "t.py", SETTINGS, rules=[WrapsInList])
    assert result.diagnostics == [] and result.parsed is False


def test_compat_code_is_skipped():
    source = textwrap.dedent("""
        import jax
        try:
            boom(1)
        except ImportError:
            pass
        if hasattr(jax, "tree"):
            boom(2)
        if jax.__version_info__ < (0, 4, 30):
            boom(3)
        try:
            boom(4)
        except ValueError:
            pass
        boom(5)
    """)
    rows = [d.start.row for d in lint_source(source, "t.py", SETTINGS, rules=[WrapsInList]).diagnostics]
    assert rows == [12, 15]


def test_a_linted_file_leaves_no_cycle_holding_its_tree():
    """jaxlint runs the cycle collector rarely (``cli._collect_garbage_rarely``): a tree kept alive by a reference
    cycle would stay in memory until then, and a large file's pieces would pile up (the 5 MB benchmark file once
    took 500 MiB instead of 300). Reference counting alone must free every tree."""
    import gc

    from jaxlint.lint.engine import fix_source
    from jaxlint.rules import all_rules
    from support.corpus import named_sources

    enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    try:
        for _, source in named_sources():
            lint_source(source, "x.py", Settings(), rules=all_rules())
            fix_source(source, "x.py", Settings(), unsafe=True)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        gc.set_debug(0)
        kept = [type(o).__name__ for o in gc.garbage if type(o).__module__.startswith(("libcst", "jaxlint"))]
        assert not kept, kept[:5]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
