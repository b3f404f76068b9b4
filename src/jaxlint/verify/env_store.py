"""Which folders of ``$JAXLINT_ENV_DIR`` are jaxlint's environments, and the lock a build of one holds.

The folder may be shared with anything else named ``jax-*`` (a user's ``jax-experiments/``): jaxlint rebuilds or
prunes only a folder whose marker says that jaxlint built it under that very name. A build writes ``OWNER`` first
(``{"tool": "jaxlint", "env": <folder name>, "jax": <version>, ...}``), before the venv, so an interrupted build is
still recognised; ``.complete`` follows at the end. Environments of older jaxlint releases (and of the test helper)
have only ``.complete``; theirs is recognised when its JAX version (and platform) is the one the folder's name says.

A build holds an fcntl lock on ``.<name>.lock`` beside the folder (the name the test helper locks too), so two runs
never build one environment at once: the second waits, then finds the first's environment complete and reuses it.
``jaxlint envs prune`` removes nothing whose lock is held. Lock files stay: removing one while another run waits on
it would let a third run take a second lock on a new file.
"""
from __future__ import annotations

import fcntl
import json
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

COMPLETE = ".complete"
OWNER = ".jaxlint-env.json"
TOOL = "jaxlint"


def claim(folder: Path, spec: dict) -> None:
    """Create ``folder`` marked as jaxlint's environment for ``spec`` (which has the ``jax`` version)."""
    folder.mkdir(parents=True)
    _write_owner(folder, {"tool": TOOL, "env": folder.name, **spec})


def record_packages(folder: Path, packages: dict[str, str]) -> None:
    """Add to the marker the packages the build installed, at their versions (what reuse checks)."""
    _write_owner(folder, {**(owner(folder) or {}), "packages": packages})


def _write_owner(folder: Path, data: dict) -> None:
    (folder / OWNER).write_text(json.dumps(data, indent=2) + "\n")


def owner(folder: Path) -> dict | None:
    """The folder's ``OWNER`` marker when it is jaxlint's and names this folder, else None."""
    data = _json(folder / OWNER)
    if not isinstance(data, dict) or data.get("tool") != TOOL or data.get("env") != folder.name:
        return None
    return data if folder.name.startswith(f"jax-{data.get('jax')}") else None


def is_ours(folder: Path) -> bool:
    """Whether jaxlint built ``folder`` (its marker, or an older release's ``.complete``, matches its name). A
    symbolic link to such a folder is one too (reused; never removed: see ``start_afresh`` and ``jaxlint envs``)."""
    if not folder.is_dir():
        return False
    if owner(folder) is not None:
        return True
    try:
        text = (folder / COMPLETE).read_text(errors="replace").strip()
    except OSError:
        return False
    data = _json(folder / COMPLETE)
    if isinstance(data, dict):  # verify's baseline: jax-<version>-<platform>-py<XY>-<key>
        return folder.name.startswith(f"jax-{data.get('jax')}-{data.get('platform') or 'auto'}-py")
    return folder.name == f"jax-{text}"  # exports' (and the test helper's): the bare version


def _json(path: Path):
    try:
        return json.loads(path.read_text(errors="replace"))
    except (OSError, ValueError):
        return None


def lock_path(folder: Path) -> Path:
    return folder.parent / f".{folder.name}.lock"


@contextmanager
def build_lock(folder: Path, echo: Callable[[str], None]) -> Iterator[None]:
    """Held while ``folder`` is checked and (re)built; another run holding it is waited for, and said so."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path(folder), "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            echo(f"waiting for another jaxlint run that is building {folder}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield  # closing the file releases the lock, also when the build fails or is interrupted


@contextmanager
def unless_building(folder: Path) -> Iterator[bool]:
    """Holds ``folder``'s lock (True) when no build holds it, without waiting; False while one does."""
    try:
        handle = open(lock_path(folder), "a")
    except OSError:
        yield True  # a folder that cannot hold a lock file has no build to protect
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
