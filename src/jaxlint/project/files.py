"""Which files to lint: walking directories, default and configured excludes, .gitignore, explicit paths."""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from jaxlint.project.config import SettingsResolver
from jaxlint.project.gitignore import IgnoreRules, ignored_by_git
from jaxlint.project.settings import Settings, path_matches, real_path, relative_posix

SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")
# Directories never worth walking into, whatever `exclude` says: jaxlint's cache and Python's.
ALWAYS_EXCLUDED = (".jaxlint_cache", "__pycache__")
# ruff's default `exclude`: skipped unless `exclude` is set (config or --exclude), which replaces them.
RUFF_DEFAULT_EXCLUDES = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".vscode",
    "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules", "site-packages", "venv",
)
DEFAULT_EXCLUDES = RUFF_DEFAULT_EXCLUDES + ALWAYS_EXCLUDED


@dataclass(frozen=True)
class SourceFile:
    path: Path
    settings: Settings


def is_excluded(path: Path, settings: Settings) -> bool:
    patterns = settings.exclude + settings.extend_exclude
    if not patterns:
        return False  # the common case: no relative path to compute for each file and folder
    relative = relative_posix(path, settings.root)
    return any(path_matches(relative, pattern) for pattern in patterns)


def discover(paths: list[Path], resolver: SettingsResolver, *, force_exclude: bool = False,
             suffixes: tuple[str, ...] = SOURCE_SUFFIXES,
             unreadable: list[tuple[Path, OSError]] | None = None) -> Iterator[SourceFile]:
    """Files to lint in a stable order. Explicitly named files are linted even if excluded, unless force_exclude.

    A path that cannot be looked at (missing, a symlink loop, permission denied) raises ``FileNotFoundError``, or,
    when ``unreadable`` is given, is added to it and the other paths are still discovered (the CLI reports each as
    JAX002, as ruff reports E902)."""
    seen: set[str] = set()  # real paths: a file given twice, or through a link, is linted once
    for given in paths:
        try:
            is_directory = stat.S_ISDIR(given.stat().st_mode)
        except OSError as error:
            if unreadable is None:
                raise FileNotFoundError(given) from error
            if real_path(given) not in seen:
                seen.add(real_path(given))
                unreadable.append((given, error))
            continue
        if not is_directory:
            settings = resolver.for_path(given)
            if force_exclude and (is_excluded(given, settings) or _in_default_excluded_dir(given, settings)
                                  or (settings.respect_gitignore and ignored_by_git(given))):
                continue
            resolved = real_path(given)
            if resolved not in seen:
                seen.add(resolved)
                yield SourceFile(given, settings)
            continue
        for file in _walk(given, resolver, suffixes):
            resolved = real_path(file)  # Path.resolve is several times slower, per file
            if resolved not in seen:
                seen.add(resolved)
                yield SourceFile(file, resolver.for_path(file))


def _default_excluded(name: str, settings: Settings | None) -> bool:
    return name in ALWAYS_EXCLUDED or (name in RUFF_DEFAULT_EXCLUDES and (settings is None or settings.default_excludes))


def _in_default_excluded_dir(path: Path, settings: Settings) -> bool:
    return any(_default_excluded(part, settings) for part in path.resolve().parts[:-1])


def _walk(root: Path, resolver: SettingsResolver, suffixes: tuple[str, ...]) -> Iterator[Path]:
    # The .gitignore rules of each folder, from the walk's root down (os.walk goes top-down, parents first).
    rules: dict[str, IgnoreRules] = {}
    if resolver.for_path(root).respect_gitignore:
        rules[str(root)] = IgnoreRules.for_walk(root)
    for directory, subdirectories, filenames in os.walk(root):
        here = Path(directory)
        settings = resolver.for_path(here) if filenames or subdirectories else None
        ignore = rules.pop(directory, None)
        kept = []
        for name in sorted(subdirectories):
            child = here / name
            if _default_excluded(name, settings) or (settings is not None and is_excluded(child, settings)):
                continue
            if ignore is not None and ignore.ignores(name, True):
                continue
            if ignore is not None:
                rules[os.path.join(directory, name)] = ignore.child(name, child)
            kept.append(name)
        subdirectories[:] = kept
        for name in sorted(filenames):
            if name.endswith(suffixes):
                file = here / name
                if settings is not None and is_excluded(file, settings):
                    continue
                if ignore is not None and ignore.ignores(name, False):
                    continue
                yield file
