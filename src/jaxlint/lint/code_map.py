"""Where a source text's strings and comments are, read without a parse (for the text gate).

A word inside a string or a comment is no name, and a dot at the end of a docstring's sentence is no attribute
access: knowing this lets the text gate answer "no" for files whose only mention of ``dtype`` or ``reshape`` is
prose. The scan is one forward pass with ``str.find``-style searches, linear in the file.

Soundness: a span is reported only where it is certain. f-strings are kept apart (``FSTRING``): their replacement
fields hold code, so the gate treats their inside as code it cannot read. Where the text cannot be read with
certainty, ``scan`` returns None and the gate falls back to its line-by-line rules: a string that does not end
(a syntax error), an f-string whose braces do not balance (Python 3.12 lets a replacement field reuse the quote:
``f"{x["a"]}"``), a line break inside a one-line f-string. ``tests/lint/test_code_map.py`` compares the spans with
``tokenize`` on jaxlint's own source and on hand-written cases.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

STRING, FSTRING, COMMENT = "string", "fstring", "comment"
_START = re.compile(r"#|'''|\"\"\"|'|\"")
_LINE_END = re.compile(r"[\r\n]")
_BRACE = re.compile(r"[{}]")
_PREFIX_LETTERS = frozenset("rRbBuUfF")


@dataclass(frozen=True)
class Span:
    start: int
    end: int  # exclusive: the offset after the closing quote, or the comment's line break
    kind: str


class CodeMap:
    """The strings and comments of one text, in order; ``at(offset)`` finds the one holding an offset."""

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans
        self._starts = [span.start for span in spans]

    def at(self, offset: int) -> Span | None:
        index = bisect_right(self._starts, offset) - 1
        if index >= 0 and offset < self.spans[index].end:
            return self.spans[index]
        return None


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


def _balanced(body: str) -> bool:
    """Whether an f-string's replacement fields close inside ``body`` (``{{``/``}}`` outside a field are literal
    braces; inside one, braces nest)."""
    depth = 0
    skip_to = -1
    for match in _BRACE.finditer(body):
        i = match.start()
        if i < skip_to:
            continue
        if body[i] == "{":
            if not depth and body.startswith("{{", i):
                skip_to = i + 2
                continue
            depth += 1
        else:
            if not depth:
                if body.startswith("}}", i):
                    skip_to = i + 2
                    continue
                return False
            depth -= 1
    return depth == 0


def is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what ``\w`` matches
