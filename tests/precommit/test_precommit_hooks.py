"""The hooks in .pre-commit-hooks.yaml, run by real pre-commit in a temporary git repository.

pre-commit pip-installs jaxlint into its own environment once (about 40 s, from the configured package index); the
hook repository is a committed snapshot of this checkout's package files, so every test reuses that environment
and work in progress elsewhere in the tree cannot leak in.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")

needs_pre_commit = pytest.mark.skipif(not PRE_COMMIT.exists(), reason="pre-commit is not installed (pip install pre-commit)")

CODE = '''import jax.numpy as jnp
from jax.experimental import export

y = jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)
'''
FIXED = '''import jax.numpy as jnp
from jax import export

y = jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=True)
'''
NOTEBOOK = {
    "cells": [
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
         "source": ["!pip install -q jax\n", "%load_ext autoreload"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
         "source": ["%%time\n", "import jax.numpy as jnp\n",
                    "y = jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def init_repo(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    git(path, "config", "commit.gpgsign", "false")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = tmp_path_factory.mktemp("precommit")
    hooks = base / "jaxlint-hooks"
    init_repo(hooks)
    for name in ("pyproject.toml", "setup.py", "README.md", ".pre-commit-hooks.yaml", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, hooks / name)
    for folder in ("src", "rules"):  # the package and its rule data (shipped as jaxlint/_rules)
        shutil.copytree(ROOT / folder, hooks / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    git(hooks, "add", "-A")
    git(hooks, "commit", "-q", "-m", "snapshot")
    # each hook environment is a new install of jaxlint, which keeps its own catalogue copy under the cache folder:
    # a temporary one, so that a test run leaves nothing in the user's ~/.cache/jaxlint
    environment = dict(os.environ, PRE_COMMIT_HOME=str(base / "home"), PRE_COMMIT_COLOR="never",
                       XDG_CACHE_HOME=str(base / "cache"))
    environment.pop("PRE_COMMIT", None)
    return {"base": base, "hooks": hooks, "rev": git(hooks, "rev-parse", "HEAD").strip(), "env": environment}


def project(env, name: str) -> Path:
    path = env["base"] / name
    init_repo(path)
    (path / "pkg").mkdir()
    (path / "pkg" / "model.py").write_text(CODE)
    (path / "vendored").mkdir()
    (path / "vendored" / "old.py").write_text(CODE)
    (path / "analysis.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    (path / "pyproject.toml").write_text('[tool.jaxlint]\nexclude = ["vendored"]\n')
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path


def pre_commit(env, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(PRE_COMMIT), *args], cwd=cwd, env=env["env"], capture_output=True, text=True,
                          timeout=600)


def test_hooks_file_declares_both_hooks():
    yaml = pytest.importorskip("yaml")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"jaxlint", "jaxlint-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is False and "--force-exclude" in hook["entry"]
    assert "--fix" in hooks["jaxlint-fix"]["entry"] and "--fix" not in hooks["jaxlint"]["entry"]


@pytest.mark.slow
@needs_pre_commit
def test_try_repo_check_fails_on_findings_and_keeps_excludes(env):
    path = project(env, "check")
    run = pre_commit(env, path, "try-repo", str(env["hooks"]), "jaxlint", "--all-files")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "jaxlint" in out and "Failed" in out
    assert "pkg/model.py:2:1: JAX302" in out and "pkg/model.py:4:5: JAX202" in out
    assert "analysis.ipynb:cell 2:3:5: JAX202" in out  # the notebook, with its magics, is checked
    assert "vendored" not in out  # excluded in config although pre-commit named it on the command line
    assert (path / "pkg" / "model.py").read_text() == CODE


@pytest.mark.slow
@needs_pre_commit
def test_try_repo_fix_rewrites_files_and_notebooks(env):
    path = project(env, "fix")
    run = pre_commit(env, path, "try-repo", str(env["hooks"]), "jaxlint-fix", "--all-files")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out  # pre-commit fails a hook that modified files
    assert "files were modified by this hook" in out
    assert (path / "pkg" / "model.py").read_text() == FIXED
    assert (path / "vendored" / "old.py").read_text() == CODE
    notebook = json.loads((path / "analysis.ipynb").read_text())
    assert notebook["cells"][1]["source"][2].endswith("wrap_negative_indices=True)")
    assert notebook["cells"][0]["source"] == NOTEBOOK["cells"][0]["source"]
    # Second run: nothing left, the hook passes.
    run = pre_commit(env, path, "try-repo", str(env["hooks"]), "jaxlint-fix", "--all-files")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Passed" in run.stdout


@pytest.mark.slow
@needs_pre_commit
def test_installed_hook_blocks_the_commit(env):
    path = project(env, "commit")
    (path / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {env['hooks']}\n  rev: {env['rev']}\n  hooks:\n  - id: jaxlint\n")
    assert pre_commit(env, path, "install").returncode == 0
    (path / "pkg" / "new.py").write_text("import jax.numpy as jnp\njnp.take_along_axis(a, i, 0, "
                                         "wrap_negative_indices=None)\n")
    git(path, "add", "-A")
    commit = subprocess.run(["git", "commit", "-m", "add new"], cwd=path, env=env["env"], capture_output=True,
                            text=True)
    assert commit.returncode != 0
    assert "pkg/new.py:2:1: JAX202" in commit.stdout + commit.stderr
    # Only the staged files are checked: the committed findings in pkg/model.py are not reported here.
    assert "model.py" not in commit.stdout
    (path / "pkg" / "new.py").write_text("import jax.numpy as jnp\njnp.take_along_axis(a, i, 0)\n")
    git(path, "add", "-A")
    commit = subprocess.run(["git", "commit", "-q", "-m", "add new"], cwd=path, env=env["env"],
                            capture_output=True, text=True)
    assert commit.returncode == 0, commit.stdout + commit.stderr


def test_force_exclude_with_explicit_paths(tmp_path):
    """What the hook relies on, without pre-commit: named files in excluded paths are skipped (exit 0)."""
    (tmp_path / "vendored").mkdir()
    (tmp_path / "vendored" / "old.py").write_text(CODE)
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nexclude = ["vendored"]\n')
    base = [sys.executable, "-m", "jaxlint", "check"]
    run = subprocess.run(base + ["vendored/old.py"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 1  # without --force-exclude a named file is linted, as in ruff
    run = subprocess.run(base + ["--force-exclude", "vendored/old.py"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0 and "JAX" not in run.stdout, run.stdout
    run = subprocess.run(base + ["--force-exclude", str(tmp_path / "vendored" / "old.py")], cwd=tmp_path / "vendored",
                         capture_output=True, text=True)
    assert run.returncode == 0 and "JAX" not in run.stdout, run.stdout
