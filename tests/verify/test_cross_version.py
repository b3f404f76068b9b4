"""End to end across JAX 0.10.2 (BEFORE) and 0.12.0.1 (AFTER) on CPU, with the sample project in tests/verify_sample.

Each verification runs the sample twice (~10 s per run on 2 cores), so the runs are shared where they can be.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.project.config import Overrides, SettingsResolver
from jaxlint.rules.jax102_removed_config_option import RemovedConfigOption
from jaxlint.rules.jax201_tuple_return import TupleReturn
from jaxlint.verify.plan import make_plan
from jaxlint.verify.verifier import verify
from tests.verify.wrong_rules import MeshgridWithoutList, TakeAlongAxisWrongBool

pytestmark = pytest.mark.jax
SAMPLE = Path(__file__).resolve().parents[1] / "verify_sample"
COMMAND = ["python", "run.py"]


def _jaxlint(*args, cwd):
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src")))


@pytest.fixture(scope="module")
def sample_json(old_python, new_python):
    proc = _jaxlint("verify", "sample", "--baseline-python", old_python, "--target-python", new_python,
                    "--platform", "cpu", "--output-format", "json", "--", "python", "run.py", cwd=SAMPLE)
    return proc


def test_sample_verifies_end_to_end(sample_json):
    assert sample_json.returncode == 0, sample_json.stdout + sample_json.stderr
    report = json.loads(sample_json.stdout)
    assert list(report) == ["baseline", "target", "sites", "watched"]  # "watched": an addition, at the end
    assert report["baseline"]["jax_version"] == "0.10.2"  # BEFORE genuinely ran on the old JAX
    assert report["target"]["jax_version"] == "0.12.0.1"
    for side in ("baseline", "target"):
        assert {"python", "jax_version", "devices", "exit_code", "seconds"} <= set(report[side])
        assert report[side]["exit_code"] == 0 and report[side]["seconds"] > 0
        assert report[side]["devices"] and report[side]["devices"][0].startswith("cpu:")
    sites = {(Path(s["file"]).name, s["row"], s["code"]): s for s in report["sites"]}
    assert all(Path(s["file"]).is_absolute() for s in report["sites"])
    assert {key: s["status"] for key, s in sites.items()} == {
        ("model.py", 6, "JAX102"): "verified", ("model.py", 14, "JAX201"): "verified",
        ("model.py", 20, "JAX202"): "verified", ("model.py", 25, "JAX202"): "verified",
        ("model.py", 30, "JAX202"): "verified", ("model.py", 37, "JAX202"): "verified",
    }
    assert sites[("model.py", 25, "JAX202")]["calls"] == 1  # inside jax.jit: concrete values via debug.callback
    assert sites[("model.py", 30, "JAX202")]["calls"] == 3  # inside lax.scan: one per step
    assert sites[("model.py", 37, "JAX202")]["calls"] == 1  # under jax.grad
    assert "deletes a statement" in sites[("model.py", 6, "JAX102")]["detail"]


def test_unfixed_code_really_breaks_on_the_new_jax(old_python, new_python):
    """The sample is a real test: its original code runs on 0.10.2 and fails on 0.12.0.1."""
    assert subprocess.run([old_python, "run.py"], cwd=SAMPLE, capture_output=True).returncode == 0
    proc = subprocess.run([new_python, "run.py"], cwd=SAMPLE, capture_output=True, text=True)
    assert proc.returncode != 0 and "Unrecognized config option: jax_exec_time_optimization_effort" in proc.stderr


def _verify(root: Path, rules, old_python, new_python, **kwargs):
    plan = make_plan([root / "sample"], SettingsResolver(Overrides()), root, rules=rules)
    return plan, verify(plan, COMMAND, baseline_python=old_python, target_python=new_python, platform="cpu",
                        **kwargs)


def _by_row(result):
    return {r.site.row: r for r in result.sites}


def test_missing_list_wrap_is_reported_as_differs(old_python, new_python):
    _, result = _verify(SAMPLE, [RemovedConfigOption, MeshgridWithoutList], old_python, new_python)
    assert result.exit_code == 1
    site = _by_row(result)[14]
    assert site.site.code == "JAX201" and site.status == "differs", site.detail
    assert "value: container type: builtins.list vs builtins.tuple" in site.detail
    assert "before [[[0. , 0.5, 1. ]" in site.detail.replace("  ", " ") or "before [" in site.detail
    assert "after (" in site.detail
    assert result.target.run.exit_code != 0  # grids.append on a tuple
    assert "'tuple' object has no attribute 'append'" in result.target.run.last_error_line()


@pytest.fixture(scope="module")
def wrong_bool(tmp_path_factory, old_python, new_python):
    root = tmp_path_factory.mktemp("sample")
    shutil.copytree(SAMPLE, root, dirs_exist_ok=True)
    rules = [RemovedConfigOption, TupleReturn, TakeAlongAxisWrongBool]
    plan, result = _verify(root, rules, old_python, new_python)
    return root, rules, plan, result


def test_wrong_boolean_is_reported_as_differs_with_the_first_differing_value(wrong_bool):
    _, _, _, result = wrong_bool
    sites = _by_row(result)
    assert result.exit_code == 1
    assert result.baseline.run.ok and result.target.run.ok  # silent: both runs succeed
    gather = sites[20]
    assert gather.status == "differs" and gather.site.code == "JAX202"
    # x = [10, 20, 30, 40], idx = [-1, 1, 5]: [40, 20, nan] before, [nan, 20, nan] with the wrong False.
    assert "call 1: value: values differ in 1 of 3 elements (first at index [0]: 40.0 vs nan)" in gather.detail
    assert "before [40., 20., nan]" in gather.detail and "after [nan, 20., nan]" in gather.detail
    scan = sites[30]  # inside lax.scan: idx [i - 2, i], first step i = 0: [30, 10] before, [nan, 10] after
    assert scan.status == "differs" and "call 1: value: values differ" in scan.detail
    assert "before [30., 10.]" in scan.detail and "after [nan, 10.]" in scan.detail
    # The correct fixes next to them still verify.
    assert {sites[row].status for row in (6, 14, 25, 37)} == {"verified"}


def test_apply_writes_only_the_verified_fixes(wrong_bool):
    from jaxlint.verify.main import apply_verified

    root, rules, _, result = wrong_bool
    apply_verified(result, SettingsResolver(Overrides()), unsafe=None, rules=rules)
    text = (root / "sample" / "model.py").read_text()
    assert "jax_exec_time_optimization_effort" not in text
    assert "grids = list(jnp.meshgrid(xs, ys))" in text
    assert text.count('mode="promise_in_bounds", wrap_negative_indices=False') == 2
    assert text.count("wrap_negative_indices=None") == 2  # the two wrong fixes were not written
    assert "wrap_negative_indices=False)" not in text.replace('"promise_in_bounds", wrap_negative_indices=False', "")


def test_probes_do_not_change_results(tmp_path, old_python, new_python):
    from jaxlint.verify.instrument import prepare_trees
    from jaxlint.verify.run import run_command

    plan = make_plan([SAMPLE / "sample"], SettingsResolver(Overrides()), SAMPLE)
    trees = prepare_trees(plan, tmp_path)
    plain = tmp_path / "plain"
    shutil.copytree(SAMPLE, plain)
    outputs = []
    for tree, probe_dir in ((trees.before, trees.probe_dir), (plain, None)):
        run = run_command("RUN", ["python", "run.py", str(tmp_path / f"{tree.name}.npz")], old_python, tree,
                          probe_dir, tmp_path / f"records-{tree.name}", platform="cpu", max_calls=10)
        assert run.ok, run.stderr_tail
        outputs.append(tmp_path / f"{tree.name}.npz")
    assert list((tmp_path / "records-before").glob("records-*.pkl"))  # the probes did run
    check = ("import numpy as np, sys\n"
             "a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n"
             "assert sorted(a.files) == sorted(b.files), (a.files, b.files)\n"
             "for k in a.files:\n"
             "    assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k], equal_nan=True), k\n"
             "print(len(a.files))\n")
    proc = subprocess.run([new_python, "-c", check, *map(str, outputs)], capture_output=True, text=True)
    assert proc.returncode == 0 and int(proc.stdout) >= 5, proc.stderr


def test_verify_rules_examples(old_python, new_python):
    proc = _jaxlint("verify", "--rules", "--baseline-python", old_python, "--target-python", new_python,
                    "--platform", "cpu", "--output-format", "json", cwd=SAMPLE)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    codes = {s["code"] for s in report["sites"]}
    assert {"JAX202"} <= codes
    assert all(s["status"] == "verified" for s in report["sites"]), report["sites"]
