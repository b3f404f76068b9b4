"""Lint or fix a list of files: read, decode, lint, fix, write back atomically. No printing here."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from jaxlint.diagnostics import Diagnostic, Location
from jaxlint.engine import PARSE_ERROR, AppliedFix, fix_source, lint_source
from jaxlint.settings import Settings
from jaxlint.sources import DecodeError, SourceText, decode_source, write_atomic

if TYPE_CHECKING:
    from jaxlint.files import SourceFile


class Mode(Enum):
    CHECK = "check"
    FIX = "fix"  # write the fixed files
    DIFF = "diff"  # compute fixes, report them as a diff, write nothing


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)  # what remains to report
    applied: list[AppliedFix] = field(default_factory=list)
    diff: str = ""
    fixed_source: str | None = None  # set when fixes changed the text
    # Fixes that would have produced unparseable code: dropped, never written (a bug in a rule).
    rejected: list[Diagnostic] = field(default_factory=list)
    internal_error: str | None = None


def process_source(source: SourceText, display_path: str, settings: Settings, mode: Mode,
                   unsafe: bool) -> FileResult:
    result = FileResult(display_path)
    if mode is Mode.CHECK:
        result.diagnostics = lint_source(source.text, display_path, settings).diagnostics
        return result
    outcome = fix_source(source.text, display_path, settings, unsafe=unsafe)
    result.diagnostics = outcome.remaining
    result.applied = outcome.applied
    result.rejected = outcome.rejected
    if outcome.source != source.text:
        result.fixed_source = outcome.source
        if mode is Mode.DIFF:
            result.diff = "".join(difflib.unified_diff(
                source.text.splitlines(keepends=True), outcome.source.splitlines(keepends=True),
                fromfile=display_path, tofile=display_path,
            ))
    return result


def run_files(files: Sequence["SourceFile"], mode: Mode, unsafe: bool, *, jobs: int | None = None,
              use_cache: bool = True, cache_dir: Path | None = None) -> list[FileResult]:
    """Process every file; results in a stable order (by path) whatever the scheduling."""
    results = [process_file(f.path, f.settings, mode, unsafe or f.settings.unsafe_fixes) for f in files]
    return sorted(results, key=lambda r: r.path)


def process_file(path: Path, settings: Settings, mode: Mode, unsafe: bool) -> FileResult:
    """Never raises for a bad input file: decoding problems become a JAX000 finding, bugs an internal error."""
    if path.suffix == ".ipynb":
        from jaxlint.notebooks import process_notebook

        return process_notebook(path, settings, mode, unsafe)
    display = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileResult(display, internal_error=f"cannot read: {error.strerror or error}")
    try:
        source = decode_source(data)
    except DecodeError as error:
        location = Location(1, 1)
        return FileResult(display, [Diagnostic(PARSE_ERROR, f"cannot decode: {error}", display, location, location)])
    try:
        result = process_source(source, display, settings, mode, unsafe)
        if mode is Mode.FIX and result.fixed_source is not None:
            write_atomic(path, source.encode(result.fixed_source))
    except Exception as error:  # noqa: BLE001 - one broken file or rule must not stop the run
        return FileResult(display, internal_error=f"{type(error).__name__}: {error}")
    return result
