"""From an empty $JAXLINT_ENV_DIR, as on a new machine: every environment jaxlint builds has what its feature needs
(flatbuffers for export (de)serialization). Builds three venvs with pip (a few minutes; pip's cache makes rebuilds
fast). CI runs it: `pytest -m slow tests/exports/test_fresh_envs.py`."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, artifact

pytestmark = [pytest.mark.jax, pytest.mark.slow]


def _jaxlint(*args, env_dir, cwd):
    env = dict(os.environ, JAXLINT_ENV_DIR=str(env_dir), PYTHONPATH=str(REPO / "src"))
    return subprocess.run([sys.executable, "-m", "jaxlint", *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True)


def test_every_env_is_built_with_what_it_needs(tmp_path):
    envs = tmp_path / "envs"
    store = tmp_path / "store"
    store.mkdir()
    (store / "ranker.bin").write_bytes(artifact("0.8.1", "simple").read_bytes())

    migrated = _jaxlint("exports", "migrate", store, "--out", tmp_path / "out", "--baseline-jax", "0.10.2",
                        env_dir=envs, cwd=tmp_path)
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    assert "1 migrated, 0 already loading, 0 failed" in migrated.stdout
    built = sorted(p for p in envs.iterdir() if not p.name.startswith("."))  # .<name>.lock: the build locks
    assert [p.name for p in built] == ["jax-0.10.2", "jax-0.12.0.1"]
    assert sorted(p.name for p in envs.iterdir() if p.name.startswith(".")) == [".jax-0.10.2.lock",
                                                                             ".jax-0.12.0.1.lock"]
    for env in built:
        assert subprocess.run([env / "bin" / "python", "-c", "import flatbuffers, numpy"]).returncode == 0

    checked = _jaxlint("exports", tmp_path / "out", "--check-load", "--output-format", "json", env_dir=envs,
                       cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert "check-load in JAX 0.12.0.1: 0 disagreement(s)" in checked.stderr
    assert [r["verdict"] for r in json.loads(checked.stdout)] == ["loads"]

    sample = REPO / "tests" / "verify_sample"
    verified = _jaxlint("verify", "sample", "--baseline-jax", "0.10.2", "--target-python",
                        envs / "jax-0.12.0.1" / "bin" / "python", "--platform", "cpu", "--output-format", "json", "--",
                        "python", "run.py", env_dir=envs, cwd=sample)
    assert verified.returncode == 0, verified.stderr[-3000:]
    assert "[3/3] pip check" in verified.stderr
    assert {s["status"] for s in json.loads(verified.stdout)["sites"]} == {"verified"}
    assert len([p for p in envs.iterdir() if p.name.startswith("jax-0.10.2-cpu-")]) == 1


BUILD = ("import sys\nfrom jaxlint.exports.envs import python_for_jax\nfrom jaxlint.project.versions import Version\n"
         "print(python_for_jax(Version('0.10.2'), log=lambda line: print(line, file=sys.stderr, flush=True)))")


def test_two_runs_building_one_env_at_once_build_it_once_and_a_broken_one_is_rebuilt(tmp_path):
    """Real builds with pip (about 30 s each with pip's cache warm): two runs start on an empty env dir together,
    then a package is uninstalled from the environment they made."""
    envs = tmp_path / "envs"
    env = dict(os.environ, JAXLINT_ENV_DIR=str(envs), JAXLINT_INSTALLER="pip", PYTHONPATH=str(REPO / "src"))
    runs = [subprocess.Popen([sys.executable, "-c", BUILD], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    results = [run.communicate(timeout=900) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in results]
    python = envs / "jax-0.10.2" / "bin" / "python"
    assert [out.strip() for out, _ in results] == [str(python)] * 2
    said = [err for _, err in results]
    assert sum(err.count("building an environment with JAX 0.10.2") for err in said) == 1, said
    assert sum(err.startswith("waiting for another jaxlint run that is building") for err in said) <= 1
    imported = subprocess.run([python, "-c", "import jax, flatbuffers; print(jax.__version__)"],
                              capture_output=True, text=True)
    assert imported.stdout.strip() == "0.10.2", imported.stderr

    subprocess.run([python, "-m", "pip", "uninstall", "-q", "-y", "flatbuffers"], check=True)
    again = subprocess.run([sys.executable, "-c", BUILD], env=env, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stderr.startswith(f"the JAX 0.10.2 environment in {envs / 'jax-0.10.2'} no longer holds what it "
                                   "was built with (flatbuffers ")
    assert "; rebuilding it\nbuilding an environment with JAX 0.10.2" in again.stderr
    assert subprocess.run([python, "-c", "import flatbuffers"]).returncode == 0
