"""verify across JAX 0.10.2 (BEFORE) and 0.12.0.1 (AFTER): renames probed, nothing compared is a failure,
--from-git after --fix, --repeat-baseline marks nondeterministic sites."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.jax
REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "verify_sample"


def _jaxlint(*args, cwd):
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO / "src")))


def _sites(proc) -> dict:
    return {(Path(s["file"]).name, s["row"], s["code"]): s for s in json.loads(proc.stdout)["sites"]}


def test_a_rename_is_probed_and_verified(tmp_path, old_python, new_python):
    (tmp_path / "m.py").write_text("import jax\nimport jax.numpy as jnp\n\n"
                                   "print(jax.core.valid_jaxtype(jnp.ones(3)))\n")
    proc = _jaxlint("verify", "m.py", "--baseline-python", old_python, "--target-python", new_python,
                    "--platform", "cpu", "--output-format", "json", "--", "python", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    site = _sites(proc)[("m.py", 4, "JAX101")]
    assert site["status"] == "verified" and site["calls"] == 1, site
    assert "  BEFORE | True" in proc.stderr and "  AFTER | True" in proc.stderr  # streamed, prefixed


def test_nothing_compared_fails_unless_allowed(old_python, new_python):
    args = ["verify", "sample", "--baseline-python", old_python, "--target-python", new_python, "--platform", "cpu"]
    proc = _jaxlint(*args, "--", "python", "-c", "pass", cwd=SAMPLE)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "NOTHING COMPARED" in proc.stdout and "6 not-reached" in proc.stdout
    allowed = _jaxlint(*args, "--allow-nothing-compared", "--", "python", "-c", "pass", cwd=SAMPLE)
    assert allowed.returncode == 0 and "accepted: --allow-nothing-compared" in allowed.stdout


def test_fix_then_verify_from_git(tmp_path, old_python, new_python):
    project = tmp_path / "project"
    shutil.copytree(SAMPLE, project, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "written for JAX 0.10.2"]):
        subprocess.run(["git", *argv], cwd=project, check=True, env=env)
    assert _jaxlint("check", "sample", "--fix", cwd=project).returncode == 0
    proc = _jaxlint("verify", "sample", "--from-git", "HEAD", "--baseline-python", old_python, "--target-python",
                    new_python, "--platform", "cpu", "--output-format", "json", "--", "python", "run.py", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "BEFORE: as committed in HEAD" in proc.stderr
    assert {s["status"] for s in _sites(proc).values()} == {"verified"} and len(_sites(proc)) == 6


def test_repeat_baseline_marks_a_nondeterministic_site(tmp_path, old_python, new_python):
    (tmp_path / "m.py").write_text(
        "import jax.numpy as jnp\nimport numpy as np\n\n"
        "values = jnp.asarray(np.random.rand(3))  # unseeded\n"
        "print(jnp.take_along_axis(values, jnp.array([0, 2]), axis=0, wrap_negative_indices=None))\n")
    proc = _jaxlint("verify", "m.py", "--baseline-python", old_python, "--target-python", new_python,
                    "--platform", "cpu", "--repeat-baseline", "--output-format", "json", "--", "python", "m.py",
                    cwd=tmp_path)
    site = _sites(proc)[("m.py", 5, "JAX202")]
    # The unseeded values enter the site as its argument: recorded in both runs, they differ (inputs-differ).
    assert proc.returncode == 1 and site["status"] == "inputs-differ", proc.stderr
    assert site["detail"].startswith("NONDETERMINISTIC: two BEFORE runs differ here"), site
    assert "argument `values`" in site["detail"], site
    assert "BEFORE2 |" in proc.stderr


def test_a_site_says_whether_the_changed_behaviour_was_exercised(tmp_path, old_python, new_python):
    (tmp_path / "m.py").write_text(
        "import jax.numpy as jnp\n\nvalues = jnp.arange(4.0)\n"
        "print(jnp.take_along_axis(values, jnp.array([0, 2]), axis=0, wrap_negative_indices=None))\n"
        "print(jnp.take_along_axis(values, jnp.array([-1, 2]), axis=0, wrap_negative_indices=None))\n")
    proc = _jaxlint("verify", "m.py", "--baseline-python", old_python, "--target-python", new_python,
                    "--platform", "cpu", "--output-format", "json", "--", "python", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    sites = _sites(proc)
    assert "behaviour-relevant inputs seen: NO" in sites[("m.py", 4, "JAX202")]["detail"]
    assert "behaviour-relevant inputs seen: yes" in sites[("m.py", 5, "JAX202")]["detail"]
