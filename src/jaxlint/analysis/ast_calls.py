"""``jaxlint.analysis.calls`` on Python's ``ast``: a call's arguments as libcst lists them (``Call.args``: positional,
starred and keyword arguments in the order they stand), the plain string literals ``string_value`` reads, and which
string literals libcst reads as one ``SimpleString`` (``simple_string``)."""
from __future__ import annotations

import ast
import io
import tokenize


def arguments_in_order(call: ast.Call) -> list[ast.AST]:
    """libcst's ``Call.args``: ``ast`` keeps the keywords (and ``**kwargs``) apart from the positional ones."""
    if not call.keywords:
        return list(call.args)
    return sorted([*call.args, *call.keywords], key=lambda item: (item.lineno, item.col_offset))


def argument_value(argument: ast.AST) -> ast.AST:
    """libcst's ``Arg.value``: the expression after a keyword or a star."""
    return argument.value if type(argument) in (ast.keyword, ast.Starred) else argument


def has_star_args(call: ast.Call) -> bool:
    """``calls.has_star_args``: ``f(*args)`` or ``f(**kwargs)``."""
    return any(type(arg) is ast.Starred for arg in call.args) or any(kw.arg is None for kw in call.keywords)


def argument(call: ast.Call, name: str, position: int | None) -> ast.AST | None:
    """``calls.argument``'s value: passed by keyword ``name`` (the first such), or else positionally at ``position``
    (counting the positional arguments that are not starred; None: by keyword only)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is None:
        return None
    positional = [arg for arg in call.args if type(arg) is not ast.Starred]
    return positional[position] if len(positional) > position else None


def string_value(node: ast.AST | None) -> str | None:
    """``calls.string_value``: a plain string literal (joined ones too), not an f-string nor bytes."""
    return node.value if type(node) is ast.Constant and type(node.value) is str else None


def simple_string(text: str) -> bool:
    """libcst's ``SimpleString``, read in the text of an ``ast.Constant`` string or bytes: one literal token, not
    joined implicitly (``"a" "b"``, libcst's ``ConcatenatedString``) and not an f-string."""
    try:
        tokens = [token for token in tokenize.generate_tokens(io.StringIO(text).readline)
                  if token.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
    except (tokenize.TokenError, SyntaxError):
        return False
    return len(tokens) == 1 and tokens[0].type == tokenize.STRING and tokens[0].string == text
