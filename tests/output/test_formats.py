"""Every output format against a golden file (``JAXLINT_UPDATE_GOLDEN=1`` rewrites them), and the schemas."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from jaxlint import __version__
from jaxlint.lint.diagnostics import Applicability, Diagnostic, Edit, Fix, Location, WithheldFix
from jaxlint.output import FORMATS, RenderOptions, render
from jaxlint.run.runner import FileResult
from jaxlint.project.settings import OUTPUT_FORMATS

GOLDEN = Path(__file__).parent / "golden"
SCHEMA = Path(__file__).parents[1] / "data" / "sarif-schema-2.1.0.json"
UPDATE = os.environ.get("JAXLINT_UPDATE_GOLDEN") == "1"

MODEL = '''import jax
import jax.numpy as jnp
from jax.experimental import export

def gather(x, idx):
    return jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)

jax.config.update("jax_exec_time_optimization_effort", 0.5)
'''
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["import jax.numpy as jnp\n", "%time y = 1\n", "w = jnp.take_along_axis(x, i, axis=0, "
                    "mode='promise_in_bounds')"]},
    ],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
}


def _edit(row: int, col: int, end_row: int, end_col: int, content: str) -> Edit:
    return Edit(0, 0, content, Location(row, col), Location(end_row, end_col))


def sample_results(root: Path) -> list[FileResult]:
    """Hand-made results (independent of rule wording) over real files, so that ``full`` can show source lines."""
    (root / "pkg").mkdir()
    model = root / "pkg" / "model.py"
    model.write_text(MODEL)
    notebook = root / "tutorial.ipynb"
    notebook.write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    broken = root / "broken.py"
    broken.write_text("def f(:\n    pass\n")
    (root / "clean.py").write_text("import jax\n")
    m = "pkg/model.py"
    return [
        FileResult("broken.py", [Diagnostic("JAX000", "SyntaxError: invalid syntax", "broken.py", Location(1, 7),
                                            Location(1, 7))]),
        FileResult("clean.py", []),
        FileResult(m, [
            Diagnostic("JAX302", "`jax.experimental.export` was removed; use `jax.export`", m, Location(3, 1),
                       Location(3, 36), fix=Fix(Applicability.SAFE, "Use `jax.export`",
                                                (_edit(3, 1, 3, 36, "from jax import export"),)),
                       noqa_row=3, url="https://example.invalid/jax302"),
            Diagnostic("JAX202", "`wrap_negative_indices=None` no longer means `mode != \"promise_in_bounds\"`", m,
                       Location(6, 12), Location(6, 75),
                       fix=Fix(Applicability.SAFE, "Replace with `wrap_negative_indices=True`",
                               (_edit(6, 70, 6, 74, "True"),)), noqa_row=6),
            Diagnostic("JAX102", "config option `jax_exec_time_optimization_effort` was removed in JAX 0.11.1", m,
                       Location(8, 1), Location(8, 60), noqa_row=8, unevaluated_annotation=True,
                       fix_withheld=WithheldFix("`jax.tree.map` exists from JAX 0.4.25; the min version is 0.4.6 "
                                                "(requirements.txt:1)", "0.4.25")),
        ], version_floor=("0.4.6", "requirements.txt:1")),
        FileResult("tutorial.ipynb", [
            Diagnostic("JAX202", "`mode=\"promise_in_bounds\"` wraps negative indices since JAX 0.11.1",
                       "tutorial.ipynb", Location(3, 5), Location(3, 64), cell=2, noqa_row=3,
                       fix=Fix(Applicability.UNSAFE, "Add `wrap_negative_indices=False`",
                               (_edit(3, 63, 3, 63, ", wrap_negative_indices=False"),))),
        ]),
    ]


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    return sample_results(tmp_path)


def normalize(name: str, text: str, root: Path) -> str:
    text = text.replace(root.as_uri(), "file:///ROOT").replace(str(root), "/ROOT")
    if name == "sarif":
        document = json.loads(text)
        driver = document["runs"][0]["tool"]["driver"]
        driver["version"] = driver["semanticVersion"] = "VERSION"
        # The catalogue grows and its docs change: keep only what the golden file is about.
        driver["rules"] = [{"id": r["id"], "name": r["name"]} for r in driver["rules"]
                           if r["id"] in ("JAX000", "JAX102", "JAX202", "JAX302")]
        for result in document["runs"][0]["results"]:
            result.pop("ruleIndex", None)
        text = json.dumps(document, indent=2)
    return text


@pytest.mark.parametrize("name", ["text", "json", "concise", "full", "github", "gitlab", "junit", "sarif"])
def test_golden(name, results, tmp_path):
    rendered = normalize(name, render(name, results, RenderOptions()), tmp_path) + "\n"
    golden = GOLDEN / f"{name}.txt"
    if UPDATE:
        golden.write_text(rendered)
    assert rendered == golden.read_text()


def test_every_format_is_accepted_by_the_cli_and_config():
    assert set(FORMATS) == set(OUTPUT_FORMATS)


def test_sarif_validates_against_the_official_schema(results):
    document = json.loads(render("sarif", results, RenderOptions()))
    schema = json.loads(SCHEMA.read_text())
    assert schema["id"].endswith("sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(document)
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    from jaxlint.rules import all_rules

    assert [r["id"] for r in rules] == ["JAX000", "JAX001", "JAX002"] + [rule.code for rule in all_rules()]
    assert "informationUri" not in run["tool"]["driver"]  # jaxlint has no public home to link to
    for rule in rules:
        assert "helpUri" not in rule and rule["shortDescription"]["text"] and rule["help"]["text"]
    assert rules[1]["help"]["text"] == "`jaxlint rule JAX001` prints its documentation."
    for result in run["results"]:
        if "ruleIndex" in result:
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    fixed = [r for r in run["results"] if "fixes" in r]
    assert len(fixed) == 2, "the notebook's fix is in cell rows: not expressible against the .ipynb text"
    notebook = run["results"][-1]
    assert notebook["properties"] == {"cell": 2, "fixApplicability": "unsafe", "cellRegion": {
        "startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 64}}
    # The region is the .ipynb line of the cell's third source line ("w = jnp.take_along_axis(...").
    region = notebook["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 18 and region["startColumn"] == 10


def test_sarif_of_a_real_run_validates(tmp_path):
    (tmp_path / "m.py").write_text(MODEL)
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--isolated", "--output-format", "sarif", "-o",
                          "report.sarif", "m.py"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    document = json.loads((tmp_path / "report.sarif").read_text())
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(document)
    assert {r["ruleId"] for r in document["runs"][0]["results"]} >= {"JAX202", "JAX302"}
    assert document["runs"][0]["tool"]["driver"]["version"] == __version__


def test_junit_is_well_formed_with_one_suite_per_file(results):
    root = ET.fromstring(render("junit", results, RenderOptions()))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["broken.py", "clean.py", "pkg/model.py", "tutorial.ipynb"]
    assert root.get("tests") == "6" and root.get("failures") == "5"
    assert suites[1].find("testcase").find("failure") is None


def test_gitlab_fingerprints_are_stable_and_unique(results, tmp_path):
    first = json.loads(render("gitlab", results, RenderOptions()))
    assert len({item["fingerprint"] for item in first}) == len(first)
    # A line added above the findings moves them but keeps their fingerprints.
    model = tmp_path / "pkg" / "model.py"
    model.write_text("# a new comment\n" + MODEL)
    for d in results[2].diagnostics:
        d.start = Location(d.start.row + 1, d.start.column)
        d.end = Location(d.end.row + 1, d.end.column)
    second = json.loads(render("gitlab", results, RenderOptions()))
    assert [i["fingerprint"] for i in first] == [i["fingerprint"] for i in second]
    assert [i["location"]["positions"]["begin"]["line"] for i in second][1:4] == [4, 7, 9]


def test_gitlab_paths_are_relative_to_ci_project_dir(results, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path / "pkg")
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path))
    import dataclasses

    path = str(tmp_path / "pkg" / "model.py")
    results = [FileResult(path, [dataclasses.replace(d, path=path) for d in results[2].diagnostics])]
    assert json.loads(render("gitlab", results, RenderOptions()))[0]["location"]["path"] == "pkg/model.py"


def test_github_escapes_properties_and_data():
    d = Diagnostic("JAX202", "100% wrong,\nreally", "a,b:c.py", Location(1, 1), Location(1, 2))
    line = render("github", [FileResult("a,b:c.py", [d])], RenderOptions())
    assert line == ("::error file=a%2Cb%3Ac.py,line=1,col=1,endLine=1,endColumn=2,title=JAX202::"
                    "a,b:c.py:1:1: JAX202 100%25 wrong,%0Areally")


def test_output_file_option(tmp_path):
    (tmp_path / "m.py").write_text(MODEL)
    for name in OUTPUT_FORMATS:
        run = subprocess.run([sys.executable, "-m", "jaxlint", "--isolated", "--output-format", name, "-o",
                              f"out.{name}", "m.py"], cwd=tmp_path, capture_output=True, text=True)
        assert run.returncode == 1 and run.stdout == "", (name, run.stdout, run.stderr)
        assert (tmp_path / f"out.{name}").read_text().strip()
