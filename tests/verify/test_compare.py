"""Statuses (pure Python) and the value comparison script (run in a JAX venv, which has NumPy)."""
from __future__ import annotations

import json
import pickle
import subprocess
from pathlib import Path

import pytest

from jaxlint.lint.diagnostics import Applicability
from jaxlint.lint.engine import AppliedFix
from jaxlint.verify.compare import decide
from jaxlint.verify.instrument import RUNTIME_DIR
from jaxlint.verify.plan import Site
from jaxlint.verify.run import RunResult


def _site(row=3, kind="value"):
    probe = (0, 5) if kind == "value" else None
    fix = AppliedFix("JAX202", "m", row, 1, Applicability.SAFE, "fix", probe, probe)
    return Site(f"m.py:{row}:JAX202:1", Path("/p/m.py"), "m.py", row, 1, "JAX202", "m", fix)


def _run(label, code=0, stderr=()):
    return RunResult(label, "py", [], code, 1.0, Path("/r"), Path("/t"), [], list(stderr))


def _values(**info):
    return {"sites": {"m.py:3:JAX202:1": info}}


def test_decide_statuses():
    ok_b, ok_a = _run("BEFORE"), _run("AFTER")
    site = _site()
    verified = decide([site], _values(before_count=2, after_count=2, compared=2), ok_b, ok_a, max_calls=10)[0]
    assert (verified.status, verified.calls) == ("verified", 2)
    missing = decide([site], _values(), ok_b, ok_a, max_calls=10)[0]
    assert missing.status == "not-reached" and "coverage gap" in missing.detail
    diff = {"call": 1, "path": "value[0]", "what": "container type: builtins.list vs builtins.tuple",
            "before": "[1]", "after": "(1,)", "max_abs": None, "max_rel": None}
    differs = decide([site], _values(before_count=1, after_count=1, difference=diff), ok_b, ok_a, max_calls=10)[0]
    assert differs.status == "differs" and "value[0]: container type" in differs.detail
    count = decide([site], _values(before_count=3, after_count=5, compared=3), ok_b, ok_a, max_calls=10)[0]
    assert count.status == "differs" and "3 time(s) in BEFORE, 5 in AFTER" in count.detail
    # Beyond --max-calls the counts do not matter.
    assert decide([site], _values(before_count=30, after_count=50, compared=10), ok_b, ok_a,
                  max_calls=10)[0].status == "verified"
    abstract = decide([site], _values(before_count=0, after_count=0, before_traces=1, after_traces=1, compared=1,
                                      abstract=True), ok_b, ok_a, max_calls=10)[0]
    assert abstract.status == "abstract-only"


def test_failed_when_one_run_raises():
    crash = _run("AFTER", 1, ["Traceback (most recent call last):", '  File "/t/m.py", line 3, in <module>',
                              "ValueError: boom"])
    site = _site()
    failed = decide([site], _values(before_count=1, after_count=0), _run("BEFORE"), crash, max_calls=10)[0]
    assert failed.status == "failed"
    assert "BEFORE exited 0: ok; AFTER exited 1: ValueError: boom" in failed.detail


def test_deleted_statement_sites():
    site = _site(kind="reach")
    ok = decide([site], _values(before_count=1), _run("BEFORE"), _run("AFTER"), max_calls=10)[0]
    assert ok.status == "verified" and "deletes a statement" in ok.detail
    assert decide([site], _values(), _run("BEFORE"), _run("AFTER"), max_calls=10)[0].status == "not-reached"
    assert decide([site], _values(before_count=1), _run("BEFORE"), _run("AFTER", 1),
                  max_calls=10)[0].status == "failed"


# -- the comparison script, with NumPy from a JAX venv ---------------------------------------------------------
def _records(directory: Path, values: dict) -> None:
    directory.mkdir()
    sites = {site: {"count": len(calls), "calls": calls, "traces": [], "errors": []} for site, calls in values.items()}
    with open(directory / "records-1.pkl", "wb") as handle:
        pickle.dump({"meta": {"pid": 1, "start": 0.0, "devices": None, "jax_version": None}, "sites": sites}, handle)


def _array(python, values, dtype):
    code = (f"import numpy as np, pickle, sys; nan = float('nan'); a = np.asarray({values!r}, dtype={dtype!r}); "
            "sys.stdout.buffer.write(pickle.dumps(('array', str(a.dtype), a.shape, a.tobytes(), 'ndarray')))")
    return pickle.loads(subprocess.run([python, "-c", code], capture_output=True, check=True).stdout)


@pytest.mark.jax
def test_compare_script(tmp_path, new_python):
    nan = float("nan")
    f32 = lambda v: _array(new_python, v, "float32")  # noqa: E731
    before = {"nan": [f32([1.0, nan])], "close": [f32([1.0])], "far": [f32([1.0, 2.0])],
              "dtype": [f32([1.0])], "ints": [_array(new_python, [1, 2], "int32")],
              "list": [("seq", "builtins.list", None, [f32([1.0])])], "py": [("py", "float", 0.1 + 0.2)]}
    after = {"nan": [f32([1.0, nan])], "close": [f32([1.0 + 1e-8])], "far": [f32([1.0, 2.5])],
             "dtype": [_array(new_python, [1.0], "float64")], "ints": [_array(new_python, [1, 3], "int32")],
             "list": [("seq", "builtins.tuple", None, [f32([1.0])])], "py": [("py", "float", 0.3)]}
    _records(tmp_path / "b", before)
    _records(tmp_path / "a", after)
    request = {"before": str(tmp_path / "b"), "after": str(tmp_path / "a"), "rtol": 1e-6, "atol": 1e-6,
               "max_calls": 10, "sites": [{"id": name, "kind": "value"} for name in before]}
    (tmp_path / "req.json").write_text(json.dumps(request))
    out = subprocess.run([new_python, str(RUNTIME_DIR / "_jaxlint_compare.py"), str(tmp_path / "req.json")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    sites = json.loads(out.stdout)["sites"]
    assert sites["nan"]["difference"] is None and sites["nan"]["compared"] == 1  # NaN equals NaN
    assert sites["close"]["difference"] is None
    assert sites["py"]["difference"] is None
    far = sites["far"]["difference"]
    assert far["path"] == "value" and far["max_abs"] == pytest.approx(0.5) and far["max_rel"] == pytest.approx(0.25)
    assert "first at index [1]: 2.0 vs 2.5" in far["what"]
    assert sites["dtype"]["difference"]["what"] == "dtype: float32 vs float64"
    assert "first at index [1]: 2 vs 3" in sites["ints"]["difference"]["what"]
    assert sites["list"]["difference"]["what"] == "container type: builtins.list vs builtins.tuple"


def _site_at(row):
    fix = AppliedFix("JAX101", "m", row, 1, Applicability.SAFE, "fix", (0, 5), (0, 5))
    return Site(f"m.py:{row}:JAX101:1", Path("/p/m.py"), "m.py", row, 1, "JAX101", "m", fix)


def test_an_api_older_than_the_baseline_cannot_be_verified_here_and_says_why():
    # jax.tree_multimap (removed in 0.3.16) on a 0.4.20 baseline: BEFORE stops at row 3; row 5 comes after it.
    stop = _run("BEFORE", 1, ["Traceback (most recent call last):", '  File "/t/m.py", line 3, in <module>',
                              "AttributeError: module 'jax' has no attribute 'tree_multimap'"])
    first, later, earlier = _site_at(3), _site_at(5), _site_at(2)
    values = {"sites": {first.id: {"after_count": 1}, later.id: {"after_count": 1},
                        earlier.id: {"before_count": 1, "after_count": 1, "compared": 1}}}
    results = {r.site.row: r for r in decide([earlier, first, later], values, stop, _run("AFTER"), max_calls=10)}
    assert results[3].status == "cannot-verify"
    assert results[3].detail.startswith("the baseline JAX lacks what the old code uses here (AttributeError: module "
                                        "'jax' has no attribute 'tree_multimap'): the old code needs a JAX older")
    assert results[5].status == "cannot-verify" and "BEFORE stopped earlier, at m.py:3" in results[5].detail
    assert results[2].status == "verified"  # reached in both before the stop, and compared
    # Any other exception at the site is the fix's business: FAILED, as before.
    boom = _run("BEFORE", 1, ['  File "/t/m.py", line 3, in <module>', "ValueError: boom"])
    assert decide([first], {"sites": {first.id: {"after_count": 1}}}, boom, _run("AFTER"),
                  max_calls=10)[0].status == "failed"


def test_a_killed_run_is_not_described_by_its_output_nor_its_sites_as_never_executed():
    slow = RunResult("AFTER", "py", [], -9, 31.0, Path("/r"), Path("/t"), ["epoch 3"], [], timed_out=True)
    assert slow.last_error_line() == "timed out after 31s (--timeout); the command and its processes were ended"
    killed = RunResult("AFTER", "py", [], -9, 5.0, Path("/r"), Path("/t"), ["epoch 3"], [])
    assert killed.last_error_line() == "killed by SIGKILL" and killed.signal_name == "SIGKILL"
    site = _site()
    result = decide([site], _values(), _run("BEFORE"), slow, max_calls=10)[0]
    assert result.status == "not-reached"
    assert result.detail.startswith("unknown whether the command executed this code: the AFTER run was ended")
    assert "never executed" not in result.detail


def test_a_site_is_not_failed_by_a_crash_elsewhere():
    crash = _run("AFTER", 1, ['  File "/t/other.py", line 9, in <module>', "ValueError: later"])
    result = decide([_site()], _values(before_count=3, after_count=2, compared=2), _run("BEFORE"), crash,
                    max_calls=10)[0]
    assert result.status == "verified" and result.calls == 2
    assert "the AFTER run failed elsewhere: ValueError: later" in result.detail


# -- a class that moved module between the two runs' library versions ------------------------------------------
def _runtime(name, monkeypatch):
    """A runtime module loaded as the runs load it; ``numpy`` stubbed (these values have no arrays, and jaxlint's own
    test environment has no NumPy)."""
    import importlib.util
    import sys
    import types

    monkeypatch.setitem(sys.modules, "numpy", types.ModuleType("numpy"))
    spec = importlib.util.spec_from_file_location(f"{name}_under_test", RUNTIME_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _moved(module_name):
    """The same classes as a library defines them, in ``module_name`` (the module they moved to, or from)."""
    import collections
    import dataclasses

    point = collections.namedtuple("Point", "x y", module=module_name)
    state = dataclasses.make_dataclass("State", [("step", int), ("value", object)])
    state.__module__ = module_name
    return point, state


def test_a_class_that_moved_module_between_the_versions_gets_the_verdict_of_the_same_class(monkeypatch):
    probe, compare = _runtime("_jaxlint_probe", monkeypatch), _runtime("_jaxlint_compare", monkeypatch)

    def verdict(before_value, after_value):
        def entry(value):
            return {"count": 1, "calls": [probe._encode(value, None, [])], "traces": [], "errors": []}

        out = compare.compare_site(entry(before_value), entry(after_value), 1e-6, 1e-6, 10)
        return out["compared"], out["difference"]

    (old_point, old_state), (new_point, new_state) = _moved("jaxlib.xla_extension"), _moved("jax._src.lib")
    assert old_point.__module__ != new_point.__module__  # what the records of the two runs say
    same = verdict(old_state(1, old_point(1, [2])), old_state(1, old_point(1, [2])))
    assert same == (1, None)
    assert verdict(old_state(1, old_point(1, [2])), new_state(1, new_point(1, [2]))) == same
    assert verdict({"p": old_point(1, 2)}, {"p": new_point(1, 2)}) == (1, None)
    # What still differs: another class, another container, another value.
    pair = __import__("collections").namedtuple("Pair", "x y", module="jax._src.lib")
    assert verdict(old_point(1, 2), pair(1, 2))[1]["what"] == \
        "container type: jaxlib.xla_extension.Point vs jax._src.lib.Pair"
    assert verdict([1], (1,))[1]["what"] == "container type: builtins.list vs builtins.tuple"
    assert verdict(old_point(1, 2), new_point(1, 3))[1]["path"] == "value.y"
    # Inside jit the leaves arrive later and a value may be compared abstractly: the compared name stays.
    traced = probe._fill(("seq", "jax._src.lib.Point", ("x", "y"), [("tracer", 0), ("py", "int", 2)], "Point"),
                         [("py", "int", 1)])
    assert compare.class_of(traced) == compare.class_of(compare.abstract_of(traced)) == "Point"


def test_a_baseline_timeout_is_its_own_verdict_not_a_failure_of_the_fix():
    slow = RunResult("BEFORE", "py", [], -9, 7.4, Path("/r"), Path("/t"), [], [], timed_out=True, timeout=5)
    deleted, value = _site(kind="reach"), _site()
    for site, info in ((deleted, {}), (deleted, {"before_count": 1}), (value, {"after_count": 1})):
        result = decide([site], _values(**info), slow, _run("AFTER"), max_calls=10)[0]
        assert result.status == "baseline-timed-out", (site.kind, info)
        assert result.detail.startswith("the BEFORE (baseline) run timed out after 5s (--timeout) before it")
    # A value recorded before the kill (by a process that had finished) is still compared.
    kept = decide([value], _values(before_count=1, after_count=1, compared=1), slow, _run("AFTER"), max_calls=10)[0]
    assert kept.status == "verified"
