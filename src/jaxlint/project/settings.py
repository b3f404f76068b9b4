"""The settings one file is linted with: configuration merged with command-line options."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from fnmatch import fnmatch
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from jaxlint.project.versions import NEWEST_KNOWN, Version

if TYPE_CHECKING:
    from jaxlint.project.version_pins import PinnedRange

SELECTOR_RE = re.compile(r"^(ALL|JAX\d{0,3})$")
# Names of the output formats (jaxlint.output registers the renderers; kept here so config needs no import cycle).
OUTPUT_FORMATS = ("text", "json", "concise", "full", "github", "gitlab", "junit", "sarif")


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("JAX",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    # ruff's default excludes (.git, .venv, build, ...) apply until `exclude` is set, in the config or on the
    # command line: as in ruff, `exclude` replaces them and `extend-exclude` adds to them.
    default_excludes: bool = True
    target_version: Version = NEWEST_KNOWN
    # None when neither given nor pinned by the project: then the range is just the target.
    explicit_min_version: Version | None = None
    min_version_source: str = "not pinned: assuming the target version"
    unsafe_fixes: bool = False
    output_format: str = "text"
    respect_gitignore: bool = True
    config_file: Path | None = None
    # Folders of the user's own rule files (``extend-rules``), absolute.
    extend_rules: tuple[Path, ...] = ()
    root: Path = field(default_factory=Path.cwd)
    # The range pinned by the package that holds the file (``version_pins``); None when no package encloses it.
    pinned: "PinnedRange | None" = None

    @property
    def min_version(self) -> Version:
        return self.explicit_min_version or self.target_version

    @property
    def min_version_origin(self) -> str:
        """Where the min version comes from, briefly: ``requirements.txt:1``, ``--min-version``."""
        lower = self.pinned.lower if self.pinned is not None else None
        if lower is not None and self.min_version_source == str(lower):
            return lower.where
        return self.min_version_source

    def library_range(self, name: str) -> tuple[Version | None, Version | None]:
        """The (lowest lower, highest upper) bound the file's package pins for ``name`` (``flax``, ``optax``);
        None where it pins none (the JAX5xx rules then assume the newest release: fixes as for a project on it)."""
        if self.pinned is None:
            return None, None
        lower, upper = self.pinned.library(name)
        return (lower.version if lower else None), (upper.version if upper else None)

    @property
    def min_version_known(self) -> bool:
        return self.explicit_min_version is not None

    def is_selected(self, code: str, opt_in: bool = False) -> bool:
        """Ruff's rule: the most specific matching selector wins; at equal specificity ``ignore`` wins."""
        chosen = _longest_match(code, self.select + self.extend_select)
        if chosen is None:
            return False
        if opt_in and chosen != code:
            return False
        ignored = _longest_match(code, self.ignore)
        return ignored is None or len(ignored) < len(chosen)

    def ignored_codes_for(self, path: Path) -> tuple[str, ...]:
        if not self.per_file_ignores:
            return ()
        relative = relative_posix(path, self.root)
        codes: list[str] = []
        for pattern, pattern_codes in self.per_file_ignores:
            if path_matches(relative, pattern):
                codes.extend(pattern_codes)
        return tuple(codes)


def _longest_match(code: str, selectors: tuple[str, ...]) -> str | None:
    best: str | None = None
    for selector in selectors:
        matched = selector == "ALL" or code.startswith(selector)
        specificity = 3 if selector == "ALL" else len(selector)
        if matched and (best is None or specificity > (3 if best == "ALL" else len(best))):
            best = selector
    return best


def relative_posix(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (both resolved), or the resolved path when it lies outside ``root``.

    os.path.realpath, not Path.resolve, and the root resolved once: this runs for every file and directory of a
    run, and was most of a warm run's time on large trees."""
    full = real_path(path)
    base = _real_directory(os.path.abspath(root))
    if full == base:
        return "."
    prefix = base.rstrip(os.sep) + os.sep
    if full.startswith(prefix):
        return PurePosixPath(full[len(prefix):]).as_posix()
    return PurePosixPath(full).as_posix()


def real_path(path: Path | str) -> str:
    """``os.path.realpath``, with each directory resolved once per process (one ``lstat`` per file instead of one
    per path component: a run over a deep tree asks for every file)."""
    text = os.path.abspath(path)
    if os.path.islink(text):
        return os.path.realpath(text)
    folder, name = os.path.split(text)
    return os.path.join(_real_directory(folder), name) if name else _real_directory(folder)


@lru_cache(maxsize=4096)
def _real_directory(folder: str) -> str:
    return os.path.realpath(folder)



def path_matches(relative: str, pattern: str) -> bool:
    """Gitignore-like matching: a pattern matches the path, any parent directory of it, or its file name."""
    pattern = pattern.rstrip("/")
    if fnmatch(relative, pattern) or fnmatch(relative, pattern + "/*"):
        return True
    parts = relative.split("/")
    if "/" not in pattern:
        return any(fnmatch(part, pattern) for part in parts)
    return any(fnmatch("/".join(parts[:i]), pattern) for i in range(1, len(parts)))
