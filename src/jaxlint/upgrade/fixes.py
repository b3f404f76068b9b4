"""Step 2: check the project at the target and apply the safe fixes (unsafe ones with ``--unsafe-fixes``), through
the same runner as ``jaxlint check --fix``. ``--dry-run`` computes the same fixes and writes nothing (``--diff``'s
mode); the results cache is never used, so no ``.jaxlint_cache`` appears in the project either."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.project.config import SettingsResolver
from jaxlint.project.files import discover
from jaxlint.run.runner import FileResult, Mode, run_files


@dataclass
class FixesOutcome:
    applied: list[dict] = field(default_factory=list)  # {"file", "row", "column", "code", "message", "applicability"}
    left: list[dict] = field(default_factory=list)  # {"file", "row", "column", "code", "message", "advice"}
    errors: list[str] = field(default_factory=list)
    files_checked: int = 0


def advice_for(diagnostic) -> str:
    """What a person does about a finding that is left: why no fix was applied, or that it needs one by hand."""
    if diagnostic.fix is not None:
        return "an unsafe fix is available: review it, then run again with --unsafe-fixes"
    if diagnostic.fix_withheld is not None:
        withheld = diagnostic.fix_withheld
        text = f"fix withheld: {withheld.reason}"
        if withheld.needs_min_version:
            text += f" (offered once the min version is {withheld.needs_min_version} or newer)"
        return text
    return "no automatic fix: change it by hand as the message says"


def check_and_fix(path: Path, resolver: SettingsResolver, *, unsafe: bool, dry_run: bool, cwd: Path) -> FixesOutcome:
    unreadable: list = []
    files = list(discover([path], resolver, unreadable=unreadable))
    results = run_files(files, Mode.DIFF if dry_run else Mode.FIX, unsafe, jobs=None, use_cache=False,
                        resolver=resolver, walked=[path] if path.is_dir() else [])
    outcome = FixesOutcome(files_checked=len(files))
    for result in results:
        outcome.errors.extend(_errors(result))
        shown = _shown(result.path, cwd)
        for fix in result.applied:
            outcome.applied.append({"file": shown, "row": fix.row, "column": fix.column, "code": fix.code,
                                    "message": fix.fix_message or fix.message,
                                    "applicability": fix.applicability.value})
        for d in result.diagnostics:
            outcome.left.append({"file": shown, "row": d.start.row, "column": d.start.column, "code": d.code,
                                 "message": d.message, "advice": advice_for(d),
                                 "fix_withheld": d.fix_withheld.reason if d.fix_withheld else None})
    outcome.errors.extend(f"{p}: cannot read: {e}" for p, e in unreadable)
    return outcome


def _errors(result: FileResult) -> list[str]:
    errors = []
    if result.internal_error:
        errors.append(f"{result.path}: internal error: {result.internal_error}")
    if result.write_error:
        errors.append(f"{result.path}: cannot write: {result.write_error}")
    return errors


def _shown(path: str, cwd: Path) -> str:
    relative = os.path.relpath(path, cwd)
    return Path(path).as_posix() if relative.startswith("..") else Path(relative).as_posix()
