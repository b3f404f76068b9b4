"""The verification of a plan: prepare both trees, run the command in each, compare, decide statuses."""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from jaxlint.verify.compare import SiteResult, WatchedResult, compare_values, decide, decide_watched, \
    mark_nondeterministic, mark_watched_nondeterministic, nondeterministic_sites
from jaxlint.verify.instrument import prepare_trees
from jaxlint.verify.plan import Plan
from jaxlint.verify.run import RunResult, interpreter_info, run_command


@dataclass
class Side:
    """One run as reported: interpreter, versions, devices, exit status, duration."""

    label: str
    python: str
    python_version: str | None
    jax_version: str | None
    devices: list[str]
    run: RunResult | None

    def as_json(self) -> dict:
        return {"python": self.python, "python_version": self.python_version, "jax_version": self.jax_version,
                "devices": self.devices, "exit_code": self.run.exit_code if self.run else None,
                "seconds": round(self.run.seconds, 2) if self.run else None,
                "timed_out": self.run.timed_out if self.run else False,
                "timeout": self.run.timeout if self.run else None,
                "signal": self.run.signal_name if self.run else None}


@dataclass
class VerifyResult:
    plan: Plan
    baseline: Side
    target: Side
    sites: list[SiteResult] = field(default_factory=list)
    workdir: Path | None = None
    # --allow-nothing-compared: a run that reached no site is not a failure (by default it is: nothing was proven).
    allow_nothing_compared: bool = False
    # The watched sites (findings with no fix, probed alike in both runs): for the user to read.
    watched: list[WatchedResult] = field(default_factory=list)
    # --fail-on-watched: a watched site whose values differ makes the exit status 1 (by default it does not).
    fail_on_watched: bool = False

    @property
    def nothing_compared(self) -> bool:
        return all(result.status in ("not-reached", "cannot-verify", "baseline-timed-out", "died-before")
                   for result in self.sites)

    @property
    def exit_code(self) -> int:
        runs_ok = self.baseline.run is not None and self.baseline.run.ok and \
            self.target.run is not None and self.target.run.ok
        reached_ok = all(result.status in ("verified", "not-reached", "cannot-verify") for result in self.sites)
        compared_ok = self.allow_nothing_compared or not self.nothing_compared
        watched_ok = not self.fail_on_watched or all(result.status != "differs" for result in self.watched)
        return 0 if runs_ok and reached_ok and compared_ok and watched_ok else 1

    def verified_ids(self) -> set[str]:
        return {result.site.id for result in self.sites if result.status == "verified"}


def _devices(metas: list[dict]) -> list[str]:
    for meta in metas:
        if meta.get("devices"):
            return list(meta["devices"])
    return []


def _jax_version(metas: list[dict], fallback: str | None) -> str | None:
    for meta in metas:
        if meta.get("jax_version"):
            return meta["jax_version"]
    return fallback


def _timed_out(run: RunResult) -> str:
    return f" ({run.timeout_text()})" if run.timed_out else ""


def _span_rows(plan: Plan) -> dict[str, int]:
    rows = {}
    for file_plan in plan.files:
        for site in file_plan.sites:
            if site.fix.probe_original is not None:
                start, end = site.fix.probe_original
                rows[site.id] = file_plan.source.text.count("\n", start, end)
    return rows


def verify(plan: Plan, command: Sequence[str], *, baseline_python: str, target_python: str,
           platform: str | None = None, rtol: float = 1e-6, atol: float = 1e-6, max_calls: int = 10,
           timeout: float | None = None, keep: bool = False, probes: bool = True, repeat_baseline: bool = False,
           allow_nothing_compared: bool = False, fail_on_watched: bool = False,
           echo: Callable[[str], None] | None = None) -> VerifyResult:
    """Run ``command`` in BEFORE with ``baseline_python`` and in AFTER with ``target_python``; compare the sites
    (the fix sites and the plan's watched sites)."""
    say = echo or (lambda line: None)
    info_b = interpreter_info(baseline_python, platform)
    info_a = interpreter_info(target_python, platform)
    for label, python, info in (("baseline", baseline_python, info_b), ("target", target_python, info_a)):
        if info["jax_version"] is None:
            raise RuntimeError(f"the {label} interpreter {python} has no JAX installed"
                               + (" (pass --target-python PATH: the interpreter with the new JAX)"
                                  if label == "target" else ""))
    workdir = Path(tempfile.mkdtemp(prefix="jaxlint-verify-"))
    try:
        trees = prepare_trees(plan, workdir, probes=probes)
        probe_dir = trees.probe_dir if probes else None
        say(f"BEFORE: JAX {info_b['jax_version']} ({baseline_python}) in {trees.before}")
        before = run_command("BEFORE", command, baseline_python, trees.before, probe_dir, workdir / "records-before",
                             platform=platform, max_calls=max_calls, timeout=timeout, echo=echo)
        say(f"BEFORE: exit {before.exit_code} in {before.seconds:.1f}s" + _timed_out(before))
        unstable: dict = {}
        if repeat_baseline:
            say(f"BEFORE again (--repeat-baseline): JAX {info_b['jax_version']}, to find nondeterministic sites")
            again = run_command("BEFORE2", command, baseline_python, trees.before, probe_dir,
                                workdir / "records-before2", platform=platform, max_calls=max_calls,
                                timeout=timeout, echo=echo)
            say(f"BEFORE again: exit {again.exit_code} in {again.seconds:.1f}s" + _timed_out(again))
            if before.timed_out or again.timed_out:  # a killed run recorded nothing: every site would look unstable
                say("BEFORE again: not compared with BEFORE (a run timed out), so no site is marked nondeterministic")
            else:
                unstable = nondeterministic_sites(target_python, [*plan.sites, *plan.watched], before, again,
                                                  rtol=rtol, atol=atol, max_calls=max_calls)
        say(f"AFTER:  JAX {info_a['jax_version']} ({target_python}) in {trees.after}")
        after = run_command("AFTER", command, target_python, trees.after, probe_dir, workdir / "records-after",
                            platform=platform, max_calls=max_calls, timeout=timeout, echo=echo)
        say(f"AFTER:  exit {after.exit_code} in {after.seconds:.1f}s" + _timed_out(after))
        values = compare_values(target_python, [*plan.sites, *plan.watched], before, after, rtol=rtol, atol=atol,
                                max_calls=max_calls, inputs=trees.inputs)
        sites = decide(plan.sites, values, before, after, max_calls=max_calls, unmarked=set(trees.unmarked),
                       site_rows=_span_rows(plan), inputs=trees.inputs)
        sites = [mark_nondeterministic(result, unstable.get(result.site.id)) for result in sites]
        watched = [mark_watched_nondeterministic(result, unstable.get(result.site.id))
                   for result in decide_watched(plan.watched, values, before, after, max_calls=max_calls)]
        baseline = Side("baseline", baseline_python, info_b["python"],
                        _jax_version(values["before_meta"], info_b["jax_version"]),
                        _devices(values["before_meta"]), before)
        target = Side("target", target_python, info_a["python"],
                      _jax_version(values["after_meta"], info_a["jax_version"]), _devices(values["after_meta"]), after)
        return VerifyResult(plan, baseline, target, sites, workdir if keep else None, allow_nothing_compared,
                            watched, fail_on_watched)
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
