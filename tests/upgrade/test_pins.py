"""Steps 1 and 6: requirements found with file:line, and the smallest change that admits the target."""
from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.project.version_pins import ProjectPins
from jaxlint.project.versions import Version
from jaxlint.upgrade.dependencies import DependencyResult
from jaxlint.upgrade.pins import _allows, propose_dependencies, propose_jax, requirement_lines, upgraded_requirement
from tests.upgrade.conftest import PROJECT, write_tree

TARGET = Version("0.12.0.1")


def test_requirements_are_found_in_every_kind_of_pin_file(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\ndependencies = [\n  "numpy",\n  "jax[cuda12]>=0.4.30,<0.11; sys_platform == \'linux\'",\n]\n',
        "requirements.txt": "jaxlib==0.10.2  # the wheel\njaxtyping\njax_md>=1\n",
        "setup.cfg": "[options]\ninstall_requires =\n    jax ~= 0.10.0\n",
    })
    assert requirement_lines(tmp_path, "jax", tmp_path) == [
        ("pyproject.toml:4", "jax[cuda12]>=0.4.30,<0.11"), ("setup.cfg:3", "jax ~= 0.10.0")]
    assert requirement_lines(tmp_path, "jaxlib", tmp_path) == [("requirements.txt:1", "jaxlib==0.10.2")]
    assert requirement_lines(tmp_path, "jax-md", tmp_path) == [("requirements.txt:3", "jax_md>=1")]


@pytest.mark.parametrize("requirement, admits", [
    ("jax>=0.4.30,<0.11", False), ("jax==0.10.2", False), ("jax~=0.10.0", False), ("jax<=0.12.0", False),
    ("jax>=0.4.30", True), ("jax", True), ("jax==0.12.*", True), ("jax!=0.12.0.1", False), ("jax<0.13", True),
])
def test_whether_a_requirement_admits_the_target(requirement, admits):
    assert _allows(requirement, TARGET) is admits


@pytest.mark.parametrize("requirement, proposed", [
    ("jax>=0.4.30,<0.11", "jax>=0.4.30,<0.13"),  # the floor stays: the fixes keep it working
    ("jaxlib==0.10.2", "jaxlib==0.12.0.1"),
    ("jax~=0.10.0", "jax>=0.10.0,<0.13"),
    ("jax[cuda12]>=0.4,<=0.10.2", "jax[cuda12]>=0.4,<0.13"),
])
def test_the_smallest_change_that_admits_the_target(requirement, proposed):
    assert upgraded_requirement(requirement.split("=")[0].split("<")[0].split("~")[0], requirement, TARGET) == proposed
    assert _allows(proposed, TARGET)


def test_jax_and_jaxlib_pins_are_proposed_from_the_project_model(tmp_path):
    write_tree(tmp_path, PROJECT)
    pinned = ProjectPins(tmp_path).for_directory(tmp_path)
    changes = propose_jax(pinned, pinned.package, TARGET, tmp_path)
    assert [(c.name, c.current, c.where, c.proposed) for c in changes] == [
        ("jax", "jax>=0.4.30,<0.11", "pyproject.toml:4", "jax>=0.4.30,<0.13"),
        ("jaxlib", "jaxlib==0.10.2", "pyproject.toml:4", "jaxlib==0.12.0.1"),
    ]


def test_pins_that_admit_the_target_need_no_change(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "jax>=0.4.30\njaxlib\n"})
    assert propose_jax(ProjectPins(tmp_path).for_directory(tmp_path), tmp_path, TARGET, tmp_path) == []


def test_an_unpinned_project_is_told_to_pin_the_target(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[project]\nname = "p"\n'})
    [change] = propose_jax(None, tmp_path, TARGET, tmp_path)
    assert (change.name, change.current, change.proposed) == ("jax", None, "jax>=0.12.0.1")


def test_blocking_dependencies_get_their_fixed_release_or_the_reason(tmp_path):
    write_tree(tmp_path, PROJECT)
    fixed = DependencyResult("mydep", "0.1", fixed_in="0.2")
    stuck = DependencyResult("jraph", "0.0.6.dev0")
    changes = propose_dependencies([fixed, stuck], tmp_path, tmp_path)
    assert [(c.name, c.current, c.where, c.proposed) for c in changes] == [
        ("mydep", "mydep>=0.1", "pyproject.toml:4", "mydep>=0.2"), ("jraph", None, None, None)]
    assert "no newer release" in changes[1].reason


def test_pins_in_poetry_groups_and_setup_py_variables_get_their_change(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.poetry]\nname = "p"\n\n[tool.poetry.group.dev.dependencies]\njax = "^0.10.1"\n',
        "setup.py": "from setuptools import setup\nREQS = ['jaxlib==0.10.2']\nsetup(install_requires=REQS)\n",
    })
    changes = propose_jax(ProjectPins(tmp_path).for_directory(tmp_path), tmp_path, TARGET, tmp_path)
    assert [(c.name, c.current, c.where, c.proposed) for c in changes] == [
        ("jax", "jax^0.10.1", "pyproject.toml:5", "jax>=0.10.1,<0.13"),
        ("jaxlib", "jaxlib==0.10.2", "setup.py:2", "jaxlib==0.12.0.1")]


def test_the_summary_counts_only_the_pin_rows_that_propose_something():
    from jaxlint.upgrade.report import UpgradeReport, render_markdown

    report = UpgradeReport("p", "0.12.0.1", False, "python")
    report.pins = [{"name": "mydep", "current": None, "where": None, "proposed": "mydep>=0.2", "reason": "r"},
                   {"name": "jraph", "current": None, "where": None, "proposed": None, "reason": "no release"}]
    assert "1 pin change(s) proposed" in render_markdown(report)


def test_an_unreadable_pin_file_is_a_warning_in_the_upgrade_report(tmp_path):
    import json
    import os

    from click.testing import CliRunner

    from jaxlint.ui.cli import main

    write_tree(tmp_path, {"pyproject.toml": '[project]\nname = "p"\ndependencies = ["jax>=0.4.30",\n',
                          "m.py": "import jax\n"})
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(main, ["upgrade", "--to", "0.12.0.1", "--no-index", "--dry-run", "--report",
                                           str(tmp_path / "out" / "u.json")], catch_exceptions=False)
    finally:
        os.chdir(old)
    [warning] = json.loads((tmp_path / "out" / "u.json").read_text())["warnings"]
    assert warning.startswith("pyproject.toml:3: is not valid TOML") and "warning: pyproject.toml:3" in result.stderr
