"""Where a source text's strings and comments are, read without a parse (for the text gate).

A word inside a string or a comment is no name, and a dot at the end of a docstring's sentence is no attribute
access: knowing this lets the text gate answer "no" for files whose only mention of ``dtype`` or ``reshape`` is
prose. The scan is one forward pass of one regular expression (``_TOKEN``), linear in the file.

Soundness: a span is reported only where it is certain. f-strings are kept apart (``FSTRING``): their replacement
fields hold code, so the gate treats their inside as code it cannot read. Where the text cannot be read with
certainty, ``scan`` returns None and the gate falls back to its line-by-line rules: a string that does not end
(a syntax error), an f-string whose braces do not balance (Python 3.12 lets a replacement field reuse the quote:
``f"{x["a"]}"``), a line break inside a one-line f-string. ``tests/test_code_map.py`` compares the spans with
``tokenize`` on jaxlint's own source and on hand-written cases, and with the scan's older character loop.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

STRING, FSTRING, COMMENT = "string", "fstring", "comment"
# One token at a time, found and read by the regex engine (in C): a comment to its line's end, or a quote and what
# follows it: a string's body up to its closing quote(s), else a ``bad*`` group (a string that does not end: the
# text is not readable). Every alternative starts with its character, which lets the engine skip to the next
# candidate fast. Each body is an "unrolled loop" (runs of plain characters between escapes) that reads each
# character in one way only, so a string that does not end fails in linear time. A backslash escapes the character
# after it, a line break too (of "\r\n" only the "\r": the "\n" then ends a one-line string, which makes the text
# unreadable, as the scan always did). A triple quote is tried first; its failure is ``bad3`` (not ``''`` and ``'``).
_TOKEN = re.compile(r"""
    \#[^\r\n]*
    | '(?: ''(?P<single3>[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*)'''
         | (?P<bad3>'')
         | (?P<single>[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*)'
         | (?P<bad>) )
    | "(?: ""(?P<double3>[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*)\"\"\"
         | (?P<bad3_>"")
         | (?P<double>[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*)"
         | (?P<bad_>) )
""", re.VERBOSE | re.DOTALL)
_BAD = frozenset(("bad", "bad3", "bad_", "bad3_"))
_BRACE = re.compile(r"[{}]")
_PREFIX_LETTERS = frozenset("rRbBuUfF")


class Span(NamedTuple):  # a tuple: built twice as fast as a frozen dataclass (a file may hold thousands)
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
    append = spans.append
    # ``Span(...)`` runs the named tuple's ``__new__``, a Python function: ``tuple.__new__`` builds the same span
    # without it (a file holds hundreds of strings and comments; 117,000 spans in a dev-corpus run)
    new_span = tuple.__new__
    for match in _TOKEN.finditer(source):
        body = match.lastgroup
        if body is None:
            append(new_span(Span, (match.start(), match.end(), COMMENT)))
        elif body in _BAD:
            return None  # a string that does not end, or a one-line string broken by a line break
        else:
            start = prefix_start = match.start()
            while prefix_start and source[prefix_start - 1] in _PREFIX_LETTERS and start - prefix_start < 2:
                prefix_start -= 1
            if prefix_start != start and prefix_start and is_word_char(source[prefix_start - 1]):
                prefix_start = start  # ``if"x"``: the letters end a name or keyword, the string has no prefix
            if prefix_start != start and "f" in source[prefix_start:start].lower():
                if not _balanced(match.group(body)):
                    return None
                append(new_span(Span, (prefix_start, match.end(), FSTRING)))
            else:
                append(new_span(Span, (prefix_start, match.end(), STRING)))
    return CodeMap(spans)


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


# -- reading code around the strings and comments ------------------------------------------------------------------
STRING_MARK = "'"  # what ``masked_code`` writes over a string (its brackets and line breaks are no code)


def masked_code(source: str, strings: CodeMap) -> str:
    """``source`` with each comment blanked and each string (f-strings too) written as quotes only: the same offsets,
    and no bracket, line break, ``=`` or ``\\`` left that is not code."""
    pieces = []
    position = 0
    for start, end, kind in strings.spans:
        pieces.append(source[position:start])
        pieces.append((" " if kind == COMMENT else STRING_MARK) * (end - start))
        position = end
    pieces.append(source[position:])
    return "".join(pieces)


def line_start(text: str, offset: int) -> int:
    """The offset where the line holding ``offset`` starts (after a ``\n`` or a lone ``\r``)."""
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


# What may stand right before an ``=`` that is no assignment's: ``==``, ``!=``, ``<=``, ``>=``, ``:=``, and the
# augmented assignments (``+=``, ``>>=``, ``**=``...)
_NOT_ASSIGNING = frozenset("=!<>:+-*/%&|^@")


def is_assignment_sign(code: str, at: int) -> bool:
    """Whether the character at ``at`` of ``code`` is a plain assignment's ``=``."""
    return code[at:at + 1] == "=" and code[at - 1:at] not in _NOT_ASSIGNING if at else code[:1] == "="


def bracket_depth(code: str, start: int, end: int) -> int:
    """How many more brackets open than close from ``start`` to ``end`` of ``code`` (``masked_code``)."""
    return sum(code.count(opening, start, end) for opening in "([{") - \
        sum(code.count(closing, start, end) for closing in ")]}")


def continued(code: str, line_break: int) -> bool:
    """Whether a ``\\`` continues the line that ends with the line break at ``line_break``."""
    return code[line_break - 1:line_break] == "\\" or code[line_break - 2:line_break] == "\\\r"


def starts_statement(code: str, line: int) -> bool:
    """Whether the line at ``line`` (after a line break in code) starts a statement: not inside brackets, not after a
    line continuation."""
    return line == 0 or (bracket_depth(code, 0, line) == 0 and not continued(code, line - 1))


_BRACKET = re.compile(r"[()\[\]{}]")


def closing_bracket_end(source: str, opening: int, strings: CodeMap | None = None) -> int:
    """The offset after the bracket that closes the one at ``opening`` (brackets in the strings and comments of
    ``strings``, the text's ``scan``, are not counted; without it every bracket counts: ``source`` is
    ``masked_code``); -1 when none does."""
    depth = 0
    for match in _BRACKET.finditer(source, opening):
        at = match.start()
        if strings is not None and strings.at(at) is not None:
            continue
        if source[at] in "([{":
            depth += 1
        else:
            depth -= 1
            if not depth:
                return at + 1
    return -1


def is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what ``\w`` matches
