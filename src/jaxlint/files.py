"""Which files to lint: walking directories, default and configured excludes, explicit paths."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from jaxlint.config import SettingsResolver
from jaxlint.settings import Settings, path_matches, real_path, relative_posix

SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")
# Directories never worth walking into (ruff's defaults, plus jaxlint's cache).
DEFAULT_EXCLUDES = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".vscode",
    "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules", "site-packages", "venv",
    ".jaxlint_cache", "__pycache__",
)


@dataclass(frozen=True)
class SourceFile:
    path: Path
    settings: Settings


def is_excluded(path: Path, settings: Settings) -> bool:
    relative = relative_posix(path, settings.root)
    patterns = settings.exclude + settings.extend_exclude
    return any(path_matches(relative, pattern) for pattern in patterns)


def discover(paths: list[Path], resolver: SettingsResolver, *, force_exclude: bool = False,
             suffixes: tuple[str, ...] = SOURCE_SUFFIXES) -> Iterator[SourceFile]:
    """Files to lint in a stable order. Explicitly named files are linted even if excluded, unless force_exclude."""
    seen: set[str] = set()  # real paths: a file given twice, or through a link, is linted once
    for given in paths:
        if given.is_file():
            settings = resolver.for_path(given)
            if force_exclude and (is_excluded(given, settings) or _in_default_excluded_dir(given)):
                continue
            resolved = real_path(given)
            if resolved not in seen:
                seen.add(resolved)
                yield SourceFile(given, settings)
            continue
        if not given.exists():
            raise FileNotFoundError(given)
        for file in _walk(given, resolver, suffixes):
            resolved = real_path(file)  # Path.resolve is several times slower, per file
            if resolved not in seen:
                seen.add(resolved)
                yield SourceFile(file, resolver.for_path(file))


def _in_default_excluded_dir(path: Path) -> bool:
    return any(part in DEFAULT_EXCLUDES for part in path.resolve().parts[:-1])


def _walk(root: Path, resolver: SettingsResolver, suffixes: tuple[str, ...]) -> Iterator[Path]:
    for directory, subdirectories, filenames in os.walk(root):
        here = Path(directory)
        settings = resolver.for_path(here) if filenames or subdirectories else None
        kept = []
        for name in sorted(subdirectories):
            child = here / name
            if name in DEFAULT_EXCLUDES or (settings is not None and is_excluded(child, settings)):
                continue
            kept.append(name)
        subdirectories[:] = kept
        for name in sorted(filenames):
            if name.endswith(suffixes):
                file = here / name
                if settings is None or not is_excluded(file, settings):
                    yield file
