"""Jupyter notebooks: lint and fix the code cells as one module, report per cell, write back only what changed.

The code cells are joined in order (so a name imported in cell 1 resolves in cell 5), with IPython syntax masked
(``jaxlint.run.ipython_masking``) and a boundary comment between cells; findings are mapped back to ``(cell, row)``.
Cell numbers are 1-based positions among *all* cells, as the editors (and ruff) number them.

Writing (``jaxlint.run.notebook_json``): only the ``"source"`` spans of the changed cells are replaced, in the notebook's
own JSON layout. Everything else, metadata, outputs, key order, indentation and the trailing newline, stays
byte-identical; a notebook without fixes is never written at all.
"""
from __future__ import annotations

import ast
import bisect
import dataclasses
import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.lint.diagnostics import Diagnostic, Edit, Location, io_error
from jaxlint.lint.engine import PARSE_ERROR, ParseFailure, fix_source, lint_source, syntax_failure
from jaxlint.run.ipython_masking import MaskedCell, mask_cell, unmask
from jaxlint.run.notebook_json import NotebookError, rewrite_sources, source_spans
from jaxlint.run.results import FileResult, Mode, unwritten
from jaxlint.project.settings import Settings
from jaxlint.run.sources import write_atomic

__all__ = ["NotebookError", "lint_notebook_text", "process_notebook", "rewrite_sources", "source_spans"]

BOUNDARY = "# jaxlint-cell-boundary"
_BOUNDARY_LINE = re.compile(r"^# jaxlint-cell-boundary (\d+)\n", re.MULTILINE)


@dataclass
class Cell:
    number: int  # 1-based among all cells
    text: str  # the original source, joined
    masked: MaskedCell
    broken: ParseFailure | None = None
    # A broken cell's imports before its syntax error: later cells still see what they bind (as ruff recovers).
    recovered: str = ""


@dataclass
class Notebook:
    raw: str
    data: dict
    cells: list[Cell] = field(default_factory=list)  # the code cells that are checked


def _cell_text(source) -> str:
    if isinstance(source, list):
        return "".join(source)
    if isinstance(source, str):
        return source
    raise NotebookError("a cell's 'source' is neither a string nor a list of strings")


def is_python_notebook(data: dict) -> bool:
    metadata = data.get("metadata") or {}
    language = (metadata.get("language_info") or {}).get("name") or (metadata.get("kernelspec") or {}).get("language")
    return language is None or str(language).lower() in ("python", "python3", "ipython", "ipython3")


def load_notebook(raw: str) -> Notebook:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not a valid notebook: invalid JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells", []), list):
        raise NotebookError("not a valid notebook: no list of cells")
    notebook = Notebook(raw, data)
    if not is_python_notebook(data):
        return notebook
    for index, cell in enumerate(data.get("cells", [])):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text = _cell_text(cell.get("source", ""))
        masked = mask_cell(text)
        entry = Cell(index + 1, text, masked)
        if not masked.skipped and masked.text.strip():
            entry.broken = syntax_failure(masked.text)
            if entry.broken is not None:
                entry.recovered = recovered_imports(masked.text, entry.broken.row)
        notebook.cells.append(entry)
    return notebook


def recovered_imports(text: str, error_row: int) -> str:
    """The top-level imports among the statements before the syntax error: those of the longest run of whole lines
    before its row that parses (a statement the error cuts through is left out)."""
    lines = text.splitlines(keepends=True)
    for end in range(min(error_row - 1, len(lines)), 0, -1):
        prefix = "".join(lines[:end])
        try:
            tree = ast.parse(prefix)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        # One line each, with a `# noqa`: no rule reports (or fixes) what stands in for the broken cell.
        return "".join(f"{ast.unparse(s)}  # noqa\n" for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom)))
    return ""


# -- the joined module ---------------------------------------------------------------------------------------------
@dataclass
class Joined:
    text: str
    cells: list[Cell]  # the cells in the joined text, in order
    start_rows: list[int]  # 1-based row in ``text`` of each cell's first line
    added_newline: list[bool]
    # Broken cells in the text by their recovered imports only: nothing is reported or fixed there.
    recovered: frozenset[int] = frozenset()


def join_cells(cells: list[Cell], *, recover: bool = True) -> Joined:
    parts: list[str] = []
    included: list[Cell] = []
    start_rows: list[int] = []
    added: list[bool] = []
    recovered: set[int] = set()
    row = 1
    for cell in cells:
        if cell.masked.skipped or (cell.broken is not None and not (recover and cell.recovered)):
            continue
        text = cell.recovered if cell.broken is not None else cell.masked.text
        if cell.broken is not None:
            recovered.add(cell.number)
        if included:
            parts.append(f"{BOUNDARY} {cell.number}\n")
            row += 1
        needs_newline = not text.endswith("\n")
        if needs_newline:
            text += "\n"
        included.append(cell)
        start_rows.append(row)
        added.append(needs_newline)
        parts.append(text)
        row += text.count("\n")
    return Joined("".join(parts), included, start_rows, added, frozenset(recovered))


def _reported(joined: Joined, diagnostics) -> list[Diagnostic]:
    """The diagnostics mapped to their cells, less those in a broken cell's recovered imports."""
    mapped = [_map_diagnostic(joined, d) for d in diagnostics]
    return [d for d in mapped if d.cell not in joined.recovered]


def _locate(joined: Joined, location: Location) -> tuple[int, Location]:
    index = bisect.bisect_right(joined.start_rows, location.row) - 1
    index = max(index, 0)
    return joined.cells[index].number, Location(location.row - joined.start_rows[index] + 1, location.column)


def _map_diagnostic(joined: Joined, diagnostic: Diagnostic) -> Diagnostic:
    cell, start = _locate(joined, diagnostic.start)
    _, end = _locate(joined, diagnostic.end)
    fix = diagnostic.fix
    if fix is not None:
        edits = []
        for edit in fix.edits:
            location = _locate(joined, edit.location)[1] if edit.location is not None else None
            end_location = _locate(joined, edit.end_location)[1] if edit.end_location is not None else None
            edits.append(Edit(edit.start, edit.end, edit.content, location, end_location))
        fix = dataclasses.replace(fix, edits=tuple(edits))
    noqa_row = _locate(joined, Location(diagnostic.noqa_row, 1))[1].row if diagnostic.noqa_row else None
    return dataclasses.replace(diagnostic, start=start, end=end, fix=fix, noqa_row=noqa_row, cell=cell)


def _broken_diagnostics(cells: list[Cell], path: str) -> list[Diagnostic]:
    found = []
    for cell in cells:
        if cell.broken is not None:
            location = Location(cell.broken.row, cell.broken.column)
            found.append(Diagnostic(PARSE_ERROR, cell.broken.message, path, location, location, cell=cell.number))
    return found


def split_fixed(joined: Joined, fixed: str) -> dict[int, str] | None:
    """The fixed text of each cell (original IPython lines restored), or None if the boundaries did not survive."""
    pieces = _BOUNDARY_LINE.split(fixed)
    # pieces: [cell0, number1, cell1, number2, cell2, ...]
    texts = pieces[0::2]
    numbers = [int(n) for n in pieces[1::2]]
    if numbers != [cell.number for cell in joined.cells[1:]] or len(texts) != len(joined.cells):
        return None
    out: dict[int, str] = {}
    for cell, text, added in zip(joined.cells, texts, joined.added_newline):
        if cell.number in joined.recovered:
            if text != cell.recovered:
                return None  # a fix reached into a broken cell: not this way
            continue
        if added:
            if not text.endswith("\n"):
                return None
            text = text[:-1]
        restored = unmask(text, cell.masked.masked)
        if restored is None:
            return None
        out[cell.number] = restored
    return out


# -- the entry point used by the runner ---------------------------------------------------------------------------
def lint_notebook_text(raw: str, display: str, settings: Settings, mode: Mode, unsafe: bool) -> tuple[
        FileResult, str | None]:
    """The result and, when fixes changed something, the new notebook text."""
    result = FileResult(display)
    try:
        notebook = load_notebook(raw)
    except NotebookError as error:
        location = Location(1, 1)
        result.diagnostics = [Diagnostic(PARSE_ERROR, str(error), display, location, location)]
        return result, None
    broken = _broken_diagnostics(notebook.cells, display)
    joined = join_cells(notebook.cells)
    if len(joined.cells) == len(joined.recovered):  # no cell to check
        result.diagnostics = broken
        return result, None
    if mode is Mode.CHECK:
        diagnostics = lint_source(joined.text, display, settings).diagnostics
        result.diagnostics = sorted(broken + _reported(joined, diagnostics), key=Diagnostic.sort_key)
        return result, None
    outcome = fix_source(joined.text, display, settings, unsafe=unsafe)
    new_cells = split_fixed(joined, outcome.source) if outcome.source != joined.text else None
    if new_cells is None and joined.recovered and outcome.source != joined.text:
        # A fix changed a broken cell's recovered imports: fix without them, as if the cell were not there.
        joined = join_cells(notebook.cells, recover=False)
        outcome = fix_source(joined.text, display, settings, unsafe=unsafe)
        new_cells = split_fixed(joined, outcome.source) if outcome.source != joined.text else None
    if new_cells is None:
        # Nothing changed, or a fix crossed a cell boundary or an IPython line: write nothing, report everything.
        diagnostics = lint_source(joined.text, display, settings).diagnostics
        result.diagnostics = sorted(broken + _reported(joined, diagnostics), key=Diagnostic.sort_key)
        return result, None
    # Remaining findings are located in the fixed text: re-join it to map rows to cells.
    fixed_cells = []
    for cell in notebook.cells:
        if cell.number in new_cells and new_cells[cell.number] != cell.text:
            fixed_cells.append(Cell(cell.number, new_cells[cell.number], mask_cell(new_cells[cell.number])))
        else:
            fixed_cells.append(cell)
    fixed_joined = join_cells(fixed_cells, recover=bool(joined.recovered))
    result.diagnostics = sorted(broken + _reported(fixed_joined, outcome.remaining), key=Diagnostic.sort_key)
    result.rejected = _reported(joined, outcome.rejected)
    for record in outcome.applied:
        _, location = _locate(joined, Location(record.row, record.column))
        record.row, record.column = location.row, location.column
    result.applied = outcome.applied
    changed = {number - 1: text for number, text in new_cells.items()
               if text != next(c.text for c in notebook.cells if c.number == number)}
    if not changed:
        return result, None
    new_raw = rewrite_sources(raw, changed)
    result.fixed_source = new_raw
    if mode is Mode.DIFF:
        diff = []
        for index in sorted(changed):
            old = next(c.text for c in notebook.cells if c.number == index + 1)
            name = f"{display}:cell {index + 1}"
            diff.append("".join(difflib.unified_diff(
                _lines(old), _lines(changed[index]), fromfile=name, tofile=name)))
        result.diff = "".join(diff)
    return result, new_raw


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of cell\n"
    return lines


def process_notebook(path: Path, settings: Settings, mode: Mode, unsafe: bool) -> FileResult:
    display = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileResult(display, [io_error(display, error)])
    try:
        raw = data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as error:
        location = Location(1, 1)
        return FileResult(display, [Diagnostic(PARSE_ERROR, f"cannot decode notebook as UTF-8: {error}", display,
                                               location, location)])
    try:
        result, new_raw = lint_notebook_text(raw, display, settings, mode, unsafe)
        if mode is Mode.FIX and new_raw is not None:
            bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
            try:
                write_atomic(path, bom + new_raw.encode("utf-8"))
            except OSError as error:
                return unwritten(lint_notebook_text(raw, display, settings, Mode.CHECK, unsafe)[0], error)
    except Exception as error:  # noqa: BLE001 - one broken notebook must not stop the run
        return FileResult(display, internal_error=f"{type(error).__name__}: {error}")
    return result
