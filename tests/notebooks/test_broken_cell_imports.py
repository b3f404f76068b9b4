"""Issue 24 item 9: a cell that does not parse keeps, for the later cells, the imports it made before its syntax
error (ruff recovers the statements before the error); nothing in it is reported or fixed but the JAX000."""
from __future__ import annotations

import json
from pathlib import Path

from jaxlint.run.notebooks import recovered_imports
from tests.cli.test_cli import run
from tests.notebooks.test_notebooks import make_notebook

BROKEN = "import jax\nfrom jax import numpy as np2\nx = (\n"
LATER = "g = np2.meshgrid(a, b)\ng.append(1)\nk = jax.tree_map(f, t)\n"
LATER_FIXED = "g = list(np2.meshgrid(a, b))\ng.append(1)\nk = jax.tree.map(f, t)\n"


def _cells(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]


def test_later_cells_see_the_imports_of_a_broken_cell(tmp_path):
    make_notebook([("code", BROKEN), ("code", LATER)], tmp_path / "nb.ipynb")
    result = run(["--no-cache", "--output-format", "concise", "-q"], tmp_path)
    assert [line.split(" [*]")[0].split(" SyntaxError")[0] for line in result.stdout.splitlines()] == [
        "nb.ipynb:cell 1:3:5: JAX000", "nb.ipynb:cell 2:1:5: JAX201", "nb.ipynb:cell 2:3:5: JAX101"]


def test_fixes_use_them_and_leave_the_broken_cell_as_it_is(tmp_path):
    path = make_notebook([("code", BROKEN), ("code", LATER)], tmp_path / "nb.ipynb")
    result = run(["--no-cache", "--fix"], tmp_path)
    assert result.exit_code == 1  # the JAX000 remains
    assert _cells(path) == [BROKEN, LATER_FIXED]


def test_nothing_is_reported_in_the_recovered_imports(tmp_path):
    # `jax.experimental.maps` is reported where it parses; in the broken cell only the JAX000 is
    broken = "from jax.experimental import maps\nimport jax\nx = (\n"
    path = make_notebook([("code", broken), ("code", "k = jax.tree_map(f, t)\n")], tmp_path / "nb.ipynb")
    result = run(["--no-cache", "--output-format", "concise", "-q"], tmp_path)
    assert [line.split(": ")[0] + ": " + line.split(": ")[1][:6] for line in result.stdout.splitlines()] == [
        "nb.ipynb:cell 1:3:5: JAX000", "nb.ipynb:cell 2:1:5: JAX101"]
    run(["--no-cache", "--fix"], tmp_path)
    assert _cells(path) == [broken, "k = jax.tree.map(f, t)\n"]


def test_recovered_imports_are_the_whole_statements_before_the_error():
    text = "import os\nfrom a import (b,\n    c)\ny = 1\nimport z; q = (\n1 +\n"
    # the error is reported on row 6; row 5 starts a statement the error cuts through: it is left out
    assert recovered_imports(text, 6) == "import os  # noqa\nfrom a import b, c  # noqa\n"
    assert recovered_imports("x = (\n", 1) == ""
