"""GitHub Actions workflow commands: one ``::error file=...,line=...::message`` annotation per finding.

An annotation carries only a line of the file: for a notebook that is the line of the ``.ipynb`` file the cell's row
is on, and the message says ``cell N:row:col``."""
from __future__ import annotations

from typing import Sequence

from jaxlint.output.common import file_location, relative_path
from jaxlint.run.results import FileResult


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
            where_in_file = file_location(d)  # for a notebook: the .ipynb line (the message names cell and row)
            if where_in_file is not None:
                start, end = where_in_file
                properties += [f"line={start.row}", f"col={start.column}", f"endLine={end.row}",
                               f"endColumn={end.column}"]
            properties.append(f"title={_property(d.code)}")
            lines.append(f"::error {','.join(properties)}::{_data(message)}")
    return "\n".join(lines)
