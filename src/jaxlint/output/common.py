"""Helpers shared by the formats: rule metadata, display paths, source lines (of files and notebook cells)."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from jaxlint.lint.diagnostics import Diagnostic, LineIndex, Location


def rule_name(code: str) -> str:
    from jaxlint.rules import rule_by_code

    from jaxlint.lint.engine_codes import ENGINE_CODES

    rule = rule_by_code(code)
    if rule is not None:
        return rule.name
    return ENGINE_CODES[code].name if code in ENGINE_CODES else code.lower()


def relative_path(path: str, base: str | None = None) -> str:
    """The path relative to ``base`` (default: the working directory) when inside it, with forward slashes."""
    if path == "-":
        return path
    base = base or os.getcwd()
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, base)
    except ValueError:  # another drive on Windows
        return Path(absolute).as_posix()
    if relative.startswith(".."):
        return Path(absolute).as_posix()
    return Path(relative).as_posix()


# The text read from stdin, by its display name (``--stdin-filename``): a file of that name on disk may differ.
STDIN_TEXTS: dict[str, str] = {}


@lru_cache(maxsize=256)
def _file_text(path: str, mtime_ns: int) -> str | None:
    try:
        if path.endswith(".ipynb"):
            return Path(path).read_text(encoding="utf-8-sig")
        from jaxlint.run.sources import read_source

        return read_source(Path(path)).text
    except Exception:  # noqa: BLE001 - a source we cannot show is not an error of the report
        return None


def source_text(diagnostic: Diagnostic) -> str | None:
    """The text the diagnostic's rows refer to: the file, or for a notebook the cell's source."""
    if diagnostic.path in STDIN_TEXTS:
        text = STDIN_TEXTS[diagnostic.path]
    elif diagnostic.path == "-":
        return None
    else:
        try:
            mtime = os.stat(diagnostic.path).st_mtime_ns
        except OSError:
            return None
        text = _file_text(diagnostic.path, mtime)
    if text is None or diagnostic.cell is None:
        return text
    import json

    try:
        cells = json.loads(text)["cells"]
        source = cells[diagnostic.cell - 1]["source"]
        return "".join(source) if isinstance(source, list) else source
    except (ValueError, KeyError, IndexError, TypeError):
        return None


@lru_cache(maxsize=64)
def _notebook_map(path: str, mtime_ns: int):
    return _map_notebook(_file_text(path, mtime_ns))


def _map_notebook(text: str | None):
    from jaxlint.run.notebook_json import NotebookError, cell_lines

    if text is None:
        return None
    try:
        return LineIndex(text), cell_lines(text)
    except (NotebookError, ValueError, IndexError, AssertionError):
        return None


def file_location(diagnostic: Diagnostic) -> tuple[Location, Location] | None:
    """Where the finding is in the file itself: its own start and end for a ``.py`` file; for a notebook cell,
    the line and column in the ``.ipynb`` JSON text (for the formats that can carry only a line of the file:
    github, gitlab, junit, sarif's region). None when the notebook cannot be read back (deleted)."""
    if diagnostic.cell is None:
        return diagnostic.start, diagnostic.end
    if diagnostic.path in STDIN_TEXTS:
        mapped = _map_notebook(STDIN_TEXTS[diagnostic.path])
    else:
        try:
            mtime = os.stat(diagnostic.path).st_mtime_ns
        except OSError:
            return None
        mapped = _notebook_map(diagnostic.path, mtime)
    if mapped is None:
        return None
    index, cells = mapped
    from jaxlint.run.notebook_json import offset_in_notebook

    start = offset_in_notebook(cells, diagnostic.cell, diagnostic.start.row, diagnostic.start.column)
    end = offset_in_notebook(cells, diagnostic.cell, diagnostic.end.row, diagnostic.end.column)
    if start is None or end is None:
        return None
    return index.location(start), index.location(max(end, start))


def offset_of(index: LineIndex, location: Location) -> int:
    row = min(max(location.row, 1), len(index.starts))
    return min(index.starts[row - 1] + location.column - 1, len(index.source))


def apply_fix(text: str, diagnostic: Diagnostic) -> str | None:
    """The text with the diagnostic's fix applied (edits located by row/column), or None if it has none."""
    if diagnostic.fix is None or any(e.location is None or e.end_location is None for e in diagnostic.fix.edits):
        return None
    index = LineIndex(text)
    spans = sorted(((offset_of(index, e.location), offset_of(index, e.end_location), e.content)
                    for e in diagnostic.fix.edits), reverse=True)
    for start, end, content in spans:
        text = text[:start] + content + text[end:]
    return text
