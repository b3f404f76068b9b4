"""What one module tells the rest of the project (``jaxlint.project.index``), read cheaply from its bytes.

Every file of a run gets its imports from a regular expression over its text (no parse: an ``ast`` parse of every
file would cost as much as the whole lint). Only a file that spells ``thread_resources``, ``pjit`` or
``_shardings_hlo`` somewhere is parsed with ``ast``, to say whether it really uses them. Facts are plain JSON data
(lists, strings, booleans): they are cached with the results and handed to worker processes as they are.

The facts over-approximate, as JAX401's fix safety needs: a ``pjit`` whose shardings are anything but ``None`` or
concrete ``Sharding`` objects counts as running with ``PartitionSpec``s; a file ``ast`` cannot parse counts as using
whatever it spells.
"""
from __future__ import annotations

import ast
import re
import warnings
from typing import Any

FIELDS = frozenset({"in_shardings_hlo", "out_shardings_hlo"})
SHARDING_KEYWORDS = frozenset({"in_shardings", "out_shardings", "in_axis_resources", "out_axis_resources"})
# Calls that build a concrete ``Sharding`` (no ``PartitionSpec`` without a mesh), by their last name.
CONCRETE_SHARDINGS = frozenset({"NamedSharding", "SingleDeviceSharding", "PositionalSharding", "GSPMDSharding"})

# ``import a.b as c, d`` and ``from .a import (b as c, d)`` at the start of a line (also inside strings: harmless,
# an extra import only makes the analysis more careful).
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([\w. \t,]+)", re.M)
_FROM_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)", re.M)
_COMMENT = re.compile(rb"#[^\n]*")

Facts = dict[str, Any]  # {"imports": [[level, module, [names]]], "thread_resources": bool, "pjit_specs": bool,
#                         "hlo_classes": [class names]}


def module_facts(data: bytes) -> Facts:
    facts: Facts = {"imports": _imports(data), "thread_resources": False, "pjit_specs": False, "hlo_classes": []}
    spells = [word for word in (b"thread_resources", b"pjit", b"_shardings_hlo") if word in data]
    if not spells:
        return facts
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        facts["thread_resources"] = b"thread_resources" in spells
        facts["pjit_specs"] = b"pjit" in spells
        return facts
    _AstFacts(facts).visit(tree)
    return facts


def _imports(data: bytes) -> list[list]:
    found: list[list] = []
    for match in _IMPORT.finditer(data):
        for part in match.group(1).split(b","):
            name = part.split()[0] if part.split() else b""
            if name:
                found.append([0, name.decode("ascii", "replace"), []])
    for match in _FROM_IMPORT.finditer(data):
        level = len(match.group(1))
        module = match.group(2).decode("ascii", "replace")
        names_text = _COMMENT.sub(b"", match.group(3)).strip(b"()").replace(b"\\\n", b" ")
        names = []
        for part in names_text.split(b","):
            words = part.split()
            if words and words[0] != b"*":
                names.append(words[0].decode("ascii", "replace"))
        found.append([level, module, names])
    return found


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


class _AstFacts(ast.NodeVisitor):
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self._pjit_uses: set[int] = set()  # ``pjit`` names already judged as a call's callee or partial's argument

    # -- thread_resources ----------------------------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "thread_resources":
            self.facts["thread_resources"] = True
        elif node.attr == "pjit" and isinstance(node.ctx, ast.Load) and id(node) not in self._pjit_uses:
            self._other_pjit_use(node)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "thread_resources":
            self.facts["thread_resources"] = True
        elif node.id == "pjit" and isinstance(node.ctx, ast.Load) and id(node) not in self._pjit_uses:
            self._other_pjit_use(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if any(alias.name == "thread_resources" for alias in node.names):
            self.facts["thread_resources"] = True

    # -- pjit ------------------------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        callee = _last_name(node.func)
        if callee == "pjit":
            self._pjit_uses.add(id(node.func))
            if isinstance(node.func, ast.Attribute):
                self._pjit_uses.add(id(node.func.value))  # ``pjit.pjit(...)``: the module
            if _has_spec_shardings(node, 1):
                self.facts["pjit_specs"] = True
        elif callee == "partial" and node.args and _last_name(node.args[0]) == "pjit":
            self._pjit_uses.add(id(node.args[0]))
            if _has_spec_shardings(node, 2):
                self.facts["pjit_specs"] = True
        self.generic_visit(node)

    def _other_pjit_use(self, node: ast.expr) -> None:
        """``step = pjit``, ``@pjit``, ``jax.experimental.pjit`` as a module...: not followed, so it counts."""
        if isinstance(node, ast.Name) or _last_name(node) == "pjit":
            self.facts["pjit_specs"] = True

    # -- classes with ``*_shardings_hlo`` ---------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if _defines_field(node):
            self.facts["hlo_classes"].append(node.name)
        self.generic_visit(node)


def _has_spec_shardings(call: ast.Call, positional_functions: int) -> bool:
    if len(call.args) > positional_functions or any(isinstance(a, ast.Starred) for a in call.args):
        return True  # shardings passed by position, or maybe in ``*args``
    for keyword in call.keywords:
        if keyword.arg is None:
            return True  # ``**kwargs`` may hold them
        if keyword.arg in SHARDING_KEYWORDS and not _spec_free(keyword.value):
            return True
    return False


def _spec_free(value: ast.expr, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_spec_free(element, depth + 1) for element in value.elts)
    if isinstance(value, ast.Call):
        return _last_name(value.func) in CONCRETE_SHARDINGS
    return False  # a name, a helper's result...: may hold specs


def _defines_field(node: ast.ClassDef) -> bool:
    for statement in ast.walk(node):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name in FIELDS:
            return True
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            targets = [statement.target]
        for target in targets:
            if (isinstance(target, ast.Name) and target.id in FIELDS) \
                    or (isinstance(target, ast.Attribute) and target.attr in FIELDS):
                return True
    return False
