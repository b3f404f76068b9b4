"""GitLab Code Quality report (a JSON list), with fingerprints that survive unrelated edits.

The fingerprint hashes the rule, the repository-relative path, the cell, the message and the flagged source line's
text (stripped), not the row: adding a line above a finding keeps its fingerprint, so GitLab does not report it as
fixed and new again. Identical findings in one file are told apart by their order.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import Sequence

from jaxlint.lint.diagnostics import LineIndex, Location
from jaxlint.output.common import file_location, relative_path, source_text
from jaxlint.run.results import FileResult


def _line_text(diagnostic) -> str:
    text = source_text(diagnostic)
    if text is None:
        return ""
    index = LineIndex(text)
    if diagnostic.start.row > len(index.starts):
        return ""
    return index.line_text(diagnostic.start.row).strip()


def format_gitlab(results: Sequence[FileResult]) -> str:
    base = os.environ.get("CI_PROJECT_DIR") or None
    items = []
    for result in results:
        seen: dict[str, int] = {}
        for d in result.diagnostics:
            path = relative_path(d.path, base)
            key = "\0".join([d.code, path, str(d.cell or ""), d.message, _line_text(d)])
            seen[key] = seen.get(key, 0) + 1
            fingerprint = hashlib.sha256(f"{key}\0{seen[key]}".encode()).hexdigest()[:32]
            where = f"cell {d.cell}:" if d.cell is not None else ""
            # Code Quality carries only lines of the file: for a notebook, the .ipynb line (the cell is in the
            # description).
            start, end = file_location(d) or (Location(1, 1), Location(1, 1))
            items.append({
                "type": "issue",
                "check_name": d.code,
                "description": f"{d.code} {d.message}" + (f" (cell {d.cell}, line {d.start.row})" if where else ""),
                "categories": ["Bug Risk" if d.code in ("JAX000", "JAX002") else "Compatibility"],
                "severity": "major",
                "fingerprint": fingerprint,
                "location": {
                    "path": path,
                    "positions": {"begin": {"line": start.row, "column": start.column},
                                  "end": {"line": end.row, "column": end.column}},
                },
            })
    return json.dumps(items, indent=2, ensure_ascii=False)
