"""Statuses, site by site, from the value comparison (``_jaxlint_compare.py``, run with the target interpreter) and
the two runs' exit statuses. Pure Python: no NumPy needed here."""
from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from jaxlint.verify.instrument import RUNTIME_DIR
from jaxlint.verify.plan import Site
from jaxlint.verify.run import RunResult, crash_location, traceback_locations
from jaxlint.verify.watch import WatchedSite
from jaxlint.verify.witnesses import describe as describe_witness

# Contract values (JSON): add at the end, never rename.
STATUSES = ("verified", "differs", "not-reached", "failed", "abstract-only", "cannot-verify", "baseline-timed-out",
            "inputs-differ", "died-before")

# What the baseline raises where old code uses an API it does not have (a removal older than the baseline JAX).
_MISSING_API = ("AttributeError", "ImportError", "ModuleNotFoundError")


@dataclass
class SiteResult:
    site: Site
    status: str
    calls: int
    detail: str


def compare_values(python: str, sites: list[Site], before: RunResult, after: RunResult, *, rtol: float, atol: float,
                   max_calls: int, inputs: dict[str, list[tuple[str, str]]] | None = None) -> dict:
    """The comparison of each site's records, and of the arguments recorded at it (``inputs``: their record ids
    are compared like sites)."""
    entering = [{"id": record_id, "kind": "value"} for recorded in (inputs or {}).values() for record_id, _ in recorded]
    request = {"before": str(before.records), "after": str(after.records), "rtol": rtol, "atol": atol,
               "max_calls": max_calls, "sites": [{"id": s.id, "kind": s.kind} for s in sites] + entering}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(request, handle)
    try:
        out = subprocess.run([python, str(RUNTIME_DIR / "_jaxlint_compare.py"), handle.name], capture_output=True,
                             text=True, env={"PATH": "/usr/bin:/bin"}, timeout=600)
    finally:
        Path(handle.name).unlink(missing_ok=True)
    if out.returncode != 0:
        raise RuntimeError(f"comparing the records failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def _failing_site_rows(run: RunResult) -> set[tuple[str, int]]:
    return set(traceback_locations(run))


def _site_in_traceback(site: Site | WatchedSite, locations: set[tuple[str, int]], span_rows: int) -> bool:
    return any(path == site.relative and site.row <= row <= site.row + span_rows for path, row in locations)


def _tracebacks(before: RunResult, after: RunResult) -> str:
    return (f"BEFORE exited {before.exit_code}: {before.last_error_line() if not before.ok else 'ok'}; "
            f"AFTER exited {after.exit_code}: {after.last_error_line() if not after.ok else 'ok'}")


def _difference_detail(diff: dict) -> str:
    parts = [f"call {diff['call']}: {diff['path']}: {diff['what']}"]
    if diff.get("max_abs") is not None:
        parts.append(f"max abs error {diff['max_abs']:.3g}")
    if diff.get("max_rel") is not None:
        parts.append(f"max rel error {diff['max_rel']:.3g}")
    parts.append(f"before {diff['before']}")
    parts.append(f"after {diff['after']}")
    return "; ".join(parts)


def decide(sites: list[Site], values: dict, before: RunResult, after: RunResult, *, max_calls: int,
           unmarked: set[str] = frozenset(), site_rows: dict[str, int] | None = None,
           inputs: dict[str, list[tuple[str, str]]] | None = None) -> list[SiteResult]:
    """``inputs``: site id -> (record id, source text) of each argument recorded at the site (``instrument``)."""
    site_rows, inputs = site_rows or {}, inputs or {}
    locations_b, locations_a = _failing_site_rows(before), _failing_site_rows(after)
    crash_b = crash_location(before)
    results = []
    blocked_at: Site | None = None  # the site where BEFORE stopped because the baseline lacks the old API
    for site in sites:
        rows = site_rows.get(site.id, 0)
        # Where BEFORE died is its traceback's last frame in the project (never a warning's line).
        if (not before.ok and after.ok and crash_b is not None and _site_in_traceback(site, {crash_b}, rows)
                and not _site_in_traceback(site, locations_a, rows) and _missing_api(before)):
            blocked_at = blocked_at or site
    for site in sites:
        info = values["sites"].get(site.id, {})
        nb, na = info.get("before_count", 0), info.get("after_count", 0)
        tb, ta = info.get("before_traces", 0), info.get("after_traces", 0)
        rows = site_rows.get(site.id, 0)
        in_b = not before.ok and _site_in_traceback(site, locations_b, rows)
        in_a = not after.ok and _site_in_traceback(site, locations_a, rows)
        one_failed = before.ok != after.ok
        if site.kind == "reach":
            if before.timed_out:
                results.append(SiteResult(site, "baseline-timed-out", 0, _baseline_timed_out(before, after, nb, na)))
                continue
            results.append(_decide_reach(site, nb, before, after, site.id in unmarked))
            continue
        reached_b, reached_a = nb > 0 or tb > 0, na > 0 or ta > 0
        difference = info.get("difference")
        compared = info.get("compared", 0)
        if difference is not None:
            entering = _inputs_differ(inputs.get(site.id, ()), values, difference["call"])
            if entering is not None:
                results.append(SiteResult(site, "inputs-differ", compared, f"{entering}; at the site: "
                                          + _difference_detail(difference)))
            else:
                results.append(SiteResult(site, "differs", compared, _difference_detail(difference)))
            continue
        if before.timed_out and (not reached_b or min(nb, max_calls) != min(na, max_calls)):
            # BEFORE was killed before it wrote its records: what it would have recorded is unknown, not different.
            results.append(SiteResult(site, "baseline-timed-out", compared, _baseline_timed_out(before, after, nb, na)))
            continue
        if blocked_at is not None and (site is blocked_at or (not reached_b and reached_a)):
            results.append(SiteResult(site, "cannot-verify", 0, _cannot_verify(site, blocked_at, before)))
            continue
        if in_b != in_a and one_failed:
            results.append(SiteResult(site, "failed", 0, f"raised here in {'BEFORE' if in_b else 'AFTER'} only; "
                                      + _tracebacks(before, after)))
            continue
        died = _died_before(before, after, reached_b, reached_a, in_b, in_a)
        if died is not None:
            results.append(SiteResult(site, "died-before", 0, died))
            continue
        if not reached_b and not reached_a:
            killed = [run.label for run in (before, after) if run.timed_out or run.exit_code < 0]
            if killed:
                detail = (f"unknown whether the command executed this code: the {' and '.join(killed)} run was "
                          "ended before it could write its records (a killed process writes none)")
            else:
                detail = "the command never executed this code (a coverage gap: run a command that reaches it)"
            if not before.ok or not after.ok:
                detail += "; " + _tracebacks(before, after)
            results.append(SiteResult(site, "not-reached", 0, detail))
            continue
        if (one_failed and reached_b and reached_a and compared > 0 and not in_b and not in_a
                and not info.get("errors") and not info.get("abstract")):
            # The run failed elsewhere after executing this site: what was compared agrees.
            failed_run = before if not before.ok else after
            results.append(SiteResult(site, "verified", compared, f"{compared} call(s) compared (executed {nb} "
                                      f"time(s) in BEFORE, {na} in AFTER); the {failed_run.label} run failed "
                                      f"elsewhere: {failed_run.last_error_line()}"))
            continue
        if reached_b != reached_a or min(nb, max_calls) != min(na, max_calls):
            counts = f"executed {nb} time(s) in BEFORE, {na} in AFTER"
            if one_failed:
                results.append(SiteResult(site, "failed", compared, f"{counts}; " + _tracebacks(before, after)))
            else:
                results.append(SiteResult(site, "differs", compared, f"{counts}; the {compared} call(s) compared "
                                          "agree"))
            continue
        if info.get("abstract"):
            why = "; ".join(sorted(set(info.get("errors", [])))) or \
                ("the value holds functions, which are compared only as being callable" if info.get("callables")
                 else "the values were traced and never computed (e.g. under eval_shape or export)")
            results.append(SiteResult(site, "abstract-only", compared,
                                      f"only structure, shape and dtype compared ({compared} call(s)): {why}"))
            continue
        errors = info.get("errors", [])
        detail = f"{compared} call(s) compared" + (f" (of {nb} executed; --max-calls {max_calls})" if nb > compared
                                                  else "")
        if errors:
            detail += "; probe errors: " + "; ".join(sorted(set(errors)))
            results.append(SiteResult(site, "failed", compared, detail))
            continue
        note = describe_witness(site.code, info.get("negative_seen"), compared > 0)
        results.append(SiteResult(site, "verified", compared, f"{detail}; {note}" if note else detail))
    return results


def _inputs_differ(recorded, values: dict, call: int) -> str | None:
    """What differs in the values entering the site (its arguments) by the call where its own value differs: the
    site then computes from other values in each run (a dependency at another version, an earlier difference),
    and its difference says nothing about its fix."""
    for record_id, text in recorded:
        difference = values["sites"].get(record_id, {}).get("difference")
        if difference is not None and difference["call"] <= call:
            return (f"the values entering this site differ between the runs, so its own difference does not come "
                    f"from its fix alone (a dependency at another version, or a difference earlier in the run): "
                    f"argument `{text}`: {_difference_detail(difference)}")
    return None


def _died_before(before: RunResult, after: RunResult, reached_b: bool, reached_a: bool, in_b: bool,
                 in_a: bool) -> str | None:
    """Why a site is missing from a run that died (exited with an error, not ended by a signal or --timeout) before
    reaching it, where the other run reached it or died too; None otherwise (a run that completed without reaching
    the site is a coverage gap; a run whose traceback names the site raised there: not this)."""
    parts = []
    for run, reached, here, name in ((after, reached_a, in_a, "new"), (before, reached_b, in_b, "old")):
        if here:
            return None
        if not reached and not run.ok and not run.timed_out and run.exit_code > 0:
            parts.append(f"the {name} ({run.label}) run died before this site ({died_at(run)})")
    if not parts or (reached_b == reached_a and len(parts) < 2):
        return None
    return "; ".join(parts)


def died_at(run: RunResult) -> str:
    """``at m.py:7: ImportError: ...``: the last frame in the project's code of the run's traceback, and its
    error."""
    where = crash_location(run)
    error = run.last_error_line()
    if where is None:
        return f"{error}; no traceback line names the project's code"
    return f"at {where[0]}:{where[1]}: {error}"


def _baseline_timed_out(before: RunResult, after: RunResult, nb: int, na: int) -> str:
    detail = (f"the BEFORE (baseline) run {before.timeout_text()} before it recorded this site (a killed process "
              f"writes no records; executed {nb} time(s) in BEFORE, {na} in AFTER): nothing to compare with, which "
              "says nothing about the fix; give a larger --timeout or a command that gets here sooner")
    if not after.ok:
        detail += f"; AFTER exited {after.exit_code}: {after.last_error_line()}"
    return detail


def _missing_api(run: RunResult) -> bool:
    return run.last_error_line().startswith(_MISSING_API)


def _cannot_verify(site: Site, blocked_at: Site, before: RunResult) -> str:
    advice = ("the old code needs a JAX older than the baseline: pass an older --baseline-jax if one installs on "
              "this Python (or --baseline-python with such an environment); the fix itself is not in doubt")
    if site is blocked_at:
        return f"the baseline JAX lacks what the old code uses here ({before.last_error_line()}): {advice}"
    return (f"BEFORE stopped earlier, at {blocked_at.relative}:{blocked_at.row}, which the baseline JAX cannot run "
            f"({before.last_error_line()}): {advice}")


def _decide_reach(site: Site, count: int, before: RunResult, after: RunResult, unmarked: bool) -> SiteResult:
    if unmarked:
        return SiteResult(site, "not-reached", 0, "the fix changes no value that can be probed and its statement "
                          "cannot be marked (a compound statement's header): whether the command executed it is "
                          "unknown")
    if count == 0 and not before.ok and not before.timed_out and before.exit_code > 0:
        # Only BEFORE marks a deleted statement: it died before it, so whether the command reaches it is unknown.
        return SiteResult(site, "died-before", 0, f"the old ({before.label}) run died before this statement "
                          f"({died_at(before)})")
    if count == 0:
        return SiteResult(site, "not-reached", 0, "the command never executed the statement this fix changes "
                          "(a coverage gap)")
    if before.ok and after.ok:
        return SiteResult(site, "verified", count, f"no value to compare (the fix deletes a statement, or "
                          f"edits an import or a binding): BEFORE executed it {count} time(s) and both runs succeeded")
    return SiteResult(site, "failed", 0, "the fix changes a statement with no value to compare and a run failed; "
                      + _tracebacks(before, after))


def nondeterministic_sites(python: str, sites: list[Site | WatchedSite], first: RunResult, second: RunResult, *,
                           rtol: float, atol: float, max_calls: int) -> dict[str, str]:
    """Site id -> how two BEFORE runs (same code, same JAX) differ there: such a site cannot be verified by
    comparison, whatever the fix does."""
    values = compare_values(python, sites, first, second, rtol=rtol, atol=atol, max_calls=max_calls)
    unstable = {}
    for site in sites:
        info = values["sites"].get(site.id, {})
        if info.get("difference") is not None:
            unstable[site.id] = _difference_detail(info["difference"])
        elif info.get("before_count", 0) != info.get("after_count", 0):
            unstable[site.id] = (f"executed {info.get('before_count', 0)} then {info.get('after_count', 0)} "
                                 "time(s)")
    return unstable


def mark_nondeterministic(result: SiteResult, how: str | None) -> SiteResult:
    if how is None:
        return result
    note = f"NONDETERMINISTIC: two BEFORE runs differ here ({how}); seed the command's randomness to compare"
    return SiteResult(result.site, result.status, result.calls, f"{note}. {result.detail}")


# -- watched sites (``verify.watch``): no fix, the same expression probed in both runs -----------------------------
@dataclass
class WatchedResult:
    site: WatchedSite
    status: str  # one of ``WATCHED_STATUSES``: same, differs, not-reached
    calls: int
    detail: str


def decide_watched(watched: list[WatchedSite], values: dict, before: RunResult, after: RunResult, *,
                   max_calls: int) -> list[WatchedResult]:
    """What the two runs' values at each watched site say: the same, different (the values, the number of
    executions, or raising in one run only), or nothing (not reached by both)."""
    locations_b, locations_a = _failing_site_rows(before), _failing_site_rows(after)
    results = []
    for site in watched:
        info = values["sites"].get(site.id, {})
        nb, na = info.get("before_count", 0), info.get("after_count", 0)
        reached_b = nb > 0 or info.get("before_traces", 0) > 0
        reached_a = na > 0 or info.get("after_traces", 0) > 0
        compared = info.get("compared", 0)
        in_b = not before.ok and _site_in_traceback(site, locations_b, site.span_rows)
        in_a = not after.ok and _site_in_traceback(site, locations_a, site.span_rows)
        counts = f"executed {nb} time(s) in BEFORE, {na} in AFTER"
        if info.get("difference") is not None:
            results.append(WatchedResult(site, "differs", compared, _watched_difference(info["difference"])))
        elif in_b != in_a:
            run = before if in_b else after
            results.append(WatchedResult(site, "differs", compared, f"raised here in {run.label} only: "
                                         f"{run.last_error_line()}"))
        elif not reached_b or not reached_a:
            results.append(WatchedResult(site, "not-reached", 0, _watched_not_reached(before, after, nb, na)))
        elif compared == 0:
            errors = "; ".join(sorted(set(info.get("errors", [])))) or "no call was recorded"
            results.append(WatchedResult(site, "not-reached", 0, f"{counts}, but no value could be compared: "
                                         f"{errors}"))
        elif min(nb, max_calls) != min(na, max_calls) and before.ok and after.ok:
            results.append(WatchedResult(site, "differs", compared, f"{counts}; the {compared} call(s) compared "
                                         "agree"))
        else:
            detail = f"{compared} call(s) compared"
            if info.get("abstract"):
                detail += " (only structure, shape and dtype: the values were traced and never computed)"
            if min(nb, max_calls) != min(na, max_calls):
                failed = before if not before.ok else after
                detail += f"; {counts} (the {failed.label} run failed: {failed.last_error_line()})"
            results.append(WatchedResult(site, "same", compared, detail))
    return results


def _watched_difference(diff: dict) -> str:
    detail = f"old {diff['before']}, new {diff['after']}; call {diff['call']}: {diff['path']}: {diff['what']}"
    if diff.get("max_abs") is not None:
        detail += f"; max abs error {diff['max_abs']:.3g}"
    if diff.get("max_rel") is not None:
        detail += f"; max rel error {diff['max_rel']:.3g}"
    return detail


def _watched_not_reached(before: RunResult, after: RunResult, nb: int, na: int) -> str:
    if nb == 0 and na == 0:
        detail = "the command never executed this code: run a command that reaches it to measure the change"
    else:
        detail = f"executed {nb} time(s) in BEFORE, {na} in AFTER: nothing to compare with"
    stopped = [run for run in (before, after) if not run.ok]
    for run in stopped:
        detail += f"; the {run.label} run " + (run.timeout_text() if run.timed_out else
                                               f"failed: {run.last_error_line()}")
    return detail


def mark_watched_nondeterministic(result: WatchedResult, how: str | None) -> WatchedResult:
    if how is None:
        return result
    note = f"NONDETERMINISTIC: two BEFORE runs differ here ({how}); seed the command's randomness to compare"
    return WatchedResult(result.site, result.status, result.calls, f"{note}. {result.detail}")
