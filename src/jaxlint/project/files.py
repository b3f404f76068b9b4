"""Which files to lint: walking directories, default and configured excludes, .gitignore, explicit paths; and which
modules the project index covers (``project_modules``: every module of the linted files' projects)."""
from __future__ import annotations

import fnmatch
import operator
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from jaxlint.project.config import SettingsResolver
from jaxlint.project.gitignore import IgnoreRules, ignored_by_git
from jaxlint.project.settings import Settings, _real_directory, path_matches, real_path, relative_posix

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
    # ``real_path(path)`` when discovery knew it (its walk does, without a ``stat``): None where not known.
    real: str | None = field(default=None, compare=False, repr=False)


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
                yield SourceFile(given, settings, resolved)
            continue
        for file, settings, resolved in _walk(given, resolver, suffixes):
            if resolved not in seen:
                seen.add(resolved)
                yield SourceFile(file, settings, resolved)


def _default_excluded(name: str, settings: Settings | None) -> bool:
    return name in ALWAYS_EXCLUDED or (name in RUFF_DEFAULT_EXCLUDES and (settings is None or settings.default_excludes))


def _in_default_excluded_dir(path: Path, settings: Settings) -> bool:
    return any(_default_excluded(part, settings) for part in path.resolve().parts[:-1])


def _walk(root: Path, resolver: SettingsResolver,
          suffixes: tuple[str, ...]) -> Iterator[tuple[Path, Settings, str]]:
    """Each source file under ``root`` with its folder's settings and its real path, in ``os.walk``'s order
    (top-down, names sorted, symlinked folders listed but not entered, unlistable folders skipped).

    One ``scandir`` per folder and plain strings: the entry types come with the listing, each folder's real path
    is its parent's plus its name (a symlinked folder is not entered), and its settings are looked up by that real
    path, so a warm run over a large tree spends no ``stat``, ``resolve`` or ``Path`` on a file beyond the one it
    yields. Exclude patterns are tested as ``is_excluded`` tests them, from that real path (``_Excludes``)."""
    root_text = str(root)
    ignore = IgnoreRules.for_walk(root) if resolver.for_path(root).respect_gitignore else None
    # (folder as walked, its real path, its ignore rules without its own .gitignore unless it is the root's, the
    # excludes it was tested against as an entry of its parent and whether they passed it: ``_Excludes.passed``)
    stack: list[tuple[str, str, IgnoreRules | None, bool, _Excludes | None]] = [
        (root_text, real_path(root), ignore, True, None)]
    excludes_of: dict[int, tuple[Settings, _Excludes | None]] = {}  # by the settings' id (held here, so kept)
    while stack:
        directory, real, ignore, is_root, tested = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=_NAME)
        except OSError:
            continue
        if not entries:
            continue
        names = {entry.name for entry in entries}
        # The folder's config and pin files are found among its names: this listing is its only read (and what the
        # replay recorder stamps: a config or pin file added here changes it).
        settings = resolver.for_resolved_directory(real, names)
        known = excludes_of.get(id(settings))
        if known is None:
            known = excludes_of[id(settings)] = (settings, _Excludes.of(settings))
        excludes = known[1]
        passed = excludes is not None and (excludes is tested or excludes.passed(excludes.relative(real)))
        if ignore is not None and not is_root and ".gitignore" in names:
            ignore = ignore.with_file(os.path.join(directory, ".gitignore"))
        folders = []
        for entry in entries:
            name = entry.name
            try:
                is_directory = entry.is_dir()
            except OSError:
                is_directory = False
            if is_directory:
                if _default_excluded(name, settings):
                    continue
                link = _is_link(entry)
                if excludes is not None and excludes.excludes(
                        real, passed, name, os.path.realpath(os.path.join(real, name)) if link else None):
                    continue
                if ignore is not None and ignore.ignores(name, True):
                    continue
                if not link:  # os.walk lists a symlinked folder but does not enter it
                    folders.append((entry.path, os.path.join(real, name), ignore.descend(name) if ignore else None,
                                    False, excludes))
                continue
            if not name.endswith(suffixes):
                continue
            link = _is_link(entry)
            resolved = os.path.realpath(os.path.join(real, name)) if link else None
            if excludes is not None and excludes.excludes(real, passed, name, resolved):
                continue
            if ignore is not None and ignore.ignores(name, False):
                continue
            # ``entry.path`` is ``os.path.join(directory, name)``, joined by the listing
            yield Path(entry.path), settings, os.path.join(real, name) if resolved is None else resolved
        stack.extend(reversed(folders))


# ``fnmatch`` compares paths as they are only where ``os.path.normcase`` leaves them so (not on Windows, where it
# lowercases them and turns ``/`` into ``\\``): elsewhere the walk tests every entry with ``path_matches`` itself.
_POSIX_MATCHING = os.path.normcase("A/b") == "A/b"


class _Excludes:
    """The exclude patterns of a walked folder's settings, tested as ``is_excluded`` tests them (``path_matches`` on
    the real path relative to the settings' root), with what the walk knows: each entry's real path (its folder's
    plus its name, unless it is a link), and that its folder passed the same patterns when it was an entry itself.

    ``path_matches(relative, p)`` is: ``p`` matches the path, or one of its parent paths (``p + "/*"``: fnmatch's
    ``*`` matches ``/`` too, so that is a parent path ending where a ``/`` follows), or (a ``p`` without ``/``) one
    of its parts. For ``folder/name`` in a folder that passed (neither it, a parent path of it nor one of its parts
    matched) all that is left to test is the path itself and, for a ``p`` without ``/``, the name."""

    def __init__(self, patterns: tuple[str, ...], root: Path) -> None:
        self.patterns = patterns
        stripped = [pattern.rstrip("/") for pattern in patterns]
        self._matchers = [(re.compile(fnmatch.translate(pattern)).match, "/" not in pattern) for pattern in stripped]
        self._base = _real_directory(os.path.abspath(root))
        self._prefix = self._base.rstrip(os.sep) + os.sep

    @classmethod
    def of(cls, settings: Settings) -> "_Excludes | None":
        patterns = settings.exclude + settings.extend_exclude
        return cls(patterns, settings.root) if patterns else None

    def relative(self, real: str) -> str:
        """``relative_posix`` of a real path (a real path is normal: ``PurePosixPath`` would leave it as it is)."""
        if real == self._base:
            return "."
        return real[len(self._prefix):] if real.startswith(self._prefix) else real

    def passed(self, relative: str) -> bool:
        """Whether a folder at ``relative`` passes: its entries then need only ``excludes``' quick tests. The
        settings' root passes whatever matches ``.``: its entries' paths do not start with it."""
        return relative == "." or not any(path_matches(relative, pattern) for pattern in self.patterns)

    def excludes(self, real: str, passed: bool, name: str, link_target: str | None) -> bool:
        """Whether the entry ``name`` of the folder whose real path is ``real`` is excluded; ``passed``: whether
        that folder passed (``passed``); ``link_target``: the entry's real path when it is a symlink."""
        relative = self.relative(os.path.join(real, name) if link_target is None else link_target)
        # A link's path is not its folder's plus its name, nor is the root's (``.``) when the walk started above it.
        if passed and link_target is None and relative != "." and _POSIX_MATCHING:
            return any(match(relative) is not None or (bare and match(name) is not None)
                       for match, bare in self._matchers)
        return any(path_matches(relative, pattern) for pattern in self.patterns)


_NAME = operator.attrgetter("name")  # a folder's entries sorted by name, without a Python call per entry


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


# -- the modules of the projects of a run (``jaxlint.project.index``) -----------------------------------------------
# A project this large is not walked for one file: its index covers the linted files only (docs/caching.md).
MAX_PROJECT_MODULES = 20_000
MODULE_SUFFIXES = (".py", ".pyi")


def index_root(settings: Settings) -> Path | None:
    """The folder whose modules the project index covers for a file with these settings: its configuration file's
    folder, else the folder of the package whose pins it reads; None when neither is known (the working folder is
    no project: it may be a home folder)."""
    if settings.config_file is not None:
        return settings.config_file.parent
    if settings.pinned is not None:
        return settings.pinned.package
    return None


def project_modules(files: list[SourceFile], resolver: SettingsResolver | None = None,
                    walked: Iterable[Path] = ()) -> list[str]:
    """The modules of the projects of ``files`` that are not among them, so that the project facts a file's
    findings depend on are the same whichever paths the command line names (``jaxlint check pkg/worker.py`` as
    pre-commit runs it, or ``jaxlint check .``). Each project root (``index_root``) is walked as ``discover`` walks a
    folder (the same excludes, ``.gitignore`` and default excludes: the modules ``jaxlint check <root>`` would
    lint); a root at or under a folder of ``walked`` (the folders the run's own discovery walked) is not walked
    again. ``resolver``: the run's, for each folder's settings; without one, each root's files' settings."""
    roots: dict[str, Settings] = {}
    for file in files:
        root = index_root(file.settings)
        if root is not None:
            roots.setdefault(str(root), file.settings)
    if not roots:
        return []
    covered = [real_path(folder) for folder in walked]
    roots = {root: settings for root, settings in roots.items()
             if not any(_at_or_under(root, other) for other in [*covered, *(r for r in roots if r != root)])}
    if not roots:
        return []
    linted = {real_path(file.path) if file.real is None else file.real for file in files}
    found: list[str] = []
    for root, settings in sorted(roots.items()):
        if not any(_at_or_under(path, root) for path in linted):
            continue  # a configuration file named from elsewhere (``--config``): not this file's project
        modules = []
        for path, _, resolved in _walk(Path(root), resolver or _OneSettings(settings), MODULE_SUFFIXES):
            if resolved not in linted:
                modules.append(str(path))
                if len(modules) > MAX_PROJECT_MODULES:
                    modules = []
                    break
        found.extend(modules)
    return found


def _at_or_under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class _OneSettings:
    """A resolver that gives every folder the same settings (a run started without the command line's resolver)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def for_path(self, path: Path) -> Settings:
        return self.settings

    def for_resolved_directory(self, directory: str, names=None) -> Settings:
        return self.settings
