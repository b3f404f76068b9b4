"""SARIF 2.1.0: one run, the rule catalogue as ``tool.driver.rules`` (docs, help URIs), results with fixes.

Paths are relative to the working directory (``uriBaseId: %SRCROOT%``, declared in ``originalUriBaseIds``), as
GitHub code scanning expects. A notebook finding's region is in the ``.ipynb`` file's own text (what code scanning
shows); the cell and the region within it are in the result's ``properties.cell`` and ``properties.cellRegion``.
"""
from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Sequence

from jaxlint import __version__
from jaxlint.output.common import file_location, relative_path
from jaxlint.run.results import FileResult

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _rules() -> list[dict]:
    from jaxlint.rules import all_rules
    from jaxlint.lint.engine_codes import ENGINE_CODES

    described = [{
        "id": entry.code,
        "name": entry.name,
        "shortDescription": {"text": entry.summary},
        # no helpUri: jaxlint has no documentation online; the command prints it
        "help": {"text": f"`jaxlint rule {entry.code}` prints its documentation."},
        "defaultConfiguration": {"level": "warning" if entry.opt_in else "error"},
    } for entry in ENGINE_CODES.values()]
    for rule in all_rules():
        explanation = textwrap.dedent(rule.explanation).strip()
        described.append({
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": _what_it_does(explanation) or rule.summary},
            "help": {"text": explanation, "markdown": explanation},
            "defaultConfiguration": {"level": "error", "enabled": not rule.opt_in},
            "properties": {"jaxVersion": rule.since, "optIn": bool(rule.opt_in),
                           "tags": ["jax", "behaviour-change" if rule.behaviour_change else "removal"]},
        })
    return described


def _what_it_does(explanation: str) -> str:
    """The first paragraph of the rule's "What it does" section, as plain text on one line."""
    marker = "## What it does"
    if marker not in explanation:
        return ""
    body = explanation.split(marker, 1)[1].strip()
    return " ".join(body.split("\n\n", 1)[0].split())


def _region(start, end) -> dict:
    return {"startLine": start.row, "startColumn": start.column, "endLine": end.row, "endColumn": end.column}


def _uri(path: str) -> tuple[str, bool]:
    relative = relative_path(path)
    if relative.startswith("/"):
        return Path(relative).as_uri(), False
    return relative, True


def _artifact(path: str) -> dict:
    uri, relative = _uri(path)
    return {"uri": uri, "uriBaseId": "%SRCROOT%"} if relative else {"uri": uri}


def format_sarif(results: Sequence[FileResult]) -> str:
    rules = _rules()
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    sarif_results = []
    for result in results:
        for d in result.diagnostics:
            physical = {"artifactLocation": _artifact(d.path)}
            where_in_file = file_location(d)
            if where_in_file is not None:
                physical["region"] = _region(*where_in_file)
            location = {"physicalLocation": physical}
            item: dict = {
                "ruleId": d.code,
                "level": "error",
                "message": {"text": d.message},
                "locations": [location],
            }
            if d.code in rule_index:
                item["ruleIndex"] = rule_index[d.code]
            # A notebook fix's edits are in cell rows, not in the .ipynb text the artifact is: not offered here.
            if d.fix is not None and d.cell is None and all(e.location is not None for e in d.fix.edits):
                item["fixes"] = [{
                    "description": {"text": f"{d.fix.message} ({d.fix.applicability.value} fix)"},
                    "artifactChanges": [{
                        "artifactLocation": _artifact(d.path),
                        "replacements": [{"deletedRegion": _region(e.location, e.end_location),
                                          "insertedContent": {"text": e.content}} for e in d.fix.edits],
                    }],
                }]
            properties = {}
            if d.cell is not None:  # the region is in the .ipynb text; these say where in the cell
                properties["cell"] = d.cell
                properties["cellRegion"] = _region(d.start, d.end)
            if d.fix is not None:
                properties["fixApplicability"] = d.fix.applicability.value
            if properties:
                item["properties"] = properties
            sarif_results.append(item)
    run = {
        "tool": {"driver": {"name": "jaxlint", "version": __version__, "semanticVersion": __version__,
                            "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
        "results": sarif_results,
    }
    document = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False)
