"""Command line (contract: options named as ruff names them). Parses options, calls the runner, prints."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import click

from jaxlint import __version__
from jaxlint.project.config import ConfigError, Overrides, SettingsResolver
from jaxlint.project.files import discover
from jaxlint.output import RenderOptions, render
from jaxlint.output.common import STDIN_TEXTS
from jaxlint.lint.diagnostics import io_error
from jaxlint.output.text import fix_summary, format_diagnostics
from jaxlint.run.runner import FileResult, Mode, process_source, run_files
from jaxlint.project.settings import OUTPUT_FORMATS
from jaxlint.run.sources import DecodeError, decode_source
from jaxlint.project.version_range import describe as describe_range, range_warnings
from jaxlint.project.versions import Version
from jaxlint.ui.options import split_codes, version_option

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
# ``run.noqa_add.UNUSED_NOQA`` (opt-in), spelled here: a check that does not select it never imports that module.
UNUSED_NOQA = "JAX001"


class DefaultToCheck(click.Group):
    """``jaxlint [PATHS]`` and ``jaxlint --fix`` mean ``jaxlint check ...``, as users type them."""

    # Subcommands that live in their own packages, imported only when named (or listed by --help): a check never
    # pays for them (~50 ms of imports). A package that cannot be imported leaves its command out.
    LAZY_COMMANDS = {
        "exports": ("jaxlint.exports.cli", "exports_command"),
        "verify": ("jaxlint.verify.cli", "verify_command"),
        "server": ("jaxlint.ui.server", "server_command"),
        "envs": ("jaxlint.ui.envs", "envs_command"),
        "upgrade": ("jaxlint.upgrade.cli", "upgrade_command"),
    }

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in self.LAZY_COMMANDS
                        and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | {name for name in self.LAZY_COMMANDS if self.get_command(ctx, name)})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in self.LAZY_COMMANDS:
            import importlib

            module, attribute = self.LAZY_COMMANDS[name]
            try:
                command = getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError):
                return None
            self.add_command(command, name)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command's whole first sentence, wrapped: click's default cuts it at 45 characters with "..."."""
        rows = [(name, command.get_short_help_str(limit=1000)) for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jaxlint")
def main() -> None:
    """jaxlint: find, fix and verify breaking JAX API changes.

    Run `jaxlint [PATHS]` to check, `jaxlint --fix` to apply safe fixes, `jaxlint rule CODE` for a rule's docs.
    """


def _split_patterns(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@dataclass(frozen=True)
class Report:
    """How to print a run's outcome and what exit code it gives (ruff's -q, -s, -e, --fix-only, --show-fixes)."""

    output_format: str
    mode: Mode
    unsafe: bool
    exit_zero: bool = False
    statistics: bool = False
    output_file: Path | None = None
    quiet: bool = False  # findings only: no summary line, no warnings
    silent: bool = False  # nothing on stdout; the exit code says it all
    exit_non_zero_on_fix: bool = False
    fix_only: bool = False
    show_fixes: bool = False


@main.command(short_help="Check PATHS for JAX API changes (the default command).")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--fix/--no-fix", default=False, help="Apply safe fixes (and unsafe ones with --unsafe-fixes).")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also offer and apply unsafe fixes.")
@click.option("--fix-only", is_flag=True,
              help="Apply fixes but do not report, or exit non-zero for, what remains. Implies --fix.")
@click.option("--show-fixes", is_flag=True, help="After the findings, list the fixes applied, per file and rule.")
@click.option("-e", "--exit-non-zero-on-fix", is_flag=True,
              help="Exit 1 when a fix was applied, even if nothing remains to report.")
@click.option("--diff", is_flag=True, help="Print the fixes as a diff instead of writing them; exit 1 if any.")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (e.g. JAX2,JAX101). Replaces config.")
@click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable in addition.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="Paths to leave out (globs, comma-separated or repeated). Replaces `exclude` from the config and "
                   "the default excludes (.git, .venv, build, ...): `--exclude ''` keeps none of them.")
@click.option("--extend-exclude", multiple=True, metavar="PATTERN",
              help="Paths to leave out in addition to `exclude`.")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None,
              help="Leave out files that git ignores (default: on, or `respect-gitignore` from the config).")
@click.option("--target-version", callback=version_option, help="The JAX version the code will run on.")
@click.option("--min-version", callback=version_option,
              help="The oldest JAX version the code must keep working on (default: the project's pins).")
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default=None, help="Output format.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--statistics", "show_statistics", is_flag=True,
              help="Print counts per rule instead of findings, marked [*] all fixable, [-] some, [ ] none (with "
                   "--fix: of what remains, then the fixed count).")
@click.option("--stdin-filename", type=click.Path(path_type=Path), help="The name of the file read from stdin.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes even to paths given on the command line.")
@click.option("--show-files", is_flag=True, help="Print the files that would be checked, and exit.")
@click.option("-n", "--no-cache", is_flag=True, help="Do not read or write the results cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to keep the results cache (default: .jaxlint_cache in the project root).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Parallel processes (default: the number of CPU cores).")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the findings to this file instead of stdout (missing folders are created).")
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Use this configuration file instead of discovering one.")
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
@click.option("--show-settings", is_flag=True, help="Print the settings in effect (versions and where they came from).")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every line with a finding (keeps existing codes).")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings, but nothing else (no summary, no warnings).")
@click.option("-s", "--silent", is_flag=True,
              help="Print nothing (errors that stop the run still go to stderr); the exit code still says 1 when "
                   "findings remain.")
def check(paths: tuple[Path, ...], fix: bool, unsafe_fixes: bool | None, fix_only: bool, show_fixes: bool,
          exit_non_zero_on_fix: bool, diff: bool, select: tuple[str, ...], extend_select: tuple[str, ...],
          ignore: tuple[str, ...], exclude: tuple[str, ...], extend_exclude: tuple[str, ...],
          respect_gitignore: bool | None, target_version: Version | None, min_version: Version | None,
          output_format: str | None, exit_zero: bool, show_statistics: bool, stdin_filename: Path | None,
          force_exclude: bool, show_files: bool, no_cache: bool, cache_dir: Path | None, jobs: int | None,
          output_file: Path | None, config_file: Path | None, isolated: bool, show_settings: bool,
          add_noqa: bool = False, quiet: bool = False, silent: bool = False) -> None:
    """Check PATHS (default: the current directory) for JAX API changes."""
    from jaxlint.run import replay

    if replay.RECORDER is not None:  # the ``jaxlint`` command (``ui.entry``): what this check reads is recorded
        replay.RECORDER.install()
    overrides = Overrides(
        select=split_codes(select, "--select") if select else None,
        extend_select=split_codes(extend_select, "--extend-select"),
        ignore=split_codes(ignore, "--ignore"),
        target_version=target_version, min_version=min_version, unsafe_fixes=unsafe_fixes,
        output_format=output_format, config_file=config_file, isolated=isolated,
        exclude=_split_patterns(exclude) if exclude else None, extend_exclude=_split_patterns(extend_exclude),
        respect_gitignore=respect_gitignore,
    )
    resolver = SettingsResolver(overrides)
    mode = Mode.DIFF if diff else Mode.FIX if fix or fix_only else Mode.CHECK
    try:
        reading_stdin = list(paths) == [Path("-")] or (not paths and stdin_filename is not None)
        targets = list(paths) or [Path(".")]
        if reading_stdin:
            base_settings = resolver.for_path(stdin_filename if stdin_filename is not None else Path("."))
        else:  # the first path's settings (its folder's, when it does not exist: it is reported as JAX002)
            base_settings = resolver.for_path(targets[0] if targets[0].exists() else Path("."))
        if not silent:
            _warn_about_range(base_settings)
        report = Report(base_settings.output_format, mode, bool(base_settings.unsafe_fixes), exit_zero,
                        show_statistics, output_file, quiet=quiet or silent, silent=silent,
                        exit_non_zero_on_fix=exit_non_zero_on_fix, fix_only=fix_only, show_fixes=show_fixes)
        if reading_stdin:
            sys.exit(_check_stdin(resolver, stdin_filename, report))
        if show_settings:
            click.echo(_describe_settings(base_settings))
            return
        unreadable: list[tuple[Path, OSError]] = []
        files = list(discover(targets, resolver, force_exclude=force_exclude, unreadable=unreadable))
        if show_files:
            for file in sorted(files, key=lambda f: str(f.path)):
                click.echo(str(file.path))
            sys.exit(EXIT_OK)
        if not files and not unreadable and not report.quiet:
            click.echo("jaxlint: warning: No Python files found under the given path(s)", err=True)
        if add_noqa:  # issue 7: suppression hygiene (jaxlint.run.noqa_add)
            from jaxlint.run.noqa_add import add_noqa as add_noqa_directives

            added = add_noqa_directives(files, echo=lambda text: click.echo(text, err=True))
            if not report.silent:
                click.echo(f"Added {added} noqa directive{'s' if added != 1 else ''}.", err=True)
            sys.exit(EXIT_OK)
        _record_inputs(files, mode, no_cache, cache_dir)
        results = run_files(files, mode, report.unsafe, jobs=jobs, use_cache=not no_cache, cache_dir=cache_dir,
                            resolver=resolver, walked=[target for target in targets if target.is_dir()])
        if any(file.settings.is_selected(UNUSED_NOQA, opt_in=True) for file in files):  # opt-in: rarely
            from jaxlint.run.noqa_add import report_unused_noqa  # JAX001 unused-noqa, reported after the engine

            results = report_unused_noqa(files, results, fix=mode is Mode.FIX)
        results += [FileResult(str(path), [io_error(str(path), error)]) for path, error in unreadable]
        if not report.quiet:
            _note_effective_floors(files, results)
    except ConfigError as error:
        for line in str(error).splitlines():
            click.echo(f"jaxlint: error: {line}", err=True)
        sys.exit(EXIT_ERROR)
    code = _report(results, report)
    global _CHECK_REPORTED
    _CHECK_REPORTED = True
    sys.exit(code)


def _record_inputs(files: list, mode: Mode, no_cache: bool, cache_dir: Path | None) -> None:
    """Tell the recorder of this process (``ui.entry``) that this check may be replayed, and what its workers will
    read besides what this process reads: the files, the folders a fix's added import is placed by (a module
    ``jax.py`` next to the code is first-party: ``analysis.added_imports``) and the ``extend-rules`` folders."""
    from jaxlint.run import replay

    if replay.RECORDER is None or mode is not Mode.CHECK or no_cache:
        return
    from jaxlint.catalogue.extend import fingerprint
    from jaxlint.project.cache import CACHE_DIR_NAME

    recorder = replay.RECORDER
    recorder.note_files(file.path for file in files)
    recorder.note_listings({folder for file in files for folder in (file.path.parent, file.settings.root)})
    for folders in {file.settings.extend_rules for file in files}:
        fingerprint(folders)  # reads each rule file here, where the recorder sees it
    for folder in {cache_dir if cache_dir is not None else file.settings.root / CACHE_DIR_NAME for file in files}:
        recorder.uses_cache_folder(folder)
    recorder.replayable = True


def _collect_garbage_rarely() -> None:
    """libcst builds ~100k nodes per file and frees them by reference counting; the cycle collector's default
    (a pass every 700 allocations) scans them again and again, about a tenth of the time on old code. A pass every
    100,000 still cost 160 ms of a one-process check of the dev corpus (each of 4 passes scanned a large file's
    ``ast`` tree while it was alive; the whole run collected 345 objects); every 1,000,000, none runs once the
    command is loaded, and the peaks are the same (a 5 MB module: 288 MiB checked, 306 fixed). Freezing what is
    loaded now also keeps forked workers from copying the pages it would touch. Process-wide, so set by
    ``entry_point`` only (not when ``main`` runs inside another program, such as the tests)."""
    import gc

    gc.freeze()
    gc.set_threshold(1_000_000, 50, 100)


# Set once a check has written its report: the process may then end without the interpreter's teardown.
_CHECK_REPORTED = False


def entry_point() -> None:
    """The ``jaxlint`` command after ``ui.entry`` (``main`` for a process of its own). After a check has written
    its report, the process ends with ``os._exit``: the interpreter's teardown frees every object one by one, about
    0.1 s after a large run that nobody waits for (mypy ends the same way). Everything is flushed first; every file
    jaxlint writes is closed by then. A check recorded by ``ui.entry`` writes its manifest just before."""
    from jaxlint.run import replay

    _collect_garbage_rarely()
    try:
        main()
    except SystemExit as stop:
        if _CHECK_REPORTED and (stop.code is None or isinstance(stop.code, int)):
            if replay.RECORDER is not None:
                replay.RECORDER.finish(stop.code or 0)
            replay.exit_flushed(stop.code or 0, stop)
        raise


def _check_stdin(resolver: SettingsResolver, stdin_filename: Path | None, report: Report) -> int:
    display = str(stdin_filename) if stdin_filename is not None else "-"
    settings = resolver.for_path(stdin_filename if stdin_filename is not None else Path("."))
    _warn_about_range(settings)
    data = sys.stdin.buffer.read()
    try:
        return _check_stdin_data(data, display, settings, report)
    finally:
        STDIN_TEXTS.pop(display, None)  # this run only: a later run in the process reads the file of that name


def _check_stdin_data(data: bytes, display: str, settings, report: Report) -> int:
    if display.endswith(".ipynb"):
        return _check_stdin_notebook(data, display, settings, report)
    try:
        source = decode_source(data)
    except DecodeError as error:
        click.echo(f"{display}:{error.row}:{error.column}: JAX000 cannot decode: {error}")
        return EXIT_FINDINGS
    STDIN_TEXTS[display] = source.text
    result = process_source(source, display, settings, report.mode, settings.unsafe_fixes)
    if report.mode is Mode.FIX:
        # As ruff does: the fixed source goes to stdout, findings to stderr.
        sys.stdout.buffer.write(source.encode(result.fixed_source if result.fixed_source is not None else source.text))
        sys.stdout.flush()
        return _report_stdin_fix(result, settings, report)
    return _report([result], report)


def _check_stdin_notebook(data: bytes, display: str, settings, report: Report) -> int:
    """A notebook on stdin (``--stdin-filename x.ipynb``): linted cell by cell, as a notebook file is."""
    from jaxlint.run.notebooks import lint_notebook_text

    bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    try:
        raw = data[len(bom):].decode("utf-8")
    except UnicodeDecodeError as error:
        click.echo(f"{display}:1:1: JAX000 cannot decode notebook as UTF-8: {error}")
        return EXIT_FINDINGS
    STDIN_TEXTS[display] = raw  # the formats show and locate cells in this text, not in a file of that name
    result, new_raw = lint_notebook_text(raw, display, settings, report.mode, settings.unsafe_fixes)
    if report.mode is Mode.FIX:
        sys.stdout.buffer.write(bom + (new_raw if new_raw is not None else raw).encode("utf-8"))
        sys.stdout.flush()
        return _report_stdin_fix(result, settings, report)
    return _report([result], report)


def _report_stdin_fix(result: FileResult, settings, report: Report) -> int:
    if result.diagnostics and not report.quiet and not report.fix_only:
        click.echo(format_diagnostics([result], unsafe=settings.unsafe_fixes), err=True)
    if report.exit_non_zero_on_fix and result.applied:
        return EXIT_FINDINGS
    return EXIT_OK if report.exit_zero or report.fix_only or not result.diagnostics else EXIT_FINDINGS


def _report(results: list[FileResult], report: Report) -> int:
    results = sorted(results, key=lambda r: r.path)
    failed = False
    for result in results:
        if result.internal_error:
            failed = True
            click.echo(f"jaxlint: error: failed to check {result.path}: {result.internal_error} "
                       "(this is a bug in jaxlint: please report it)", err=True)
        if result.write_error:
            failed = True
            click.echo(f"jaxlint: error: cannot write {result.path}: {result.write_error}; its fixes were not "
                       "applied", err=True)
        for rejected in result.rejected:
            click.echo(f"jaxlint: warning: the fix for {rejected.code} at {result.path}:{rejected.start.row}:"
                       f"{rejected.start.column} would have produced invalid code and was not applied "
                       "(this is a bug in jaxlint: please report it)", err=True)
    fixed = sum(len(r.applied) for r in results)
    if report.mode is Mode.DIFF:
        diffs = [r.diff for r in results if r.diff]
        if not report.silent:
            for text in diffs:
                click.echo(text, nl=False)
        remaining = sum(len(r.diagnostics) for r in results)
        if not report.quiet:
            click.echo(f"Would fix {fixed} error{'s' if fixed != 1 else ''} ({remaining} remaining).", err=True)
        if failed:
            return EXIT_ERROR
        return EXIT_FINDINGS if diffs and not report.exit_zero else EXIT_OK
    remaining = [d for r in results for d in r.diagnostics]
    if report.fix_only:  # as ruff: only what was fixed, as a count or (--show-fixes) listed
        if report.show_fixes and fixed and not report.silent:
            click.echo(fix_summary(results))
        elif fixed and not report.quiet:
            click.echo(f"Fixed {fixed} error{'s' if fixed != 1 else ''}.")
    elif not report.silent:
        options = RenderOptions(unsafe=report.unsafe, fixing=report.mode is Mode.FIX,
                                statistics=report.statistics and report.output_format == "text",
                                quiet=report.quiet)
        rendered = render(report.output_format, results, options)
        if report.show_fixes and fixed and report.output_format in ("text", "concise", "full"):
            rendered = f"{rendered}\n\n{fix_summary(results)}" if rendered else fix_summary(results)
        if report.output_file is not None:
            failed = not _write_output_file(report.output_file, rendered) or failed
        elif rendered:
            click.echo(rendered)
    if failed:
        return EXIT_ERROR
    if report.exit_non_zero_on_fix and fixed:
        return EXIT_FINDINGS
    return EXIT_FINDINGS if remaining and not report.exit_zero and not report.fix_only else EXIT_OK


def _write_output_file(path: Path, rendered: str) -> bool:
    """``-o``: missing folders are created (as ruff does). A file that cannot be written is an error (exit 2), and
    the report goes to stdout instead, so that the run's findings are not lost."""
    text = rendered + ("\n" if rendered else "")
    try:
        try:
            path.write_text(text, encoding="utf-8")
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        from jaxlint.run import replay

        if replay.RECORDER is not None:
            replay.RECORDER.report_written(path)
    except OSError as error:
        reason = error.strerror or str(error)
        click.echo(f"jaxlint: error: cannot write {path}: {reason}; the report follows on stdout", err=True)
        if rendered:
            click.echo(rendered)
        return False
    return True


def _describe_settings(settings) -> str:
    from jaxlint.rules import enabled_rules

    rules = ", ".join(rule.code for rule in enabled_rules(settings)) or "(none)"
    return "\n".join([
        f"config file:    {settings.config_file or '(none: defaults)'}",
        f"project root:   {settings.root}",
        f"target version: {settings.target_version}",
        f"min version:    {settings.min_version} ({settings.min_version_source})",
        f"pinned range:   {_describe_pins(settings)}",
        f"library pins:   {_describe_library_pins(settings)}",
        *([f"pin files that could not be read: {'; '.join(settings.pinned.warnings)}"]
          if settings.pinned is not None and settings.pinned.warnings else []),
        f"select:         {', '.join(settings.select + settings.extend_select)}",
        f"ignore:         {', '.join(settings.ignore) or '(none)'}",
        f"enabled rules:  {rules}",
        f"unsafe fixes:   {'on' if settings.unsafe_fixes else 'off'}",
        f"fixes:          {describe_range(settings)}",
        f"extend-rules:   {_describe_user_rules(settings.extend_rules, settings.root)}",
    ])


def _describe_user_rules(folders: tuple[Path, ...], root: Path) -> str:
    from jaxlint.catalogue.extend import describe  # here: the catalogue's modules are not needed by a check

    return describe(folders, root)


def _describe_library_pins(settings) -> str:
    """flax's and optax's lowest pinned release, which the JAX5xx rules' fixes depend on (unpinned: the newest)."""
    from jaxlint.catalogue.ecosystem import NEWEST
    from jaxlint.project.version_pins import describe_bounds

    parts = []
    for library, newest in NEWEST.items():
        lower, upper = settings.pinned.library(library) if settings.pinned is not None else (None, None)
        parts.append(f"{library} {describe_bounds(lower, upper, f'not pinned: assuming {newest}')}")
    return "; ".join(parts)


def _describe_pins(settings) -> str:
    """The range the package's own pins give (``version_pins``), with the file:line of each bound: shown even when
    ``--min-version`` or the config overrides it."""
    pinned = settings.pinned
    if pinned is None:
        return "(none: no package encloses this path)"
    return f"{pinned.describe()} (package {pinned.package})"


def _cwd_rule_folders() -> tuple[Path, ...]:
    """The ``extend-rules`` folders of the configuration that applies here (``jaxlint rule``/``rules`` list a
    team's own rules with the built-in ones); a broken configuration is a warning there, not an error."""
    try:
        return SettingsResolver(Overrides()).for_path(Path(".")).extend_rules
    except ConfigError as error:
        click.echo(f"jaxlint: warning: user rules not listed: {str(error).splitlines()[0]}", err=True)
        return ()


def _note_effective_floors(files: list, results: list) -> None:
    """A package whose code needs a newer JAX than its pins' floor: one note each on stderr, never a finding (the
    findings and their formats stay as they are; ``jaxlint upgrade`` proposes the pin raise). The uses were found
    by the workers that linted the files (``FileResult.floor_uses``)."""
    from jaxlint.run.effective_floor import effective_floors

    known = {result.path: result.floor_uses for result in results if result.floor_uses is not None}
    for floor in effective_floors(files, known):
        click.echo(f"jaxlint: note: {floor.note(Path.cwd())} (`jaxlint upgrade` proposes "
                   f"jax>={floor.needs}, which unlocks the fixes withheld below it)", err=True)


def _warn_about_range(settings) -> None:
    """A min/target version past what the catalogue knows, a pin file that could not be read: one line each on stderr
    (jaxlint.project.version_range)."""
    for line in range_warnings(settings):
        click.echo(f"jaxlint: warning: {line}", err=True)


@main.command("rules", short_help="List every rule (JAX000-JAX002 included).")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def list_rules(output_format: str) -> None:
    """List every rule: code, name, JAX version, fix, default or opt-in; the codes jaxlint reports itself
    (JAX000 parse-error, JAX001 unused-noqa, JAX002 io-error) first."""
    from jaxlint.ui.docs import fix_availability
    from jaxlint.lint.engine_codes import ENGINE_CODES
    from jaxlint.rules import all_rules

    rows = [(entry.code, entry.name, "-", entry.fix, "opt-in" if entry.opt_in else "default", entry.summary)
            for entry in ENGINE_CODES.values()]
    rows += [(rule.code, rule.name, rule.version_label(), fix_availability(rule),
              "opt-in" if rule.opt_in else "default",
              rule.summary) for rule in all_rules()]
    folders = _cwd_rule_folders()
    user = _user_rules_by_code(folders)
    if output_format == "json":
        import json

        keys = ("code", "name", "since", "fix", "enabled", "summary")
        listed = [dict(zip(keys, row)) for row in rows]
        for item in listed:
            if item["code"] in user:
                item["user_rules"] = user[item["code"]]
        click.echo(json.dumps(listed, indent=2))
        return
    click.echo(f"{'code':<8} {'name':<30} {'since':<8} {'fix':<7} {'enabled':<8} summary")
    for row in rows:
        click.echo(f"{row[0]:<8} {row[1]:<30} {row[2]:<8} {row[3]:<7} {row[4]:<8} {row[5]}")
    if folders:
        click.echo(f"\nUser rules (extend-rules): {_describe_user_rules(folders, Path.cwd().resolve())}")
        click.echo(f"  read by {', '.join(sorted(user))} as the built-in catalogue (`jaxlint rule CODE` lists them)")


def _user_rules_by_code(folders: tuple[Path, ...]) -> dict[str, list[str]]:
    """The names of the user's rows (``extend-rules``) per rule code that reports them."""
    from jaxlint.catalogue.extend import rule_of, user_rows

    by_code: dict[str, list[str]] = {}
    for _, kind, row in user_rows(folders):
        name = f"{row['name']}({row['parameter']}=)" if kind == "parameter" else row["name"]
        for code in ("JAX101", "JAX402", "JAX103"):
            if code in rule_of(kind, row):
                by_code.setdefault(code, []).append(name)
    return by_code


@main.command("rule", short_help="Print one rule's documentation (e.g. `jaxlint rule JAX202`).")
@click.argument("code")
@click.option("--entries/--no-entries", default=True,
              help="For JAX101, JAX402 and JAX102: list the catalogue entries the rule reports (default: on).")
@click.option("--all", "show_all", is_flag=True,
              help="List every entry even when there are more than 300 (JAX101: over a thousand); without it such "
                   "a list is summarised per module.")
@click.option("--grep", metavar="TEXT",
              help="List only the entries whose name or replacement contains TEXT (case-insensitive), e.g. tree_.")
@click.option("--target-version", callback=version_option,
              help="List the entries removed / deprecated at this JAX version (default: the newest known).")
def show_rule(code: str, entries: bool, show_all: bool, grep: str | None, target_version: Version | None) -> None:
    """Print the documentation of one rule (e.g. `jaxlint rule JAX202`).

    For the catalogue-driven rules it ends with a Markdown table of the entries the rule reports at the target
    version: name, kind, deprecated in, removed in, replacement, fix (safe, safe from a min version, or manual).
    JAX402 (deprecated symbols) and JAX102 (removed config options) list every row; JAX101 (removed symbols, over a
    thousand) prints a summary per module unless given --all or --grep.
    """
    from jaxlint.ui.docs import entries_documentation, rule_documentation, user_rules_documentation
    from jaxlint.rules import rule_by_code

    from jaxlint.lint.engine_codes import ENGINE_CODES

    rule = rule_by_code(code)
    if rule is None and code.upper() in ENGINE_CODES:
        click.echo(ENGINE_CODES[code.upper()].documentation)
        return
    if rule is None:
        click.echo(f"jaxlint: error: unknown rule code {code!r} (see `jaxlint rules`)", err=True)
        sys.exit(EXIT_ERROR)
    folders = _cwd_rule_folders()
    catalogue = None
    if folders:
        from jaxlint.catalogue.extend import extended

        catalogue = extended(folders)
    text = rule_documentation(rule)
    listing = entries_documentation(rule, target_version, grep=grep, show_all=show_all,
                                    catalogue=catalogue) if entries else None
    user = user_rules_documentation(rule, folders, target_version) if folders else None
    click.echo("\n".join(part for part in (text, listing, user) if part))
