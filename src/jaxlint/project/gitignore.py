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
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from typing import TYPE_CHECKING

from jaxlint.project.settings import real_path

if TYPE_CHECKING:
    import pathspec


def _read_spec(file: str | Path) -> _Spec | None:
    try:
        modified = os.stat(file).st_mtime_ns
    except OSError:
        return None
    return _parse_spec(os.path.abspath(file), modified)


@dataclass(frozen=True)
class _Spec:
    spec: pathspec.GitIgnoreSpec
    # pathspec's own regexes joined into one: most paths match no pattern, and one search of the alternation
    # answers that several times faster than asking each pattern (pathspec decides whenever one matches).
    any_pattern: re.Pattern

    def check(self, relative: str) -> bool | None:
        if self.any_pattern.match(relative) is None:
            return None
        return self.spec.check_file(relative).include


@lru_cache(maxsize=1024)
def _parse_spec(file: str, modified: int) -> _Spec | None:
    """Cached by absolute path and modification time: a long-lived process (the language server) sees edits."""
    import pathspec  # here: ~40 ms to import, paid only where a .gitignore exists

    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    # Group names repeat across patterns: unnamed here. Most patterns match at any depth (``^(?:.+/)?name``): they
    # share that prefix in one group, so the search tries each depth once rather than once per pattern.
    regexes = [_NAMED_GROUP.sub("(?:", p.regex.pattern) for p in spec.patterns
               if p.include is not None and p.regex is not None]
    if not regexes:
        return None
    anywhere = [regex[len(_ANY_DEPTH):] for regex in regexes if regex.startswith(_ANY_DEPTH)]
    alternatives = [regex for regex in regexes if not regex.startswith(_ANY_DEPTH)]
    if anywhere:
        alternatives.append(_ANY_DEPTH + "(?:" + "|".join(f"(?:{regex})" for regex in anywhere) + ")")
    return _Spec(spec, re.compile("|".join(f"(?:{regex})" for regex in alternatives)))


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_ANY_DEPTH = "^(?:.+/)?"


def repository_root(folder: Path) -> Path | None:
    for candidate in [folder, *folder.parents]:
        if (candidate / ".git").exists():
            return candidate
    return None


@dataclass(frozen=True)
class IgnoreRules:
    """The ignore files in effect in one folder, outermost first, each with the path from the folder it lies in down
    to this one (``""`` there, ``"sub/dir/"`` below): a name in this folder is matched as that prefix plus the name,
    without resolving any path."""

    specs: tuple[tuple[str, _Spec], ...] = ()

    @classmethod
    def for_walk(cls, folder: Path) -> IgnoreRules:
        """The rules inside ``folder``, where a walk starts: the repository's from its root down, and its own.

        Only its own (and, during the walk, those below) when ``folder`` is itself ignored by the ones above: the
        user named that folder (a checkout of other projects inside an ignored ``.corpus/``), so, as in ruff, what
        is inside is checked."""
        full = Path(real_path(folder))
        own = cls()._with(full / ".gitignore")
        repository = repository_root(full)
        if repository is None:
            return own
        rules, current = cls._repository(repository), repository
        for part in full.relative_to(repository).parts:
            if rules.ignores(part, True):
                return own
            current = current / part
            rules = rules.child(part, current)
        return rules

    @classmethod
    def _repository(cls, repository: Path) -> IgnoreRules:
        """The rules at the repository's root: ``.git/info/exclude``, then the root ``.gitignore`` (which wins)."""
        return cls()._with(repository / ".git" / "info" / "exclude")._with(repository / ".gitignore")

    def child(self, name: str, folder: Path) -> IgnoreRules:
        """The rules inside the sub-folder ``name`` (at ``folder``): these one level deeper, plus its .gitignore."""
        return self.descend(name).with_file(os.path.join(folder, ".gitignore"))

    def descend(self, name: str) -> IgnoreRules:
        """These rules one folder deeper, in the sub-folder ``name``, without its own .gitignore (``with_file``
        adds it: a walk that lists the folder knows whether it has one, without a stat for each folder)."""
        return IgnoreRules(tuple((f"{prefix}{name}/", spec) for prefix, spec in self.specs))

    def with_file(self, file: str | Path) -> IgnoreRules:
        """These rules and, deepest, those of the ignore file ``file`` (unchanged when it cannot be read)."""
        return self._with(file)

    def _with(self, file: str | Path) -> IgnoreRules:
        spec = _read_spec(file)
        return self if spec is None else IgnoreRules(self.specs + (("", spec),))

    def ignores(self, name: str, is_dir: bool) -> bool:
        """Whether the entry ``name`` of this folder is ignored: the deepest file with a matching pattern decides,
        as in git."""
        suffix = "/" if is_dir else ""
        for prefix, spec in reversed(self.specs):
            verdict = spec.check(f"{prefix}{name}{suffix}")
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
    rules, current = IgnoreRules._repository(repository), repository
    *folders, name = full.relative_to(repository).parts
    for part in folders:
        if rules.ignores(part, True):
            return True
        current = current / part
        rules = rules.child(part, current)
    return rules.ignores(name, False)
