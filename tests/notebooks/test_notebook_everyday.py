"""Notebooks as users have them: a cell that does not parse, Colab form lines before a cell magic, a notebook on
stdin, --add-noqa in cells, and every output format pointing at the real place."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import run
from tests.notebooks.test_notebooks import make_notebook

IMPORT = "import jax.numpy as jnp\n"
TUPLE_USE = "g = jnp.meshgrid(a, b)\ng.append(1)\n"  # JAX201 at 1:5 of its cell, with a safe fix
TUPLE_USE_FIXED = "g = list(jnp.meshgrid(a, b))\ng.append(1)\n"


def _cells(path: Path) -> list[str]:
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in json.loads(path.read_text())["cells"]]


# -- a cell that does not parse -------------------------------------------------------------------------------------
def test_a_broken_cell_is_one_jax000_and_the_other_cells_are_still_linted(tmp_path):
    make_notebook([("code", IMPORT), ("code", "def f(:\n    pass\n"), ("code", TUPLE_USE)], tmp_path / "nb.ipynb")
    result = run(["--no-cache", "--output-format", "concise"], tmp_path)
    lines = result.stdout.splitlines()
    assert lines[0] == "nb.ipynb:cell 2:1:7: JAX000 SyntaxError: invalid syntax"
    # `jnp` was imported in cell 1, before the broken cell: it still resolves in cell 3.
    assert lines[1].startswith("nb.ipynb:cell 3:1:5: JAX201 [*] `jnp.meshgrid` returns a tuple")
    assert len([line for line in lines if ": JAX" in line]) == 2


def test_fixes_go_into_the_cells_that_parse(tmp_path):
    path = make_notebook([("code", IMPORT), ("code", "x = (\n"), ("code", TUPLE_USE)], tmp_path / "nb.ipynb")
    result = run(["--no-cache", "--fix"], tmp_path)
    assert result.exit_code == 1  # the JAX000 remains
    assert _cells(path) == [IMPORT, "x = (\n", TUPLE_USE_FIXED]


# -- cell magics after Colab form lines and comments -----------------------------------------------------------------
def test_a_cell_magic_after_colab_form_lines_is_recognised(tmp_path):
    make_notebook([("code", "#@title Setup\n#@markdown Renders a table.\n%%html\n<b>not python</b>\n"),
                   ("code", IMPORT + TUPLE_USE)], tmp_path / "nb.ipynb")
    result = run(["--no-cache", "--output-format", "concise"], tmp_path)
    assert "JAX000" not in result.stdout
    assert "nb.ipynb:cell 2:2:5: JAX201" in result.stdout


def test_a_python_cell_magic_after_a_comment_keeps_its_body_checked_and_fixed(tmp_path):
    path = make_notebook([("code", "# how long it takes\n%%time\n" + IMPORT + TUPLE_USE)], tmp_path / "nb.ipynb")
    result = run(["--no-cache", "--output-format", "concise"], tmp_path)
    assert "nb.ipynb:cell 1:4:5: JAX201" in result.stdout and "JAX000" not in result.stdout
    run(["--no-cache", "--fix"], tmp_path)
    assert _cells(path) == ["# how long it takes\n%%time\n" + IMPORT + TUPLE_USE_FIXED]


def test_mask_recognises_magics_only_after_comments_and_blank_lines():
    from jaxlint.run.ipython_masking import mask_cell

    assert mask_cell("#@markdown x\n\n  # note\n%%bash\nls\n").skipped
    assert not mask_cell("x = 1\n%%bash\n").skipped  # not first: IPython would not take it as a cell magic


# -- stdin ----------------------------------------------------------------------------------------------------------
def test_a_notebook_on_stdin_is_linted_as_a_notebook(tmp_path):
    path = make_notebook([("code", IMPORT), ("code", TUPLE_USE)], tmp_path / "nb.ipynb")
    result = run(["--no-cache", "-", "--stdin-filename", "nb.ipynb"], tmp_path, input=path.read_bytes())
    assert result.exit_code == 1
    assert "nb.ipynb:cell 2:1:5: JAX201" in result.stdout


def test_a_notebook_on_stdin_is_fixed_to_stdout(tmp_path):
    path = make_notebook([("code", IMPORT), ("code", TUPLE_USE), ("code", "x = (\n")], tmp_path / "nb.ipynb")
    original = path.read_bytes()
    result = run(["--no-cache", "--fix", "-", "--stdin-filename", "nb.ipynb"], tmp_path, input=original)
    fixed = tmp_path / "fixed.ipynb"
    fixed.write_text(result.stdout)
    assert _cells(fixed) == [IMPORT, TUPLE_USE_FIXED, "x = (\n"]
    assert "cell 3:1:5: JAX000" in result.stderr  # the findings that remain go to stderr, as for .py files
    assert path.read_bytes() == original


# -- --add-noqa -------------------------------------------------------------------------------------------------------
def test_add_noqa_in_notebook_cells(tmp_path):
    path = make_notebook([("code", IMPORT), ("code", "%matplotlib inline\n" + TUPLE_USE), ("markdown", "# hi")],
                         tmp_path / "nb.ipynb")
    result = run(["--no-cache", "--add-noqa"], tmp_path)
    assert result.exit_code == 0 and "Added 1 noqa directive." in result.stderr
    assert _cells(path) == [IMPORT, "%matplotlib inline\ng = jnp.meshgrid(a, b)  # noqa: JAX201\ng.append(1)\n",
                            "# hi"]
    assert run(["--no-cache"], tmp_path).exit_code == 0, "the directive suppresses the finding"
    before = path.read_bytes()
    assert "Added 0 noqa directives." in run(["--no-cache", "--add-noqa"], tmp_path).stderr
    assert path.read_bytes() == before


# -- where the formats point ----------------------------------------------------------------------------------------
def _string_layout(path: Path) -> Path:
    """The same notebook with each cell's source as one JSON string (as some tools save it)."""
    data = json.loads(path.read_text())
    for cell in data["cells"]:
        cell["source"] = "".join(cell["source"])
    path.write_text(json.dumps(data, indent=2))
    return path


def _ipynb_position(path: Path, needle: str, inside: str) -> tuple[int, int]:
    """1-based line and column in the .ipynb text of ``needle`` within the first JSON line containing ``inside``."""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if inside in line:
            return number, line.index(needle) + 1
    raise AssertionError(inside)


@pytest.mark.parametrize("layout", ["lines", "string"])
def test_line_only_formats_point_at_the_ipynb_line(tmp_path, layout):
    path = make_notebook([("code", IMPORT), ("markdown", "text"), ("code", "x = 1\n" + TUPLE_USE)],
                         tmp_path / "nb.ipynb")
    if layout == "string":
        _string_layout(path)
    row, column = _ipynb_position(path, "jnp.meshgrid", "jnp.meshgrid")

    github = run(["--no-cache", "--output-format", "github"], tmp_path).stdout
    assert f"::error file=nb.ipynb,line={row},col={column},endLine={row}," in github
    assert "nb.ipynb:cell 3:2:5: JAX201" in github  # the message keeps cell and row

    [item] = json.loads(run(["--no-cache", "--output-format", "gitlab"], tmp_path).stdout)
    assert item["location"]["positions"]["begin"] == {"line": row, "column": column}
    assert "(cell 3, line 2)" in item["description"]

    junit = run(["--no-cache", "--output-format", "junit"], tmp_path).stdout
    assert f'line="{row}"' in junit and "at cell 3:2:5" in junit

    sarif = json.loads(run(["--no-cache", "--output-format", "sarif"], tmp_path).stdout)
    [result] = sarif["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (row, column)
    assert result["properties"]["cell"] == 3
    cell_region = result["properties"]["cellRegion"]
    assert (cell_region["startLine"], cell_region["startColumn"]) == (2, 5)
    assert "fixes" not in result, "a fix in cell rows cannot be expressed against the .ipynb text"

    # The JSON contract is unchanged: cell and the row within the cell.
    [finding] = json.loads(run(["--no-cache", "--output-format", "json"], tmp_path).stdout)
    assert (finding["cell"], finding["location"]) == (3, {"row": 2, "column": 5})

    text = run(["--no-cache"], tmp_path).stdout
    assert "nb.ipynb:cell 3:2:5: JAX201" in text


def test_the_ipynb_column_counts_json_escapes(tmp_path):
    # A literal backslash (two characters in JSON), a real tab (``\t`` there) and an é (kept as is by nbformat).
    path = make_notebook([("code", IMPORT + 's = "\\u00e9\té"; g = jnp.meshgrid(a, b)\ng.append(1)\n')],
                         tmp_path / "nb.ipynb")
    row, column = _ipynb_position(path, "jnp.meshgrid", "jnp.meshgrid")
    github = run(["--no-cache", "--output-format", "github"], tmp_path).stdout
    assert f"line={row},col={column}," in github


def test_notebooks_module_does_not_import_the_runner():
    """notebooks <-> runner was an import cycle; both now take FileResult and Mode from jaxlint.run.results."""
    code = "import sys, jaxlint.run.notebooks; assert 'jaxlint.run.runner' not in sys.modules, sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_notebook_on_stdin_is_located_in_the_stdin_text_not_in_a_file_of_that_name(tmp_path):
    piped = make_notebook([("code", IMPORT), ("code", TUPLE_USE)], tmp_path / "piped.ipynb")
    # A file of the same name on disk with other content (the editor's buffer differs from the saved file).
    make_notebook([("markdown", "# long\n" * 30), ("code", "x = 1\n")], tmp_path / "nb.ipynb")
    row, column = _ipynb_position(piped, "jnp.meshgrid", "jnp.meshgrid")
    result = run(["--no-cache", "--output-format", "github", "-", "--stdin-filename", "nb.ipynb"], tmp_path,
                 input=piped.read_bytes())
    assert f"::error file=nb.ipynb,line={row},col={column}," in result.stdout
    from jaxlint.output.common import STDIN_TEXTS

    assert STDIN_TEXTS == {}, "the stdin text is forgotten after the run"
