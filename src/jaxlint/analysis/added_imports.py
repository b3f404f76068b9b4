"""Where a fix adds ``import <module>``: where isort (and ruff's ``I001``) would put it, and only when needed.

isort's default layout: after the docstring and the ``from __future__`` imports, sections separated by a blank line
(standard library, third party, first party, relative), and in each section ``import x`` lines before ``from x
import`` lines, each group sorted by module name, case-insensitively. The new line goes before the first import of
the module's first import block that sorts after it; a section the block lacks is added, with its blank line.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.rules.base import InsertAfterLine, InsertBefore, NodeEdit

STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = 1, 2, 3, 4
_STDLIB_NAMES = frozenset(sys.stdlib_module_names)


def _full(node: cst.CSTNode | None) -> str:
    return (cst.helpers.get_full_name_for_node(node) or "") if node is not None else ""


def _imports(statement: cst.CSTNode) -> list[cst.Import | cst.ImportFrom]:
    """The imports of a line made only of imports; [] for any other statement."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return []
    small = list(statement.body)
    return small if small and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in small) else []


def _is_future(statement: cst.CSTNode) -> bool:
    small = _imports(statement)
    return bool(small) and all(isinstance(s, cst.ImportFrom) and _full(s.module) == "__future__" for s in small)


def _is_docstring(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Expr) \
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def section(module: str, relative: bool, roots: tuple[Path, ...]) -> int:
    if relative:
        return LOCAL
    top = module.partition(".")[0]
    if top in _STDLIB_NAMES:
        return STDLIB
    if any((root / top).is_dir() or (root / f"{top}.py").is_file() for root in roots):
        return FIRST_PARTY  # isort's guess too: a package or module next to the code
    return THIRD_PARTY


def _key(statement: cst.SimpleStatementLine, roots: tuple[Path, ...]) -> tuple[int, int, str]:
    first = _imports(statement)[0]
    if isinstance(first, cst.Import):
        name = _full(first.names[0].name)
        return section(name, False, roots), 0, name.lower()
    name = _full(first.module)
    return section(name, bool(first.relative), roots), 1, name.lower()


def import_block(module: cst.Module) -> list[cst.SimpleStatementLine]:
    """The module's first run of import lines after its docstring and ``from __future__`` imports."""
    body = list(module.body)
    index = 1 if body and _is_docstring(body[0]) else 0
    while index < len(body) and _is_future(body[index]):
        index += 1
    while index < len(body) and not _imports(body[index]):
        index += 1
    block = []
    while index < len(body) and _imports(body[index]) and not _is_future(body[index]):
        block.append(body[index])
        index += 1
    return block


def placement(module: cst.Module, name: str, roots: tuple[Path, ...] = ()) -> NodeEdit | None:
    """The edit adding ``import <name>`` where isort would; None when the module has no import block (the caller
    decides: there is no order to follow)."""
    block = import_block(module)
    if not block:
        return None
    where, index, text = placement_in_block([_key(statement, roots) for statement in block], name, roots,
                                            module.default_newline)
    return (InsertAfterLine if where == AFTER_LINE else InsertBefore)(block[index], text)


AFTER_LINE, BEFORE = "after line", "before"


def placement_in_block(keys: list[tuple[int, int, str]], name: str, roots: tuple[Path, ...],
                       newline: str) -> tuple[str, int, str]:
    """Where ``import <name>`` goes in an import block whose lines sort as ``keys`` (``_key``), for either tree:
    (``AFTER_LINE`` or ``BEFORE``, the index of the line in the block, the text to insert)."""
    line = f"import {name}{newline}"
    new = (section(name, False, roots), 0, name.lower())
    after = next((i for i, key in enumerate(keys) if key > new), None)
    previous = (after if after is not None else len(keys)) - 1
    if previous >= 0 and keys[previous][0] == new[0]:
        return AFTER_LINE, previous, line  # its section goes on: the line right after its import
    if after is not None and keys[after][0] == new[0]:
        return BEFORE, after, line  # the first of its section
    if after is not None:
        return BEFORE, after, line + newline  # a new section, before a later one
    return AFTER_LINE, len(keys) - 1, newline + line  # a new section, last


def _branches() -> tuple[type[cst.CSTNode], ...]:
    return (cst.If, cst.Try, cst.Else, cst.ExceptHandler, cst.Finally)


def _module_level_imports(module: cst.Module) -> Iterator[cst.Import | cst.ImportFrom]:
    """The imports that run when the module is imported: at top level, or in a top-level ``if``/``try``."""
    branches = _branches()
    pending: list[cst.CSTNode] = list(module.body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, cst.SimpleStatementLine):
            yield from (s for s in statement.body if isinstance(s, (cst.Import, cst.ImportFrom)))
        elif isinstance(statement, branches):
            for child in statement.children:
                if isinstance(child, cst.IndentedBlock):
                    pending.extend(child.body)
                elif isinstance(child, branches):
                    pending.append(child)


def loads(module: cst.Module, name: str) -> bool:
    """Whether the module's own imports already load ``name`` (``import name``, ``import name.sub as x``, ``from
    name import y``, ``from parent import last``): then ``jax.a.b`` reads it wherever ``jax`` is bound."""
    parent, _, last = name.rpartition(".")
    for statement in _module_level_imports(module):
        if isinstance(statement, cst.Import):
            if any(f"{_full(alias.name)}.".startswith(f"{name}.") for alias in statement.names):
                return True
        elif not statement.relative:
            source = _full(statement.module)
            if f"{source}.".startswith(f"{name}."):
                return True
            if source == parent and not isinstance(statement.names, cst.ImportStar) \
                    and any(_full(alias.name) == last for alias in statement.names):
                return True
    return False
