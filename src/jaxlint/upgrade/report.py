"""Step 7: one report of the whole upgrade, as JSON for machines (the keys are a contract, see docs/upgrade.md) and
as Markdown for people."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

# The JSON keys, in order (contract: add at the end, never rename or drop).
JSON_KEYS = ("jaxlint_version", "project", "target", "dry_run", "python", "version_range", "pins", "pins_written",
             "fixes_applied", "findings_left", "blocking_dependencies", "dependencies_checked", "verified_sites",
             "verify", "artifacts", "errors", "done", "preflight", "warnings", "interrupted",
             "changes_to_check_by_hand", "effective_floor", "effective_floors")


@dataclass
class UpgradeReport:
    project: str
    target: str
    dry_run: bool
    python: str
    version_range: dict = field(default_factory=dict)  # {"min", "min_source", "pinned"}
    pins: list[dict] = field(default_factory=list)
    fixes_applied: list[dict] = field(default_factory=list)
    findings_left: list[dict] = field(default_factory=list)
    blocking_dependencies: list[dict] = field(default_factory=list)
    dependencies_checked: list[dict] = field(default_factory=list)  # {"name", "version", "blocking", "warnings"}
    verified_sites: list[dict] = field(default_factory=list)
    verify: dict = field(default_factory=dict)  # {"command", "ran", "note", "baseline", "target"}
    artifacts: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    preflight: list[dict] = field(default_factory=list)  # {"problem", "step", "blocking"}: said first
    warnings: list[str] = field(default_factory=list)  # pin files that could not be read, with file:line
    interrupted: str | None = None  # "SIGTERM during step 3/7": the report is partial
    # Behaviour changes in the range that no rule recognises: {"api", "library", "changed_in", "what", "keep_old",
    # "uses", "files", "reason"} (``upgrade.by_hand``); information, not something left to do.
    changes_to_check_by_hand: list[dict] = field(default_factory=list)
    # The code needs a newer JAX than the pins' floor (``run.effective_floor``): {"package", "pinned",
    # "pinned_where", "needs", "name", "where", "raised"}; the fixes were computed from ``needs`` when ``raised``.
    effective_floor: dict | None = None
    # The same for every package of the project (a monorepo's packages each have their own pins and floor).
    effective_floors: list[dict] = field(default_factory=list)

    @property
    def done(self) -> bool:
        """Nothing is left to do: no finding, no blocking dependency, no pin to change, no failed site or artifact."""
        return not (self.findings_left or self.blocking_dependencies or self.pins or self.errors or self.interrupted
                    or any(item["blocking"] for item in self.preflight)
                    or any(site["status"] not in ("verified", "not-reached") for site in self.verified_sites)
                    or any(not _artifact_ok(a) for a in self.artifacts))

    def as_json(self) -> dict:
        from jaxlint import __version__

        # Pins are proposed, never written (``upgrade.pins``): the key says so to a machine reading the report.
        data = {"jaxlint_version": __version__, "done": self.done, "pins_written": False}
        data.update({key: getattr(self, key) for key in JSON_KEYS if key not in data})
        return {key: data[key] for key in JSON_KEYS}


def _artifact_ok(artifact: dict) -> bool:
    migration = artifact.get("migration") or {}
    return artifact["verdict"] == "loads" or migration.get("status") == "migrated"


def unwritable(path: Path) -> str | None:
    """Why the report cannot be written at ``path`` (None: it can), found before the upgrade writes anything: a
    folder, a file that cannot be opened for writing, a parent that is not a folder or cannot be created in."""
    if path.is_dir():
        return "is a folder"
    if path.exists():
        try:
            with open(path, "a", encoding="utf-8"):
                pass
        except OSError as error:
            return f"cannot be written ({error.strerror or error})"
        return None
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is not a folder"
    if parent == path.parent:  # try it: access() says yes to root on a read-only file system
        try:
            with open(path, "x", encoding="utf-8"):
                pass
            path.unlink()
        except OSError as error:
            return f"cannot be created ({error.strerror or error})"
    elif not os.access(parent, os.W_OK | os.X_OK):
        return f"{parent} cannot be written"
    return None


def render_json(report: UpgradeReport) -> str:
    return json.dumps(report.as_json(), indent=2)


def _table(header: tuple[str, ...], rows: list[tuple]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(cell).replace("|", "\\|").replace("\n", " ") for cell in row) + " |")
    return lines


def render_markdown(report: UpgradeReport) -> str:
    mode = " (dry run: nothing was written)" if report.dry_run else ""
    lines = [f"# JAX upgrade to {report.target}{mode}", ""]
    if report.interrupted:
        lines += [f"**Interrupted** by {report.interrupted}: this report is partial (the steps after it did not "
                  "run; the test command was ended and its copies removed).", ""]
    lines.append(_summary(report))
    lines.append("")
    lines += _preflight(report)
    vr = report.version_range
    lines += ["## Version range", "",
              f"- pinned: {vr.get('pinned') or 'not pinned'}",
              f"- fixes valid from JAX {vr.get('min')} ({vr.get('min_source')}) to {report.target}"]
    own = report.effective_floor
    for floor in ([own] if own else []) + [f for f in report.effective_floors if f != own]:
        package = "" if floor is own else f" of package `{floor['package']}`"
        lines.append(f"- the code{package} needs JAX {floor['needs']} (`{floor['name']}` at `{floor['where']}`), "
                     f"newer than the pins' floor {floor['pinned']} ({floor['pinned_where']})"
                     + (": the fixes are computed from it, and the pin change below raises the floor" if floor["raised"]
                        else f": not raised, it is newer than the target {report.target}"))
    lines += [f"- warning: {w}" for w in report.warnings] + [""]
    lines += ["## Pin changes", ""]
    if report.pins:
        lines += _table(("package", "now", "where", "proposed", "why"),
                        [(p["name"], _code(p["current"]), p["where"] or "-", _code(p["proposed"]), p["reason"])
                         for p in report.pins])
        lines += ["", "Proposed, not written: jaxlint does not edit pin files (apply them, then re-lock)."]
    else:
        lines.append("None: the pins already admit the target.")
    lines.append("")
    verb = "Fixes that would be applied" if report.dry_run else "Fixes applied"
    lines += [f"## {verb} ({len(report.fixes_applied)})", ""]
    if report.fixes_applied:
        lines += [f"- `{f['file']}:{f['row']}:{f['column']}` {f['code']}: {f['message']} ({f['applicability']})"
                  for f in report.fixes_applied]
    else:
        lines.append("Nothing to fix.")
    lines.append("")
    lines += [f"## Findings left ({len(report.findings_left)})", ""]
    if report.findings_left:
        lines += [f"- `{f['file']}:{f['row']}:{f['column']}` {f['code']}: {f['message']}  \n  advice: {f['advice']}"
                  for f in report.findings_left]
    else:
        lines.append("None.")
    lines.append("")
    lines += _by_hand(report)
    lines += _dependencies(report)
    lines += _verify(report)
    lines += _artifacts(report)
    if report.errors:
        lines += ["## Errors", ""] + [f"- {e}" for e in report.errors] + [""]
    return "\n".join(lines).rstrip() + "\n"


def _by_hand(report: UpgradeReport) -> list[str]:
    changes = report.changes_to_check_by_hand
    if not changes:
        return []
    lines = [f"## Changes to check by hand ({len(changes)})", "",
             "Behaviour changes in the range that depend on the values (a dtype, a shape): no rule can see them.", ""]
    lines += _table(("API", "since", "what changed", "uses", "to keep the old behaviour"),
                    [(f"`{c['api']}`", _release(c), c["what"],
                      "not countable" if c["uses"] is None else f"{c['uses']} in {c['files']} file(s)", c["keep_old"])
                     for c in changes])
    return lines + [""]


def _release(change: dict) -> str:
    """``0.4.31`` for a JAX row, ``flax 0.7.1`` for another library's."""
    library = change.get("library", "jax")
    return change["changed_in"] if library == "jax" else f"{library} {change['changed_in']}"


def _code(text: str | None) -> str:
    return f"`{text}`" if text else "-"


def _summary(report: UpgradeReport) -> str:
    if report.done and not report.fixes_applied:
        return "**Nothing to do**: the project is already upgraded (no fix to apply, nothing left, no blocking " \
               "dependency, no pin to change)."
    parts = [f"{len(report.fixes_applied)} fix(es) {'to apply' if report.dry_run else 'applied'}",
             f"{len(report.findings_left)} finding(s) left",
             f"{len(report.blocking_dependencies)} blocking dependenc{'y' if len(report.blocking_dependencies) == 1 else 'ies'}",
             f"{sum(p['proposed'] is not None for p in report.pins)} pin change(s) proposed",
             _verified_count(report),
             f"{len(report.artifacts)} artifact(s)"]
    head = "**Done**" if report.done else "**Not done yet**"
    return f"{head}: " + ", ".join(parts) + "."


def _preflight(report: UpgradeReport) -> list[str]:
    """What cannot work, and the step that makes it work: before everything else."""
    if not report.preflight:
        return []
    lines = ["## Before anything else", ""]
    for item in report.preflight:
        mark = "**cannot work**" if item["blocking"] else "to change"
        lines.append(f"- {mark}: {item['problem']}: {item['step']}")
    if any(item["blocking"] for item in report.preflight):
        lines += ["", "Nothing was written in the project: the target JAX cannot run as things are." if not
                  report.dry_run else "Dry run: the fixes below are those that would be written once this is done."]
    return lines + [""]


def _dependencies(report: UpgradeReport) -> list[str]:
    lines = [f"## Blocking dependencies ({len(report.blocking_dependencies)})", ""]
    checked = report.dependencies_checked
    lines.append(f"{len(checked)} installed distribution(s) that use JAX were linted at {report.target}"
                 + (": " + ", ".join(f"{d['name']} {d['version']}" for d in checked) if checked else "") + ".")
    lines.append("")
    for dep in report.blocking_dependencies:
        fixed = f"pin `{dep['name']}>={dep['fixed_in']}`" if dep["fixed_in"] else "no fixed release found"
        if dep["fixed_in"] and dep.get("requires_python"):
            fixed += f" (Requires-Python `{dep['requires_python']}`)"
        if dep.get("no_longer_needed"):
            fixed = f"no pin, {dep['no_longer_needed']}"
        lines.append(f"### {dep['name']} {dep['version']}: {fixed}")
        lines.append("")
        lines += [f"- `{f['file']}:{f['row']}:{f['column']}` {f['code']}: {f['message']}" for f in dep["findings"]]
        if dep.get("note"):
            lines.append(f"- note: {dep['note']}")
        lines.append("")
    return lines


def _verified_count(report: UpgradeReport) -> str:
    """``3 of 16 site(s) verified``: the one count the summary and the verify section both show."""
    verified = sum(site["status"] == "verified" for site in report.verified_sites)
    if not report.verified_sites:
        return "0 site(s) verified"
    return f"{verified} of {len(report.verified_sites)} site(s) verified"


def _verify(report: UpgradeReport) -> list[str]:
    lines = [f"## Verify: {_verified_count(report)}", ""]
    verify = report.verify
    if not verify.get("ran"):
        lines += [verify.get("note") or "Not run: give the test command after `--`.", ""]
        return lines
    lines.append(f"`{' '.join(verify['command'])}` run BEFORE with JAX {verify.get('baseline')} and AFTER with JAX "
                 f"{verify.get('target')}.")
    if verify.get("releases"):
        lines.append("AFTER's environment took the releases that work at the target in place of the blocking "
                     "ones: " + ", ".join(f"{name} {version}" for name, version in verify["releases"].items()) + ".")
    lines.append("")
    statuses: dict[str, int] = {}
    for site in report.verified_sites:
        statuses[site["status"]] = statuses.get(site["status"], 0) + 1
    if statuses:
        lines += ["By status: " + ", ".join(f"{count} {status}" for status, count in statuses.items()) + ".", ""]
    lines += [f"- `{s['file']}:{s['row']}:{s['column']}` {s['code']}: **{s['status']}** {s['detail']}"
              for s in report.verified_sites]
    lines.append("")
    return lines


def _artifacts(report: UpgradeReport) -> list[str]:
    lines = [f"## jax.export artifacts ({len(report.artifacts)})", ""]
    if not report.artifacts:
        return lines + ["None found.", ""]
    rows = []
    for a in report.artifacts:
        migration = a.get("migration")
        if migration:
            done = f"{migration['status']}: {migration['reason']}"
        else:
            done = "-" if a["verdict"] == "loads" else "not migrated: run again with --migrate-exports DIR"
        rows.append((f"`{a['path']}`", a["jax_version"] or "not recorded", a["verdict"], done))
    return lines + _table(("artifact", "written by JAX", f"verdict at {report.target}", "migration"), rows) + [""]
