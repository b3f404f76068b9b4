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
    assert sorted(p.name for p in envs.iterdir()) == ["jax-0.10.2", "jax-0.12.0.1"]
    for env in envs.iterdir():
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
