"""JAX101's special rewrites (``catalogue.rewrites``) decided from the ast gate's tree, fix included.

Each rewrite here asks the very function its libcst twin asks (``rewrites.x64_switch_call``: the problem, the
value), from a description of the call's arguments read off ``ast`` (``arguments``); only the reading of the tree
and the placing of the edits differ. Whatever ``ast`` cannot read for certain (an argument in parentheses of its
own, a comment between arguments, an import to add) is ``Undecidable``: the file goes to libcst.
"""
from __future__ import annotations

import ast
import re
from typing import Callable

from jaxlint.catalogue import Entry
from jaxlint.catalogue.rewrites import Argument, x64_switch_call, x64_switch_fix
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable
from jaxlint.lint.diagnostics import Applicability, Edit

_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*=\s*$")


def call_of(view: AstView, node: ast.AST) -> ast.Call | None:
    """The call that calls ``node`` (``rewrites._call_of``)."""
    parent, field = view.parent(node)
    return parent if type(parent) is ast.Call and field == "func" else None


def arguments(view: AstView, call: ast.Call) -> list[Argument]:
    """``rewrites.cst_arguments`` from ``ast``, in source order; ``Undecidable`` where a value may hold parentheses
    of its own (libcst's code for it would include them) or a comment stands between the arguments."""
    source = view.source
    items = sorted([*call.args, *call.keywords], key=lambda item: (item.lineno, item.col_offset))
    found = []
    previous = view.offset_of(call.func, end=True)
    for index, item in enumerate(items):
        start, end = view.offset_of(item), view.offset_of(item, end=True)
        if source[previous:start].strip() != ("(" if index == 0 else ","):
            raise Undecidable("an argument in parentheses of its own, or a comment")
        if type(item) is ast.keyword:
            value = item.value
            head = source[start:view.offset_of(value)]
            if item.arg is None:
                if head.strip() != "**":
                    raise Undecidable("an argument in parentheses of its own")
                found.append(Argument(None, "**", view.text(value).strip()))
                previous = end
                continue
            if not _KEYWORD.match(head):
                raise Undecidable("an argument in parentheses of its own")
            found.append(Argument(item.arg, "", view.text(value).strip()))
        elif type(item) is ast.Starred:
            if source[start:view.offset_of(item.value)].strip() != "*":
                raise Undecidable("an argument in parentheses of its own")
            found.append(Argument(None, "*", view.text(item.value).strip()))
        else:
            found.append(Argument(None, "", view.text(item).strip()))
        previous = end
    tail = source[previous:view.offset_of(call, end=True)].strip()
    if tail not in ((")", ",)") if items else ("()",)) and not (items and re.fullmatch(r",\s*\)", tail)):
        raise Undecidable("an argument in parentheses of its own, or a comment")
    return found


def x64_switch(rule, view: AstView, node: ast.Attribute, entry: Entry,
               rename: Callable[[str], AstFix]) -> AstFinding:
    """``rewrites._x64_switch``: ``with jax.experimental.enable_x64(v):`` -> ``with jax.enable_x64(v):``.
    ``rename``: the node's rename fix (``symbols_ast._rename_fix``: ``Undecidable`` when it needs an import)."""
    call = call_of(view, node)
    if call is not None:
        view.span(call)  # ``Undecidable`` for a call in parentheses of its own
    problem, value = x64_switch_call(rule, entry, arguments(view, call) if call is not None else None,
                                     call is not None and "#" in view.text(call))
    if problem is not None:
        return AstFinding(rule.code, node, rule._message(entry, shown=entry.name), rule._detail(entry, problem))
    replacement = entry.replacement
    (renamed,) = rename(replacement).edits
    parent, field = view.parent(call)
    text, safe = x64_switch_fix(replacement, value, type(parent) is ast.withitem and field == "context_expr")
    edit = Edit(view.offset_of(call), view.offset_of(call, end=True), f"{renamed.content}({value})")
    fix = AstFix(Applicability.SAFE if safe else Applicability.UNSAFE, text, (edit,))
    message = rule._message(entry, shown=entry.name, fixed_to=f"{replacement}({value})")
    return AstFinding(rule.code, node, message, rule._detail(entry, None), None, fix)
