"""Very large modules are linted in pieces, so that memory stays flat in the file's size.

libcst keeps about 630 bytes per byte of source, so a 5 MB module needs over 3 GB as one tree (and ``ast``, for the
gate, another 800 MB). A module of ``LARGE_FILE`` bytes or more is therefore cut at its top-level statements
(found from the text: ``code_map`` for strings and comments, bracket depth, line continuations, decorators and
``else``/``except`` clauses) into pieces of about ``PIECE`` bytes. Each piece is linted as a module of its own
together with its *context*: every top-level import and compound statement (``if``/``try``/``with``/...: they may
import or bind anything) and, transitively, every top-level definition or assignment that binds a word the piece
uses. Each piece is a cut of the file (``cuts.Cut``): findings are kept for its own statements and mapped back to
the file's offsets, rows and columns.

The statements that read or change what a piece binds are context too (JAX201's "the result is mutated later"
needs them), and the statements holding a rule's ``whole_module_strings`` (JAX102: the option set elsewhere).
What this cannot see, and whole-module linting can: a name changed without being spelled (``globals()["x"] = 1``);
and where a piece's module would pass ``MAX_PIECE_MODULE`` it keeps only what its own statements need.
``tests/test_large_files.py`` compares both ways on every rule example and fixture, one statement per piece.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable

from jaxlint.lint import code_map
from jaxlint.lint.cuts import Cut, binds_of
from jaxlint.lint.diagnostics import PARSE_ERROR, Diagnostic, LineIndex

LARGE_FILE = 1_000_000  # characters: from this size on a module is linted in pieces
PIECE = 200_000  # characters of own statements per piece (a larger statement is a piece of its own)

# Brackets, line breaks and line continuations: what decides where a top-level statement may start.
_STRUCTURE = re.compile(r"\\\r?\n|[()\[\]{}\n]")
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")
_IMPORT = re.compile(r"(?:import|from)\b")
_COMPOUND = re.compile(r"(?:if|try|with|for|while|match|async\s+(?:with|for))\b")
_WORDS = re.compile(r"[A-Za-z_]\w*")
# Above this size a piece's module keeps only the context its own statements need (not the statements that read
# what they bind): a module where everything reads everything would otherwise be parsed whole for every piece.
MAX_PIECE_MODULE = 1_000_000


def statement_starts(source: str) -> list[int] | None:
    """Offsets where the top-level statements start (the first is 0); None when the strings cannot be read."""
    strings = code_map.scan(source)
    if strings is None:
        return None
    spans = strings.spans
    starts = [0]
    depth, span_index = 0, 0
    decorated = source.startswith("@")
    for match in _STRUCTURE.finditer(source):
        position = match.start()
        while span_index < len(spans) and spans[span_index].end <= position:
            span_index += 1
        if span_index < len(spans) and spans[span_index].start <= position:
            continue  # inside a string or a comment
        char = match.group()
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif char == "\n" and not depth:
            line = position + 1
            if line >= len(source) or source[line] in " \t\f\r\n#\\":
                continue  # an indented, blank or comment line: not a new top-level statement
            if _CLAUSE.match(source, line) or decorated:
                decorated = source.startswith("@", line) and decorated
                continue  # ``else:`` and the definition after a decorator belong to the statement before
            decorated = source.startswith("@", line)
            starts.append(line)
        # a line continuation (``\`` + line break) never starts a statement
    return starts


@dataclass
class _Statement:
    start: int
    end: int
    always: bool  # an import or a compound statement: context of every piece
    binds: frozenset[str]
    words: frozenset[str]


def _statements(source: str, starts: list[int], shared: tuple[str, ...]) -> list[_Statement]:
    statements = []
    for start, end in zip(starts, starts[1:] + [len(source)]):
        text = source[start:end]
        words = frozenset(_WORDS.findall(text))
        always = bool(_IMPORT.match(text) or _COMPOUND.match(text) or any(s in text for s in shared))
        # the statements that use what an import binds decide how it is rewritten
        binds = words if _IMPORT.match(text) else binds_of(text)
        statements.append(_Statement(start, end, always, frozenset(binds), words))
    return statements


def pieces(source: str, shared: tuple[str, ...] = ()) -> list[Cut] | None:
    """The pieces: each its own range and the ranges (own and context, in source order) its module is made of.
    ``shared``: strings that make a statement context of every piece (the triggers of rules that read the whole
    module, such as JAX102's "this file also sets the option elsewhere")."""
    starts = statement_starts(source)
    if starts is None or len(starts) < 2:
        return None
    statements = _statements(source, starts, shared)
    binders: dict[str, list[int]] = {}
    for index, statement in enumerate(statements):
        for word in statement.binds:
            binders.setdefault(word, []).append(index)
    always = [index for index, statement in enumerate(statements) if statement.always]
    result = []
    for first, last in _groups([statement.start for statement in statements], len(source)):
        own = range(first, last + 1)
        chosen = _context(statements, own, always, binders, readers=True)
        if sum(statements[i].end - statements[i].start for i in chosen) > MAX_PIECE_MODULE:
            chosen = _context(statements, own, always, binders, readers=False)
        ranges = [(statements[i].start, statements[i].end) for i in sorted(chosen)]
        result.append(Cut(ranges, [(statements[first].start, statements[last].end)]))
    return result


def _groups(starts: list[int], length: int) -> list[tuple[int, int]]:
    """Runs of consecutive statements (first, last index) of about ``PIECE`` characters each."""
    bounds = starts + [length]
    groups = []
    first = 0
    while first < len(starts):
        last = first
        while last + 1 < len(starts) and bounds[last + 2] - bounds[first] <= PIECE:
            last += 1
        groups.append((first, last))
        first = last + 1
    return groups


def _context(statements: list[_Statement], own: range, always: list[int], binders: dict[str, list[int]],
             readers: bool) -> set[int]:
    """The statements of a piece's module: its own, every import and compound statement, the statements that
    read what its own bind (``readers``), and, transitively, what binds a word of any of those."""
    chosen = set(own) | set(always)
    if readers:
        bound = frozenset().union(*(statements[i].binds for i in own))
        chosen.update(i for i, statement in enumerate(statements) if not bound.isdisjoint(statement.words))
    needed: set[str] = set()
    pending = list(chosen)
    while pending:
        words = statements[pending.pop()].words - needed
        needed |= words
        for word in words:
            for index in binders.get(word, ()):
                if index not in chosen:
                    chosen.add(index)
                    pending.append(index)
    return chosen


def lint_in_pieces(source: str, lint_piece: Callable[[str], tuple[list[Diagnostic], bool]],
                   syntax_error: Callable[[str], Diagnostic | None],
                   shared: tuple[str, ...] = ()) -> list[Diagnostic] | None:
    """The findings of ``lint_piece`` (findings, whether it parsed) on each piece's module, mapped to ``source``;
    None when the module cannot be cut (its strings cannot be read, or it is one statement). A piece the gates let
    through without a parse is still checked with ``syntax_error``: the whole module would have been parsed."""
    parts = pieces(source, shared)
    if parts is None:
        return None
    index = LineIndex(source)
    found: list[Diagnostic] = []
    for piece in parts:
        text = piece.text(source)
        diagnostics, parsed = lint_piece(text)
        if not parsed:
            error = syntax_error(text)
            diagnostics = [error] if error is not None else []
        diagnostics = [_placed(diagnostic, text) if diagnostic.code == PARSE_ERROR else diagnostic
                       for diagnostic in diagnostics]
        found.extend(piece.findings_in_file(diagnostics, index))
    # As for a whole module: a file that does not parse has that one finding (and nothing to fix).
    errors = [diagnostic for diagnostic in found if diagnostic.code == PARSE_ERROR]
    return errors[:1] if errors else found


def _placed(error: Diagnostic, text: str) -> Diagnostic:
    """A syntax error, reported at a row and column only, with its offset in ``text``."""
    offset = LineIndex(text).offset(error.start.row, error.start.column - 1)
    return replace(error, start_offset=offset, end_offset=offset)


def parses_in_pieces(source: str, parses: Callable[[str], bool]) -> bool | None:
    """Whether every top-level statement group of ``source`` parses on its own (``parses`` for one text); None
    when the module cannot be cut."""
    starts = statement_starts(source)
    if starts is None or len(starts) < 2:
        return None
    bounds = starts + [len(source)]
    return all(parses(source[bounds[first]:bounds[last + 1]]) for first, last in _groups(starts, len(source)))
