"""Suppression comments: ``# noqa``, ``# noqa: JAX201,JAX202``, and file-wide ``# jaxlint: noqa[: CODES]``."""
from __future__ import annotations

import re
from dataclasses import dataclass

from jaxlint.lint.diagnostics import LineIndex, Location

_LINE_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(
    r"^\s*#\s*jaxlint\s*:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_CODE_SPLIT = re.compile(r"[\s,]+")

ALL = None  # a blanket suppression


@dataclass(frozen=True)
class FileSuppression:
    """None: nothing suppressed file-wide; an empty frozenset means every code."""

    codes: frozenset[str] | None

    def suppresses(self, code: str) -> bool:
        return self.codes is not None and (not self.codes or code in self.codes)


def file_suppression(source: str) -> FileSuppression:
    if "jaxlint" not in source:
        return FileSuppression(None)
    codes: set[str] = set()
    found = False
    for match in _FILE_NOQA.finditer(source):
        found = True
        if match.group("codes") is None:
            return FileSuppression(frozenset())
        codes.update(c.upper() for c in _CODE_SPLIT.split(match.group("codes").strip()) if c)
    return FileSuppression(frozenset(codes) if found else None)


def line_suppresses(index: LineIndex, row: int, code: str) -> bool:
    """Whether the physical line ``row`` carries a ``# noqa`` that covers ``code``."""
    text = index.line_text(row)
    if "noqa" not in text.lower():
        return False
    for match in _LINE_NOQA.finditer(text):
        codes = match.group("codes")
        if codes is None:
            return True
        if code.upper() in {c.upper() for c in _CODE_SPLIT.split(codes.strip()) if c}:
            return True
    return False


class Placements:
    """The places of one text's findings, each finding once: a finding on a line whose ``# noqa`` covers its code,
    or one already placed (same code, span and message), gets none. Both ways of finding (the libcst visit and the
    ast view) place through it."""

    def __init__(self, index: LineIndex) -> None:
        self.index = index
        self._seen: set[tuple] = set()

    def place(self, code: str, message: str, start: int, end: int) -> tuple[Location, Location] | None:
        start_location, end_location = self.index.location(start), self.index.location(end)
        if line_suppresses(self.index, start_location.row, code):
            return None
        key = (code, start, end, message)
        if key in self._seen:
            return None
        self._seen.add(key)
        return start_location, end_location
