"""What to verify: the fixes ``fix_source`` would make in PATHS (nothing is written), as probe sites."""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from jaxlint.config import SettingsResolver
from jaxlint.engine import AppliedFix, fix_source
from jaxlint.files import discover
from jaxlint.rules.base import Rule
from jaxlint.sources import DecodeError, SourceText, read_source
from jaxlint.verify.probe_spans import derive_probe


@dataclass
class Site:
    """One applied fix. ``id`` is stable across BEFORE and AFTER: relative path, original row, code, ordinal."""

    id: str
    file: Path  # absolute, the user's file
    relative: str  # POSIX path relative to the project root
    row: int
    column: int
    code: str
    message: str
    fix: AppliedFix

    @property
    def kind(self) -> str:
        """``value``: the expression is probed in both runs; ``reach``: the fix changes no value (it deletes a
        statement, or edits an import or a name being bound): only whether the statement ran is recorded."""
        return "value" if self.fix.probe_original is not None and self.fix.probe_fixed is not None else "reach"


@dataclass
class FilePlan:
    path: Path
    relative: str
    source: SourceText
    fixed: str
    sites: list[Site]
    settings: object = None


@dataclass
class Plan:
    root: Path
    files: list[FilePlan] = field(default_factory=list)
    # Files that could not be read or fixed, with why.
    problems: list[str] = field(default_factory=list)

    @property
    def sites(self) -> list[Site]:
        return [site for plan in self.files for site in plan.sites]


def make_plan(paths: Sequence[Path], resolver: SettingsResolver, root: Path, *, unsafe: bool | None = None,
              rules: Sequence[type[Rule]] | None = None) -> Plan:
    """The fixes in PATHS, per file. ``rules`` replaces the enabled rules (tests inject deliberately wrong ones)."""
    root = root.resolve()
    plan = Plan(root)
    for source_file in discover(list(paths), resolver):
        absolute = source_file.path.resolve()
        try:
            relative = absolute.relative_to(root).as_posix()
        except ValueError:
            plan.problems.append(f"{absolute}: outside the project root {root}: not verified")
            continue
        try:
            source = read_source(absolute)
        except (OSError, DecodeError) as error:
            plan.problems.append(f"{absolute}: cannot read: {error}")
            continue
        settings = source_file.settings
        use_unsafe = bool(settings.unsafe_fixes) if unsafe is None else unsafe
        outcome = fix_source(source.text, str(absolute), settings, unsafe=use_unsafe, rules=rules,
                             derive_probe=derive_probe)
        for rejected in outcome.rejected:
            plan.problems.append(f"{absolute}:{rejected.start.row}: the {rejected.code} fix would not parse: "
                                 "not verified (a bug in jaxlint)")
        if not outcome.applied:
            continue
        ordinals: Counter = Counter()
        sites = []
        for fix in sorted(outcome.applied, key=lambda f: (f.row, f.column, f.code)):
            key = (fix.row, fix.code)
            ordinals[key] += 1
            site_id = f"{relative}:{fix.row}:{fix.code}:{ordinals[key]}"
            sites.append(Site(site_id, absolute, relative, fix.row, fix.column, fix.code, fix.message, fix))
        plan.files.append(FilePlan(absolute, relative, source, outcome.source, sites, settings))
    return plan


def project_root(paths: Sequence[Path], given: Path | None = None) -> Path:
    """The directory copied for the runs: ``given``, else the current directory if it holds every path."""
    if given is not None:
        return given.resolve()
    cwd = Path.cwd().resolve()
    for path in paths:
        resolved = path.resolve()
        if resolved != cwd and cwd not in resolved.parents:
            common = Path(os.path.commonpath([str(p.resolve()) for p in paths]))
            return common if common.is_dir() else common.parent
    return cwd
