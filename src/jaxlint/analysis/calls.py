"""Helpers for rules that look at and edit call arguments."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.rules.base import InsertAfter, NodeEdit


def has_star_args(call: cst.Call) -> bool:
    """``f(*args)`` or ``f(**kwargs)``: any argument could be hidden in them."""
    return any(arg.star for arg in call.args)


def keyword_arg(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional_args(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def argument(call: cst.Call, name: str, position: int | None) -> cst.Arg | None:
    """The argument bound to parameter ``name`` (passed by keyword, or positionally at index ``position``)."""
    found = keyword_arg(call, name)
    if found is not None or position is None:
        return found
    positional = positional_args(call)
    return positional[position] if len(positional) > position else None


def string_value(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal (no f-string), else None."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - libcst raises various errors on odd literals
            return None
        if isinstance(value, bytes):
            return None
        return value
    return None


def is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def literal_value(node: cst.BaseExpression, module: cst.Module) -> object:
    """A Python literal's value (numbers, strings, None, True/False, negative numbers); raises ValueError otherwise."""
    return ast.literal_eval(module.code_for_node(node).strip())


def add_keyword(call: cst.Call, text: str, newline: str, block_indent: str = "") -> NodeEdit:
    """Append ``text`` (``name=value``) as the last argument, matching a one-per-line layout when there is one.
    ``block_indent``: the indentation of the blocks that hold the call (``Rule.block_indent``), which libcst leaves
    out of a continuation line's own whitespace."""
    last = call.args[-1]
    if isinstance(last.comma, cst.Comma):
        indent = _line_indent_before(call, len(call.args) - 1, block_indent)
        if indent is not None:
            return InsertAfter(last.value, f",{newline}{indent}{text}")
    return InsertAfter(last.value, f", {text}")


def _line_indent_before(call: cst.Call, index: int, block_indent: str) -> str | None:
    """Indentation of argument ``index`` when it starts its own line, else None."""
    whitespace = call.whitespace_before_args if index == 0 else call.args[index - 1].comma.whitespace_after
    if isinstance(whitespace, cst.ParenthesizedWhitespace):
        return (block_indent if whitespace.indent else "") + whitespace.last_line.value
    return None
