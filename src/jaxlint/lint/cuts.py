"""Cutting a file into parts, and placing what a part's lint finds back in the file.

A *cut* is a smaller module made of ranges of the file (joined in file order) and the ranges of it whose findings
are its own: the rest is context the rules need to decide (the imports, what binds a name the own statements use).
The cut's text is linted as a module of its own; each finding in an own range is moved to the file: its place, its
fix's edits and its probe, as offsets and as rows and columns of the file (``moved``).

Two policies choose the cuts, and both use this module and nothing else to cut and to map back:

- ``focus``: a file of normal size whose rules only look at names is one cut, the statements that can hold a
  finding (the ast gate says which) and what they need;
- ``large_files``: a very large module is many cuts, pieces of about ``large_files.PIECE`` characters of own
  statements each, with their context, so that memory stays flat in the file's size.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace

from jaxlint.lint.diagnostics import Diagnostic, Edit, Fix, LineIndex

_WORDS = re.compile(r"[A-Za-z_]\w*")
_DEFINITION = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)
_ASSIGN = re.compile(r"(?<![=!<>:])=(?!=)|:(?!=)")  # ``=``, ``+=`` (not ``==``, ``<=``, ``:=``), an annotation
_WALRUS = re.compile(r"(\w+)\s*:=")
_GLOBAL = re.compile(r"\b(?:global|nonlocal)\b([\w \t,\\]*)")


@dataclass
class Cut:
    """A part of a file: ``ranges`` [start, end) of the file (in file order, not overlapping) make its text;
    findings that start in one of ``own`` (ranges of the file too) are its own."""

    ranges: list[tuple[int, int]]
    own: list[tuple[int, int]]
    _map: OffsetMap | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def size(self) -> int:
        return sum(end - start for start, end in self.ranges)

    def text(self, source: str) -> str:
        return "".join(source[start:end] for start, end in self.ranges)

    @property
    def offsets(self) -> OffsetMap:
        if self._map is None:
            self._map = OffsetMap(self.ranges)
        return self._map

    def owns(self, offset: int, length: int) -> bool:
        """Whether a finding at ``offset`` of the file (of ``length`` characters) is this cut's. A finding at the
        very end of the file (a syntax error there) is the cut's whose own range ends there."""
        return any(start <= offset < end or offset == end == length for start, end in self.own)

    def findings_in_file(self, diagnostics: list[Diagnostic], index: LineIndex) -> list[Diagnostic]:
        """The own findings of ``diagnostics`` (of the cut's text), moved to the file (``index``: the file's)."""
        found = []
        for diagnostic in diagnostics:
            if self.owns(self.offsets.to_file(diagnostic.start_offset), len(index.source)):
                found.append(moved(diagnostic, self.offsets, index))
        return found


class OffsetMap:
    """Offsets in a cut's text (its ranges of the file, joined) -> offsets in the file."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.cut_starts: list[int] = []
        self.file_starts: list[int] = []
        offset = 0
        for start, end in ranges:
            self.cut_starts.append(offset)
            self.file_starts.append(start)
            offset += end - start

    def to_file(self, offset: int, *, end: bool = False) -> int:
        """Where ``offset`` of the cut's text is in the file. Where two ranges meet, an offset is the start of the
        later range; with ``end`` (the end of a non-empty span) it is the end of the earlier one, so that a span
        never stretches over what was cut out after it."""
        index = bisect.bisect_right(self.cut_starts, offset - 1 if end and offset else offset) - 1
        index = max(index, 0)
        return self.file_starts[index] + offset - self.cut_starts[index]

    def span_to_file(self, start: int, end: int) -> tuple[int, int]:
        """A span [start, end) of the cut's text in the file; an empty one (an insertion) stays one point, at the
        start of what follows it."""
        return self.to_file(start), self.to_file(end, end=end > start)


def moved(diagnostic: Diagnostic, offsets: OffsetMap, index: LineIndex) -> Diagnostic:
    """``diagnostic`` of a cut's text, with its place, fix edits and probe in the file (``index``: the file's)."""
    start, end = offsets.span_to_file(diagnostic.start_offset, diagnostic.end_offset)
    location = index.location(start)
    fix = diagnostic.fix
    if fix is not None:
        edits = []
        for edit in fix.edits:
            edit_start, edit_end = offsets.span_to_file(edit.start, edit.end)
            edits.append(Edit(edit_start, edit_end, edit.content, index.location(edit_start),
                              index.location(edit_end)))
        probe = fix.probe
        if probe is not None:
            probe = offsets.span_to_file(*probe)
        fix = Fix(fix.applicability, fix.message, tuple(edits), probe)
    noqa_row = location.row if diagnostic.noqa_row is not None else None
    return replace(diagnostic, start=location, end=index.location(end), start_offset=start, end_offset=end,
                   fix=fix, noqa_row=noqa_row)


def binds_of(text: str) -> set[str]:
    """The names a statement other than an import may bind in its scope, over-estimated from its text (more
    context, never less): both policies keep the statements that may rebind a name their own statements need.

    A definition binds its name (and what its ``global`` statements name); any other statement may bind every word
    before its last ``=`` (``a = b = 1``, ``x[i] += 1``, ``x: int = 1``) and a walrus target."""
    definition = _DEFINITION.search(text) if text.startswith(("def", "class", "async", "@")) else None
    if definition is not None:
        binds = {definition.group(1)}
    else:
        last_equals = max((m.start() for m in _ASSIGN.finditer(text)), default=0)
        binds = set(_WORDS.findall(text, 0, last_equals)) | set(_WALRUS.findall(text))
    for names in _GLOBAL.findall(text):
        binds.update(_WORDS.findall(names))
    return binds
