"""``unused_imports``' removal of an import that nothing uses any more, as offset edits on the ``ast`` tree.

The libcst path deletes the whole statement (``EditBuilder``'s ``DeleteStatement``) or rewrites it without the
dropped names (``unused_imports.without_names``). Both are written here from the statement's text, to the character;
a shape whose libcst output is not certain from the text (a line shared with another statement, a backslash, a
multi-line import inside a block, whose continuation lines ``code_for_node`` re-indents) is ``Undecidable``.
"""
from __future__ import annotations

import ast

from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.diagnostics import Edit


def delete_statement(view: AstView, statement: ast.stmt) -> Edit:
    """``EditBuilder._delete_statement`` of a simple statement alone on its lines: its whole lines (its trailing
    comment and newline with them), or ``pass`` where it is its block's only statement."""
    _alone_on_its_lines(view, statement)
    start, end = view.offset_of(statement), view.offset_of(statement, end=True)
    parent, field = view.parent(statement)
    if type(parent) is not ast.Module and len(getattr(parent, field)) == 1:
        return Edit(start, end, "pass")  # the block must keep a body
    starts = view.index.starts
    stop = starts[statement.end_lineno] if statement.end_lineno < len(starts) else len(view.source)
    return Edit(starts[statement.lineno - 1], stop, "")


def without_names(view: AstView, node: ast.ImportFrom, dropped: set[int]) -> Edit:
    """``Replace(node, unused_imports.without_names(...))``: the statement without the aliases whose indices are in
    ``dropped`` (at least one stays). A dropped alias goes with its comma and what follows it up to the next alias
    (its comment); the new last alias keeps a comma only where the old last had one, followed by what followed that
    one (the first line and empty lines of its own comma's whitespace where both reach a new line)."""
    _alone_on_its_lines(view, node)
    start, end = view.offset_of(node), view.offset_of(node, end=True)
    source = view.source
    if node.lineno != node.end_lineno and view.source[view.index.starts[node.lineno - 1]:start]:
        raise Undecidable("a multi-line import in a block: libcst re-indents its continuation lines")
    aliases = [(view.offset_of(alias), view.offset_of(alias, end=True)) for alias in node.names]
    kept = [index for index in range(len(aliases)) if index not in dropped]
    pieces = [source[start:aliases[0][0]]]  # ``from M import (`` and what follows the parenthesis
    pieces += [source[aliases[index][0]:aliases[index + 1][0]] for index in kept[:-1]]  # each with its comma
    last = kept[-1]
    if last == len(aliases) - 1:
        pieces.append(source[aliases[last][0]:end])
        return Edit(start, end, "".join(pieces))
    pieces.append(source[aliases[last][0]:aliases[last][1]])
    old_last_comma = _comma(source, aliases[-1][1], end)
    if old_last_comma is None:
        pieces.append(source[aliases[-1][1]:end])  # the closing parenthesis and the whitespace before it
        return Edit(start, end, "".join(pieces))
    closing = end - 1
    own_comma = _comma(source, aliases[last][1], aliases[last + 1][0])
    if source[closing] != ")" or own_comma is None:
        raise Undecidable("an import list not spelled as expected")
    mine, theirs = source[own_comma + 1:aliases[last + 1][0]], source[old_last_comma + 1:closing]
    if "\n" in mine and "\n" in theirs:  # ``_last_comma``: my first and empty lines, their last line
        theirs = mine[:mine.rindex("\n") + 1] + theirs[theirs.rindex("\n") + 1:]
    pieces += [source[aliases[last][1]:own_comma + 1], theirs, source[closing:end]]
    return Edit(start, end, "".join(pieces))


def _alone_on_its_lines(view: AstView, statement: ast.stmt) -> None:
    """Nothing but indentation before the statement and a comment after it; no backslash in or before it."""
    start, end = view.offset_of(statement), view.offset_of(statement, end=True)
    starts = view.index.starts
    if view.source[starts[statement.lineno - 1]:start].strip(" \t"):
        raise Undecidable("a statement after another on its line (``a; b``, a suite on its header's line)")
    if "\\" in view.source[start:end] or (
            statement.lineno > 1 and view.index.line_text(statement.lineno - 1).rstrip().endswith("\\")):
        raise Undecidable("a backslash in or before the statement")
    last = statement.end_lineno
    after = view.source[end:starts[last - 1] + len(view.index.line_text(last))].lstrip(" \t")
    if after and not after.startswith("#"):
        raise Undecidable("a statement after it on its line")


def _comma(source: str, start: int, stop: int) -> int | None:
    """The offset of the first comma between ``start`` and ``stop`` outside a comment (an import holds no string)."""
    at = start
    while at < stop:
        char = source[at]
        if char == ",":
            return at
        if char == "#":
            at = source.find("\n", at, stop)
            if at < 0:
                return None
        at += 1
    return None
