"""A notebook's JSON text: where each cell's ``source`` value lies, and rewriting one in the notebook's own layout.

No ``nbformat`` at run time. ``nbformat.write`` re-serializes the whole document (``indent=1``, sorted keys, its own
escaping), which rewrites notebooks saved by VS Code, Colab or older Jupyter versions even when one character of one
cell changed, and may touch outputs. Instead the exact byte span of each changed cell's ``"source"`` value in the
original JSON text is replaced, in the notebook's own layout (list of lines or one string, item indentation, ASCII
escaping). The same spans tell the output formats which line of the ``.ipynb`` file a cell's row is on.
"""
from __future__ import annotations

import json
from dataclasses import dataclass


class NotebookError(Exception):
    pass


# -- writing one cell's source back in the notebook's own layout ---------------------------------------------------
def _skip_ws(raw: str, i: int) -> int:
    while i < len(raw) and raw[i] in " \t\r\n":
        i += 1
    return i


_DECODER = json.JSONDecoder()


def source_spans(raw: str) -> dict[int, tuple[int, int]]:
    """Character span of ``cells[i]["source"]``'s value in the notebook text, by 0-based cell index."""
    spans: dict[int, tuple[int, int]] = {}
    i = _skip_ws(raw, 0)
    if raw[i:i + 1] != "{":
        raise NotebookError("not a JSON object")

    def members(i: int):
        """Yield (key, value_start) for an object starting at raw[i] == '{'; the caller returns the value's end."""
        i = _skip_ws(raw, i + 1)
        if raw[i] == "}":
            return
        while True:
            key, i = json.decoder.scanstring(raw, i + 1)
            i = _skip_ws(raw, i)
            assert raw[i] == ":"
            i = _skip_ws(raw, i + 1)
            end = yield key, i
            i = _skip_ws(raw, end)
            if raw[i] == ",":
                i = _skip_ws(raw, i + 1)
                continue
            assert raw[i] == "}"
            return

    def skip_value(i: int) -> int:
        return _DECODER.raw_decode(raw, i)[1]

    top = members(i)
    try:
        key, start = next(top)
        while True:
            if key == "cells" and raw[start] == "[":
                j = _skip_ws(raw, start + 1)
                index = 0
                if raw[j] != "]":
                    while True:
                        if raw[j] == "{":
                            cell = members(j)
                            try:
                                ckey, cstart = next(cell)
                                while True:
                                    cend = skip_value(cstart)
                                    if ckey == "source":
                                        spans[index] = (cstart, cend)
                                    ckey, cstart = cell.send(cend)
                            except StopIteration:
                                pass
                            j = _close(raw, j)
                        else:
                            j = skip_value(j)
                        index += 1
                        j = _skip_ws(raw, j)
                        if raw[j] == ",":
                            j = _skip_ws(raw, j + 1)
                            continue
                        break
                end = j + 1
            else:
                end = skip_value(start)
            key, start = top.send(end)
    except StopIteration:
        pass
    return spans


def _close(raw: str, i: int) -> int:
    """End of the JSON value starting at ``raw[i]``."""
    return _DECODER.raw_decode(raw, i)[1]


def _line_start_indent(raw: str, offset: int) -> str:
    start = raw.rfind("\n", 0, offset) + 1
    line = raw[start:offset]
    return line[:len(line) - len(line.lstrip(" \t"))]


def render_source(raw: str, span: tuple[int, int], text: str) -> str:
    """The new JSON for a ``source`` value, laid out like the old one."""
    old = raw[span[0]:span[1]]
    ascii_only = "\\u" in raw and not any(ord(c) > 127 for c in raw)

    def dump(value: str) -> str:
        return json.dumps(value, ensure_ascii=ascii_only)

    if old.startswith('"'):
        return dump(text)
    lines = text.splitlines(keepends=True)
    if not lines:
        return "[]"
    first_item = _skip_ws(raw, span[0] + 1)
    if raw[first_item] != "]":
        lead = raw[span[0] + 1:first_item]  # e.g. "\n    "
        items = _DECODER.raw_decode(raw, span[0])[0]
        # The separator as written between the first two items, if there are two.
        separator = "," + lead if lead else ", "
        if len(items) > 1:
            after_first = _DECODER.raw_decode(raw, first_item)[1]
            second = _skip_ws(raw, after_first + 1)
            separator = raw[after_first:second]
        last_end = span[1] - 1
        tail_start = last_end
        while raw[tail_start - 1] in " \t\r\n":
            tail_start -= 1
        tail = raw[tail_start:last_end]
    else:
        # An empty list: lay the items out as Jupyter does, one level deeper than the "source" key.
        key_indent = _line_start_indent(raw, span[0])
        lead = "\n" + key_indent + " "
        separator = "," + lead
        tail = "\n" + key_indent
    return "[" + lead + separator.join(dump(line) for line in lines) + tail + "]"


def rewrite_sources(raw: str, new_texts: dict[int, str]) -> str:
    """``new_texts``: 0-based cell index -> new source text. Only those spans of ``raw`` change."""
    spans = source_spans(raw)
    out = raw
    for index in sorted(new_texts, reverse=True):
        if index not in spans:
            raise NotebookError(f"cell {index + 1} has no source to rewrite")
        start, end = spans[index]
        out = out[:start] + render_source(raw, (start, end), new_texts[index]) + out[end:]
    return out


# -- where a cell's rows are in the .ipynb text (for formats that can only carry a line of the file) ---------------
@dataclass(frozen=True)
class CellLines:
    """Where each source line of one cell begins in the notebook's JSON text (character offsets)."""

    starts: tuple[int, ...]
    lines: tuple[str, ...]
    ensure_ascii: bool  # how the JSON writer escaped non-ASCII characters


def cell_lines(raw: str) -> dict[int, CellLines]:
    """By 1-based cell number (among all cells), the offsets of its source lines in ``raw``."""
    found: dict[int, CellLines] = {}
    for index, (start, end) in source_spans(raw).items():
        items: list[tuple[int, str]] = []  # (offset of the string's opening quote, decoded value)
        if raw[start] == '"':
            items.append((start, _DECODER.raw_decode(raw, start)[0]))
        elif raw[start] == "[":
            i = _skip_ws(raw, start + 1)
            while raw[i] == '"':
                value, after = _DECODER.raw_decode(raw, i)
                items.append((i, value))
                i = _skip_ws(raw, after)
                if raw[i] != ",":
                    break
                i = _skip_ws(raw, i + 1)
        if not items:
            continue
        ensure_ascii = any(raw[p:p + len(json.dumps(v))] == json.dumps(v) and not v.isascii() for p, v in items)
        starts: list[int] = []
        lines: list[str] = []
        for offset, value in items:
            position = offset + 1
            for line in value.splitlines(keepends=True):
                starts.append(position)
                lines.append(line)
                position += len(json.dumps(line, ensure_ascii=ensure_ascii)) - 2
        found[index + 1] = CellLines(tuple(starts), tuple(lines), ensure_ascii)
    return found


def offset_in_notebook(cells: dict[int, CellLines], cell: int, row: int, column: int) -> int | None:
    """The character offset in the notebook text of (cell, 1-based row, 1-based column), or None."""
    entry = cells.get(cell)
    if entry is None or not entry.starts:
        return None
    if row > len(entry.starts):  # the end of a cell's last line (a finding's end)
        row, column = len(entry.starts), len(entry.lines[-1]) + 1
    line = entry.lines[row - 1]
    prefix = line[:max(column - 1, 0)]
    return entry.starts[row - 1] + len(json.dumps(prefix, ensure_ascii=entry.ensure_ascii)) - 2
