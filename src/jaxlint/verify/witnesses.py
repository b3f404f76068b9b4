"""Whether the behaviour a fix is about was exercised: a site can be ``verified`` on inputs for which the old and
new JAX agree anyway (JAX202 with only non-negative indices). Where a rule can tell, BEFORE records the input that
matters; the report says "behaviour-relevant inputs seen: yes/no"."""
from __future__ import annotations

import ast

# Rules whose changed behaviour depends on one argument being negative: the argument's keyword and position.
NEGATIVE_ARGUMENT = {"JAX202": ("indices", 1)}
# Rules whose changed behaviour is written in the call itself (a literal ``None``): reached means exercised.
LITERAL = {"JAX204": "the None argument is written in the call"}


def witness_span(text: str, code: str, span: tuple[int, int] | None) -> tuple[int, int] | None:
    """The span, inside the probed call ``text[span]``, of the argument to watch for ``code``; None if none."""
    if span is None or code not in NEGATIVE_ARGUMENT:
        return None
    keyword, position = NEGATIVE_ARGUMENT[code]
    source = text[span[0]:span[1]]
    try:
        tree = ast.parse(f"({source}\n)", mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(tree, ast.Call):
        return None
    argument = next((k.value for k in tree.keywords if k.arg == keyword), None)
    positional = [a for a in tree.args if not isinstance(a, ast.Starred)]
    if argument is None and len(positional) == len(tree.args) and len(positional) > position:
        argument = positional[position]
    if argument is None:
        return None
    lines = f"({source}\n)".splitlines(keepends=True)

    def offset(line: int, byte_column: int) -> int:
        before = sum(len(lines[i]) for i in range(line - 1))
        return before + len(lines[line - 1].encode("utf-8")[:byte_column].decode("utf-8", "replace")) - 1

    start, end = offset(argument.lineno, argument.col_offset), offset(argument.end_lineno, argument.end_col_offset)
    return span[0] + start, span[0] + end


def describe(code: str, info: dict | None, reached: bool) -> str | None:
    """The "behaviour-relevant inputs seen" note for a site, or None where the rule cannot tell."""
    if code in LITERAL:
        return f"behaviour-relevant inputs seen: yes ({LITERAL[code]})" if reached else None
    if code not in NEGATIVE_ARGUMENT or not info:
        return None
    if info["seen"]:
        return "behaviour-relevant inputs seen: yes (a negative index reached the call)"
    return (f"behaviour-relevant inputs seen: NO (no negative index reached the call in {info['checked']} "
            "call(s): old and new JAX agree on these inputs whatever the fix; add a test with negative indices)")
