"""``--baseline-jax``: the requirements taken from the target, and a real build (cached, reused)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.verify.envs import env_path, requirements_for

SAMPLE = Path(__file__).resolve().parents[1] / "verify_sample"


def test_requirements_exclude_jax_packages_and_keep_versions():
    frozen = ["jax==0.12.0.1", "jaxlib==0.12.0.1", "jax-cuda12-plugin==0.12.0.1", "jax-cuda12-pjrt==0.12.0.1",
              "numpy==2.5.5", "flax==0.12.0", "Opt_Einsum==3.4.0", "mypkg @ file:///src/mypkg", "jaxlint==0.1.0"]
    req = requirements_for("0.10.2", None, frozen)
    assert req.jax == ["jax[cuda12]==0.10.2", "jaxlib==0.10.2"]  # the target has the CUDA plugin
    assert req.others == ["flax==0.12.0", "numpy==2.5.5", "Opt_Einsum==3.4.0"]
    assert req.skipped == ["mypkg @ file:///src/mypkg"]
    assert requirements_for("0.10.2", "cpu", frozen).jax == ["jax==0.10.2", "jaxlib==0.10.2"]
    assert requirements_for("0.10.2", "tpu", frozen).jax[0] == "jax[tpu]==0.10.2"
    assert requirements_for("0.10.2", "gpu", ["numpy==2"]).jax[0] == "jax[cuda12]==0.10.2"


def test_env_path_depends_on_everything_installed(monkeypatch, tmp_path):
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path))
    one = env_path("0.10.2", "cpu", "3.12.1", requirements_for("0.10.2", "cpu", ["numpy==2.5.5"]))
    two = env_path("0.10.2", "cpu", "3.12.1", requirements_for("0.10.2", "cpu", ["numpy==2.5.4"]))
    assert one.parent == tmp_path and one != two and one.name.startswith("jax-0.10.2-cpu-py312-")


@pytest.mark.jax
@pytest.mark.slow
def test_baseline_jax_builds_once_and_verifies_the_sample(new_python, tmp_path):
    """Builds a JAX 0.10.2 venv from the target's packages (cached under $JAXLINT_JAXENVS/verify-envs), then
    verifies the sample with it; the second use reuses it. Built with uv, which is quicker (pip builds the 0.4.20
    and 0.4.13 baselines below, and every environment of tests/exports/test_fresh_envs.py)."""
    from tests.support.jaxenv import ENVS, uv_executable

    env = dict(os.environ, JAXLINT_ENV_DIR=str(ENVS / "verify-envs"), JAXLINT_INSTALLER=uv_executable(),
               PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    argv = [sys.executable, "-m", "jaxlint", "verify", "sample", "--baseline-jax", "0.10.2", "--target-python",
            new_python, "--platform", "cpu", "--output-format", "json", "--", "python", "run.py"]
    first = subprocess.run(argv, cwd=SAMPLE, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "baseline env (JAX 0.10.2)" in first.stderr and "rm -rf" in first.stderr
    report = json.loads(first.stdout)
    assert report["baseline"]["jax_version"] == "0.10.2"
    assert str(ENVS / "verify-envs") in report["baseline"]["python"]
    assert {site["status"] for site in report["sites"]} == {"verified"}
    from jaxlint.verify.envs import MARKER

    built = Path(report["baseline"]["python"]).parents[1]
    assert (built / MARKER).exists()
    again = subprocess.run(argv[:4] + argv[5:9] + ["--platform", "cpu", "--rules"], cwd=SAMPLE, env=env,
                           capture_output=True, text=True)
    assert "reusing" in again.stderr, again.stderr[-2000:]


def test_relaxed_requirements_bound_each_package_by_the_targets_version():
    from jaxlint.verify.envs import relaxed_requirements

    req = requirements_for("0.4.30", "cpu", ["jax==0.12.0.1", "flax==0.12.12", "numpy==2.5.5"])
    assert relaxed_requirements(req) == ["flax<=0.12.12", "numpy<=2.5.5"]


def test_a_baseline_env_that_pip_check_rejects_is_refused_unless_allowed(monkeypatch, tmp_path):
    from jaxlint.verify import envs

    monkeypatch.setattr(envs, "pip_check", lambda python: ["flax 0.12.12 has requirement jax>=0.8.1, but you have "
                                                           "jax 0.4.30."])
    seen = []
    with pytest.raises(RuntimeError, match="is broken .*--allow-broken-baseline"):
        envs._refuse_if_broken(tmp_path / "bin" / "python", tmp_path, False, seen.append)
    assert "  pip check | flax 0.12.12 has requirement jax>=0.8.1, but you have jax 0.4.30." in seen
    envs._refuse_if_broken(tmp_path / "bin" / "python", tmp_path, True, seen.append)
    assert any("--allow-broken-baseline" in line for line in seen)


def test_pip_check_ignores_packages_jaxlint_does_not_install(monkeypatch, tmp_path):
    from jaxlint.verify import envs

    report = ("jaxlint 0.1.0 requires click, which is not installed.\n"
              "flax 0.12.12 has requirement jax>=0.8.1, but you have jax 0.4.30.\n")
    monkeypatch.setattr(envs.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, report, ""))
    assert envs.pip_check(tmp_path / "python") == ["flax 0.12.12 has requirement jax>=0.8.1, but you have jax 0.4.30."]
    report = "jaxlint 0.1.0 requires click, which is not installed.\n"
    assert envs.pip_check(tmp_path / "python") == []


def test_old_releases_get_the_numpy_their_jaxlib_was_built_for(monkeypatch, tmp_path):
    from jaxlint.verify.envs import period_constraints

    assert period_constraints("0.4.20") == ["scipy<1.13", "numpy<2"] and period_constraints("0.4.25") == ["numpy<2"]
    assert period_constraints("0.4.26") == [] and period_constraints("0.12.0.1") == []
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path))
    req = requirements_for("0.4.20", "cpu", ["numpy==2.5.5"])
    constrained = env_path("0.4.20", "cpu", "3.12.1", req)
    # An environment built without the constraint (by an older jaxlint, NumPy 2 beside jaxlib 0.4.20) is not reused.
    from jaxlint.verify import envs

    monkeypatch.setattr(envs, "PERIOD_CONSTRAINTS", ())
    assert env_path("0.4.20", "cpu", "3.12.1", req) != constrained


def test_an_environment_where_jax_cannot_make_an_array_is_broken(tmp_path):
    from jaxlint.verify.envs import smoke_test

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'AttributeError: _ARRAY_API not found' >&2\nkill -SEGV $$\n")
    fake.chmod(0o755)
    (problem,) = smoke_test(fake)
    assert problem == ("JAX cannot create an array in this environment (killed by signal 11): "
                       "AttributeError: _ARRAY_API not found")
    assert smoke_test(Path(sys.executable)) != []  # no JAX in the test venv: also broken, with the reason


@pytest.mark.jax
@pytest.mark.slow
def test_baseline_jax_0_4_20_verifies_tree_map_and_tree_leaves(new_python, tmp_path):
    """The issue's case: the old JAX that old code runs on, from the target's packages (NumPy 2.5.5 there)."""
    from tests.support.jaxenv import ENVS

    (tmp_path / "m.py").write_text("import jax\nimport jax.numpy as jnp\n\n"
                                   "tree = {'a': jnp.ones(2), 'b': [jnp.zeros(3)]}\n"
                                   "print(jax.tree_map(lambda x: x + 1, tree))\n"
                                   "print(len(jax.tree_leaves(tree)))\n")
    env = dict(os.environ, JAXLINT_ENV_DIR=str(ENVS / "verify-envs"),
               PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "verify", "m.py", "--baseline-jax", "0.4.20",
                           "--target-python", new_python, "--platform", "cpu", "--output-format", "json", "--",
                           "python", "m.py"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["baseline"]["jax_version"] == "0.4.20"
    statuses = {(site["row"], site["code"]): site["status"] for site in report["sites"]}
    assert statuses == {(5, "JAX101"): "verified", (6, "JAX101"): "verified"}, report["sites"]


@pytest.mark.jax
@pytest.mark.slow
def test_baseline_jax_0_4_20_built_with_uv_verifies_tree_map(new_python, tmp_path):
    """The same old baseline built by uv (period constraints, `uv pip check`, the smoke test), from an empty
    environment folder; uv's cache is kept in $JAXLINT_JAXENVS/uv-cache, so a rerun takes seconds."""
    from tests.support.jaxenv import ENVS, uv_executable

    (tmp_path / "m.py").write_text("import jax\nimport jax.numpy as jnp\n\n"
                                   "tree = {'a': jnp.ones(2), 'b': [jnp.zeros(3)]}\n"
                                   "print(jax.tree_map(lambda x: x + 1, tree))\n"
                                   "print(len(jax.tree_leaves(tree)))\n")
    env = dict(os.environ, JAXLINT_ENV_DIR=str(tmp_path / "envs"), JAXLINT_INSTALLER=uv_executable(),
               UV_CACHE_DIR=str(ENVS / "uv-cache"), PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "verify", "m.py", "--baseline-jax", "0.4.20",
                           "--target-python", new_python, "--platform", "cpu", "--output-format", "json", "--",
                           "python", "m.py"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "with uv" in proc.stderr and "  uv | " in proc.stderr and "[3/3] uv pip check" in proc.stderr
    assert "JAX 0.4.20 needs numpy<2" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["baseline"]["jax_version"] == "0.4.20"
    built = Path(report["baseline"]["python"]).parents[1]
    assert not (built / "bin" / "pip").exists()  # uv's venv: every step went through uv
    statuses = {(site["row"], site["code"]): site["status"] for site in report["sites"]}
    assert statuses == {(5, "JAX101"): "verified", (6, "JAX101"): "verified"}, report["sites"]


@pytest.mark.jax
@pytest.mark.slow
def test_baseline_jax_0_4_13_on_python_3_10_verifies_tree_map_and_tree_leaves(tmp_path):
    """The oldest JAX that installs on Python 3.10 here (0.4.13) against the newest that supports 3.10 (0.6.2,
    where jax.tree_map is gone): the baseline gets NumPy 1 and SciPy < 1.13 (PERIOD_CONSTRAINTS), both sites verify."""
    from tests.support.jaxenv import ENVS, python310_target

    target = python310_target("0.6.2")
    (tmp_path / "m.py").write_text("import jax\nimport jax.numpy as jnp\n\n"
                                   "tree = {'a': jnp.ones(2), 'b': [jnp.zeros(3)]}\n"
                                   "print(jax.tree_map(lambda x: x + 1, tree))\n"
                                   "print(len(jax.tree_leaves(tree)))\n")
    env = dict(os.environ, JAXLINT_ENV_DIR=str(ENVS / "verify-envs"), JAXLINT_INSTALLER="pip",
               PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "verify", "m.py", "--baseline-jax", "0.4.13",
                           "--target-python", str(target), "--target-version", "0.6.2", "--platform", "cpu",
                           "--output-format", "json", "--", "python", "m.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert (report["baseline"]["jax_version"], report["target"]["jax_version"]) == ("0.4.13", "0.6.2")
    assert report["baseline"]["python_version"].startswith("3.10")
    statuses = {(site["row"], site["code"]): site["status"] for site in report["sites"]}
    assert statuses == {(5, "JAX101"): "verified", (6, "JAX101"): "verified"}, report["sites"]
