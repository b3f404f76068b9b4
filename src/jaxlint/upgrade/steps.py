"""The upgrade, step by step (each step is its own module; this one orders them and fills the report).

1. pins and range (``version_pins``)      2. check and fix (``fixes``)       3. dependencies (``dependencies``)
4. verify on COMMAND (``verify``)          5. jax.export artifacts (``exports``)
6. pin changes (``pins``)                  7. the report (``report``)
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from jaxlint.project.config import Overrides, SettingsResolver
from jaxlint.project.versions import Version
from jaxlint.upgrade.report import UpgradeReport


@dataclass
class UpgradeOptions:
    path: Path
    target: Version
    python: str
    dry_run: bool = False
    unsafe: bool = False
    command: tuple[str, ...] = ()
    migrate_exports: Path | None = None
    target_python: str | None = None  # the interpreter with the new JAX (default: built, see ``_target_python``)
    check_releases: bool = True  # look up newer releases of blocking dependencies on the package index
    timeout: float | None = None  # per run of COMMAND


class Upgrade:
    def __init__(self, options: UpgradeOptions, echo: Callable[[str], None]) -> None:
        self.options = options
        self.echo = echo
        self.cwd = Path.cwd().resolve()
        self.root = options.path.resolve()
        self.resolver = SettingsResolver(Overrides(target_version=options.target, unsafe_fixes=options.unsafe or None))
        self.report = UpgradeReport(project=str(options.path), target=str(options.target), dry_run=options.dry_run,
                                    python=options.python)
        self._targets: dict[str, str] = {}
        self.current_step = 0
        self._python_change = None  # the requires-python change the preflight proposes (a PinChange)
        # The interpreters' versions (the preflight reads them; the release lookup is for the target's Python).
        self._python_version: Version | None = None
        self._target_python_version: Version | None = None
        self._floor = None  # the effective floor the fixes were computed from (``run.effective_floor``)
        self._floors: dict = {}  # every package's raised floor, by package folder (the upgraded one's included)
        self._distributions: list = []  # installed for --python (step 3): what the project's imports reach

    def step(self, number: int, text: str) -> None:
        self.current_step = number  # an interruption names it in the partial report
        self.echo(f"jaxlint upgrade: [{number}/7] {text}")

    def run(self) -> UpgradeReport:
        settings = self._read_range()
        self._raise_floor(settings)
        blocked = self._preflight(settings)
        # The target cannot run: nothing is written in the project (a dry run still shows what would be).
        plan = self._plan_for_verify() if not blocked else None
        if blocked and not self.options.dry_run:
            self.step(2, "not applying the fixes: the target JAX cannot run (see the preflight)")
            self.report.errors.append("fixes not written: the target JAX cannot run as things are (see \"Before "
                                      "anything else\")")
        else:
            self._fix()
        blocking = self._dependencies()
        self._verify(plan, blocked, blocking)
        self._exports(migrate=not blocked)
        self._pins(settings, blocking)
        self.step(7, "writing the report")
        return self.report

    # 1 ---------------------------------------------------------------------------------------------------------
    def _read_range(self):
        self.step(1, f"reading the pinned JAX range of {self.options.path}")
        settings = self.resolver.for_path(self.root if self.root.is_dir() else self.root.parent)
        self.report.version_range = {"min": str(settings.min_version), "min_source": settings.min_version_origin,
                                     "pinned": (f"{settings.pinned.describe()} (package {self._shown(settings.pinned.package)})"
                                                if settings.pinned else None)}
        if settings.pinned is not None:
            self.report.warnings = list(settings.pinned.warnings)
            for warning in settings.pinned.warnings:
                self.echo(f"  warning: {warning}")
        return settings

    def _raise_floor(self, settings) -> None:
        """Where the code needs a newer JAX than the pins' floor (a name first released later), the fixes are
        computed from that release, and step 6 proposes the pin raise: fixes the floor withheld are unlocked. Each
        package on its own (a monorepo's packages have their own pins, so their own floors): ``effective_floor``
        says the upgraded folder's package, ``effective_floors`` every package's."""
        from jaxlint.project.files import discover
        from jaxlint.run.effective_floor import effective_floors

        floors = effective_floors(discover([self.root], self.resolver, unreadable=[]))
        if not floors:
            return
        own = settings.pinned.package if settings.pinned is not None else None
        raised = {}
        for floor in floors:
            lifted = not floor.needs > self.options.target
            shown = {**floor.as_json(self.cwd), "raised": lifted}
            self.report.effective_floors.append(shown)
            self.echo(f"  {floor.note(self.cwd)}"
                      + (f": computing the fixes of package {shown['package']} from JAX {floor.needs}" if lifted
                         else f"; newer than the target {self.options.target}: not raised"))
            if lifted:
                raised[floor.package] = floor
            if floor.package == own:
                self.report.effective_floor = shown
        if not raised:
            return
        self._floors = raised
        self._floor = raised.get(own)
        self.resolver = SettingsResolver(Overrides(
            target_version=self.options.target, unsafe_fixes=self.options.unsafe or None,
            package_floors=tuple((floor.package, floor.needs,
                                  f"the code's floor: `{floor.use.name}` (pins say {floor.pinned})")
                                 for floor in raised.values())))
        if self._floor is not None:
            self.report.version_range.update(min=str(self._floor.needs),
                                             min_source=self.report.effective_floor["where"]
                                             + f": `{self._floor.use.name}`")

    def _preflight(self, settings) -> bool:
        """The target JAX's Python against ``--python``, ``--target-python`` and the declared requires-python;
        True when the target cannot run (nothing may be written)."""
        from jaxlint.upgrade.pins import PinChange
        from jaxlint.upgrade.preflight import check, declared_python, interpreter_version, needs_raising, raised_spec
        from jaxlint.upgrade.python_support import oldest_python

        target_python = self.options.target_python
        declared = declared_python(settings.pinned.package if settings.pinned else self._package_folder(), self.cwd)
        self._python_version = interpreter_version(self.options.python)
        self._target_python_version = interpreter_version(target_python) if target_python else None
        problems = check(self.options.target, self.options.python, self._python_version, target_python,
                         self._target_python_version, declared)
        for problem in problems:
            self.echo(f"  {'cannot work' if problem.blocking else 'to change'}: {problem.problem}: {problem.step}")
        self.report.preflight = [p.as_json() for p in problems]
        needed = oldest_python(self.options.target)
        if declared is not None and needed is not None and needs_raising(declared.spec, needed):
            self._python_change = PinChange("python", f"{declared.key} = '{declared.spec}'", declared.where,
                                            raised_spec(declared.spec, needed),
                                            f"JAX {self.options.target} needs Python >= {needed}")
        return any(p.blocking for p in problems)

    # 2 ---------------------------------------------------------------------------------------------------------
    def _plan_for_verify(self):
        """The fix sites to verify, taken from the code as it is before any fix is written."""
        if not self.options.command:
            return None
        from jaxlint.verify.plan import make_plan

        return make_plan([self.root], self.resolver, self.root, unsafe=self.options.unsafe or None)

    def _fix(self) -> None:
        from jaxlint.upgrade.fixes import check_and_fix

        self.step(2, f"checking at JAX {self.options.target} and "
                     f"{'computing (not writing: --dry-run)' if self.options.dry_run else 'applying'} the "
                     f"{'safe and unsafe' if self.options.unsafe else 'safe'} fixes")
        outcome = check_and_fix(self.root, self.resolver, unsafe=self.options.unsafe, dry_run=self.options.dry_run,
                                cwd=self.cwd)
        self.echo(f"  {outcome.files_checked} file(s) checked, {len(outcome.applied)} fix(es), "
                  f"{len(outcome.left)} finding(s) left")
        self.report.fixes_applied = outcome.applied
        self.report.findings_left = outcome.left
        self.report.errors.extend(outcome.errors)
        self.report.changes_to_check_by_hand = self._changes_to_check_by_hand()

    def _changes_to_check_by_hand(self) -> list[dict]:
        from jaxlint.project.files import discover
        from jaxlint.upgrade.by_hand import changes_to_check

        changes = changes_to_check(discover([self.root], self.resolver, unreadable=[]))
        for change in changes:
            uses = "uses not countable" if change["uses"] is None else f"{change['uses']} use(s)"
            self.echo(f"  to check by hand: `{change['api']}` changed in JAX {change['changed_in']} ({uses})")
        return changes

    # 3 ---------------------------------------------------------------------------------------------------------
    def _dependencies(self):
        from jaxlint.upgrade.dependencies import project_dependencies, scan
        from jaxlint.upgrade.environment import EnvironmentError_, list_distributions
        from jaxlint.upgrade.releases import find_fixed_release, lookup_python

        self.step(3, f"linting the dependencies installed for {self.options.python}")
        try:
            distributions = list_distributions(self.options.python)
        except EnvironmentError_ as error:
            self.report.errors.append(f"dependencies not scanned: {error}")
            return []
        from jaxlint.project.pins import declared_requirements
        from jaxlint.upgrade.import_graph import project_imports

        self._distributions = distributions
        imported = project_imports(self.root)
        chosen = project_dependencies(distributions, self.root, imported)
        results = scan(chosen, self.options.target, self.echo)
        blocking = [r for r in results if r.blocking]
        if self.options.check_releases:
            # The releases the project can move to run on the target's Python, not on the old environment's.
            python = lookup_python(self.options.target, self._python_version, self._target_python_version)
            for result in blocking:
                self.echo(f"  {result.name} {result.version} blocks the upgrade: looking for the first newer release "
                          f"that does not{f' (wheels for Python {python})' if python else ''}")
                find_fixed_release(result, self.options.target, self.options.python, self.echo, python)
            from jaxlint.upgrade.still_needed import mark_no_longer_needed

            mark_no_longer_needed(blocking, distributions, imported, declared_requirements(self.root))
            for result in blocking:
                if result.no_longer_needed:
                    self.echo(f"  {result.name} {result.version}: {result.no_longer_needed}")
        self.report.dependencies_checked = [{"name": r.name, "version": r.version, "blocking": r.blocking,
                                             "warnings": len(r.warnings)} for r in results]
        self.report.blocking_dependencies = [r.as_json() for r in blocking]
        return blocking

    # 4 ---------------------------------------------------------------------------------------------------------
    def _verify(self, plan, blocked: bool = False, blocking=()) -> None:
        command = list(self.options.command)
        self.report.verify = {"command": command, "ran": False, "note": None, "baseline": None, "target": None,
                              "baseline_exit": None, "target_exit": None}
        if not command:
            self.report.verify["note"] = "Not run: no test command was given (`jaxlint upgrade ... -- COMMAND`)."
            return
        if blocked:
            self.report.verify["note"] = "Not run: the target JAX cannot run as things are (see \"Before anything " \
                                         "else\")."
            return
        self.step(4, f"verifying the fix sites with `{' '.join(command)}`")
        if plan is None or not plan.sites:
            self.report.verify["note"] = "Nothing to verify: no fix was applied."
            self.echo("  nothing to verify: no fix site")
            return
        blockers = self._blockers(blocking)
        skipped: dict[str, str] = {}  # site id -> why it is not verified (its file reaches a blocker)
        if blockers:
            from jaxlint.upgrade.site_reach import Reach, command_script

            reach = Reach(self.root, self._distributions, blockers)
            script = command_script(command, self.root)
            started = reach.of_file(script) if script is not None else None
            if started is not None:
                # Said instead of running: AFTER would fail on the dependency, whatever the fixes.
                blocker, chain = started
                self.report.verify["note"] = (f"Not run: `{' '.join(command)}` imports {blocker.name} at startup "
                                              f"({' -> '.join(chain)}), and {blocker.why} (see \"Blocking "
                                              "dependencies\"): give a command that does not import it.")
                self.echo(f"  not verifying: `{' '.join(command)}` imports {blocker.name} at startup "
                          f"({' -> '.join(chain)})")
                self._not_verified(plan.sites, {s.id: f"not verified: {blocker.why}" for s in plan.sites})
                return
            for site in plan.sites:
                found = reach.of_file(site.file)
                if found is not None:
                    blocker, chain = found
                    skipped[site.id] = f"not verified: {blocker.why} ({' -> '.join(chain)})"
            if len(skipped) == len(plan.sites):
                names = ", ".join(sorted({b.name for b in blockers}))
                self.report.verify["note"] = (f"Not run: every fix site's file imports {names}, which the target "
                                              "environment cannot do without (see \"Blocking dependencies\").")
                self.echo(f"  not verifying: every fix site's file imports {names}")
                self._not_verified(plan.sites, skipped)
                return
            if skipped:
                self.echo(f"  {len(skipped)} of {len(plan.sites)} site(s) not verified: their file imports a "
                          "blocking dependency the target environment cannot do without")
        from jaxlint.verify.verifier import verify

        try:
            releases = self._working_releases(blocking)
            self.report.verify["releases"] = releases  # what AFTER's environment took in place of the broken ones
            target_python = self._target_python("verify", releases)
            result = verify(plan, command, baseline_python=self.options.python, target_python=target_python,
                            timeout=self.options.timeout, allow_nothing_compared=True, echo=self._indent)
        except (RuntimeError, OSError, ValueError) as error:
            self.report.verify["note"] = f"Not run: {error}"
            self.report.errors.append(f"verify: {error}")
            return
        self.report.verify.update(ran=True, baseline=result.baseline.jax_version, target=result.target.jax_version,
                                  baseline_exit=result.baseline.run.exit_code if result.baseline.run else None,
                                  target_exit=result.target.run.exit_code if result.target.run else None)
        # A site whose file imports the broken dependency ran on it in AFTER: its outcome says nothing of the fix.
        self.report.verified_sites = [{"file": self._shown(r.site.file), "row": r.site.row, "column": r.site.column,
                                       "code": r.site.code, "status": "not-verified" if r.site.id in skipped
                                       else r.status, "detail": skipped.get(r.site.id, r.detail)}
                                      for r in result.sites]
        if skipped:
            self.report.verify["note"] = (f"{len(skipped)} of {len(plan.sites)} site(s) not verified: their file "
                                          "imports a blocking dependency the target environment cannot do without.")

    def _not_verified(self, sites, why: dict[str, str]) -> None:
        self.report.verified_sites = [{"file": self._shown(s.file), "row": s.row, "column": s.column, "code": s.code,
                                       "status": "not-verified", "detail": why[s.id]} for s in sites]

    def _blockers(self, blocking) -> list:
        """The blocking dependencies the target environment cannot do without (``Blocker``: each with why a site
        that imports it is not verified): those no release fixes (step 3), and with ``--target-python`` those
        installed there at the release that breaks."""
        from jaxlint.upgrade.site_reach import Blocker

        return [Blocker(dep.name, why) for dep, why in self._unusable(blocking)]

    def _unusable(self, blocking) -> list:
        """(dependency, why) for each blocking dependency the target environment would hold at a release that
        breaks."""
        unusable = [(d, f"{d.name} {d.version} has no release that works on the target (JAX {self.options.target}): "
                        + (d.note or ("no newer release was looked up (--no-index)" if not self.options.check_releases
                                      else "no release that works there was found")))
                    for d in blocking if not d.fixed_in]
        if self.options.target_python and blocking:
            from jaxlint.upgrade.environment import EnvironmentError_, list_distributions, normalize

            try:
                installed = {d.key: d.version for d in list_distributions(self.options.target_python)}
            except EnvironmentError_:
                installed = {}
            unusable += [(d, f"--target-python holds {d.name} {d.version}, which breaks at JAX {self.options.target}"
                             f" (install {d.name}=={d.fixed_in} there)") for d in blocking
                         if d.fixed_in and installed.get(normalize(d.name)) == d.version]
        return unusable

    def _indent(self, line: str) -> None:
        self.echo(f"  {line}")

    def _working_releases(self, blocking) -> dict[str, str]:
        """Name -> the release step 3 found that works at the target, for each blocking dependency (none with
        ``--target-python``: that environment is the user's, see ``_unusable``)."""
        if self.options.target_python:
            return {}
        releases = {d.name: d.fixed_in for d in blocking if d.fixed_in}
        for name, version in releases.items():
            old = next(d.version for d in blocking if d.name == name)
            self.echo(f"  target environment: {name} {version} in place of {old} (which breaks at JAX "
                      f"{self.options.target})")
        return releases

    def _target_python(self, purpose: str, releases: dict[str, str] | None = None) -> str:
        """The interpreter with the new JAX: ``--target-python``; else, for verify, a venv of the --python
        environment's packages with jax==TARGET (verify's environments) and ``releases`` (name -> version) in place
        of the blocking dependencies' broken ones, and for exports one with just JAX."""
        if self.options.target_python:
            return self.options.target_python
        if purpose not in self._targets:
            if purpose == "verify":
                from jaxlint.verify.envs import baseline_env

                python = baseline_env(str(self.options.target), self.options.python, None, echo=self._indent,
                                      releases=releases or {})
            else:
                from jaxlint.exports.envs import python_for_jax

                python = python_for_jax(self.options.target, log=self._indent)
            self._targets[purpose] = str(python)
        return self._targets[purpose]

    # 5 ---------------------------------------------------------------------------------------------------------
    def _exports(self, migrate: bool = True) -> None:
        self.step(5, f"looking for jax.export artifacts under {self.options.path}")
        inventory = project_inventory(self.root, self.options.target)
        migrations = self._migrate(inventory) if migrate else {}
        for report in inventory.reports:
            header = report.header
            self.report.artifacts.append({
                "path": self._shown(report.path), "verdict": report.verdict.kind, "reason": report.verdict.reason,
                "jax_version": header.jax_version if header else None,
                "serialization_version": header.serialization_version if header else None,
                "migration": migrations.get(report.path)})
        for path, why in inventory.unreadable:
            self.report.errors.append(f"{self._shown(path)}: cannot be read: {why}")
        self.echo(f"  {len(inventory.reports)} artifact(s) among {inventory.files_looked_at} file(s)")

    def _migrate(self, inventory) -> dict:
        at_risk = [r for r in inventory.reports if r.verdict.kind != "loads"]
        out = self.options.migrate_exports
        if out is None or not at_risk:
            return {}
        if self.options.dry_run:
            return {r.path: {"status": "not-run", "reason": f"--dry-run: would be migrated to {out}", "written": None}
                    for r in at_risk}
        from jaxlint.exports.jaxrun import WorkerError
        from jaxlint.exports.migrate import MigrationOptions, migrate_inventory

        self.echo(f"  migrating {len(at_risk)} artifact(s) to {out}")
        try:
            options = MigrationOptions(Path(os.path.abspath(out)), Path(self.options.python),
                                       Path(self._target_python("exports")), self.options.target)
            outcomes = migrate_inventory(inventory, [self.root], options)
        except (WorkerError, RuntimeError, OSError) as error:
            self.report.errors.append(f"exports migration: {error}")
            return {}
        return {o.source: {"status": o.status, "reason": o.reason, "written": str(o.written) if o.written else None}
                for o in outcomes}

    # 6 ---------------------------------------------------------------------------------------------------------
    def _pins(self, settings, blocking) -> None:
        from jaxlint.upgrade.pins import propose_dependencies, propose_jax

        self.step(6, "proposing the pin changes (jaxlint does not edit pin files)")
        package = settings.pinned.package if settings.pinned is not None else self._package_folder()
        changes = propose_jax(settings.pinned, package, self.options.target, self.cwd, floor=self._floor)
        for folder, floor in sorted(self._floors.items()):  # the other packages whose floor was raised
            if folder != package:
                changes += propose_jax(self.resolver.for_path(folder).pinned, folder, self.options.target, self.cwd,
                                       floor=floor)
        changes += propose_dependencies(blocking, package, self.cwd)
        if self._python_change is not None:
            changes.insert(0, self._python_change)
        self.report.pins = [c.as_json() for c in changes]

    def _package_folder(self) -> Path | None:
        return self.root if self.root.is_dir() else None

    def _shown(self, path) -> str:
        relative = os.path.relpath(path, self.cwd)
        return Path(path).as_posix() if relative.startswith("..") else Path(relative).as_posix()


# Folders under the project that hold no artifact of its own, and may hold tens of thousands of files.
_NOT_SEARCHED = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".tox", ".nox", ".jaxlint_cache",
                 ".mypy_cache", ".pytest_cache"}


def project_inventory(root: Path, target: Version):
    """The artifacts under ``root``, as ``jaxlint exports`` finds them, without its virtual environments (a folder
    with ``pyvenv.cfg``) and tool caches: their files are installed packages, not the project's artifacts."""
    from jaxlint.exports.inventory import Inventory, build_inventory, inspect_file

    if not root.is_dir():
        return build_inventory([root], target)
    inventory = Inventory(target)
    for entry in sorted(root.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            if entry.name in _NOT_SEARCHED or (entry / "pyvenv.cfg").exists():
                continue
            part = build_inventory([entry], target)
            inventory.reports.extend(part.reports)
            inventory.files_looked_at += part.files_looked_at
            inventory.unreadable.extend(part.unreadable)
        elif entry.is_file():
            inventory.files_looked_at += 1
            try:
                report = inspect_file(entry, target, explicit=False)
            except OSError as error:
                inventory.unreadable.append((entry, error.strerror or str(error)))
                continue
            if report is not None:
                inventory.reports.append(report)
    return inventory


def default_python() -> str:
    return sys.executable
