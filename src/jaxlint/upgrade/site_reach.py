"""Which of the project's files reach a blocking dependency: through its own imports (``import proj.model``,
``from . import model``), then through the installed distributions each imported module belongs to (what those
require, as ``import_graph.reachable`` walks it). Verify runs the fix sites whose file reaches none: one dependency
no release fixes makes only the code that imports it unverifiable, not the whole project.

Every import counts, at module level or in a function (one in a function runs when it is called): a file said not
to reach the dependency never imports it."""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from jaxlint.upgrade.environment import Distribution, normalize
from jaxlint.upgrade.import_graph import _SKIPPED_FOLDERS, imported_modules, reachable


def _imports(path: Path) -> tuple[set[str], list[tuple[int, str]]]:
    """(dotted absolute imports, (level, module) of the relative ones) in ``path``."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError, RecursionError):
        try:
            return imported_modules(path.read_text(encoding="utf-8", errors="replace")), []
        except OSError:
            return set(), []
    absolute: set[str] = set()
    relative: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            absolute.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names = [f"{node.module}.{a.name}" if node.module else a.name for a in node.names if a.name != "*"]
            if node.level == 0 and node.module:
                absolute.update([node.module, *names])
            elif node.level:
                relative.extend((node.level, name) for name in [node.module or "", *names])
    return absolute, relative


@dataclass
class ProjectGraph:
    """The project's Python files, each known by every dotted suffix of its path (``a/b/c.py``: ``a.b.c``, ``b.c``,
    ``c``), since a project runs from its root, a ``src`` folder or a subfolder on ``PYTHONPATH``."""
    root: Path
    by_name: dict[str, set[Path]] = field(default_factory=dict)
    _edges: dict[Path, tuple[set[Path], set[str]]] = field(default_factory=dict)  # each file parsed once

    @classmethod
    def of(cls, root: Path) -> "ProjectGraph":
        graph = cls(root.resolve())
        for folder, subfolders, files in os.walk(graph.root):
            subfolders[:] = [s for s in subfolders if not s.startswith(".") and s not in _SKIPPED_FOLDERS
                             and not (Path(folder, s) / "pyvenv.cfg").exists()]
            for name in files:
                if name.endswith(".py"):
                    path = Path(folder, name)
                    parts = list(path.relative_to(graph.root).with_suffix("").parts)
                    if parts[-1] == "__init__":
                        parts.pop()
                    for start in range(len(parts)):
                        graph.by_name.setdefault(".".join(parts[start:]), set()).add(path)
        return graph

    def files_of(self, dotted: str) -> set[Path]:
        """The project files an import of ``dotted`` runs: the module and the packages above it."""
        parts = dotted.split(".")
        found: set[Path] = set()
        for end in range(1, len(parts) + 1):
            found |= self.by_name.get(".".join(parts[:end]), set())
        return found

    def edges(self, path: Path) -> tuple[set[Path], set[str]]:
        """(project files, top-level modules outside the project) that ``path`` imports, and the ``__init__.py`` of
        the packages it is in (importing ``proj.model`` runs ``proj/__init__.py`` first)."""
        if path not in self._edges:
            self._edges[path] = self._read_edges(path)
        return self._edges[path]

    def _read_edges(self, path: Path) -> tuple[set[Path], set[str]]:
        absolute, relative = _imports(path)
        files: set[Path] = set(_packages_above(path, self.root))
        outside: set[str] = set()
        for dotted in absolute:
            inside = self.files_of(dotted)
            if inside:
                files |= inside
            else:
                outside.add(dotted.split(".")[0])
        for level, name in relative:
            base = path.parent
            for _ in range(level - 1):
                base = base.parent
            target = base.joinpath(*name.split(".")) if name else base
            files |= {p for p in (target.with_suffix(".py"), target / "__init__.py") if p.is_file()}
        return files, outside


def _packages_above(path: Path, root: Path) -> list[Path]:
    """The ``__init__.py`` of each package that holds ``path``, innermost first, up to the first folder that is not
    a package (or the project root)."""
    found = []
    folder = path.parent
    while (folder / "__init__.py").is_file() and (folder == root or root in folder.parents):
        if folder / "__init__.py" != path:
            found.append(folder / "__init__.py")
        folder = folder.parent
    return found


@dataclass(frozen=True)
class Blocker:
    """A blocking dependency the target environment cannot do without, and why a site that reaches it is not
    verified."""
    name: str
    why: str  # ``jraph has no release that works on the target``

    @property
    def key(self) -> str:
        return normalize(self.name)


class Reach:
    """For each file (or a command's script): the first blocker it reaches and the chain of imports to it."""

    def __init__(self, root: Path, distributions: Iterable[Distribution], blockers: Iterable[Blocker]) -> None:
        self.graph = ProjectGraph.of(root)
        self.distributions = list(distributions)
        self.blockers = list(blockers)
        self._by_module: dict[str, Blocker | None] = {}
        self._files: dict[Path, tuple[Blocker, list[str]] | None] = {}

    def _module_blocker(self, module: str) -> Blocker | None:
        """The blocker that importing the installed module ``module`` loads: itself, or one its distribution
        requires or imports (transitively)."""
        if module not in self._by_module:
            # By distribution, not by module name: jraph and dm-haiku both install a top-level ``docs`` folder.
            reached = {dist.key for dist in reachable(self.distributions, {module})}
            reached.add(normalize(module))  # not installed where listed (``--target-python``'s own): its name
            self._by_module[module] = next((b for b in self.blockers if b.key in reached), None)
        return self._by_module[module]

    def of_file(self, path: Path) -> tuple[Blocker, list[str]] | None:
        """(blocker, chain of what imports what) for ``path``, or None when it reaches no blocker."""
        start = path.resolve()
        if start in self._files:
            return self._files[start]
        # Breadth first: the chain shown is a shortest one.
        seen = {start: [self._shown(start)]}
        queue = [start]
        found = None
        while queue and found is None:
            current = queue.pop(0)
            files, outside = self.graph.edges(current)
            for module in sorted(outside):
                blocker = self._module_blocker(module)
                if blocker is not None:
                    found = (blocker, seen[current] + [module])
                    break
            for other in sorted(files - seen.keys()):
                seen[other] = seen[current] + [self._shown(other)]
                queue.append(other)
        self._files[start] = found
        return found

    def _shown(self, path: Path) -> str:
        try:
            return path.relative_to(self.graph.root).as_posix()
        except ValueError:
            return path.name


def command_script(command: list[str], root: Path) -> Path | None:
    """The Python file the command runs first: ``python X.py`` or ``python -m MODULE`` (a module of the project);
    None for any other command (``pytest``, ``make``), whose start jaxlint does not read."""
    if not command or not Path(command[0]).name.startswith("python"):
        return None
    arguments = command[1:]
    while arguments and arguments[0].startswith("-") and arguments[0] != "-m":
        arguments = arguments[1:]  # interpreter options (-u, -X dev takes a value but reads as a flag here)
    if not arguments:
        return None
    if arguments[0] == "-m":
        if len(arguments) < 2:
            return None
        files = sorted(ProjectGraph.of(root).by_name.get(arguments[1], set()))
        return files[0] if files else None
    script = Path(os.path.expanduser(arguments[0]))
    script = script if script.is_absolute() else root / script
    return script if script.suffix == ".py" and script.is_file() else None
