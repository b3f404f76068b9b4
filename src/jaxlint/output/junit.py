"""JUnit XML: one testsuite per file checked, one failing testcase per finding (a clean file: one passing case)."""
from __future__ import annotations

from typing import Sequence
from xml.etree import ElementTree as ET

from jaxlint.output.common import file_location, relative_path, rule_name
from jaxlint.run.results import FileResult


def format_junit(results: Sequence[FileResult]) -> str:
    total = sum(max(len(r.diagnostics), 1) for r in results)
    failures = sum(len(r.diagnostics) for r in results)
    errors = sum(1 for r in results if r.internal_error)
    root = ET.Element("testsuites", name="jaxlint", tests=str(total), failures=str(failures), errors=str(errors))
    for result in results:
        path = relative_path(result.path)
        count = max(len(result.diagnostics), 1)
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(count), failures=str(len(result.diagnostics)),
                              errors="1" if result.internal_error else "0")
        if result.internal_error:
            case = ET.SubElement(suite, "testcase", name="jaxlint", classname=path)
            ET.SubElement(case, "error", message=result.internal_error)
            continue
        if not result.diagnostics:
            ET.SubElement(suite, "testcase", name="jaxlint", classname=path)
            continue
        for d in result.diagnostics:
            where = f"cell {d.cell}:" if d.cell is not None else ""
            position = f"{where}{d.start.row}:{d.start.column}"
            where_in_file = file_location(d)  # for a notebook, the .ipynb line; the name says cell and row
            attributes = {"name": f"{d.code} {rule_name(d.code)} at {position}", "classname": path}
            if where_in_file is not None:
                attributes["line"] = str(where_in_file[0].row)
            case = ET.SubElement(suite, "testcase", attributes, file=path)
            failure = ET.SubElement(case, "failure", message=d.message, type=d.code)
            failure.text = f"{path}:{position}: {d.code} {d.message}"
    ET.indent(root, "  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")
