"""``jaxlint upgrade``: click command only (options, running the steps, writing the report)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from jaxlint.ui.options import version_option
from jaxlint.verify.cli import CommandAfterDashes, trailing_command

EXIT_DONE, EXIT_LEFT, EXIT_ERROR = 0, 1, 2


@click.command("upgrade", cls=CommandAfterDashes, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("path", required=False, default=".", type=click.Path(exists=True, path_type=Path))
@click.option("--to", "target", required=True, callback=version_option, metavar="VERSION",
              help="The JAX version to upgrade to.")
@click.option("--python", "python", type=click.Path(exists=True, dir_okay=False),
              help="The interpreter of the project's environment, with its dependencies and the old JAX "
                   "(default: the current one).")
@click.option("--target-python", type=click.Path(exists=True, dir_okay=False),
              help="An interpreter with the new JAX, for verify and the artifact migration (default: built once: "
                   "the --python environment's packages with jax==VERSION).")
@click.option("--report", "reports", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report here: FILE.json (JSON) or any other name (Markdown); may be given twice. "
                   "Default: Markdown on stdout.")
@click.option("--dry-run", is_flag=True, help="Write nothing in the project: report what would be done.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply the unsafe fixes.")
@click.option("--migrate-exports", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Re-serialize the artifacts the target refuses into DIR (outside PATH), verified.")
@click.option("--no-index", "no_index", is_flag=True,
              help="Do not look for newer releases of blocking dependencies on the package index.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds each run of COMMAND may take.")
def upgrade_command(path: Path, target, python, target_python, reports, dry_run, unsafe_fixes, migrate_exports,
                    no_index, timeout) -> None:
    """Upgrade PATH (default: .) to JAX VERSION in one go: read its pins, apply the fixes, lint its installed
    dependencies, verify the fixes on COMMAND, check its jax.export artifacts, propose the pin changes; one report.

    Example: jaxlint upgrade . --to 0.12.0.1 --report upgrade.md --report upgrade.json -- pytest tests/ -x
    """
    from jaxlint.project.config import ConfigError
    from jaxlint.upgrade.report import render_json, render_markdown, unwritable
    from jaxlint.upgrade.steps import Upgrade, UpgradeOptions, default_python
    from jaxlint.verify.signals import Interrupted, signals_interrupt

    command = tuple(trailing_command())
    if migrate_exports is not None:
        out, root = Path(os.path.abspath(migrate_exports)), Path(os.path.abspath(path))
        if root.is_dir() and (out == root or out.is_relative_to(root)):
            raise click.UsageError(f"--migrate-exports {migrate_exports} must lie outside {path} (a second run would "
                                   "take the migrated files for the project's own)")
    # The report is the record of what was written: a path it cannot be written to stops the upgrade first.
    for file in reports:
        why = unwritable(file)
        if why is not None:
            click.echo(f"jaxlint upgrade: error: --report {file}: {why}; nothing was written", err=True)
            sys.exit(EXIT_ERROR)
    options = UpgradeOptions(path=path, target=target, python=str(Path(python).absolute()) if python
                             else default_python(), dry_run=dry_run, unsafe=unsafe_fixes, command=command,
                             migrate_exports=migrate_exports,
                             target_python=str(Path(target_python).absolute()) if target_python else None,
                             check_releases=not no_index, timeout=timeout)
    upgrade = Upgrade(options, lambda line: click.echo(line, err=True))
    interrupted = None
    try:
        with signals_interrupt():
            report = upgrade.run()
    except ConfigError as error:
        click.echo(f"jaxlint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    except Interrupted as stop:
        # verify's machinery has ended the command's process group and removed its copies on the way out
        interrupted = stop
        report = upgrade.report
        report.interrupted = f"{stop} during step {upgrade.current_step}/7"
        click.echo(f"jaxlint upgrade: interrupted by {stop}: writing the partial report", err=True)
    markdown = render_markdown(report)
    for file in reports:
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(render_json(report) + "\n" if file.suffix == ".json" else markdown, encoding="utf-8")
        except OSError as error:  # checked first; a disk that filled up since is still no traceback
            click.echo(f"jaxlint upgrade: error: cannot write {file}: {error.strerror or error}", err=True)
            sys.exit(EXIT_ERROR)
        click.echo(f"jaxlint upgrade: wrote {file}", err=True)
    if not reports:
        click.echo(markdown, nl=False)
    if interrupted is not None:
        sys.exit(interrupted.exit_code)
    cannot_run = any(item["blocking"] for item in report.preflight)  # a dry run too: the target cannot run
    sys.exit(EXIT_DONE if report.done else EXIT_ERROR if report.errors or cannot_run else EXIT_LEFT)
