"""The text scanners as they were before issue 27 made them faster: the oracles of the differential tests
(tests/test_code_map.py, tests/test_list_arguments.py). The code is kept as it was; the helpers the change left
as they were (``_balanced``, ``is_word_char``, the word and bound-name readers) are imported from the live modules."""
from __future__ import annotations

import re

from jaxlint.analysis.list_arguments import _LASTS, _OPEN_LITERAL, _dot_before, _list_bound_names, _word_before
from jaxlint.lint.code_map import COMMENT, FSTRING, STRING, CodeMap, Span, _balanced, is_word_char

_START = re.compile(r"#|'''|\"\"\"|'|\"")
_LINE_END = re.compile(r"[\r\n]")
_PREFIX_LETTERS = frozenset("rRbBuUfF")


def scan(source: str) -> CodeMap | None:
    """The strings and comments of ``source``; None where the text cannot be read with certainty."""
    spans: list[Span] = []
    position = 0
    length = len(source)
    while position < length:
        match = _START.search(source, position)
        if match is None:
            break
        start, token = match.start(), match.group()
        if token == "#":
            line_end = _LINE_END.search(source, start)
            end = line_end.start() if line_end is not None else length
            spans.append(Span(start, end, COMMENT))
            position = end
            continue
        prefix_start = start
        while prefix_start and source[prefix_start - 1] in _PREFIX_LETTERS and start - prefix_start < 2:
            prefix_start -= 1
        if prefix_start and is_word_char(source[prefix_start - 1]):
            prefix_start = start  # ``if"x"``: the letters end a name or keyword, the string has no prefix
        is_f = "f" in source[prefix_start:start].lower()
        end = _string_end(source, match.end(), token)
        if end < 0:
            return None
        if is_f and not _balanced(source[match.end():end - len(token)]):
            return None
        spans.append(Span(prefix_start, end, FSTRING if is_f else STRING))
        position = end
    return CodeMap(spans)


def _string_end(source: str, i: int, quote: str) -> int:
    """The offset after the closing ``quote`` (a one-line string ends at its line's end: -1 there)."""
    triple = len(quote) == 3
    while True:
        if triple:
            j = source.find(quote, i)
        else:
            j = _first_of(source, i, quote)
        if j < 0:
            return -1
        if source[j] in "\r\n":
            if not _escaped(source, j):
                return -1  # an unterminated one-line string
            i = j + 1
            continue
        if _escaped(source, j):
            i = j + 1
            continue
        return j + len(quote)


def _first_of(source: str, i: int, quote: str) -> int:
    found = [j for j in (source.find(quote, i), source.find("\n", i), source.find("\r", i)) if j >= 0]
    return min(found) if found else -1


def _escaped(source: str, j: int) -> bool:
    backslashes = 0
    while j - backslashes - 1 >= 0 and source[j - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def may_pass_sequence_text(source: str, bare: frozenset[str] | None = None,
                           owners: frozenset[str] | None = None) -> bool:
    """Whether ``source`` may call a listed function with a list or tuple literal, or a name some assignment binds
    to a list, as first argument (the text gate's over-estimate of ``literal_sequence``). A callee not written after
    a ``.`` counts only when it is in ``bare`` (what the imports bind to a listed function; None: any), so that the
    builtins ``sum([...])``, ``max((a, b))``, ``any([...])`` do not keep a file; one written after a ``.`` only when
    the word before the dot is in ``owners`` (``jnp``, ``numpy``, ``linalg``...; None: any), so that
    ``data.append((...))`` and numpy's ``np.sum([...])`` do not."""
    openings = [match.start() for match in _OPEN_LITERAL.finditer(source)]
    bound = _list_bound_names(source)
    if bound:  # ``jnp.mean(weights)`` after ``weights = [...]``
        names = "|".join(re.escape(name) for name in sorted(bound))
        openings += [match.start() for match in re.finditer(rf"\((?:\s|#[^\n]*)*(?:{names})\b", source)]
    for start in openings:
        callee, callee_start = _word_before(source, start)
        if callee not in _LASTS:
            continue
        dot = _dot_before(source, callee_start)
        if dot < 0:
            if bare is None or callee in bare:
                return True
            continue
        if owners is None or _word_before(source, dot)[0] in owners:
            return True
    return False


def whole_word_starts(source: str, word: str):
    """``text_gate._whole_word_starts`` before issue 27: ``str.find`` and a boundary test per occurrence."""
    start = source.find(word)
    while start >= 0:
        end = start + len(word)
        if not (start and is_word_char(source[start - 1])) and not (end < len(source) and is_word_char(source[end])):
            yield start
        start = source.find(word, end)
