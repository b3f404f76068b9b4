"""Verdicts that say why a site was not verified (issue 36, verify in upgrade): the values entering it differ, a run
died before it, where a run died (never a warning's line). Recorded probe data, no JAX."""
from __future__ import annotations

from pathlib import Path

from jaxlint.lint.diagnostics import Applicability
from jaxlint.lint.engine import AppliedFix
from jaxlint.verify.compare import STATUSES, decide
from jaxlint.verify.inputs import argument_pairs
from jaxlint.verify.plan import Site
from jaxlint.verify.report import MARKS
from jaxlint.verify.run import RunResult, crash_location
from tests.verify.test_compare import _runtime


def _site(row, code="JAX101"):
    fix = AppliedFix(code, "m", row, 1, Applicability.SAFE, "fix", (0, 5), (0, 5))
    return Site(f"m.py:{row}:{code}:1", Path("/t/m.py"), "m.py", row, 1, code, "m", fix)


def _run(label, code=0, stderr=(), stdout=()):
    return RunResult(label, "py", [], code, 1.0, Path("/r"), Path("/t"), list(stdout), list(stderr))


# -- where a run died ------------------------------------------------------------------------------------------
_WARNED_THEN_CRASHED = [
    "/t/m.py:5: FutureWarning: jax.tree_map is deprecated",
    "  return jax.tree_map(f, x)",
    "Traceback (most recent call last):",
    '  File "/t/main.py", line 9, in <module>',
    '  File "/t/m.py", line 3, in run',
    '  File "/venv/lib/python3.12/site-packages/jax/_src/deprecations.py", line 54, in getattr',
    "AttributeError: module 'jax' has no attribute 'tree_multimap'",
    "/t/m.py:7: DeprecationWarning: printed after the traceback",
]


def test_the_crash_location_is_the_last_project_frame_of_the_traceback_never_a_warning_line():
    assert crash_location(_run("BEFORE", 1, _WARNED_THEN_CRASHED)) == ("m.py", 3)
    # pytest's report on stdout: its `path:line: Error` lines are frames, its warnings summary is not.
    pytest_out = ["m.py:3: in run", "E   AttributeError: no tree_multimap", "m.py:3: AttributeError",
                  "  /t/m.py:5: FutureWarning: jax.tree_map is deprecated"]
    assert crash_location(_run("BEFORE", 1, stdout=pytest_out)) == ("m.py", 3)
    assert crash_location(_run("BEFORE", 1, ["/t/m.py:5: FutureWarning: deprecated", "ValueError: x"])) is None
    assert crash_location(_run("BEFORE", 0, _WARNED_THEN_CRASHED)) is None  # a run that succeeded died nowhere


def test_cannot_verify_lands_on_the_crash_line_not_on_a_warning_line():
    warned, crashed = _site(5), _site(3)
    values = {"sites": {warned.id: {"after_count": 1}, crashed.id: {"after_count": 1}}}
    results = {r.site.row: r for r in decide([warned, crashed], values, _run("BEFORE", 1, _WARNED_THEN_CRASHED),
                                             _run("AFTER"), max_calls=10)}
    assert results[3].status == "cannot-verify"
    assert results[3].detail.startswith("the baseline JAX lacks what the old code uses here")
    assert results[5].status == "cannot-verify"
    assert "BEFORE stopped earlier, at m.py:3" in results[5].detail


# -- a run that died before the site ------------------------------------------------------------------------------
_IMPORT_FAILED = ["Traceback (most recent call last):", '  File "/t/m.py", line 1, in <module>',
                  '  File "/env/lib/python3.12/site-packages/flax/__init__.py", line 4, in <module>',
                  "ImportError: cannot import name 'tree_map' from 'jax'"]


def test_a_site_the_new_run_never_reached_because_it_died_earlier_says_so():
    site = _site(8)
    values = {"sites": {site.id: {"before_count": 2}}}
    result = decide([site], values, _run("BEFORE"), _run("AFTER", 1, _IMPORT_FAILED), max_calls=10)[0]
    assert result.status == "died-before"
    assert result.detail == ("the new (AFTER) run died before this site (at m.py:1: ImportError: cannot import name "
                             "'tree_map' from 'jax')")
    # Neither run reached it and both died: both are named.
    both = decide([site], {"sites": {}}, _run("BEFORE", 1, _IMPORT_FAILED), _run("AFTER", 1, _IMPORT_FAILED),
                  max_calls=10)[0]
    assert both.status == "died-before" and "the old (BEFORE) run died before this site" in both.detail


def test_a_deleted_statement_the_old_run_died_before_is_not_a_coverage_gap():
    fix = AppliedFix("JAX102", "m", 8, 1, Applicability.SAFE, "fix", None, None)
    statement = Site("m.py:8:JAX102:1", Path("/t/m.py"), "m.py", 8, 1, "JAX102", "m", fix)
    assert statement.kind == "reach"
    died = decide([statement], {"sites": {}}, _run("BEFORE", 1, _IMPORT_FAILED), _run("AFTER"), max_calls=10)[0]
    assert died.status == "died-before"
    assert died.detail == ("the old (BEFORE) run died before this statement (at m.py:1: ImportError: cannot import "
                           "name 'tree_map' from 'jax')")
    gap = decide([statement], {"sites": {}}, _run("BEFORE"), _run("AFTER", 1, _IMPORT_FAILED), max_calls=10)[0]
    assert gap.status == "not-reached" and "coverage gap" in gap.detail


def test_a_site_not_reached_by_a_run_that_completed_is_still_a_coverage_gap():
    site = _site(8)
    gap = decide([site], {"sites": {}}, _run("BEFORE"), _run("AFTER", 1, _IMPORT_FAILED), max_calls=10)[0]
    assert gap.status == "not-reached" and "coverage gap" in gap.detail
    # Killed by a signal: unknown, not "died before" (a killed process writes no records).
    killed = decide([site], {"sites": {site.id: {"before_count": 1}}}, _run("BEFORE"), _run("AFTER", -9),
                    max_calls=10)[0]
    assert killed.status != "died-before"
    # Raised at the site itself: FAILED there, as before.
    here = ["Traceback (most recent call last):", '  File "/t/m.py", line 8, in <module>', "ValueError: boom"]
    assert decide([site], {"sites": {site.id: {"before_count": 1}}}, _run("BEFORE"), _run("AFTER", 1, here),
                  max_calls=10)[0].status == "failed"


# -- the values entering a site --------------------------------------------------------------------------------
def _runtimes(monkeypatch):
    """The probe and the comparison script as the runs load them, with a NumPy stub (no arrays here)."""
    import sys

    probe, compare = _runtime("_jaxlint_probe", monkeypatch), _runtime("_jaxlint_compare", monkeypatch)
    monkeypatch.setattr(sys.modules["numpy"], "generic", type("generic", (), {}), raising=False)
    return probe, compare


def _entry(probe, *values):
    return {"count": len(values), "calls": [probe._encode(v, None, []) for v in values], "traces": [], "errors": []}


def _frozen_dict_class():
    """flax's FrozenDict as the probe sees it: a Mapping, not a dict (an opaque object with its repr)."""
    from collections.abc import Mapping

    class FrozenDict(Mapping):
        def __init__(self, data):
            self._data = dict(data)

        def __getitem__(self, key):
            return self._data[key]

        def __iter__(self):
            return iter(self._data)

        def __len__(self):
            return len(self._data)

        def __repr__(self):
            return f"FrozenDict({self._data!r})"

    FrozenDict.__module__, FrozenDict.__qualname__ = "flax.core.frozen_dict", "FrozenDict"
    return FrozenDict


def test_a_site_whose_arguments_differ_between_the_runs_is_inputs_differ_not_differs(monkeypatch):
    probe, compare = _runtimes(monkeypatch)
    frozen = _frozen_dict_class()
    site = _site(4)
    argument = f"{site.id}::input:1"
    # jax.tree_map(f, params): an older flax (BEFORE's environment) hands it a FrozenDict, the target's a dict.
    values = {"sites": {
        site.id: compare.compare_site(_entry(probe, {"w": 1}), _entry(probe, {"w": 1.5}), 1e-6, 1e-6, 10),
        argument: compare.compare_site(_entry(probe, frozen({"w": 1})), _entry(probe, {"w": 1}), 1e-6, 1e-6, 10)}}
    assert values["sites"][argument]["difference"] is not None
    inputs = {site.id: [(argument, "params")]}
    result = decide([site], values, _run("BEFORE"), _run("AFTER"), max_calls=10, inputs=inputs)[0]
    assert result.status == "inputs-differ"
    assert result.detail.startswith("the values entering this site differ between the runs")
    assert "argument `params`: call 1: value: kind: flax.core.frozen_dict.FrozenDict vs builtins.dict" in \
        result.detail
    assert "at the site: call 1: value['w']" in result.detail
    # Same arguments: the difference is the site's own.
    values["sites"][argument] = compare.compare_site(_entry(probe, {"w": 1}), _entry(probe, {"w": 1}), 1e-6, 1e-6,
                                                     10)
    assert decide([site], values, _run("BEFORE"), _run("AFTER"), max_calls=10,
                  inputs=inputs)[0].status == "differs"
    # Arguments that differ only from a later call than the site's difference do not explain it.
    late = compare.compare_site(_entry(probe, 1, 2), _entry(probe, 1, 3), 1e-6, 1e-6, 10)
    values["sites"][argument] = late
    assert late["difference"]["call"] == 2
    assert decide([site], values, _run("BEFORE"), _run("AFTER"), max_calls=10,
                  inputs=inputs)[0].status == "differs"


def test_an_object_is_the_same_object_at_another_address(monkeypatch):
    probe, compare = _runtimes(monkeypatch)

    class EmptyState:
        pass

    first, second = EmptyState(), EmptyState()
    assert repr(first) != repr(second)
    assert compare.compare_site(_entry(probe, first), _entry(probe, second), 1e-6, 1e-6, 10)["difference"] is None


def test_the_arguments_the_fix_keeps_are_paired_those_it_rewrites_are_not():
    original = "y = jnp.clip(x, a_min=lo, a_max=hi)\n"
    fixed = "y = jnp.clip(x, lo, hi)\n"
    span_o, span_f = (4, len(original) - 1), (4, len(fixed) - 1)
    pairs = argument_pairs(original, span_o, fixed, span_f)
    assert [(original[a:b], fixed[c:d], text) for (a, b), (c, d), text in pairs] == \
        [("x", "x", "x"), ("lo", "lo", "lo"), ("hi", "hi", "hi")]
    # A recipe rewrites the arguments: `xs` is not `jnp.stack(xs)`, nothing is paired.
    original = "y = jax.device_put_sharded(xs, devices)\n"
    fixed = "y = jax.device_put(jnp.stack(xs), NamedSharding(mesh, P('x')))\n"
    assert argument_pairs(original, (4, len(original) - 1), fixed, (4, len(fixed) - 1)) == []
    # Not a call, a literal, a lambda, a bare generator: nothing recorded.
    text = "y = jnp.int8\nz = f(1, lambda a: a, (g for g in h), *rest, k=v)\nw = f(a for a in b)\n"

    def span(expression):
        return text.index(expression), text.index(expression) + len(expression)

    assert argument_pairs(text, span("jnp.int8"), text, span("jnp.int8")) == []
    call = span("f(1, lambda a: a, (g for g in h), *rest, k=v)")
    keyword_value = (text.index("k=v") + 2, text.index("k=v") + 3)
    assert argument_pairs(text, call, text, call) == [(span("rest"), span("rest"), "rest"),
                                                      (keyword_value, keyword_value, "v")]
    assert argument_pairs(text, span("f(a for a in b)"), text, span("f(a for a in b)")) == []


def test_the_new_statuses_are_added_to_the_contract_not_renamed():
    assert STATUSES[:7] == ("verified", "differs", "not-reached", "failed", "abstract-only", "cannot-verify",
                            "baseline-timed-out")
    assert STATUSES[7:] == ("inputs-differ", "died-before")
    assert set(MARKS) == set(STATUSES)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "verify.md").read_text()
    for status in STATUSES:
        assert f"`{status}`" in docs, status
