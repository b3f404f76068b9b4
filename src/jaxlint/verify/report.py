"""Text and JSON (contract) reports of a verification."""
from __future__ import annotations

import json

from jaxlint.verify.verifier import Side, VerifyResult

MARKS = {"verified": "ok", "differs": "DIFFERS", "not-reached": "not reached", "failed": "FAILED",
         "abstract-only": "abstract only", "cannot-verify": "cannot verify on this machine",
         "baseline-timed-out": "BASELINE TIMED OUT", "inputs-differ": "INPUTS DIFFER",
         "died-before": "not reached: a run died before it"}
# Watched sites (no fix: the same expression in both runs) are reported as their own kind.
WATCHED_MARKS = {"same": "watched: same values", "differs": "watched: values differ",
                 "not-reached": "watched: not reached"}


def as_json(result: VerifyResult) -> dict:
    """``{"baseline": {...}, "target": {...}, "sites": [{"file", "row", "code", "status", "calls", "detail"}],
    "watched": [the same keys, status same/differs/not-reached]}`` (``watched`` is an addition, at the end)."""
    return {
        "baseline": result.baseline.as_json(),
        "target": result.target.as_json(),
        "sites": [_site_json(r) for r in result.sites],
        "watched": [_site_json(r) for r in result.watched],
    }


def _site_json(r) -> dict:
    return {"file": str(r.site.file), "row": r.site.row, "code": r.site.code, "status": r.status, "calls": r.calls,
            "detail": r.detail}


def render_json(result: VerifyResult) -> str:
    return json.dumps(as_json(result), indent=2)


def _devices(side: Side) -> str:
    if not side.devices:
        return "devices unknown (the command did not use JAX, or did not exit normally)"
    kinds = sorted({device.split(" ", 1)[-1] for device in side.devices})
    platforms = sorted({device.split(":", 1)[0] for device in side.devices})
    label = "CPU only" if platforms == ["cpu"] else ", ".join(kinds)
    return f"{len(side.devices)} device(s): {label}"


def _side_line(name: str, side: Side) -> str:
    run = side.run
    status = "not run" if run is None else f"exit {run.exit_code}" + (f" ({run.timeout_text()})" if run.timed_out
                                                                         else "")
    seconds = "" if run is None else f", {run.seconds:.1f}s"
    return (f"{name}: JAX {side.jax_version} on Python {side.python_version} ({side.python}): {status}{seconds}; "
            f"{_devices(side)}")


def _where(site, cwd) -> str:
    where = site.file
    if cwd is not None:
        try:
            where = site.file.relative_to(cwd)
        except ValueError:
            pass
    return f"{where}:{site.row}:{site.column}"


def _watched_summary(result: VerifyResult) -> str:
    counts = {status: sum(1 for r in result.watched if r.status == status) for status in WATCHED_MARKS}
    summary = ", ".join(f"{n} {WATCHED_MARKS[status].split(': ', 1)[1]}" for status, n in counts.items() if n)
    line = f"{len(result.watched)} watched site(s) (no fix; what changed between the releases, measured): {summary}"
    if counts["differs"]:
        line += ("; read each difference: the upgrade changes what this code computes. "
                 + ("It fails this run (--fail-on-watched)." if result.fail_on_watched else
                    "It does not change the exit status (--fail-on-watched makes it 1)."))
    return line if line.endswith(".") else line + "."


def render_text(result: VerifyResult, cwd=None) -> str:
    lines = [_side_line("BEFORE (baseline)", result.baseline), _side_line("AFTER  (target)  ", result.target)]
    for side in (result.baseline, result.target):
        if side.run is not None and not side.run.ok:
            lines.append(f"  {side.label} run failed: {side.run.last_error_line()}")
    lines.append("")
    for r in result.sites:
        calls = f" ({r.calls} call{'s' if r.calls != 1 else ''})" if r.status in ("verified", "abstract-only") else ""
        lines.append(f"{_where(r.site, cwd)}: {r.site.code} {MARKS[r.status]}{calls}: {r.detail}")
    for r in result.watched:
        lines.append(f"{_where(r.site, cwd)}: {r.site.code} {WATCHED_MARKS[r.status]} ({r.detail})")
    counts = {status: sum(1 for r in result.sites if r.status == status) for status in MARKS}
    summary = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    lines.append("")
    baseline = result.baseline.run
    if baseline is not None and baseline.timed_out:
        unknown = counts["baseline-timed-out"]
        verdict = (f"NOT verified: the BEFORE (baseline) run {baseline.timeout_text()}: {unknown} site(s) have "
                   "nothing to compare with (give a larger --timeout)")
    elif not result.sites:
        verdict = "no fix site, so nothing was proven about fixes" + \
            (" (accepted: --allow-nothing-compared)" if result.allow_nothing_compared else
             " (pass --allow-nothing-compared to accept)")
    elif result.nothing_compared:
        verdict = "NOTHING COMPARED: the command reached no fix site, so nothing was proven" + \
            (" (accepted: --allow-nothing-compared)" if result.allow_nothing_compared else
             " (run a command that reaches them, or pass --allow-nothing-compared)")
    else:
        verdict = "all reached sites verified" if result.exit_code == 0 else "NOT verified"
    platform = _devices(result.target)
    lines.append(f"{len(result.sites)} site(s): {summary or 'none'}; {verdict} ({platform}).")
    if result.watched:
        lines.append(_watched_summary(result))
    for problem in result.plan.problems:
        lines.append(f"warning: {problem}")
    return "\n".join(lines)
