"""The values entering a probed call: its arguments, recorded in both runs like the site's own value.

Where a site's value differs and so do the arguments it was given (an older flax hands it a ``FrozenDict``, an
earlier difference flows into it), the difference is not the fix's: ``compare`` reports ``inputs-differ``. An
argument is recorded only where the fix left it as it was (the same expression in BEFORE and AFTER), paired in
order: an argument the fix rewrites (``xs`` -> ``jnp.stack(xs)``) is a different value by design.
"""
from __future__ import annotations

import ast

# Arguments whose text cannot be wrapped in ``record(id, <text>)`` as it stands (a bare generator argument), and
# those the same text makes the same value in both runs (a literal; a lambda, compared only as being callable).
_NOT_RECORDED = (ast.GeneratorExp, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Constant, ast.Lambda)
_SHOWN = 40  # characters of an argument's text in a report


def _offset(lines: list[str], row: int, byte_column: int) -> int:
    """Character offset in the joined ``lines`` of (1-based row, UTF-8 byte column), as ``ast`` gives them."""
    line = lines[row - 1]
    return sum(len(text) for text in lines[:row - 1]) + len(line.encode("utf-8")[:byte_column].decode("utf-8",
                                                                                                    "replace"))


def call_arguments(text: str, span: tuple[int, int]) -> list[tuple[int, int, str]] | None:
    """``(start, end, dump)`` in ``text`` of each argument value of the call at ``span`` (``*xs`` and ``**kw`` as
    ``xs`` and ``kw``); None when the span is not a call."""
    start, end = span
    wrapped = "(" + text[start:end] + "\n)"
    try:
        tree = ast.parse(wrapped, mode="eval")
    except (SyntaxError, ValueError):
        return None
    call = tree.body
    if not isinstance(call, ast.Call):
        return None
    lines = wrapped.splitlines(keepends=True)
    found = []
    for node in [*call.args, *(keyword.value for keyword in call.keywords)]:
        value = node.value if isinstance(node, ast.Starred) else node
        if isinstance(value, _NOT_RECORDED) or value.end_lineno is None:
            continue
        low = _offset(lines, value.lineno, value.col_offset) - 1 + start
        high = _offset(lines, value.end_lineno, value.end_col_offset) - 1 + start
        found.append((low, high, ast.dump(value)))
    found.sort()
    return found


def argument_pairs(original: str, span_original: tuple[int, int], fixed: str, span_fixed: tuple[int, int]
                   ) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """The arguments the fix kept: (span in ``original``, span in ``fixed``, text shown), in order."""
    before = call_arguments(original, span_original)
    after = call_arguments(fixed, span_fixed)
    if not before or not after:
        return []
    pairs, used = [], 0
    for low, high, dump in before:
        for index in range(used, len(after)):
            if after[index][2] == dump:
                pairs.append(((low, high), after[index][:2], _shown(original[low:high])))
                used = index + 1
                break
    return pairs


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."
