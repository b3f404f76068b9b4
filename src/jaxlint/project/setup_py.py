"""The requirements a ``setup.py`` passes to ``setup(...)``, read with ``ast`` and never run.

``install_requires`` and ``extras_require`` may be literals, module-level variables (``REQUIREMENTS = [...]``,
``EXTRAS = {...}``), concatenations of those (``BASE + ["jax>=0.4"]``, ``[*BASE, ...]``), or the lines of a
requirements file (``open("requirements.txt").read().splitlines()``, ``Path(...).read_text()``, a helper called
with the file's name): a string literal naming an existing ``*.txt``/``*.in`` file beside ``setup.py`` stands for
that file's lines. Anything else (a computed name, a loop) is not followed: its requirements are not seen.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from pathlib import Path

# How deep names may refer to names (``A = B + C``): a cycle (``A = A + [...]`` at module level) stops here.
_MAX_DEPTH = 20


@dataclass(frozen=True)
class SetupRequirement:
    """A requirement string and where it comes from: a line of ``setup.py``, or a file that setup.py reads."""

    text: str
    file: Path | None = None  # None: setup.py itself (the line is found in its text)
    line: int = 0


class _Resolver:
    def __init__(self, tree: ast.Module, folder: Path, read_file) -> None:
        self.folder = folder
        self.read_file = read_file  # (path, line naming it) -> [(line, text)], or None: it cannot be read
        self.assigned: dict[str, ast.expr] = {}
        self._resolving: set[str] = set()
        for statement in _module_level(tree.body):
            if isinstance(statement, (ast.With, ast.AsyncWith)):
                # ``with open("requirements.txt") as f:``: ``f`` stands for the file it opens
                for item in statement.items:
                    if isinstance(item.optional_vars, ast.Name):
                        self.assigned[item.optional_vars.id] = item.context_expr
            elif isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        self.assigned[target.id] = self._earlier(target.id, statement.value)
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
                self.assigned[statement.target.id] = statement.value
            elif (isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add)
                  and isinstance(statement.target, ast.Name) and statement.target.id in self.assigned):
                # ``REQS += [...]``: the same as ``REQS = REQS + [...]``, without the cycle
                self.assigned[statement.target.id] = ast.BinOp(self.assigned[statement.target.id], ast.Add(),
                                                               statement.value)

    def _earlier(self, name: str, value: ast.expr) -> ast.expr:
        """``REQS = REQS + [...]``: the ``REQS`` on the right is the value it had before (not a cycle)."""
        if name not in self.assigned or not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
            return value
        previous = self.assigned[name]

        class Earlier(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.expr:
                return previous if node.id == name else node

        return Earlier().visit(copy.deepcopy(value))

    def _through(self, name: str, resolve) -> list[SetupRequirement]:
        """``resolve`` of the value bound to ``name``; nothing for a name already being resolved (``A = A + A``)."""
        if name in self._resolving or name not in self.assigned:
            return []
        self._resolving.add(name)
        try:
            return resolve(self.assigned[name])
        finally:
            self._resolving.discard(name)

    def strings(self, node: ast.expr | None, depth: int = 0) -> list[SetupRequirement]:
        """The requirement strings ``node`` evaluates to (a list, tuple, set, string, name or concatenation)."""
        if node is None or depth > _MAX_DEPTH:
            return []
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [SetupRequirement(line) for line in node.value.splitlines()]
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return [item for element in node.elts for item in self.strings(element, depth + 1)]
        if isinstance(node, ast.Starred):
            return self.strings(node.value, depth + 1)
        if isinstance(node, ast.Name):
            return self._through(node.id, lambda value: self.strings(value, depth + 1))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.strings(node.left, depth + 1) + self.strings(node.right, depth + 1)
        if isinstance(node, ast.Dict):  # ``extras_require`` values, when asked for as a whole
            return [item for value in node.values for item in self.strings(value, depth + 1)]
        return self._files_read(node)

    def mapping_values(self, node: ast.expr | None, depth: int = 0) -> list[SetupRequirement]:
        """``extras_require``: every value of the dict it evaluates to (``{**BASE, "cuda": [...]}`` included)."""
        if node is None or depth > _MAX_DEPTH:
            return []
        if isinstance(node, ast.Name):
            return self._through(node.id, lambda value: self.mapping_values(value, depth + 1))
        if isinstance(node, ast.Dict):
            found = []
            for key, value in zip(node.keys, node.values):
                found.extend(self.mapping_values(value, depth + 1) if key is None else self.strings(value, depth + 1))
            return found
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dict":
            return [item for keyword in node.keywords for item in
                    (self.mapping_values(keyword.value, depth + 1) if keyword.arg is None
                     else self.strings(keyword.value, depth + 1))]
        return self._files_read(node)

    def _files_read(self, node: ast.expr, depth: int = 0) -> list[SetupRequirement]:
        """A call or comprehension that names a requirements file beside setup.py (itself, or through a name bound
        to one: ``f.read().splitlines()`` under ``with open(...) as f``): that file's lines."""
        found = []
        joined = _joined_paths(node)
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and inner.id in self.assigned and depth < _MAX_DEPTH:
                if not isinstance(self.assigned[inner.id], (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant)):
                    found.extend(self._through(inner.id, lambda value: self._files_read(value, depth + 1)))
                continue
            if not (isinstance(inner, ast.Constant) and isinstance(inner.value, str)
                    and inner.value.endswith((".txt", ".in"))):
                continue
            path = self.folder / joined.get(id(inner), inner.value)
            lines = self.read_file(path, inner.lineno)
            if lines is not None:
                found.extend(SetupRequirement(text, path, number) for number, text in lines)
        return found


def _joined_paths(node: ast.expr) -> dict[int, str]:
    """The file name literals that end a joined path (``os.path.join(HERE, "requirements", "base.txt")``,
    ``Path(HERE) / "requirements" / "base.txt"``), keyed by the literal's id, with the string literals joined before
    them: the file lies in that sub-folder, not beside setup.py. The first non-literal part (the folder of setup.py,
    however it is spelled) is left out."""
    joined: dict[int, str] = {}
    for inner in ast.walk(node):
        parts: list[ast.expr] = []
        if isinstance(inner, ast.Call) and (getattr(inner.func, "attr", None) == "join"
                                            or getattr(inner.func, "id", None) == "join"):
            parts = list(inner.args)
        elif isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div):
            chain: ast.expr = inner
            while isinstance(chain, ast.BinOp) and isinstance(chain.op, ast.Div):
                parts.insert(0, chain.right)
                chain = chain.left
            parts.insert(0, chain)
        literals = [part for part in parts if isinstance(part, ast.Constant) and isinstance(part.value, str)]
        if len(literals) > 1 and literals[-1] is parts[-1]:
            joined[id(literals[-1])] = "/".join(part.value for part in literals)
    return joined


def _module_level(body: list[ast.stmt]):
    """The statements run at import: the module's, and those inside its ``with``/``if``/``try`` blocks (not inside
    functions or classes)."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            yield from _module_level(statement.body)
        elif isinstance(statement, ast.If):
            yield from _module_level(statement.body + statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _module_level(statement.body + statement.orelse + statement.finalbody
                                     + [s for handler in statement.handlers for s in handler.body])


def setup_requirements(source: str, folder: Path, read_file) -> list[SetupRequirement]:
    """``install_requires`` and every ``extras_require`` value of each ``setup(...)`` call in ``source``.
    ``read_file(path, line)``: the lines of a requirements file that setup.py names at ``line`` (``[(number, text)]``,
    or None: it cannot be read)."""
    tree = ast.parse(source)
    resolver = _Resolver(tree, folder, read_file)
    found: list[SetupRequirement] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if callee != "setup":
            continue
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                found.extend(resolver.strings(keyword.value))
            elif keyword.arg == "extras_require":
                found.extend(resolver.mapping_values(keyword.value))
            elif keyword.arg is None:  # ``setup(**metadata)``
                found.extend(_from_metadata(resolver, keyword.value))
    return found


def _from_metadata(resolver: _Resolver, node: ast.expr) -> list[SetupRequirement]:
    """``setup(**META)`` with ``META = dict(install_requires=..., ...)`` or ``{"install_requires": ...}``."""
    if isinstance(node, ast.Name):
        node = resolver.assigned.get(node.id)
    pairs: list[tuple[str | None, ast.expr]] = []
    if isinstance(node, ast.Dict):
        pairs = [(key.value if isinstance(key, ast.Constant) else None, value)
                 for key, value in zip(node.keys, node.values)]
    elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dict":
        pairs = [(keyword.arg, keyword.value) for keyword in node.keywords]
    found = []
    for key, value in pairs:
        if key == "install_requires":
            found.extend(resolver.strings(value))
        elif key == "extras_require":
            found.extend(resolver.mapping_values(value))
    return found
