"""Which installed distributions the project's code can reach: the top-level modules its files import, then, from
each distribution they belong to, what that one requires (its metadata) and imports (its files), transitively.

A shared environment holds much that the project never runs (jaxlint itself, the tools of other projects): only
what this walk reaches can block the upgrade."""
from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import Iterable

from jaxlint.upgrade.environment import Distribution, normalize

# Folders of a project that hold no code of its own, or code of other projects (its virtual environments).
_SKIPPED_FOLDERS = {"node_modules", "site-packages", "dist-packages", "build", "dist", "__pycache__"}
# ``import a.b as c, d`` and ``from a.b import c``: the first name of each module, read without parsing when a file
# does not parse (a file for another Python still imports what it imports).
_IMPORT_LINE = re.compile(r"^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import\b|import\s+(.+))", re.M)
# The distributions' own files are read for their imports only when small (a big one declares what it needs).
_READ_FILES_AT_MOST = 300
# The requirement's name, and whether it applies only to an extra (``; extra == "test"``): extras are not installed
# for the project unless it asks, and then its own requirement names them.
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def imported_modules(text: str) -> set[str]:
    """The top-level names of the absolute imports in ``text``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return _imported_by_text(text)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _imported_by_text(text: str) -> set[str]:
    names = set()
    for match in _IMPORT_LINE.finditer(text):
        if match.group(1):
            names.add(match.group(1))
        else:
            names.update(part.strip().split(".")[0].split()[0] for part in match.group(2).split(",") if part.strip())
    return {name for name in names if name.isidentifier()}


def project_imports(root: Path) -> set[str]:
    """Every top-level module the project's Python files import (hidden folders and environments skipped)."""
    names: set[str] = set()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [s for s in subfolders if not s.startswith(".") and s not in _SKIPPED_FOLDERS
                         and not (Path(folder, s) / "pyvenv.cfg").exists()]
        for name in files:
            if name.endswith(".py"):
                names |= _imports_of(Path(folder, name))
    return names


def _imports_of(path: Path) -> set[str]:
    try:
        return imported_modules(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return set()


def provided_modules(dist: Distribution) -> set[str]:
    """The top-level modules a distribution installs (its RECORD; else its name, as most distributions do)."""
    return set(dist.top_level) or {dist.key.replace("-", "_")}


def reachable(distributions: Iterable[Distribution], imported: set[str],
              declared: Iterable[str] = (), read_files: bool = True) -> list[Distribution]:
    """The distributions that ``imported`` (module names) and ``declared`` (the project's own requirements) reach,
    directly or through what each reached one requires or (``read_files``) imports."""
    distributions = list(distributions)
    by_module: dict[str, list[Distribution]] = {}
    by_key = {dist.key: dist for dist in distributions}
    for dist in distributions:
        for module in provided_modules(dist):
            by_module.setdefault(module, []).append(dist)
    reached: dict[str, Distribution] = {}
    pending = [dist for module in sorted(imported) for dist in by_module.get(module, ())]
    pending += [by_key[key] for key in map(_requirement_key, declared) if key in by_key]
    while pending:
        dist = pending.pop()
        if dist.key in reached:
            continue
        reached[dist.key] = dist
        for requirement in dist.requires:
            if "extra" in requirement.partition(";")[2]:
                continue
            key = _requirement_key(requirement)
            if key in by_key:
                pending.append(by_key[key])
        if read_files and len(dist.files) <= _READ_FILES_AT_MOST:
            modules = set().union(*(_imports_of(path) for path in dist.files)) if dist.files else set()
            pending.extend(other for module in sorted(modules - provided_modules(dist))
                           for other in by_module.get(module, ()))
    return list(reached.values())


def _requirement_key(requirement: str) -> str | None:
    name = _REQUIREMENT.match(requirement)
    return normalize(name.group(1)) if name else None
