"""Contract: one JSON list in ruff's shape (code, message, filename, location, end_location, fix, url, noqa_row, cell),
plus jaxlint's own ``fix_withheld`` and ``unevaluated_annotation``."""
from __future__ import annotations

import json
import os
from typing import Sequence

from jaxlint.lint.diagnostics import Diagnostic
from jaxlint.run.results import FileResult


def _location(location) -> dict:
    return {"row": location.row, "column": location.column}


def diagnostic_to_json(diagnostic: Diagnostic) -> dict:
    fix = None
    if diagnostic.fix is not None:
        edits = [{"content": edit.content, "location": _location(edit.location),
                  "end_location": _location(edit.end_location)} for edit in diagnostic.fix.edits]
        fix = {"applicability": diagnostic.fix.applicability.value, "message": diagnostic.fix.message,
               "edits": edits}
    filename = diagnostic.path if diagnostic.path == "-" else os.path.abspath(diagnostic.path)
    return {
        "code": diagnostic.code,
        "message": diagnostic.message,
        "filename": filename,
        "location": _location(diagnostic.start),
        "end_location": _location(diagnostic.end),
        "fix": fix,
        "url": diagnostic.url,
        "noqa_row": diagnostic.noqa_row,
        "cell": diagnostic.cell,
        # jaxlint's own keys, after ruff's (tools that read ruff's JSON ignore them).
        "fix_withheld": None if diagnostic.fix_withheld is None else {
            "reason": diagnostic.fix_withheld.reason,
            "needs_min_version": diagnostic.fix_withheld.needs_min_version,
        },
        "unevaluated_annotation": diagnostic.unevaluated_annotation,
    }


def format_json(results: Sequence[FileResult]) -> str:
    items = [diagnostic_to_json(d) for result in results for d in result.diagnostics]
    return json.dumps(items, indent=2, ensure_ascii=False)
