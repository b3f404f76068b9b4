"""Notebooks: IPython syntax masked, findings per cell, fixes into the right cell, byte-identical otherwise."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jaxlint.run.ipython_masking import mask_cell, unmask
from jaxlint.run.notebooks import lint_notebook_text, rewrite_sources, source_spans
from jaxlint.run.runner import Mode, process_file
from jaxlint.project.settings import Settings

NONE_WRAP = "jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)"
TRUE_WRAP = "jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=True)"


def make_notebook(cells: list[tuple[str, str]], path: Path, **write_kwargs) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for kind, source in cells:
        cell = nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source)
        nb.cells.append(cell)
    nbformat.write(nb, str(path))
    return path


def lint(path: Path, mode: Mode = Mode.CHECK):
    return process_file(path, Settings(root=path.parent), mode, False)


# -- masking ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "%time f(x)", "%load_ext autoreload", "!pip install -q jax", "?jnp.take", "jnp.take?", "jnp.take??",
    "files = !ls", "t = %timeit -o f()", "a, b = !echo 1 2", "%matplotlib inline", "!!ls",
])
def test_ipython_lines_are_masked(line):
    masked = mask_cell(f"import jax\n{line}\nx = 1\n")
    assert masked.masked == {0: line + "\n"}
    assert "pass" in masked.text.splitlines()[1]
    compile(masked.text, "<cell>", "exec")


@pytest.mark.parametrize("source", [
    "z = (x\n     % 2)\n",  # modulo inside brackets
    "z = x \\\n    % 2\n",  # modulo after a continuation
    's = """\n%not a magic\n!nor this\nwhat?\n"""\n',  # inside a triple-quoted string
    "a != b\n",
    "x = 1  # what?\n",  # a question in a comment
    "s = 'why?'\n",
])
def test_python_is_not_masked(source):
    masked = mask_cell(source)
    assert masked.masked == {} and masked.text == source


def test_indented_magic_keeps_the_block_valid():
    source = "for f in files:\n    !echo {f}\nif x:\n    %time g()\n"
    masked = mask_cell(source)
    compile(masked.text, "<cell>", "exec")
    assert unmask(masked.text, masked.masked) == source


def test_magic_continuation_lines_are_masked():
    source = "!pip install \\\n    jax jaxlib\nx = 1"
    masked = mask_cell(source)
    compile(masked.text, "<cell>", "exec")
    assert len(masked.masked) == 2
    assert unmask(masked.text, masked.masked) == source


def test_cell_magics():
    timed = mask_cell("%%time\nx = 1\n")
    assert not timed.skipped and timed.magic == "time" and timed.text.startswith("pass")
    for magic in ("%%writefile helper.py", "%%bash", "%%html", "%%javascript"):
        assert mask_cell(f"{magic}\nimport jax.experimental.export\n").skipped


def test_unmask_refuses_damaged_tags():
    masked = mask_cell("!ls\nx = 1\n")
    assert unmask(masked.text.replace("pass", "pass_"), masked.masked) is None
    assert unmask("x = 1\n", masked.masked) is None


# -- linting -----------------------------------------------------------------------------------------------------
TUTORIAL = [
    ("markdown", "# Gathering with JAX\nNegative indices, the old way."),
    ("code", "!pip install -q jax\n%load_ext autoreload\n%autoreload 2"),
    ("code", "import jax\nimport jax.numpy as jnp"),
    ("code", f"%%time\nx = jnp.arange(4.0)\nidx = jnp.array([-1, 1, 5])\ny = {NONE_WRAP}\ny"),
    ("code", f"%%writefile helper.py\nimport jax.numpy as jnp\n{NONE_WRAP}\n"),
    ("code", f"files = !ls\njnp.take_along_axis?\n%timeit {NONE_WRAP}\nfor f in files:\n    !echo {{f}}\n"
             "z = (x\n     % 2)"),
    ("code", "def broken(:\n    pass"),
    ("code", "w = jnp.take_along_axis(x, idx, axis=0, mode='promise_in_bounds')"),
]


def test_findings_are_reported_per_cell(tmp_path):
    path = make_notebook(TUTORIAL, tmp_path / "tutorial.ipynb")
    result = lint(path)
    found = [(d.code, d.cell, d.start.row, d.start.column) for d in result.diagnostics]
    # Cell 4 (after %%time) is checked, with `jnp` imported in cell 3; the %%writefile cell 5 and the masked
    # %timeit line of cell 6 are not; the broken cell 7 is one JAX000 and cell 8 is still checked.
    assert found == [("JAX202", 4, 4, 5), ("JAX000", 7, 1, 12), ("JAX202", 8, 1, 5)]
    assert result.internal_error is None


def test_text_and_json_output_name_the_cell(tmp_path):
    path = make_notebook(TUTORIAL, tmp_path / "tutorial.ipynb")
    run = subprocess.run([sys.executable, "-m", "jaxlint", str(path), "--isolated"], capture_output=True, text=True)
    assert f"{path}:cell 4:4:5: JAX202 [*]" in run.stdout
    assert f"{path}:cell 7:1:12: JAX000" in run.stdout
    assert run.returncode == 1
    run = subprocess.run([sys.executable, "-m", "jaxlint", str(path), "--isolated", "--output-format", "json"],
                         capture_output=True, text=True)
    items = json.loads(run.stdout)
    assert [(i["code"], i["cell"], i["location"]["row"]) for i in items] == [
        ("JAX202", 4, 4), ("JAX000", 7, 1), ("JAX202", 8, 1)]
    edit = items[0]["fix"]["edits"][0]
    assert edit["location"]["row"] == 4  # edits are located in the cell too


def test_check_never_writes(tmp_path):
    path = make_notebook(TUTORIAL, tmp_path / "tutorial.ipynb")
    before = path.read_bytes()
    lint(path)
    lint(path, Mode.DIFF)
    assert path.read_bytes() == before


def test_no_findings_no_parse_of_nonpython_notebooks(tmp_path):
    path = make_notebook([("code", NONE_WRAP)], tmp_path / "julia.ipynb")
    data = json.loads(path.read_text())
    data["metadata"] = {"kernelspec": {"name": "julia-1.9", "language": "julia"}}
    path.write_text(json.dumps(data))
    assert lint(path).diagnostics == []


def test_invalid_json_is_one_jax000(tmp_path):
    path = tmp_path / "bad.ipynb"
    path.write_text('{"cells": [')
    result = lint(path)
    assert [d.code for d in result.diagnostics] == ["JAX000"] and result.diagnostics[0].cell is None
    assert "invalid JSON" in result.diagnostics[0].message


# -- fixing ---------------------------------------------------------------------------------------------------
def test_fixes_go_into_the_right_cell_and_nothing_else_changes(tmp_path):
    path = make_notebook(TUTORIAL, tmp_path / "tutorial.ipynb")
    data = json.loads(path.read_text())
    data["cells"][3]["outputs"] = [{"name": "stdout", "output_type": "stream", "text": ["CPU times: 1 ms\n"]}]
    data["cells"][3]["execution_count"] = 3
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    before = json.loads(path.read_text())
    result = lint(path, Mode.FIX)
    after = json.loads(path.read_text())
    assert [(d.code, d.cell) for d in result.diagnostics] == [("JAX000", 7)]
    assert len(result.applied) == 2
    assert "".join(after["cells"][3]["source"]) == "".join(before["cells"][3]["source"]).replace(NONE_WRAP,
                                                                                                   TRUE_WRAP)
    assert "".join(after["cells"][7]["source"]) == (
        "w = jnp.take_along_axis(x, idx, axis=0, mode='promise_in_bounds', wrap_negative_indices=False)")
    # The masked %timeit line and the %%writefile cell are untouched, and so is everything but the two sources.
    assert after["cells"][5]["source"] == before["cells"][5]["source"]
    assert after["cells"][4]["source"] == before["cells"][4]["source"]
    for index in (3, 7):
        before["cells"][index]["source"] = after["cells"][index]["source"]
    assert after == before
    nbformat.validate(nbformat.reads(path.read_text(), as_version=4))
    # Converged: a second run changes nothing.
    again = path.read_bytes()
    lint(path, Mode.FIX)
    assert path.read_bytes() == again


def test_only_the_changed_source_bytes_change(tmp_path):
    path = make_notebook(TUTORIAL, tmp_path / "tutorial.ipynb")
    before = path.read_text()
    lint(path, Mode.FIX)
    after = path.read_text()
    import difflib

    changed = [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:1] in "+-"]
    assert len(changed) == 4, changed  # one line out and one in, for each of the two fixed cells
    assert after.endswith("}\n")


@pytest.mark.parametrize("indent,sort_keys,ensure_ascii", [(1, True, False), (2, False, False), (4, False, True),
                                                          (None, False, False)])
def test_foreign_layouts_are_kept(tmp_path, indent, sort_keys, ensure_ascii):
    """Notebooks written by VS Code, Colab or scripts: only the fixed source value changes."""
    nb = {"metadata": {"language_info": {"name": "python"}, "colab": {"provenance": []}}, "nbformat": 4,
          "nbformat_minor": 0,
          "cells": [{"cell_type": "code", "source": ["import jax.numpy as jnp  # café\n", NONE_WRAP],
                     "metadata": {"id": "abc"}, "execution_count": None, "outputs": []},
                    {"cell_type": "code", "source": NONE_WRAP + "\n", "metadata": {}, "execution_count": None,
                     "outputs": []}]}
    raw = json.dumps(nb, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    path = tmp_path / "colab.ipynb"
    path.write_text(raw, encoding="utf-8")
    lint(path, Mode.FIX)
    fixed = path.read_text(encoding="utf-8")
    nb["cells"][0]["source"][1] = TRUE_WRAP
    nb["cells"][1]["source"] = TRUE_WRAP + "\n"
    assert fixed == json.dumps(nb, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)


def test_round_trip_without_fixes_is_byte_identical(tmp_path):
    path = make_notebook([("code", "import jax\n%time jax.devices()\n")], tmp_path / "clean.ipynb")
    raw = path.read_text()
    spans = source_spans(raw)
    texts = {i: "".join(json.loads(raw)["cells"][i]["source"]) for i in spans}
    assert rewrite_sources(raw, texts) == raw
    before = path.read_bytes()
    lint(path, Mode.FIX)
    assert path.read_bytes() == before


def test_fix_next_to_magics_keeps_them(tmp_path):
    cell = f"import jax.numpy as jnp\n!nvidia-smi\ny = {NONE_WRAP}\n%time y.block_until_ready()"
    path = make_notebook([("code", cell)], tmp_path / "magic.ipynb")
    lint(path, Mode.FIX)
    source = "".join(json.loads(path.read_text())["cells"][0]["source"])
    assert source == cell.replace(NONE_WRAP, TRUE_WRAP)


def test_broken_cell_does_not_stop_fixes_elsewhere(tmp_path):
    path = make_notebook([("code", "import jax.numpy as jnp"), ("code", "x = ((("), ("code", NONE_WRAP)],
                         tmp_path / "broken.ipynb")
    result = lint(path, Mode.FIX)
    assert [(d.code, d.cell) for d in result.diagnostics] == [("JAX000", 2)]
    cells = json.loads(path.read_text())["cells"]
    assert "".join(cells[2]["source"]) == TRUE_WRAP and "".join(cells[1]["source"]) == "x = ((("


def test_directory_discovery_finds_notebooks(tmp_path):
    make_notebook([("code", f"import jax.numpy as jnp\n{NONE_WRAP}")], tmp_path / "nb.ipynb")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    make_notebook([("code", f"import jax.numpy as jnp\n{NONE_WRAP}")], tmp_path / ".ipynb_checkpoints" / "nb.ipynb")
    run = subprocess.run([sys.executable, "-m", "jaxlint", str(tmp_path), "--isolated"], capture_output=True,
                         text=True)
    assert run.stdout.count("JAX202") == 1 and "nb.ipynb:cell 1:2:1" in run.stdout


def test_lint_notebook_text_direct():
    raw = json.dumps({"cells": [{"cell_type": "code", "source": ["import jax.numpy as jnp\n", NONE_WRAP],
                                 "metadata": {}, "outputs": [], "execution_count": None}], "metadata": {},
                      "nbformat": 4, "nbformat_minor": 5})
    result, new_raw = lint_notebook_text(raw, "nb.ipynb", Settings(), Mode.FIX, False)
    assert result.diagnostics == [] and TRUE_WRAP in json.loads(new_raw)["cells"][0]["source"][1]
