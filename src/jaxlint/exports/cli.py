"""``jaxlint exports``: inspect serialized jax.export artifacts, and ``jaxlint exports migrate`` them.

Click commands only: options are parsed and validated here, the work happens in the sibling modules.
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from jaxlint.exports.checkload import check_load
from jaxlint.exports.envs import EnvError, python_for_jax
from jaxlint.exports.inventory import build_inventory
from jaxlint.exports.jaxrun import WorkerError, jax_version_of
from jaxlint.exports.report import render_csv, render_json, render_text, summary
from jaxlint.versions import NEWEST_KNOWN, Version, parse_version

INSPECT = "inspect"


class _InspectByDefault(click.Group):
    """A group whose first argument, unless it names a subcommand, starts the inspection (``jaxlint exports DIR``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [INSPECT, *args]
        elif not args:
            args = [INSPECT]
        return super().parse_args(ctx, args)


def _version(ctx: click.Context, param: click.Parameter, value: str | None) -> Version | None:
    if value is None:
        return None
    try:
        return parse_version(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from err


def _echo_err(message: str) -> None:
    click.echo(message, err=True)


def resolve_target(target: Version | None, target_python: Path | None, *, need_python: bool):
    """(target version, python for it or None). A given interpreter fixes the version; a mismatch is a usage error."""
    if target_python is not None:
        try:
            found = parse_version(jax_version_of(target_python))
        except WorkerError as err:
            raise click.UsageError(f"--target-python {target_python}: {err}") from err
        if target is not None and found != target:
            raise click.UsageError(f"--target-python has JAX {found} but --target-version is {target}")
        return found, target_python
    target = target or NEWEST_KNOWN
    if not need_python:
        return target, None
    try:
        return target, python_for_jax(target, log=_echo_err)
    except EnvError as err:
        raise click.ClickException(str(err)) from err


TARGET_HELP = f"JAX version the artifacts must load on (default: the newest known, {NEWEST_KNOWN})."
TARGET_PYTHON_HELP = ("Python of an environment with the target JAX (default: one built once with pip in "
                      "$JAXLINT_ENV_DIR or ~/.cache/jaxlint/envs).")


@click.group(cls=_InspectByDefault, name="exports", invoke_without_command=False)
def exports_command() -> None:
    """Inspect serialized jax.export artifacts, and migrate the ones the target JAX refuses.

    \b
      jaxlint exports PATHS... [--target-version V] [--output-format text|json|csv]
                               [--check-load [--target-python PATH]]
      jaxlint exports migrate PATHS... --out DIR [--baseline-jax V | --baseline-python PATH]
                               [--target-version V] [--target-python PATH] [--mesh x=2]

    Files are recognised by their content, whatever their name. Each artifact gets a verdict for the target:
    loads, loads-with-flag (only with jax_export_deserialize_expired_versions: a crutch), cannot-load, or
    unknown (corrupt, truncated or unreadable). Reading the header needs no JAX and runs nothing from the file.

    Exit status: 0 when every artifact loads on the target without crutches, 1 otherwise, 2 on usage errors.
    Run `jaxlint exports inspect --help` and `jaxlint exports migrate --help` for all options.
    """


@exports_command.command(INSPECT)
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--target-version", callback=_version, help=TARGET_HELP)
@click.option("--output-format", type=click.Choice(["text", "json", "csv"]), default="text", show_default=True)
@click.option("--check-load", "check_load_", is_flag=True,
              help="Confirm each verdict by deserializing the artifact in the target JAX (a subprocess; the "
                   "artifact is parsed, never executed) and report where prediction and reality differ.")
@click.option("--target-python", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help=TARGET_PYTHON_HELP + " Only with --check-load.")
def inspect_command(paths: tuple[Path, ...], target_version: Version | None, output_format: str, check_load_: bool,
                    target_python: Path | None) -> None:
    """Report every jax.export artifact under PATHS and whether the target JAX loads it (the default action)."""
    if target_python is not None and not check_load_:
        raise click.UsageError("--target-python is only used with --check-load")
    target, python = resolve_target(target_version, target_python, need_python=check_load_)
    inventory = build_inventory(paths, target)
    disagreements = []
    if python is not None:
        try:
            disagreements = check_load(inventory, python)
        except WorkerError as err:
            raise click.ClickException(f"--check-load: {err}") from err
    if output_format == "json":
        click.echo(render_json(inventory))
        _echo_err(summary(inventory))
    elif output_format == "csv":
        click.echo(render_csv(inventory), nl=False)
        _echo_err(summary(inventory))
    else:
        click.echo(render_text(inventory))
    if python is not None:
        _echo_err(f"check-load in JAX {target}: {len(disagreements)} disagreement(s) with the prediction")
        for line in disagreements:
            _echo_err(f"  {line}")
    sys.exit(0 if inventory.ok else 1)

