"""GitHub Actions workflow commands: one ``::error file=...,line=...::message`` annotation per finding."""
from __future__ import annotations

from typing import Sequence

from jaxlint.output.common import relative_path
from jaxlint.results import FileResult


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(results: Sequence[FileResult]) -> str:
    lines = []
    for result in results:
        for d in result.diagnostics:
            path = relative_path(d.path)
            where = f"{path}:cell {d.cell}:" if d.cell is not None else f"{path}:"
            message = f"{where}{d.start.row}:{d.start.column}: {d.code} {d.message}"
            properties = [f"file={_property(path)}"]
            if d.cell is None:
                # Rows in a notebook cell are not lines of the .ipynb file: annotate the file as a whole there.
                properties += [f"line={d.start.row}", f"col={d.start.column}", f"endLine={d.end.row}",
                               f"endColumn={d.end.column}"]
            properties.append(f"title={_property(d.code)}")
            lines.append(f"::error {','.join(properties)}::{_data(message)}")
    return "\n".join(lines)
