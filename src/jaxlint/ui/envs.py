"""``jaxlint envs``: the JAX environments ``verify`` and ``exports`` built (``$JAXLINT_ENV_DIR``, default
``~/.cache/jaxlint/envs``), with their sizes; ``jaxlint envs prune`` removes them.

Each environment is a folder marked as jaxlint's when its build starts, with a ``.complete`` marker written after a
successful build (JSON from ``verify``'s baseline builds, the bare version from ``exports``'); one without
``.complete`` is a build that was interrupted, or that another run is doing (it holds the folder's lock). Anything
else in the folder, ``jax-*`` or not, is not jaxlint's: never listed, never removed (``verify.env_store``).
"""
from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import click

from jaxlint.verify.env_store import is_ours, unless_building
from jaxlint.verify.envs import MARKER, env_root


@dataclass
class StoredEnv:
    name: str
    path: str
    jax: str | None
    python: str | None
    size_bytes: int
    built: float | None  # the marker's mtime (None: incomplete)
    complete: bool


def disk_usage(folder: Path, seen: set[tuple[int, int]] | None = None) -> int:
    """Bytes on disk, each hard-linked file counted once (``seen`` is shared across folders: uv links files from
    its cache into every environment)."""
    seen = set() if seen is None else seen
    total = 0
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            try:
                info = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            key = (info.st_dev, info.st_ino)
            if key in seen:
                continue
            seen.add(key)
            total += info.st_blocks * 512
    return total


def _describe(folder: Path, seen: set) -> StoredEnv:
    marker = folder / MARKER
    jax = python = None
    built = None
    if marker.is_file():
        built = marker.stat().st_mtime
        text = marker.read_text(errors="replace").strip()
        try:
            data = json.loads(text)
        except ValueError:
            data = text
        jax = data.get("jax") if isinstance(data, dict) else str(data)
    config = folder / "pyvenv.cfg"
    if config.is_file():
        for line in config.read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("version", "version_info"):
                python = value.strip()
    return StoredEnv(folder.name, str(folder), jax, python, disk_usage(folder, seen), built, marker.is_file())


def stored_envs(root: Path | None = None) -> list[StoredEnv]:
    seen: set = set()
    return [_describe(folder, seen) for folder in _jax_folders(root) if is_ours(folder)]


def foreign_folders(root: Path | None = None) -> list[str]:
    """The ``jax-*`` folders that jaxlint did not build (a user's ``jax-experiments/``): left alone."""
    return [folder.name for folder in _jax_folders(root) if not is_ours(folder)]


def _jax_folders(root: Path | None) -> list[Path]:
    # Both builders name their folders jax-<version>[-...]; a marker tells which of those are jaxlint's.
    root = root or env_root()
    if not root.is_dir():
        return []
    return [folder for folder in sorted(root.iterdir())
            if folder.name.startswith("jax-") and folder.is_dir() and not folder.is_symlink()]


def human(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


@click.group("envs", invoke_without_command=True)
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_context
def envs_command(ctx: click.Context, output_format: str) -> None:
    """List the JAX environments `verify` and `exports` built, with their sizes (`jaxlint envs prune` removes them).

    They live in $JAXLINT_ENV_DIR (default ~/.cache/jaxlint/envs). Sizes count each hard-linked file once.
    """
    if ctx.invoked_subcommand is not None:
        return
    root = env_root()
    envs = stored_envs(root)
    if output_format == "json":
        click.echo(json.dumps({"root": str(root), "environments": [asdict(e) for e in envs],
                               "total_bytes": sum(e.size_bytes for e in envs)}, indent=2))
        return
    if not envs:
        click.echo(f"no environments in {root}")
        return
    for env in envs:
        state = time.strftime("%Y-%m-%d", time.localtime(env.built)) if env.complete else "INCOMPLETE"
        click.echo(f"{human(env.size_bytes):>9}  {state:10}  JAX {env.jax or '?':10} Python {env.python or '?':8} "
                   f"{env.name}")
    click.echo(f"{human(sum(e.size_bytes for e in envs))} in {len(envs)} environment(s) in {root}")
    foreign = foreign_folders(root)
    if foreign:
        click.echo(f"not built by jaxlint, not listed: {', '.join(foreign)}")


@envs_command.command("prune")
@click.argument("names", nargs=-1)
@click.option("--all", "remove_all", is_flag=True, help="Remove every environment.")
@click.option("--incomplete", is_flag=True,
              help="Remove the builds that were interrupted (no .complete marker; one being built is skipped).")
@click.option("--older-than", type=click.IntRange(min=0), metavar="DAYS",
              help="Remove the environments built more than DAYS days ago.")
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
def prune_command(names, remove_all, incomplete, older_than, dry_run) -> None:
    """Remove environments: by NAME (as `jaxlint envs` lists them), --all, --incomplete or --older-than DAYS."""
    if not (names or remove_all or incomplete or older_than is not None):
        raise click.UsageError("name the environments to remove, or give --all, --incomplete or --older-than DAYS")
    envs = {env.name: env for env in stored_envs()}
    foreign = foreign_folders()
    unknown = [name for name in names if name not in envs]
    if unknown:
        raise click.UsageError(f"no such environment: {', '.join(unknown)} (see `jaxlint envs`"
                               + ("; jaxlint did not build " + ", ".join(n for n in unknown if n in foreign)
                                  + ": remove it yourself" if set(unknown) & set(foreign) else "") + ")")
    cutoff = time.time() - older_than * 86400 if older_than is not None else None
    chosen = [env for env in envs.values() if remove_all or env.name in names or (incomplete and not env.complete)
              or (cutoff is not None and env.built is not None and env.built < cutoff)]
    freed = removed = 0
    for env in chosen:
        with unless_building(Path(env.path)) as free:
            if not free:
                click.echo(f"skipped {env.name}: another jaxlint run is building it")
                continue
            if not is_ours(Path(env.path)) or (Path(env.path) / MARKER).is_file() != env.complete:
                click.echo(f"skipped {env.name}: a jaxlint run changed it meanwhile")  # a build that just ended
                continue
            click.echo(f"{'would remove' if dry_run else 'removed'} {env.name} ({human(env.size_bytes)})")
            if not dry_run:
                shutil.rmtree(env.path, ignore_errors=True)
        freed += env.size_bytes
        removed += 1
    click.echo(f"{'would free' if dry_run else 'freed'} {human(freed)} ({removed} environment(s))")
    if foreign:
        click.echo(f"left alone, not built by jaxlint: {', '.join(foreign)}")
