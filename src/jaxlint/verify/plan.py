"""What to verify: the fixes ``fix_source`` would make in PATHS (nothing is written), as probe sites."""
from __future__ import annotations

import difflib
import os
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from jaxlint.project.config import SettingsResolver
from jaxlint.lint.engine import AppliedFix, FixOutcome, fix_source, lint_source
from jaxlint.project.files import discover
from jaxlint.rules.base import Rule
from jaxlint.run.sources import DecodeError, SourceText, decode_source, read_source
from jaxlint.verify.probe_spans import derive_probe
from jaxlint.verify.watch import WatchedSite, watched_sites


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
    # Findings with no fix whose value changed silently between the releases: probed, not rewritten.
    watched: list[WatchedSite] = field(default_factory=list)


@dataclass
class Plan:
    root: Path
    files: list[FilePlan] = field(default_factory=list)
    # Files that could not be read or fixed, with why.
    problems: list[str] = field(default_factory=list)
    # Findings left unfixed (no fix, an unsafe one not asked for, or one the min/target versions rule out).
    unfixed: int = 0

    @property
    def sites(self) -> list[Site]:
        return [site for plan in self.files for site in plan.sites]

    @property
    def watched(self) -> list[WatchedSite]:
        return [site for plan in self.files for site in plan.watched]


def make_plan(paths: Sequence[Path], resolver: SettingsResolver, root: Path, *, unsafe: bool | None = None,
              rules: Sequence[type[Rule]] | None = None, watch: bool = False) -> Plan:
    """The fixes in PATHS, per file. ``rules`` replaces the enabled rules (tests inject deliberately wrong ones);
    ``watch``: also the watched sites (``verify.watch``)."""
    plan = Plan(root.resolve())
    for source_file, absolute, relative in _project_files(paths, resolver, plan):
        try:
            source = read_source(absolute)
        except (OSError, DecodeError) as error:
            plan.problems.append(f"{absolute}: cannot read: {error}")
            continue
        settings = source_file.settings
        file_plan = plan_file(absolute, relative, source, settings, plan, unsafe=unsafe, rules=rules, watch=watch)
        if file_plan is not None:
            plan.files.append(file_plan)
    return plan


def _project_files(paths: Sequence[Path], resolver: SettingsResolver, plan: Plan):
    """(source file, absolute path, path relative to the plan's root) of every file to verify; a file outside the
    root is a problem of the plan, not a site."""
    for source_file in discover(list(paths), resolver):
        absolute = source_file.path.resolve()
        try:
            relative = absolute.relative_to(plan.root).as_posix()
        except ValueError:
            plan.problems.append(f"{absolute}: outside the project root {plan.root}: not verified")
            continue
        yield source_file, absolute, relative


def plan_file(absolute: Path, relative: str, source: SourceText, settings, plan: Plan, *, unsafe: bool | None,
              rules: Sequence[type[Rule]] | None, watch: bool = False) -> FilePlan | None:
    """The fixes of one file's ``source`` as sites, and with ``watch`` its watched sites (None when there are
    neither); problems go to ``plan``."""
    use_unsafe = bool(settings.unsafe_fixes) if unsafe is None else unsafe
    outcome = fix_source(source.text, str(absolute), settings, unsafe=use_unsafe, rules=rules,
                         derive_probe=derive_probe)
    for rejected in outcome.rejected:
        plan.problems.append(f"{absolute}:{rejected.start.row}: the {rejected.code} fix would not parse: "
                             "not verified (a bug in jaxlint)")
    plan.unfixed += len(outcome.remaining)
    watched = watched_sites(absolute, relative, source.text, outcome) if watch else []
    if not outcome.applied and not watched:
        return None
    ordinals: Counter = Counter()
    sites = []
    for fix in sorted(outcome.applied, key=lambda f: (f.row, f.column, f.code)):
        key = (fix.row, fix.code)
        ordinals[key] += 1
        site_id = f"{relative}:{fix.row}:{fix.code}:{ordinals[key]}"
        sites.append(Site(site_id, absolute, relative, fix.row, fix.column, fix.code, fix.message, fix))
    return FilePlan(absolute, relative, source, outcome.source, sites, settings, watched)


def make_plan_from_git(paths: Sequence[Path], resolver: SettingsResolver, root: Path, rev: str, *,
                       unsafe: bool | None = None, rules: Sequence[type[Rule]] | None = None,
                       watch: bool = False) -> Plan:
    """The fixes already applied in the working tree (``jaxlint --fix`` was run): BEFORE is each file as committed
    in ``rev``, AFTER the file as it is now. A file is verified when jaxlint's fixes of the committed text give
    exactly the working-tree text (so every site is known); one with other edits too is listed, not verified."""
    root = root.resolve()
    plan = Plan(root)
    toplevel = _git(root, "rev-parse", "--show-toplevel").strip()
    _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    for source_file, absolute, relative in _project_files(paths, resolver, plan):
        in_repo = absolute.relative_to(Path(toplevel).resolve()).as_posix()
        try:
            committed = decode_source(_git_bytes(root, "show", f"{rev}:{in_repo}"))
            current = read_source(absolute)
        except GitError:
            continue  # not in that commit: a new file, nothing was rewritten
        except (OSError, DecodeError) as error:
            plan.problems.append(f"{absolute}: cannot read: {error}")
            continue
        if committed.text == current.text:
            if watch:  # unchanged: no fix site, but its watched sites run in both trees as they are
                _add_watched_only(plan, absolute, relative, current, source_file.settings, rules)
            continue
        file_plan = plan_file(absolute, relative, committed, source_file.settings, plan, unsafe=unsafe, rules=rules,
                              watch=watch)
        if file_plan is None or file_plan.fixed != current.text:
            plan.problems.append(f"{absolute}: changed since {rev}, but "
                                 + _why_not_the_fixes(absolute, committed.text, current.text, source_file.settings,
                                                      unsafe, rules) + ": not verified")
            continue
        plan.files.append(file_plan)
    return plan


def _add_watched_only(plan: Plan, absolute: Path, relative: str, source: SourceText, settings,
                      rules: Sequence[type[Rule]] | None) -> None:
    """A file that no fix changed: its watched sites, probed in the same text in both trees."""
    result = lint_source(source.text, str(absolute), settings, rules=rules)
    watched = watched_sites(absolute, relative, source.text, FixOutcome(source.text, remaining=result.diagnostics))
    if watched:
        plan.files.append(FilePlan(absolute, relative, source, source.text, [], settings, watched))


class GitError(RuntimeError):
    pass


def _git_bytes(root: Path, *args: str) -> bytes:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GitError(f"git {' '.join(args)}: {error}") from None
    if out.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {out.stderr.decode(errors='replace').strip() or 'failed'}")
    return out.stdout


def _git(root: Path, *args: str) -> str:
    return _git_bytes(root, *args).decode(errors="replace")


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


def _changed_rows(old: str, new: str) -> set[int]:
    """The 1-based rows of ``old`` that ``new`` replaces or deletes, and the rows next to an insertion (also where a
    replacement is longer than what it replaces: a line added after an edited one is paired with it)."""
    rows: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            rows.update(range(i1 + 1, i2 + 1))
        if j2 - j1 > i2 - i1:
            rows.update({max(i2, 1), i2 + 1} if i2 == i1 else {i2 + 1})
    return rows


def _why_not_the_fixes(absolute: Path, committed: str, current: str, settings, unsafe: bool | None,
                       rules: Sequence[type[Rule]] | None) -> str:
    """Why the working tree is not jaxlint's fixes of the committed text: other edits, or only edits at jaxlint's
    own findings made with other settings (``--fix`` run with another --min-version, say)."""
    use_unsafe = bool(settings.unsafe_fixes) if unsafe is None else unsafe
    outcome = fix_source(committed, str(absolute), settings, unsafe=use_unsafe, rules=rules)
    at_findings = _changed_rows(committed, outcome.source)
    for finding in outcome.remaining:
        at_findings.update(range(finding.start.row, finding.end.row + 1))
    elsewhere = sorted(_changed_rows(committed, current) - at_findings)
    if elsewhere:
        return (f"not (only) by jaxlint's fixes of the committed file: it has other edits (line {elsewhere[0]} of the "
                f"committed file is not at a finding; commit or stash the other edits, then run --fix again)")
    withheld = sorted({(f.fix_withheld.needs_min_version, f.start.row) for f in outcome.remaining
                       if f.fix_withheld is not None and f.fix_withheld.needs_min_version}, key=lambda x: x[1])
    settings_now = ", ".join(f"{label} {value}" for label, value in (("--min-version", settings.min_version),
                                                                      ("--target-version", settings.target_version))
                             if value is not None)
    hint = f" (here: {settings_now})" if settings_now else ""
    if withheld:
        version, row = withheld[0]
        return (f"only at jaxlint's findings, not as its fixes give with these settings{hint}: the fix at line {row} "
                f"is withheld below --min-version {version}; run verify with the settings --fix ran with")
    return (f"only at jaxlint's findings, not as its fixes give with these settings{hint}: was --fix run with "
            "another --min-version, --target-version, --select or --unsafe-fixes? Run verify with the same ones")
