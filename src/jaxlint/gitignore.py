"""``respect-gitignore`` (default true, as ruff): files and folders that git ignores are not linted.

The patterns are read with ``pathspec``'s ``GitIgnoreSpec`` (git's own matching rules, negations included), not a
hand-written parser. What applies to a path: the ``.gitignore`` of every folder from the repository root (the
nearest folder above with a ``.git``) down to the path's folder, the deepest one with a matching pattern deciding,
and the repository's ``.git/info/exclude``. Outside a repository only the ``.gitignore`` files inside the walked
folder count: a stray ``.gitignore`` in a parent (``/tmp``, a home folder) is not the project's. The user's global
excludes file (``core.excludesFile``) is not read.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pathspec

from jaxlint.settings import real_path


def _read_spec(file: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        modified = os.stat(file).st_mtime_ns
    except OSError:
        return None
    return _parse_spec(os.path.abspath(file), modified)


@lru_cache(maxsize=1024)
def _parse_spec(file: str, modified: int) -> pathspec.GitIgnoreSpec | None:
    """Cached by absolute path and modification time: a long-lived process (the language server) sees edits."""
    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if spec.patterns else None


def repository_root(folder: Path) -> Path | None:
    for candidate in [folder, *folder.parents]:
        if (candidate / ".git").exists():
            return candidate
    return None


@dataclass(frozen=True)
class IgnoreRules:
    """The ignore files in effect in one folder: (folder the patterns are relative to, patterns), outermost first."""

    specs: tuple[tuple[str, pathspec.GitIgnoreSpec], ...] = ()

    @classmethod
    def above(cls, folder: Path) -> IgnoreRules:
        """The rules a walk starting at ``folder`` inherits: the repository's, down to ``folder``'s parent.

        None when ``folder`` itself is ignored by them: the user asked for that folder by name (a checkout of
        other projects inside an ignored ``.corpus/``), so, as in ruff, what is inside is checked, and only the
        ``.gitignore`` files from ``folder`` down apply."""
        folder = Path(real_path(folder))
        repository = repository_root(folder)
        if repository is None:
            return cls()
        rules = cls()._with(repository, repository / ".git" / "info" / "exclude")
        for parent in reversed(folder.parents):
            if parent == repository or repository in parent.parents:
                rules = rules.entering(parent)
        if folder != repository and rules.ignores(folder, True):
            return cls()
        return rules

    def entering(self, folder: Path) -> IgnoreRules:
        """The rules inside ``folder``: these plus its own ``.gitignore``."""
        return self._with(folder, folder / ".gitignore")

    def _with(self, base: Path, file: Path) -> IgnoreRules:
        spec = _read_spec(file)
        return self if spec is None else IgnoreRules(self.specs + ((real_path(base), spec),))

    def ignores(self, path: Path, is_dir: bool) -> bool:
        full = real_path(path)
        for base, spec in reversed(self.specs):  # the deepest file with a matching pattern decides, as in git
            relative = os.path.relpath(full, base)
            if relative.startswith(".."):
                continue
            relative = relative.replace(os.sep, "/") + ("/" if is_dir else "")
            verdict = spec.check_file(relative).include
            if verdict is not None:
                return verdict
        return False


def ignored_by_git(path: Path) -> bool:
    """Whether git ignores ``path`` or a folder it is in (for files named on the command line, with
    ``--force-exclude``)."""
    full = Path(real_path(path))
    repository = repository_root(full.parent)
    if repository is None:
        return False
    rules = IgnoreRules()._with(repository, repository / ".git" / "info" / "exclude")
    folder = repository
    for part in full.relative_to(repository).parts[:-1]:
        rules = rules.entering(folder)
        folder = folder / part
        if rules.ignores(folder, True):
            return True
    return rules.entering(folder).ignores(full, False)
