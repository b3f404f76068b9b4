"""Before anything is written: the target JAX's Python against the environments and the declared requires-python;
the report path; and Ctrl-C/SIGTERM during the upgrade (a partial report, 130/143)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.project.versions import Version
from jaxlint.ui.cli import main
from jaxlint.upgrade.preflight import admitted_minors, check, declared_python, raised_spec
from jaxlint.upgrade.python_support import oldest_python
from jaxlint.upgrade.steps import Upgrade
from tests.upgrade.conftest import PROJECT, tree_hash, write_tree

TARGET = "0.12.0.1"
PY310_PROJECT = {**PROJECT, "pyproject.toml": '[project]\nname = "proj"\nversion = "0"\n'
                                              'requires-python = ">=3.9"\n'
                                              'dependencies = ["jax>=0.4.30,<0.11"]\n'}


def fake_python(folder: Path, version: str, hang_on: str | None = None) -> str:
    """An interpreter that says it is ``version`` (the real one runs everything else); ``hang_on``: a word of the
    code it is given that makes it write its pid and sleep (a step that takes long)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "python"
    hang = (f'  *{hang_on}*) echo $$ > "{folder}/pid"; exec sleep 600;;\n' if hang_on else "")
    script.write_text(f'#!/bin/sh\ncase "$*" in\n  *version_info*) echo {version};;\n{hang}'
                      f'  *) exec {sys.executable} "$@";;\nesac\n')
    script.chmod(0o755)
    return str(script)


def _upgrade(project: Path, *args: str):
    old = os.getcwd()
    os.chdir(project)
    try:
        return CliRunner().invoke(main, ["upgrade", *args], catch_exceptions=False)
    finally:
        os.chdir(old)


# -- what JAX needs ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("jax, python", [("0.12.0.1", "3.12"), ("0.11.0", "3.12"), ("0.10.2", "3.11"),
                                         ("0.7.0", "3.11"), ("0.4.30", "3.9"), ("0.4.31", "3.10")])
def test_the_python_each_jax_release_needs(jax, python):
    assert oldest_python(Version(jax)) == Version(python)


def test_a_jax_newer_than_the_data_is_not_checked():
    [note] = check(Version("0.13.0"), "python", Version("3.8.0"), None, None, None)
    assert not note.blocking and "newer than the releases jaxlint knows the Python of" in note.problem


@pytest.mark.parametrize("spec, minors, raised", [
    (">=3.9", ["3.9", "3.10", "3.11"], ">=3.12"),
    (">=3.9,<3.11", ["3.9", "3.10"], ">=3.12"),
    ("^3.10", ["3.10", "3.11"], ">=3.12"),
    (">=3.8,!=3.10.*,<3.14", ["3.8", "3.9", "3.11"], ">=3.12,!=3.10.*,<3.14"),
])
def test_a_requires_python_is_read_and_raised(spec, minors, raised):
    assert [str(m) for m in admitted_minors(spec)][:len(minors)] == minors
    assert raised_spec(spec, Version("3.12")) == raised


def test_the_declared_python_comes_with_its_file_and_line(tmp_path):
    write_tree(tmp_path, {"setup.py": "from setuptools import setup\nPY = '>=3.8'\nsetup(python_requires=PY)\n"})
    declared = declared_python(tmp_path, tmp_path)
    assert (declared.spec, declared.where, declared.key) == (">=3.8", "setup.py:2", "python_requires")


def test_a_requires_python_below_every_supported_python_blocks():
    declared = declared_python.__globals__["DeclaredPython"](">=3.9,<3.11", "pyproject.toml:4", "requires-python")
    [problem] = check(Version(TARGET), "py", Version("3.12.1"), None, None, declared)
    assert problem.blocking
    assert problem.problem == ("requires-python = '>=3.9,<3.11' in pyproject.toml:4 excludes every Python JAX "
                               "0.12.0.1 supports (>= 3.12)")


# -- the upgrade, end to end -------------------------------------------------------------------------------------
def test_a_python_310_project_is_stopped_before_anything_is_written(tmp_path):
    project = write_tree(tmp_path / "project", PY310_PROJECT)
    python = fake_python(tmp_path / "py310", "3.10.13")
    before = tree_hash(project)
    report_file = tmp_path / "upgrade.json"
    result = _upgrade(project, "--to", TARGET, "--python", python, "--no-index", "--report", str(report_file),
                      "--report", str(tmp_path / "upgrade.md"))
    assert result.exit_code == 2, result.output
    assert tree_hash(project) == before  # no fix written
    report = json.loads(report_file.read_text())
    blocking, raise_it = report["preflight"]
    assert blocking == {
        "problem": "JAX 0.12.0.1 needs Python >= 3.12 (jax's Requires-Python on PyPI (read 2026-12-05)); --python is "
                   f"3.10.13 ({python}), and the target environment is built from it",
        "step": "rerun with --python python3.12 (an environment on Python 3.12 or newer with the project's "
                "dependencies), or give --target-python", "blocking": True}
    assert raise_it == {"problem": "requires-python = '>=3.9' in pyproject.toml:4 admits Pythons JAX 0.12.0.1 does "
                                   "not support", "step": "raise it to >=3.12", "blocking": False}
    assert report["fixes_applied"] == [] and report["verify"]["ran"] is False
    assert report["pins"][0] == {"name": "python", "current": "requires-python = '>=3.9'", "where": "pyproject.toml:4",
                                 "proposed": ">=3.12", "reason": "JAX 0.12.0.1 needs Python >= 3.12"}
    markdown = (tmp_path / "upgrade.md").read_text()
    assert markdown.index("## Before anything else") < markdown.index("## Version range")
    assert "- **cannot work**: JAX 0.12.0.1 needs Python >= 3.12" in markdown
    assert "Nothing was written in the project" in markdown
    assert "cannot work: JAX 0.12.0.1 needs Python >= 3.12" in result.stderr  # said first, before step 2
    assert result.stderr.index("cannot work") < result.stderr.index("[2/7]")


def test_a_dry_run_of_a_blocked_upgrade_still_shows_the_fixes(tmp_path):
    project = write_tree(tmp_path / "project", PY310_PROJECT)
    before = tree_hash(project)
    result = _upgrade(project, "--to", TARGET, "--python", fake_python(tmp_path / "py310", "3.10.13"),
                      "--no-index", "--dry-run")
    assert result.exit_code == 2 and tree_hash(project) == before
    assert "## Fixes that would be applied (1)" in result.stdout
    assert "Dry run: the fixes below are those that would be written once this is done." in result.stdout


def test_an_old_target_python_blocks(tmp_path):
    project = write_tree(tmp_path / "project", PROJECT)
    old = fake_python(tmp_path / "py311", "3.11.7")
    before = tree_hash(project)
    result = _upgrade(project, "--to", TARGET, "--python", sys.executable, "--target-python", old, "--no-index")
    assert result.exit_code == 2 and tree_hash(project) == before
    assert "--target-python is 3.11.7" in result.stdout


# -- the report path ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("where, why", [("a-file/upgrade.md", "is not a folder"),
                                        ("a-file/deeper/upgrade.json", "is not a folder")])
def test_an_unwritable_report_path_stops_before_anything_is_written(tmp_path, where, why):
    project = write_tree(tmp_path / "project", PROJECT)
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-folder").mkdir()
    before = tree_hash(project)
    result = _upgrade(project, "--to", TARGET, "--python", sys.executable, "--no-index",
                      "--report", str(tmp_path / "fine.json"), "--report", str(tmp_path / where))
    assert result.exit_code == 2
    assert f"{tmp_path / 'a-file'} {why}" in result.stderr and "nothing was written" in result.stderr
    assert tree_hash(project) == before and not (tmp_path / "fine.json").exists()
    assert "[1/7]" not in result.stderr


# -- signals -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("signum, exit_code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_the_upgrade_writes_a_partial_report(tmp_path, monkeypatch, signum, exit_code):
    project = write_tree(tmp_path / "project", PROJECT)

    def interrupted(self):
        self.step(3, "linting the dependencies")
        os.kill(os.getpid(), signum)
        time.sleep(30)  # the handler raises before this ends
        raise AssertionError("not interrupted")

    monkeypatch.setattr(Upgrade, "_dependencies", interrupted)
    result = _upgrade(project, "--to", TARGET, "--python", sys.executable, "--report", str(tmp_path / "u.json"))
    assert result.exit_code == exit_code
    report = json.loads((tmp_path / "u.json").read_text())
    assert report["interrupted"] == f"{signal.Signals(signum).name} during step 3/7"
    assert [f["code"] for f in report["fixes_applied"]] == ["JAX101"]  # what was done before the signal
    assert report["done"] is False and report["pins"] == []  # step 6 never ran


def test_sigterm_to_the_command_ends_what_it_started_and_writes_the_report(tmp_path):
    project = write_tree(tmp_path / "project", PROJECT)
    hanging = fake_python(tmp_path / "slow", "3.12.1", hang_on="metadata.distributions")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2] / "src")])}
    process = subprocess.Popen([sys.executable, "-m", "jaxlint", "upgrade", "--to", TARGET, "--python", hanging,
                                "--no-index", "--report", str(tmp_path / "u.md")], cwd=project, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid_file = tmp_path / "slow" / "pid"
    deadline = time.monotonic() + 120
    while not pid_file.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pid_file.read_text())
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143, stderr
    markdown = (tmp_path / "u.md").read_text()
    assert "**Interrupted** by SIGTERM during step 3/7" in markdown and "## Fixes applied (1)" in markdown
    assert not _running(child)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return "\nState:\tZ" not in status.read()
    except FileNotFoundError:
        return False


def test_a_project_declared_for_python_310_only_is_stopped_whatever_the_environment(tmp_path):
    files = {**PROJECT, "pyproject.toml": '[project]\nname = "proj"\nversion = "0"\nrequires-python = "~=3.10.0"\n'
                                          'dependencies = ["jax>=0.4.30,<0.11"]\n'}
    project = write_tree(tmp_path / "project", files)
    before = tree_hash(project)
    result = _upgrade(project, "--to", TARGET, "--python", fake_python(tmp_path / "py312", "3.12.1"), "--no-index",
                      "--report", str(tmp_path / "u.json"))
    assert result.exit_code == 2 and tree_hash(project) == before
    [problem] = json.loads((tmp_path / "u.json").read_text())["preflight"]
    assert problem == {"problem": "requires-python = '~=3.10.0' in pyproject.toml:4 excludes every Python JAX "
                                  "0.12.0.1 supports (>= 3.12)",
                       "step": "raise it to >=3.12, and run the project on Python 3.12 or newer", "blocking": True}
