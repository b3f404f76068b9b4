"""``jaxlint exports``: inspect serialized jax.export artifacts, and ``jaxlint exports migrate`` them.

Click commands only: options are parsed and validated here, the work happens in the sibling modules.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from jaxlint.exports.checkload import check_load
from jaxlint.exports.envs import EnvError, _base_python, env_dir, python_for_jax
from jaxlint.exports.inventory import build_inventory, distinct_inputs
from jaxlint.exports.jaxrun import WorkerError
from jaxlint.exports.validate import InvalidArgument, check_import_names, check_published, probe, same_version_note
from jaxlint.exports.report import render_csv, render_json, render_text, summary
from jaxlint.project.versions import NEWEST_KNOWN, Version, parse_version

INSPECT = "inspect"


class _InspectByDefault(click.Group):
    """A group whose first argument, unless it names a subcommand, starts the inspection (``jaxlint exports DIR``
    is ``jaxlint exports inspect DIR``). Usage errors of either command end ``jaxlint exports: error: ...``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [INSPECT, *args]
        elif not args:
            args = [INSPECT]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except InvalidArgument as error:
            click.echo(f"jaxlint exports: error: {error}", err=True)
            ctx.exit(2)


def _version(ctx: click.Context, param: click.Parameter, value: str | None) -> Version | None:
    if value is None:
        return None
    try:
        return parse_version(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from err


def _echo_err(message: str) -> None:
    click.echo(message, err=True)


def _echo_unreadable(inventory) -> None:
    for path, why in inventory.unreadable:
        _echo_err(f"{path}: could not be read: {why}")


def check_target(target: Version | None, target_python: Path | None, imports: tuple[str, ...] = ()) -> Version:
    """The target version, every argument about it checked (nothing built): a given interpreter must have JAX,
    flatbuffers and the ``--import`` modules, and fixes the version (a mismatch is a usage error); a version whose
    environment is still to be built must exist on the package index."""
    check_import_names(imports, built_env_too=target_python is None)
    if target_python is not None:
        found = probe(target_python, "--target-python", imports).jax
        if target is not None and found != target:
            raise InvalidArgument(f"--target-python has JAX {found} but --target-version is {target}")
        return found
    target = target or NEWEST_KNOWN
    _check_buildable(target, "--target-version")
    return target


def _check_buildable(version: Version, option: str) -> None:
    if (env_dir() / f"jax-{version}" / ".complete").exists():
        return
    try:
        base = _base_python()
    except EnvError as err:
        raise click.ClickException(str(err)) from err
    check_published(version, option, base)


def target_python_for(target: Version, target_python: Path | None, imports: tuple[str, ...] = ()) -> Path:
    """The interpreter with the target JAX: the one given (checked by ``check_target``), or one built now (and
    checked like a given one: an ``--import`` that fails there is a usage error, not a traceback)."""
    if target_python is not None:
        return target_python
    python = _built(target)
    probe(python, f"the JAX {target} environment", imports)
    return python


def _built(version: Version) -> Path:
    try:
        return python_for_jax(version, log=_echo_err)
    except EnvError as err:
        raise click.ClickException(str(err)) from err


TARGET_HELP = f"JAX version the artifacts must load on (default: the newest known, {NEWEST_KNOWN})."
TARGET_PYTHON_HELP = ("Python of an environment with the target JAX (default: one built once with pip in "
                      "$JAXLINT_ENV_DIR or ~/.cache/jaxlint/envs).")


@click.group(cls=_InspectByDefault, name="exports", invoke_without_command=False)
def exports_command() -> None:
    """Inspect serialized jax.export artifacts, and migrate the ones the target JAX refuses.

    \b
      jaxlint exports [inspect] PATHS... [--target-version V] [--output-format text|json|csv]
                               [--check-load [--target-python PATH]]
      jaxlint exports migrate PATHS... --out DIR [--baseline-jax V | --baseline-python PATH]
                               [--target-version V] [--target-python PATH] [--mesh x=2] [--force]

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
@click.option("--import", "imports", multiple=True, metavar="MODULE",
              help="Import MODULE (repeatable; found from the current directory too) in the JAX that loads the "
                   "artifacts, before loading: for artifacts with user-defined effects or pytree nodes.")
def inspect_command(paths: tuple[Path, ...], target_version: Version | None, output_format: str, check_load_: bool,
                    target_python: Path | None, imports: tuple[str, ...]) -> None:
    """Report every jax.export artifact under PATHS and whether the target JAX loads it (the default action)."""
    if target_python is not None and not check_load_:
        raise click.UsageError("--target-python is only used with --check-load")
    if imports and not check_load_:
        raise click.UsageError("--import is only used with --check-load (reading headers imports nothing)")
    target = check_target(target_version, target_python, imports) if check_load_ else \
        (target_version or NEWEST_KNOWN)
    python = target_python_for(target, target_python, imports) if check_load_ else None
    inventory = build_inventory(distinct_inputs(paths), target)
    disagreements = []
    if python is not None:
        try:
            disagreements = check_load(inventory, python, imports)
        except WorkerError as err:
            raise click.ClickException(f"--check-load: {err}") from err
    if output_format == "json":
        click.echo(render_json(inventory))
        _echo_unreadable(inventory)
        _echo_err(summary(inventory))
    elif output_format == "csv":
        click.echo(render_csv(inventory), nl=False)
        _echo_unreadable(inventory)
        _echo_err(summary(inventory))
    else:
        click.echo(render_text(inventory))
    if python is not None:
        _echo_err(f"check-load in JAX {target}: {len(disagreements)} disagreement(s) with the prediction")
        for line in disagreements:
            _echo_err(f"  {line}")
    sys.exit(0 if inventory.ok else 1)


DEFAULT_BASELINE = Version("0.11.0")  # the newest JAX that reads every artifact format and writes named shardings


def _mesh(ctx: click.Context, param: click.Parameter, value: str | None) -> list[tuple[str, int]] | None:
    if value is None:
        return None
    axes = []
    for part in value.split(","):
        name, _, size = part.partition("=")
        if not name.strip().isidentifier() or not size.strip().isdigit() or int(size) < 1:
            raise click.BadParameter(f"expected NAME=SIZE[,NAME=SIZE...] such as x=2 or data=2,model=4, got {value!r}")
        axes.append((name.strip(), int(size)))
    return axes


def _dims(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, int]:
    dims = {}
    for value in values:
        name, _, size = value.partition("=")
        if not name.strip() or not size.strip().isdigit():
            raise click.BadParameter(f"expected SYMBOL=INT such as b=8, got {value!r}")
        dims[name.strip()] = int(size)
    return dims


@exports_command.command("migrate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the migrated artifacts and their JSON records (created; inputs are never touched).")
@click.option("--baseline-jax", callback=_version,
              help=f"JAX that can still read the old artifacts; its environment is built once with pip "
                   f"(default: {DEFAULT_BASELINE}).")
@click.option("--baseline-python", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Python of an existing environment to use as the baseline instead of --baseline-jax.")
@click.option("--target-version", callback=_version, help=TARGET_HELP)
@click.option("--target-python", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help=TARGET_PYTHON_HELP)
@click.option("--mesh", callback=_mesh, metavar="NAME=SIZE[,...]",
              help="Mesh to rebuild named shardings on, for artifacts whose shardings are stored only as "
                   "HloSharding (the file does not record axis names), e.g. --mesh x=2.")
@click.option("--dim", "dims", multiple=True, callback=_dims, metavar="SYMBOL=INT",
              help="Size for a symbolic dimension in the verification inputs (default 3), e.g. --dim b=8.")
@click.option("--rtol", type=click.FloatRange(min=0), default=1e-5, show_default=True,
              help="Relative tolerance for float outputs.")
@click.option("--atol", type=click.FloatRange(min=0), default=1e-6, show_default=True,
              help="Absolute tolerance for float outputs.")
@click.option("--import", "imports", multiple=True, metavar="MODULE",
              help="Import MODULE (repeatable; found from the current directory too) in the JAX that loads the "
                   "artifacts, before loading: for artifacts with user-defined effects or pytree nodes.")
@click.option("--force", is_flag=True,
              help="Overwrite files already in --out (an earlier run's outputs); without it, migrate refuses to "
                   "start when one of its outputs exists.")
def migrate_command(paths, out_dir, baseline_jax, baseline_python, target_version, target_python, mesh, dims,
                    rtol, atol, imports, force) -> None:
    """Re-serialize the artifacts under PATHS that the target refuses, verified by running old and new.

    Each at-risk artifact is loaded in the baseline JAX (with the expired-versions flag only where needed),
    serialized again, and called in the baseline (old file) and in the target (new file) on the same
    deterministic inputs; only when the outputs agree is the new file written under --out, beside a
    NAME.migration.json record (source hash, writers, changes, inputs and outputs compared). A file already in
    --out is never overwritten without --force. Ctrl-C or SIGTERM ends the JAX processes, removes the scratch
    folder and exits 130 or 143.
    """
    from jaxlint.verify.signals import Interrupted, signals_interrupt

    try:
        with signals_interrupt():
            code = _migrate(paths, out_dir, baseline_jax, baseline_python, target_version, target_python, mesh, dims,
                            rtol, atol, imports, force)
    except Interrupted as stop:
        _echo_err(f"jaxlint exports migrate: interrupted by {stop}: the JAX processes were ended and the scratch "
                  "folder removed; the artifacts listed above were done")
        code = stop.exit_code
    sys.exit(code)


def _migrate(paths, out_dir, baseline_jax, baseline_python, target_version, target_python, mesh, dims, rtol, atol,
             imports, force) -> int:
    from jaxlint.exports.migrate import MigrationOptions, migrate_inventory, outputs_in_the_way

    if baseline_jax is not None and baseline_python is not None:
        raise click.UsageError("give --baseline-jax or --baseline-python, not both")
    out_abs = Path(os.path.abspath(out_dir))
    for path in paths:
        folder = Path(os.path.abspath(path))
        if folder.is_dir() and (out_abs == folder or out_abs.is_relative_to(folder)):
            # Otherwise a rerun would take the migrated files for inputs, and could write over them.
            raise click.UsageError(f"--out {out_dir} must lie outside the input folder {path}")
    # Every argument first, both interpreters included: only then is an environment built.
    target = check_target(target_version, target_python, imports)
    if baseline_python is not None:
        baseline_version = probe(baseline_python, "--baseline-python", imports).jax
    else:
        baseline_version = baseline_jax or DEFAULT_BASELINE
        check_import_names(imports, built_env_too=True)
    note = same_version_note(baseline_version, target)
    if note:
        _echo_err(note)
    paths = distinct_inputs(paths)
    inventory = build_inventory(paths, target)
    in_the_way = outputs_in_the_way(inventory, list(paths), out_abs)
    not_files = [path for path in in_the_way if path.is_dir() or not (path.is_file() or path.is_symlink())]
    if not_files:  # --force overwrites files only: a folder in the way is the user's, never replaced
        raise InvalidArgument(f"--out {out_dir} holds {_count(len(not_files), 'folder')} (or special "
                              "files) where migrated files would go (nothing was written; --force replaces files only):\n"
                              + "\n".join(f"  {path}" for path in not_files))
    if in_the_way and not force:
        raise InvalidArgument(f"--out {out_dir} already holds {_count(len(in_the_way), 'file')} that migrating would "
                              "overwrite (nothing was written; pass --force to overwrite them):\n"
                              + "\n".join(f"  {path}" for path in in_the_way))
    at_risk = [r for r in inventory.reports if r.verdict.kind != "loads"]
    if at_risk and baseline_python is None:
        _check_buildable(baseline_version, "--baseline-jax")
    python = target_python_for(target, target_python, imports)
    if at_risk:
        baseline = baseline_python or _baseline_python(baseline_version, imports)
    else:
        baseline = baseline_python  # nothing to migrate: do not build an environment for nothing
    options = MigrationOptions(out_abs, baseline, python, target, mesh, dims, rtol, atol, tuple(imports))
    try:
        outcomes = migrate_inventory(inventory, list(paths), options, on_outcome=_echo_outcome)
    except WorkerError as err:
        raise click.ClickException(str(err)) from err
    for path, why in inventory.unreadable:
        click.echo(f"UNREADABLE {path}: {why}")
    counts = {s: sum(o.status == s for o in outcomes) for s in ("migrated", "already-loads", "failed")}
    click.echo(f"{counts['migrated']} migrated, {counts['already-loads']} already loading, {counts['failed']} failed "
               f"({_count(len(outcomes), 'artifact')} among {_count(inventory.files_looked_at, 'file')}; "
               f"target JAX {target}"
               + (f", baseline {baseline}" if baseline else "") + ").")
    return 0 if counts["failed"] == 0 and not inventory.unreadable else 1


def _echo_outcome(outcome) -> None:
    """One artifact's outcome, as soon as it is known (click.echo flushes: a pipe sees it at once)."""
    if outcome.status == "migrated":
        click.echo(f"migrated  {outcome.source}\n       -> {outcome.written}\n          {outcome.reason}")
    elif outcome.status == "already-loads":
        click.echo(f"ok        {outcome.source}: {outcome.reason}")
    else:
        click.echo(f"FAILED    {outcome.source}: {outcome.reason}")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _baseline_python(version: Version, imports: tuple[str, ...]) -> Path:
    python = _built(version)
    probe(python, f"the JAX {version} environment", imports)
    return python
