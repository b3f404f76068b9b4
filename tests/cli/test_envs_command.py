"""`jaxlint envs`: the environments verify and exports built, their sizes (hard links counted once), and prune."""
from __future__ import annotations

import json
import os
import time

import pytest
from click.testing import CliRunner

from jaxlint.ui.cli import main


def _env(root, name, marker=None, python="3.12.1", size=100_000, owner=None):
    folder = root / name
    (folder / "lib").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {python}\n")
    (folder / "lib" / "blob").write_bytes(b"x" * size)
    if marker is not None:
        (folder / ".complete").write_text(marker)
    if owner is not None:  # what a build writes first: jaxlint's marker naming the folder
        (folder / ".jaxlint-env.json").write_text(json.dumps({"tool": "jaxlint", "env": name, **owner}))
    return folder


@pytest.fixture
def store(tmp_path, monkeypatch):
    root = tmp_path / "envs"
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(root))
    _env(root, "jax-0.10.2", "0.10.2")  # exports' marker: the bare version
    verify = _env(root, "jax-0.4.20-cpu-py312-0123456789", json.dumps({"jax": "0.4.20", "platform": "cpu"}))
    _env(root, "jax-0.4.30-cpu-py312-abcdef0123", None, size=10_000, owner={"jax": "0.4.30"})  # interrupted
    (root / "not-an-env").mkdir()
    # uv links one file into several environments: counted once.
    os.link(verify / "lib" / "blob", root / "jax-0.10.2" / "lib" / "linked")
    old = time.time() - 40 * 86400
    os.utime(root / "jax-0.10.2" / ".complete", (old, old))
    return root


def _listed(root):
    result = CliRunner().invoke(main, ["envs", "--output-format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_envs_lists_each_environment_with_its_version_python_size_and_state(store):
    data = _listed(store)
    assert data["root"] == str(store)
    rows = {env["name"]: env for env in data["environments"]}
    assert sorted(rows) == ["jax-0.10.2", "jax-0.4.20-cpu-py312-0123456789", "jax-0.4.30-cpu-py312-abcdef0123"]
    assert rows["jax-0.10.2"]["jax"] == "0.10.2" and rows["jax-0.10.2"]["python"] == "3.12.1"
    assert rows["jax-0.4.20-cpu-py312-0123456789"]["jax"] == "0.4.20"
    assert rows["jax-0.4.30-cpu-py312-abcdef0123"]["complete"] is False
    # Three blobs of 100 kB, 100 kB and 10 kB on disk, and a link to the second: 210 kB plus folders, not 310 kB.
    assert 210_000 <= data["total_bytes"] < 260_000
    assert data["total_bytes"] == sum(env["size_bytes"] for env in data["environments"])
    text = CliRunner().invoke(main, ["envs"]).output
    assert "INCOMPLETE" in text and "JAX 0.4.20" in text and "3 environment(s) in" in text


def test_prune_by_state_age_and_name_and_dry_run(store):
    runner = CliRunner()
    dry = runner.invoke(main, ["envs", "prune", "--incomplete", "--dry-run"])
    assert dry.exit_code == 0 and "would remove jax-0.4.30-cpu-py312-abcdef0123" in dry.output
    assert (store / "jax-0.4.30-cpu-py312-abcdef0123").exists()
    assert runner.invoke(main, ["envs", "prune", "--incomplete"]).exit_code == 0
    assert not (store / "jax-0.4.30-cpu-py312-abcdef0123").exists()
    old = runner.invoke(main, ["envs", "prune", "--older-than", "30"])
    assert "removed jax-0.10.2" in old.output and not (store / "jax-0.10.2").exists()
    assert (store / "jax-0.4.20-cpu-py312-0123456789").exists()
    bad = runner.invoke(main, ["envs", "prune", "jax-9.9"])
    assert bad.exit_code == 2 and "no such environment: jax-9.9" in bad.output
    assert runner.invoke(main, ["envs", "prune"]).exit_code == 2  # nothing chosen is a usage error
    assert runner.invoke(main, ["envs", "prune", "jax-0.4.20-cpu-py312-0123456789"]).exit_code == 0
    # What is not ours stays (beside the lock files, kept: see verify.env_store).
    assert [p.name for p in store.iterdir() if not p.name.startswith(".")] == ["not-an-env"]


def test_an_empty_or_missing_store(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path / "none"))
    result = CliRunner().invoke(main, ["envs"])
    assert result.exit_code == 0 and "no environments in" in result.output
    assert not (tmp_path / "none").exists()
