"""``added_imports`` on the ast gate's tree: whether the module's imports load a module already, and where a fix
adds ``import <module>`` (the same sort, ``added_imports.placement_in_block``), as a character offset.

libcst groups the statements of one line (``import a; import b``) into one ``SimpleStatementLine``; here a line is
the run of top-level statements that share it.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

from jaxlint.analysis.added_imports import AFTER_LINE, placement_in_block, section
from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.diagnostics import Edit

_IMPORTS = (ast.Import, ast.ImportFrom)


def _lines(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The module's statements, grouped as libcst's lines: those joined by ``;`` share one."""
    lines: list[list[ast.stmt]] = []
    for statement in body:
        if lines and lines[-1][-1].end_lineno == statement.lineno:
            lines[-1].append(statement)
        else:
            lines.append([statement])
    return lines


def _is_imports(line: list[ast.stmt]) -> bool:
    return all(type(statement) in _IMPORTS for statement in line)


def _is_future(line: list[ast.stmt]) -> bool:
    return all(type(statement) is ast.ImportFrom and statement.module == "__future__" for statement in line)


def _is_docstring(line: list[ast.stmt]) -> bool:
    return len(line) == 1 and type(line[0]) is ast.Expr and type(line[0].value) is ast.Constant \
        and type(line[0].value.value) in (str, bytes)


def import_block(tree: ast.Module) -> list[list[ast.stmt]]:
    """``added_imports.import_block``: the first run of import lines after the docstring and ``__future__``."""
    lines = _lines(tree.body)
    index = 1 if lines and _is_docstring(lines[0]) else 0
    while index < len(lines) and _is_imports(lines[index]) and _is_future(lines[index]):
        index += 1
    while index < len(lines) and not _is_imports(lines[index]):
        index += 1
    block = []
    while index < len(lines) and _is_imports(lines[index]) and not _is_future(lines[index]):
        block.append(lines[index])
        index += 1
    return block


def _key(line: list[ast.stmt], roots: tuple[Path, ...]) -> tuple[int, int, str]:
    first = line[0]
    if type(first) is ast.Import:
        name = first.names[0].name
        return section(name, False, roots), 0, name.lower()
    name = first.module or ""
    return section(name, bool(first.level), roots), 1, name.lower()


def placement(view: AstView, name: str, roots: tuple[Path, ...]) -> Edit:
    """``added_imports.placement`` as an offset edit; ``Undecidable`` where there is no import block (libcst's
    rename then has no fix) or the line to insert after is the file's last."""
    block = import_block(view.tree)
    if not block:
        raise Undecidable("no import block to add an import to")
    where, index, text = placement_in_block([_key(line, roots) for line in block], name, roots, "\n")
    line = block[index]
    if where == AFTER_LINE:
        row = line[-1].end_lineno  # ``InsertAfterLine``: the start of the next line
        if row >= len(view.index.starts):
            raise Undecidable("the import block ends the file")
        start = view.index.starts[row]
    else:
        start = view.offset_of(line[0])
        if view.source[view.index.starts[line[0].lineno - 1]:start].strip():
            raise Undecidable("an import line that does not start its line")
    return Edit(start, start, text)


def _module_level_imports(view: AstView) -> Iterator[ast.Import | ast.ImportFrom]:
    """``added_imports._module_level_imports``: at top level, or in the indented blocks (not a body on the header's
    line: libcst's ``SimpleStatementSuite``) of a top-level ``if``/``try`` (not ``try*``)."""
    pending: list[ast.stmt] = list(view.tree.body)

    def blocks(*bodies: list[ast.stmt]) -> None:
        for body in bodies:
            if body and not view.source[view.index.starts[body[0].lineno - 1]:view.offset_of(body[0])].strip():
                pending.extend(body)

    while pending:
        statement = pending.pop()
        kind = type(statement)
        if kind in _IMPORTS:
            yield statement
        elif kind is ast.If:
            orelse = statement.orelse
            if len(orelse) == 1 and type(orelse[0]) is ast.If and view.source.startswith("elif", view.offset_of(
                    orelse[0])):
                blocks(statement.body)
                pending.append(orelse[0])
            else:
                blocks(statement.body, orelse)
        elif kind is ast.Try:
            blocks(statement.body, statement.orelse, statement.finalbody, *(h.body for h in statement.handlers))


def loads(view: AstView, name: str) -> bool:
    """``added_imports.loads``: the module's own imports load ``name`` already."""
    parent, _, last = name.rpartition(".")
    for statement in _module_level_imports(view):
        if type(statement) is ast.Import:
            if any(f"{alias.name}.".startswith(f"{name}.") for alias in statement.names):
                return True
        elif not statement.level:
            source = statement.module or ""
            if f"{source}.".startswith(f"{name}."):
                return True
            if source == parent and any(alias.name == last for alias in statement.names):
                return True
    return False
