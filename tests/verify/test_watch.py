"""Watched sites, without JAX: findings with no fix whose value changed silently (JAX201-JAX203, JAX601) are probed
on the same expression in both runs and reported as their own kind; recorded probe data gives each verdict."""
from __future__ import annotations

import ast
import json
import os
import textwrap
from pathlib import Path

from jaxlint.project.config import Overrides, SettingsResolver
from jaxlint.project.versions import Version
from jaxlint.verify.compare import decide_watched, mark_watched_nondeterministic
from jaxlint.verify.instrument import instrument_file
from jaxlint.verify.plan import make_plan
from jaxlint.verify.report import as_json, render_text
from jaxlint.verify.run import RunResult
from jaxlint.verify.verifier import Side, VerifyResult
from jaxlint.verify.watch import WatchedSite
from tests.verify.test_compare import _runtime

EINSUM = 'jnp.einsum("ij,jk,kl->il", a, b, c)'


def _plan(tmp_path, code: str, min_version="0.4.30", watch=True):
    (tmp_path / "m.py").write_text(textwrap.dedent(code))
    overrides = Overrides(isolated=True, min_version=Version(min_version), target_version=Version("0.12.0.1"))
    return make_plan([tmp_path / "m.py"], SettingsResolver(overrides), tmp_path, watch=watch)


# -- planning and instrumenting ----------------------------------------------------------------------------------
def test_a_finding_with_no_fix_is_watched_on_the_same_expression_in_both_texts(tmp_path):
    plan = _plan(tmp_path, f"""\
        import jax
        import jax.numpy as jnp
        grid = jnp.meshgrid(x, y)
        grid.append(z)
        out = {EINSUM}
        mixed = jnp.einsum("ij,jk,kl->il", a, b, jax.tree_map(f, c))
    """)
    assert [site.id for site in plan.sites] == ["m.py:3:JAX201:1", "m.py:6:JAX101:1"]
    assert [(w.id, w.row, w.column, w.code) for w in plan.watched] == [
        ("watch:m.py:5:JAX601:1", 5, 7, "JAX601"), ("watch:m.py:6:JAX601:1", 6, 9, "JAX601")]
    file_plan = plan.files[0]
    original, fixed = file_plan.source.text, file_plan.fixed
    plain, mixed = plan.watched
    # The fix on line 3 (``list(``) moves the expression in the fixed text: each span is in its own text.
    assert plain.span_original != plain.span_fixed
    assert original[slice(*plain.span_original)] == fixed[slice(*plain.span_fixed)] == EINSUM
    # A fix inside the watched expression: BEFORE probes the old call, AFTER the fixed one.
    assert original[slice(*mixed.span_original)].endswith("jax.tree_map(f, c))")
    assert fixed[slice(*mixed.span_fixed)].endswith("jax.tree.map(f, c))")
    result = instrument_file(original, fixed, file_plan.sites, file_plan.watched)
    probe = '__import__("_jaxlint_probe").record'
    assert f"out = {probe}('watch:m.py:5:JAX601:1', {EINSUM})\n" in result.before
    assert f"out = {probe}('watch:m.py:5:JAX601:1', {EINSUM})\n" in result.after
    # (the fix site's unchanged arguments are recorded too, where they enter it: ``verify.inputs``)
    assert (f"mixed = {probe}('watch:m.py:6:JAX601:1', jnp.einsum(\"ij,jk,kl->il\", a, b, "
            f"{probe}('m.py:6:JAX101:1', jax.tree.map({probe}('m.py:6:JAX101:1::input:1', f), "
            f"{probe}('m.py:6:JAX101:1::input:2', c)))))\n") in result.after
    for text, source in ((result.before, original), (result.after, fixed)):
        ast.parse(text)
        assert text.count("\n") == source.count("\n")  # the same lines in both copies


def test_a_file_with_only_watched_sites_is_planned_and_left_as_it_is(tmp_path):
    plan = _plan(tmp_path, """\
        import jax.numpy as jnp
        g = jnp.atleast_3d(*arrays)
        g.append(c)
        values, inverse = jnp.unique(x, return_inverse=True)
    """, min_version="0.4.20")
    assert plan.sites == []
    assert [(w.row, w.code) for w in plan.watched] == [(2, "JAX201"), (4, "JAX601")]
    assert plan.files[0].fixed == plan.files[0].source.text


def test_no_watch_and_the_cases_that_are_not_watched(tmp_path):
    code = f"""\
        import jax.numpy as jnp
        out = {EINSUM}
    """
    assert _plan(tmp_path, code, watch=False).files == []
    assert _plan(tmp_path, code, min_version="0.5.0").files == []  # the range crosses no change: no finding
    # JAX206's finding is on the key, whose value is the same on both sides: not watched.
    plan = _plan(tmp_path, """\
        import jax
        key = jax.random.PRNGKey(0)
    """)
    assert plan.watched == []


# -- verdicts from recorded probe data ---------------------------------------------------------------------------
def _watched(row=5, code="JAX601") -> WatchedSite:
    return WatchedSite(f"watch:m.py:{row}:{code}:1", Path("/p/m.py"), "m.py", row, 7, code, "m", (0, 5), (0, 5))


def _run(label, code=0, stderr=()):
    return RunResult(label, "py", [], code, 1.0, Path("/r"), Path("/t"), [], list(stderr))


def _recorded(monkeypatch, before_calls, after_calls, site=None):
    """The comparison of two runs' records of one site, each value encoded by the probe runtime as a run does."""
    probe, compare = _runtime("_jaxlint_probe", monkeypatch), _runtime("_jaxlint_compare", monkeypatch)

    def entry(calls):
        if calls is None:
            return None
        return {"count": len(calls), "calls": [probe._encode(v, None, []) for v in calls], "traces": [], "errors": []}

    # Python values only: the stubbed NumPy compares no floats (a run's compare script has NumPy).

    info = compare.compare_site(entry(before_calls), entry(after_calls), 1e-6, 1e-6, 10)
    return {"sites": {(site or _watched()).id: info}}


def test_verdicts_from_recorded_values(monkeypatch):
    site = _watched()
    ok = (_run("BEFORE"), _run("AFTER"))
    same = decide_watched([site], _recorded(monkeypatch, [(1, 2)], [(1, 2)]), *ok, max_calls=10)[0]
    assert (same.status, same.calls, same.detail) == ("same", 1, "1 call(s) compared")
    # JAX201's silent change as a run records it: a list became a tuple.
    differs = decide_watched([site], _recorded(monkeypatch, [[1, 2]], [(1, 2)]), *ok, max_calls=10)[0]
    assert differs.status == "differs"
    assert differs.detail == "old [1, 2], new (1, 2); call 1: value: container type: builtins.list vs builtins.tuple"
    value = decide_watched([site], _recorded(monkeypatch, [5, 5], [5, 7]), *ok, max_calls=10)[0]
    assert value.status == "differs" and value.detail.startswith("old 5, new 7; call 2: value:")
    not_reached = decide_watched([site], _recorded(monkeypatch, None, None), *ok, max_calls=10)[0]
    assert not_reached.status == "not-reached" and "never executed" in not_reached.detail
    count = decide_watched([site], _recorded(monkeypatch, [1], [1, 1]), *ok, max_calls=10)[0]
    assert count.status == "differs" and count.detail == ("executed 1 time(s) in BEFORE, 2 in AFTER; the 1 call(s) "
                                                          "compared agree")
    unstable = mark_watched_nondeterministic(same, "call 1: value: 1 vs 2")
    assert unstable.status == "same" and unstable.detail.startswith("NONDETERMINISTIC: two BEFORE runs differ here")


def test_a_watched_call_that_raises_in_one_run_only_differs(monkeypatch):
    site = _watched(row=3)
    crash = _run("AFTER", 1, ["Traceback (most recent call last):", '  File "/t/m.py", line 3, in <module>',
                              "ValueError: None is not a valid value for jnp.array"])
    result = decide_watched([site], _recorded(monkeypatch, [float("nan")], None, site), _run("BEFORE"), crash,
                            max_calls=10)[0]
    assert result.status == "differs"
    assert result.detail == "raised here in AFTER only: ValueError: None is not a valid value for jnp.array"
    # A run that stopped elsewhere before the site: nothing to compare, and it says why.
    elsewhere = _run("AFTER", 1, ['  File "/t/m.py", line 1, in <module>', "ImportError: gone"])
    stopped = decide_watched([site], _recorded(monkeypatch, [1], None, site), _run("BEFORE"), elsewhere,
                             max_calls=10)[0]
    assert stopped.status == "not-reached"
    assert stopped.detail == ("executed 1 time(s) in BEFORE, 0 in AFTER: nothing to compare with; the AFTER run "
                              "failed: ImportError: gone")


# -- the report: its own kind, a JSON key at the end, the exit status ---------------------------------------------
def _result(tmp_path, monkeypatch, fail_on_watched=False):
    plan = _plan(tmp_path, f"""\
        import jax.numpy as jnp
        grid = jnp.meshgrid(x, y)
        grid.append(z)
        out = {EINSUM}
        values, inverse = jnp.unique(x, return_inverse=True)
        e = jnp.einsum("ij,jk,kl->il", a, b, b)
    """, min_version="0.4.20")
    from jaxlint.verify.compare import SiteResult

    fix = SiteResult(plan.sites[0], "verified", 1, "1 call(s) compared")
    ok = (_run("BEFORE"), _run("AFTER"))
    watched = []
    for site, calls in zip(plan.watched, (([3], [3]), ([(1, [0, 1])], [(1, [[0, 1]])]), (None, None))):
        watched += decide_watched([site], _recorded(monkeypatch, *calls, site), *ok, max_calls=10)
    sides = [Side(label, "py", "3.12.1", version, ["cpu:0 cpu"], run)
             for label, version, run in (("baseline", "0.4.20", ok[0]), ("target", "0.12.0.1", ok[1]))]
    return VerifyResult(plan, *sides, [fix], watched=watched, fail_on_watched=fail_on_watched)


def test_report_text_json_and_exit_status(tmp_path, monkeypatch):
    result = _result(tmp_path, monkeypatch)
    assert [r.status for r in result.watched] == ["same", "differs", "not-reached"]
    text = render_text(result, cwd=tmp_path)
    assert "m.py:4:7: JAX601 watched: same values (1 call(s) compared)" in text
    assert "m.py:5:19: JAX601 watched: values differ (old [0, 1], new [[0, 1]]; call 1: value[1]: length: 2 vs 1)" \
        in text
    assert "m.py:6:5: JAX601 watched: not reached (the command never executed this code: run" in text
    assert "1 site(s): 1 verified; all reached sites verified" in text
    assert ("3 watched site(s) (no fix; what changed between the releases, measured): 1 same values, 1 values "
            "differ, 1 not reached; read each difference") in text
    assert "It does not change the exit status (--fail-on-watched makes it 1)." in text
    assert result.exit_code == 0  # a watched difference is no failure of the fixes
    report = json.loads(json.dumps(as_json(result)))
    assert list(report) == ["baseline", "target", "sites", "watched"]  # the new key at the end
    assert [s["status"] for s in report["sites"]] == ["verified"]
    assert report["watched"][1] == {"file": str(tmp_path / "m.py"), "row": 5, "code": "JAX601", "status": "differs",
                                    "calls": 0, "detail": result.watched[1].detail}
    strict = _result(tmp_path, monkeypatch, fail_on_watched=True)
    assert strict.exit_code == 1 and "It fails this run (--fail-on-watched)." in render_text(strict)


def test_only_watched_sites_is_nothing_proven_about_fixes(tmp_path, monkeypatch):
    result = _result(tmp_path, monkeypatch)
    result.sites = []
    assert result.exit_code == 1
    assert "0 site(s): none; no fix site, so nothing was proven about fixes (pass --allow-nothing-compared" in \
        render_text(result)
    result.allow_nothing_compared = True
    assert result.exit_code == 0


def test_from_git_watches_changed_and_unchanged_files(tmp_path):
    import subprocess

    from jaxlint.verify.plan import make_plan_from_git

    (tmp_path / "fixed.py").write_text("import jax.numpy as jnp\ngrid = jnp.meshgrid(x, y)\ngrid.append(z)\n"
                                       f"out = {EINSUM}\n")
    (tmp_path / "same.py").write_text(f"import jax.numpy as jnp\nout = {EINSUM}\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "old"]):
        subprocess.run(["git", *argv], cwd=tmp_path, check=True, env=env)
    (tmp_path / "fixed.py").write_text("import jax.numpy as jnp\ngrid = list(jnp.meshgrid(x, y))\ngrid.append(z)\n"
                                       f"out = {EINSUM}\n")
    resolver = SettingsResolver(Overrides(isolated=True, min_version=Version("0.4.30"),
                                          target_version=Version("0.12.0.1")))
    paths = [tmp_path / "fixed.py", tmp_path / "same.py"]
    plan = make_plan_from_git(paths, resolver, tmp_path, "HEAD", watch=True)
    assert plan.problems == []
    assert [site.id for site in plan.sites] == ["fixed.py:2:JAX201:1"]
    assert [w.id for w in plan.watched] == ["watch:fixed.py:4:JAX601:1", "watch:same.py:2:JAX601:1"]
    same = next(f for f in plan.files if f.relative == "same.py")
    assert same.sites == [] and same.fixed == same.source.text
    assert make_plan_from_git(paths, resolver, tmp_path, "HEAD").watched == []


def test_the_cli_watches_unless_no_watch(tmp_path):
    import sys

    from click.testing import CliRunner

    from jaxlint.verify.cli import verify_command

    (tmp_path / "m.py").write_text(f"import jax.numpy as jnp\nout = {EINSUM}\n")
    args = ["m.py", "--min-version", "0.4.30", "--target-version", "0.12.0.1", "--baseline-python", sys.executable,
            "--target-python", sys.executable, "--output-format", "json"]
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        watched = CliRunner().invoke(verify_command, [*args, "--", "python", "m.py"])
        unwatched = CliRunner().invoke(verify_command, [*args, "--no-watch", "--", "python", "m.py"])
    finally:
        os.chdir(old)
    # A watched site is something to run: the interpreters are checked (this one has no JAX: a usage error).
    assert watched.exit_code == 2 and "has no JAX" in watched.output, watched.output
    # Without it there is nothing to verify, said before any interpreter is looked at.
    assert unwatched.exit_code == 1 and "no fixes to verify in m.py" in unwatched.output, unwatched.output
    assert '{"baseline": null, "target": null, "sites": [], "watched": []}' in unwatched.output
