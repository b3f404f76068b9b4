"""The project model for versions: each file's pinned JAX range, from its nearest enclosing package.

A file's package is the nearest folder at or above it that holds a project file (pyproject.toml, setup.cfg,
setup.py, Pipfile), or pin files (requirements*.txt, requirements/*.txt, constraints*.txt, environment.yml) that name
``jax``; a folder whose only pin files are about other things (``docs/requirements.txt``) is not one. Pin files that
name only ``flax`` or ``optax`` make a package where no enclosing folder is one (a repository whose requirements.txt
pins flax and lets it pull in jax). The walk stops at the repository root (``.git``). Over all of the package's
requirements on ``jax``, the range is the lowest lower bound (a dev requirements file does not raise the floor of the
runtime one) and the highest upper bound. It depends on where the file is, never on ``--config`` or the current
directory; each bound keeps the file and line that set it. A pin file that cannot be read is a warning with its file
and line (``PinnedRange.warnings``), never a silent default.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Collection

from jaxlint.project.pins import (LIBRARIES, PinFileWarning, Requirement, folder_pins, library_of, lower_bound,
                                  mentions_jax, upper_bound)
from jaxlint.project.versions import Version


@dataclass(frozen=True)
class Bound:
    """One end of the range and the requirement that set it."""

    version: Version
    where: str  # ``requirements.txt:1``
    requirement: str  # ``jax>=0.4.6``

    def __str__(self) -> str:
        return f"{self.where}: {self.requirement}"


@dataclass(frozen=True)
class PinnedRange:
    package: Path
    lower: Bound | None  # None: no requirement bounds jax from below
    upper: Bound | None  # None: newer releases are allowed (some requirement leaves them open)
    # The same for each of ``pins.LIBRARIES`` the package pins (flax, optax): (name, lower, upper), read as for jax.
    libraries: tuple[tuple[str, Bound | None, Bound | None], ...] = ()
    # ``pyproject.toml:5: is not valid TOML (...)``: pin files whose pins could not be read
    warnings: tuple[str, ...] = ()

    def library(self, name: str) -> tuple[Bound | None, Bound | None]:
        """``name``'s (lower, upper) bounds; (None, None) when the package does not pin it."""
        return next(((lower, upper) for library, lower, upper in self.libraries if library == name), (None, None))

    def describe(self) -> str:
        """``>=0.4.6 (requirements.txt:1), <0.5 (constraints.txt:2)``: the ``--show-settings`` line."""
        return describe_bounds(self.lower, self.upper)


def describe_bounds(lower: Bound | None, upper: Bound | None, unpinned: str = "no lower bound") -> str:
    """``>=0.4.6 (requirements.txt:1), <0.5 (constraints.txt:2)``; an exact pin as one: ``==0.4.6 (...)``."""
    if lower and upper and lower.version == upper.version and "==" in upper.requirement:
        return f"=={lower.version} ({lower.where}{'' if lower.where == upper.where else ', ' + upper.where})"
    parts = [f">={lower.version} ({lower.where})" if lower else unpinned]
    if upper is not None:
        parts.append(f"{'<=' if _inclusive(upper) else '<'}{upper.version} ({upper.where})")
    return ", ".join(parts)


def _inclusive(upper: Bound) -> bool:
    """The ceiling is a release the requirement admits (``<=V``, ``==V``), not the first it excludes."""
    return re.search(rf"(<=|==)\s*v?{re.escape(str(upper.version))}(?![\d.])", upper.requirement) is not None


class ProjectPins:
    """Each folder's pinned range, memoised per folder: a run asks for every file, and sibling folders share their
    parents' answers."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._by_folder: dict[str, PinnedRange | None] = {}

    def for_directory(self, directory: Path | str, names: Collection[str] | None = None) -> PinnedRange | None:
        """The range of the files in ``directory`` (resolved); None when no package encloses it. ``names``:
        ``directory``'s entries when the caller has just listed it (a walk): its pin files and ``.git`` are found
        among them, without a listing or a ``stat`` of its own. Plain strings: this runs for every folder of a walk."""
        walked: list[str] = []
        found: PinnedRange | None = None
        fallback: PinnedRange | None = None
        folder = os.fspath(directory)
        while True:
            if folder in self._by_folder:
                found = self._by_folder[folder]
                break
            walked.append(folder)
            warnings: list[PinFileWarning] = []
            is_project, requirements = folder_pins(folder, names, warnings)
            if is_project or any(mentions_jax(r.text) for r in requirements):
                found = self._range(Path(folder), requirements, warnings)
                break
            if requirements and fallback is None:
                # Pins on flax/optax only (``docs/requirements.txt``): the package of an enclosing project, if any;
                # else this folder's (a repository whose requirements.txt pins flax and lets it pull in jax).
                fallback = self._range(Path(folder), requirements, warnings)
            if (names is None or ".git" in names) and Path(folder, ".git").exists():
                break  # the repository root: pins above it belong to someone else
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder, names = parent, None  # the caller listed only ``directory``
        if found is None:
            found = fallback
        for folder in walked:
            self._by_folder[folder] = found
        return found

    def _range(self, package: Path, requirements: list[Requirement],
               warnings: list[PinFileWarning]) -> PinnedRange:
        lower, upper = self._bounds(requirements, "jax")
        libraries = tuple((name, *self._bounds(requirements, name)) for name in LIBRARIES)
        return PinnedRange(package, lower, upper, tuple(item for item in libraries if item[1] or item[2]),
                           tuple(self._warning(w) for w in warnings))

    def _warning(self, warning: PinFileWarning) -> str:
        where = self._shown(warning.file) + (f":{warning.line}" if warning.line else "")
        return f"{where}: {warning.message}: its pins are not read"

    def _bounds(self, requirements: list[Requirement], name: str) -> tuple[Bound | None, Bound | None]:
        lowers = [(bound, r) for r in requirements if (bound := lower_bound(r.text, name)) is not None]
        mentioning = [r for r in requirements
                      if (mentions_jax(r.text) if name == "jax" else library_of(r.text) == name)]
        uppers = [(upper_bound(r.text, name), r) for r in mentioning]
        lower = min(lowers, key=lambda item: item[0]) if lowers else None
        # The union of the requirements' ranges: open above when any of them is.
        upper = None if not uppers or any(b is None for b, _ in uppers) else max(uppers, key=lambda item: item[0])
        return self._bound(lower), self._bound(upper)

    def _bound(self, item: tuple[Version | None, Requirement] | None) -> Bound | None:
        if item is None or item[0] is None:
            return None
        version, requirement = item
        return Bound(version, f"{self._shown(requirement.file)}:{requirement.line}", requirement.text)

    def _shown(self, path: Path) -> str:
        """The path as the user's other paths are shown: relative to the current directory when under it."""
        relative = os.path.relpath(path, self.cwd)
        return path.as_posix() if relative.startswith("..") else Path(relative).as_posix()
