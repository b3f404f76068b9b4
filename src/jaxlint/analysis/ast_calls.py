"""``jaxlint.analysis.calls`` on Python's ``ast``: a call's arguments as libcst lists them (``Call.args``: positional,
starred and keyword arguments in the order they stand), the plain string literals ``string_value`` reads, which
string literals libcst reads as one ``SimpleString`` (``simple_string``), and ``add_keyword``'s edit placed from
``ast`` (``added_keyword``), after a last argument whose text ``ast`` and libcst agree on (``last_argument``)."""
from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import TYPE_CHECKING

from jaxlint.lint.ast_findings import Undecidable
from jaxlint.lint.diagnostics import Edit

if TYPE_CHECKING:
    from jaxlint.lint.ast_findings import AstView


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


def last_argument(view: AstView, call: ast.Call) -> tuple[ast.AST, int, int]:
    """libcst's ``call.args[-1]`` of a call with arguments and none starred, and its value's offsets: ``Undecidable``
    where libcst's text and span of the value may differ from ``ast``'s (parentheses of its own around it, which
    libcst's value holds; a generator argument, whose parentheses may be the call's)."""
    last = call.keywords[-1] if call.keywords else call.args[-1]  # no ``*args``: positional ones come first
    value = last.value if type(last) is ast.keyword else last
    if type(value) is ast.GeneratorExp:
        raise Undecidable("a generator argument: its parentheses may be the call's")
    start, end = view.offset_of(value), view.offset_of(value, end=True)
    if not (_after_a_separator(view, call, last, start) and _before_the_end(view, call, end)):
        raise Undecidable("the last argument in parentheses of its own, or a comment beside it")
    return last, start, end


def plain_first_argument(view: AstView, call: ast.Call) -> tuple[int, int]:
    """The offsets of a call's first argument, positional, where libcst's ``Arg`` spans the same text (no
    parentheses of its own around the value): only blanks, line breaks and comments between the call's ``(`` and
    the value, and between the value and the next argument's comma or the closing ``)``; else ``Undecidable``."""
    value = call.args[0]
    start, end = view.offset_of(value), view.offset_of(value, end=True)
    arguments = arguments_in_order(call)
    if len(arguments) > 1:
        after = re.fullmatch(r"\s*,\s*", _code_between(view, end, view.offset_of(arguments[1])))
    else:
        after = re.fullmatch(r"\s*,?\s*", _code_between(view, end, view.offset_of(call, end=True) - 1))
    before = re.fullmatch(r"\s*\(\s*", _code_between(view, view.offset_of(call.func, end=True), start))
    if before is None or after is None:
        raise Undecidable("the first argument in parentheses of its own")
    return start, end


def added_keyword(view: AstView, call: ast.Call, text: str) -> Edit:
    """``calls.add_keyword``'s edit: ``text`` (``name=value``) after the last argument's value, on a line of its own
    where the last argument ends with a comma and starts its own line (its line's indentation, libcst's
    ``block_indent`` and ``last_line`` together), else after ``, ``. A line continuation before the last argument
    is ``Undecidable`` (libcst reads it as a space, not as a new line)."""
    last, _, end = last_argument(view, call)
    trailing_comma = "," in _code_between(view, end, view.offset_of(call, end=True) - 1)
    if trailing_comma:
        arguments = [*call.args, *call.keywords]
        previous = arguments[-2] if len(arguments) > 1 else call.func
        start = view.offset_of(last)
        between = view.source[view.offset_of(previous, end=True):start]
        if "\\" in between:
            raise Undecidable("a line continuation before the last argument")
        separator = re.fullmatch(r"\s*([,(])(\s*)", _code_between(view, view.offset_of(previous, end=True), start))
        if separator is None:
            raise Undecidable("the callee or the previous argument in parentheses of its own")
        if "\n" in separator.group(2) or "\r" in separator.group(2):
            line_start = max(view.source.rfind("\n", 0, start), view.source.rfind("\r", 0, start)) + 1
            return Edit(end, end, f",{default_newline(view.source)}{view.source[line_start:start]}{text}")
    return Edit(end, end, f", {text}")


def default_newline(source: str) -> str:
    """libcst's ``Module.default_newline``: the file's first line ending, ``\\n`` where it has none."""
    match = _NEWLINE.search(source)
    return match.group(0) if match is not None else "\n"


_NEWLINE = re.compile(r"\r\n?|\n")


def _after_a_separator(view: AstView, call: ast.Call, last: ast.AST, start: int) -> bool:
    """Between what precedes the value and the value, only spaces, line breaks and comments after ``name=`` for a
    keyword, else after a comma (the previous argument's end) or the call's opening parenthesis (the callee's end):
    any other ``(`` or ``)`` is a parenthesis of an argument's own."""
    if type(last) is ast.keyword:
        return re.fullmatch(re.escape(last.arg) + r"\s*=\s*", _code_between(view, view.offset_of(last), start)) \
            is not None
    previous = call.args[-2] if len(call.args) > 1 else call.func
    separator = r"\s*,\s*" if previous is not call.func else r"\s*\(\s*"
    return re.fullmatch(separator, _code_between(view, view.offset_of(previous, end=True), start)) is not None


def _before_the_end(view: AstView, call: ast.Call, end: int) -> bool:
    """After the value only spaces, line breaks, comments and at most one comma up to the call's closing
    parenthesis (a ``)`` of the value's own would come first)."""
    return re.fullmatch(r"\s*,?\s*", _code_between(view, end, view.offset_of(call, end=True) - 1)) is not None


def _code_between(view: AstView, start: int, end: int) -> str:
    """The source between two arguments' edges without its comments and line continuations: no string can stand
    there, so a ``#`` starts a comment."""
    text = view.source[start:end].replace("\\\n", "\n")
    return "\n".join(line.partition("#")[0] for line in text.split("\n"))
