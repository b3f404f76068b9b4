"""A check whose files are all decided on ``ast`` never imports libcst (issue 38: about a third of a one-file run's
start-up); a file that goes to libcst still gets its findings. Each check runs in a process of its own, as
pre-commit runs it, and says at its end (``os._exit`` included) whether libcst was imported."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Runs ``jaxlint`` as its entry point does, and writes, as the process ends, whether libcst was imported.
_WRAPPER = """
import json, os, sys
report, sys.argv = sys.argv[1], ["jaxlint", *sys.argv[2:]]
def write():
    with open(report, "w") as handle:
        json.dump("libcst" in sys.modules, handle)
exit = os._exit
os._exit = lambda code: (write(), exit(code))
import atexit
atexit.register(write)
from jaxlint.ui.entry import entry_point
entry_point()
"""


def _check(tmp_path: Path, source: str) -> tuple[str, bool]:
    path = tmp_path / "module.py"
    path.write_text(source)
    report = tmp_path / "libcst.json"
    done = subprocess.run([sys.executable, "-c", _WRAPPER, str(report), "check", str(path), "--no-cache",
                           "--output-format", "concise"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    return done.stdout, json.loads(report.read_text())


def test_a_check_decided_on_ast_does_not_import_libcst(tmp_path):
    output, imported = _check(tmp_path, "import jax\n\njax.tree_map(f, t)\n")
    assert "JAX101" in output  # a finding, with its fix, from the ast tree
    assert not imported


# JAX508 on the shape of dalle-mini's tools/train/train.py: a pop and an isinstance test of values that are not flax
# variables (a step's batch, a parameter), beside a member called on what ``init`` returned
_JAX508_FILE = """import flax
from flax.core.frozen_dict import FrozenDict


def train_step(state, batch):
    minibatch, labels = batch.pop("labels")
    return state, labels


def spec(x):
    if isinstance(x, FrozenDict):
        return x
    return None


variables = model.init(rng, x)
params = variables["params"].unfreeze()
"""


def test_a_jax508_check_decided_on_ast_does_not_import_libcst(tmp_path):
    output, imported = _check(tmp_path, _JAX508_FILE)
    assert output.count("JAX508") == 1 and ":17:" in output  # the unfreeze, from the ast tree
    assert not imported


def test_a_check_that_goes_to_libcst_imports_it_and_finds(tmp_path):
    # JAX101's index-update rewrite is decided on libcst's tree
    output, imported = _check(tmp_path, "import jax\n\ny = jax.ops.index_update(x, 0, 1.0)\n")
    assert "JAX101" in output and "index_update" in output
    assert imported


def _check_many(tmp_path: Path, sources: list[str], *options: str) -> tuple[str, bool]:
    """A check of enough files to start worker processes (``-j 2``): the report says whether the main process, which
    warms the engine up before forking, imported libcst."""
    for number, source in enumerate(sources):
        (tmp_path / f"module_{number}.py").write_text(source)
    report = tmp_path / "libcst.json"
    done = subprocess.run([sys.executable, "-c", _WRAPPER, str(report), "check", ".", "--no-cache", "-j", "2",
                           "--output-format", "concise", *options], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout, json.loads(report.read_text())


def test_a_parallel_check_decided_on_ast_does_not_import_libcst_before_forking(tmp_path):
    sources = ["import jax\n\njax.tree_map(f, t)\n"] + [f"x = {number}\n" for number in range(40)]
    output, imported = _check_many(tmp_path, sources)
    assert "JAX101" in output
    assert not imported


def test_a_parallel_check_whose_worker_needs_libcst_still_finds(tmp_path):
    sources = ["import jax\n\ny = jax.ops.index_update(x, 0, 1.0)\n"] + [f"x = {number}\n" for number in range(40)]
    output, imported = _check_many(tmp_path, sources)
    assert "JAX101" in output and "index_update" in output
    assert not imported  # the worker that met the file imported it, not the main process


def test_a_parallel_fix_warms_libcst_up_before_forking(tmp_path):
    sources = ["import jax\n\njax.tree_map(f, t)\n"] + [f"x = {number}\n" for number in range(40)]
    _, imported = _check_many(tmp_path, sources, "--fix")
    assert imported
    assert "jax.tree.map" in (tmp_path / "module_0.py").read_text()
