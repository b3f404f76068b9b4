"""``jaxlint upgrade`` end to end without JAX: a project, a fake environment with a dependency that calls a removed
JAX API, a package index with its fixed release, and an artifact the target reads only with a flag."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.ui.cli import main
from jaxlint.upgrade.report import JSON_KEYS, UpgradeReport, render_markdown
from tests.upgrade.conftest import PROJECT, make_venv, tree_hash, write_tree

DATA = Path(__file__).resolve().parents[1] / "data" / "exports"
TARGET = "0.12.0.1"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "project", PROJECT)
    shutil.copy(DATA / "jax-0.8.1-simple.jaxexport", root / "model.jaxexport")
    return root


@pytest.fixture
def python(tmp_path: Path, fake_site: Path) -> str:
    return str(make_venv(tmp_path / "venv", fake_site))


def _upgrade(project: Path, *args: str):
    import os

    old = os.getcwd()
    os.chdir(project)
    try:
        return CliRunner().invoke(main, ["upgrade", *args], catch_exceptions=False)
    finally:
        os.chdir(old)


def test_dry_run_changes_nothing_and_reports_everything(project, python, index, tmp_path):
    before = tree_hash(project)
    report_file = tmp_path / "out" / "upgrade.json"
    result = _upgrade(project, ".", "--to", TARGET, "--python", python, "--dry-run", "--report", str(report_file))
    assert result.exit_code == 1, result.output
    assert tree_hash(project) == before
    report = json.loads(report_file.read_text())
    assert tuple(report) == JSON_KEYS and report["dry_run"] is True
    assert [(f["file"], f["row"], f["code"]) for f in report["fixes_applied"]] == [("proj/model.py", 6, "JAX101")]
    [dep] = report["blocking_dependencies"]
    assert {"name", "version", "findings", "fixed_in"} <= set(dep)
    assert (dep["name"], dep["version"], dep["fixed_in"]) == ("mydep", "0.1", "0.2")
    assert [(f["file"], f["code"]) for f in dep["findings"]] == [("mydep/core.py", "JAX101")]
    assert [(p["name"], p["proposed"], p["where"]) for p in report["pins"]] == [
        ("jax", "jax>=0.4.30,<0.13", "pyproject.toml:4"), ("jaxlib", "jaxlib==0.12.0.1", "pyproject.toml:4"),
        ("mydep", "mydep>=0.2", "pyproject.toml:4")]
    assert report["pins_written"] is False
    [artifact] = report["artifacts"]
    assert (artifact["path"], artifact["verdict"]) == ("model.jaxexport", "loads-with-flag")
    assert report["verified_sites"] == [] and report["verify"]["ran"] is False
    assert report["version_range"]["min"] == "0.4.30" and report["version_range"]["min_source"] == "pyproject.toml:4"
    assert "[3/7] linting the dependencies" in result.stderr  # progress on stderr


def test_upgrade_applies_the_fixes_and_a_second_run_is_a_no_op(project, python, index, tmp_path):
    first = _upgrade(project, "--to", TARGET, "--python", python, "--no-index")
    assert "jax.tree.map(jnp.sin, x)" in (project / "proj" / "model.py").read_text()
    assert "## Fixes applied (1)" in first.stdout
    assert "### mydep 0.1: no fixed release found" in first.stdout  # --no-index: not looked up
    after_first = tree_hash(project)
    second = _upgrade(project, "--to", TARGET, "--python", python, "--no-index", "--report",
                      str(tmp_path / "again.md"), "--report", str(tmp_path / "again.json"))
    assert tree_hash(project) == after_first
    markdown = (tmp_path / "again.md").read_text()
    assert "## Fixes applied (0)\n\nNothing to fix." in markdown
    assert json.loads((tmp_path / "again.json").read_text())["fixes_applied"] == []
    assert second.stdout == ""  # the report went to the files


UNSAFE = "import jax\n\n\ndef buffers(sharded):\n    return sharded.device_buffers\n"


def test_unsafe_fixes_only_when_asked(tmp_path, python):
    root = write_tree(tmp_path / "p2", {"requirements.txt": "jax>=0.12.0.1\n", "m.py": UNSAFE})
    _upgrade(root, "--to", TARGET, "--python", python, "--no-index", "--report", str(tmp_path / "r.json"))
    [left] = json.loads((tmp_path / "r.json").read_text())["findings_left"]
    assert (root / "m.py").read_text() == UNSAFE
    assert left["code"] == "JAX104" and "--unsafe-fixes" in left["advice"]
    _upgrade(root, "--to", TARGET, "--python", python, "--no-index", "--unsafe-fixes", "--report",
             str(tmp_path / "r.json"))
    assert "addressable_shards" in (root / "m.py").read_text()
    [applied] = json.loads((tmp_path / "r.json").read_text())["fixes_applied"]
    assert applied["applicability"] == "unsafe"


def test_the_migration_folder_must_lie_outside_the_project(project, python):
    result = _upgrade(project, "--to", TARGET, "--python", python, "--migrate-exports", "migrated")
    assert result.exit_code == 2 and "must lie outside" in result.output


def test_the_target_version_is_required(project):
    assert _upgrade(project).exit_code == 2


def test_nothing_to_do_is_said_first():
    report = UpgradeReport(project=".", target=TARGET, dry_run=False, python="python")
    assert report.done
    assert "**Nothing to do**" in render_markdown(report)
    assert tuple(report.as_json()) == JSON_KEYS and report.as_json()["done"] is True


def test_the_artifact_inventory_leaves_virtual_environments_out(tmp_path):
    from jaxlint.project.versions import Version
    from jaxlint.upgrade.steps import project_inventory

    root = tmp_path / "p"
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    shutil.copy(DATA / "jax-0.8.1-simple.jaxexport", root / ".venv" / "lib" / "installed.jaxexport")
    (root / "store").mkdir()
    shutil.copy(DATA / "jax-0.8.1-simple.jaxexport", root / "store" / "model.jaxexport")
    shutil.copy(DATA / "jax-0.10.2-simple.jaxexport", root / "top.bin")
    (root / "notes.txt").write_text("not an artifact")
    inventory = project_inventory(root, Version(TARGET))
    assert sorted(r.path.relative_to(root).as_posix() for r in inventory.reports) == ["store/model.jaxexport",
                                                                                       "top.bin"]
    assert inventory.files_looked_at == 3


def test_dry_run_migrates_nothing(project, python, tmp_path):
    out = tmp_path / "migrated"
    _upgrade(project, "--to", TARGET, "--python", python, "--no-index", "--dry-run", "--migrate-exports", str(out),
             "--report", str(tmp_path / "r.json"))
    [artifact] = json.loads((tmp_path / "r.json").read_text())["artifacts"]
    assert artifact["migration"]["status"] == "not-run" and "--dry-run" in artifact["migration"]["reason"]
    assert not out.exists()


def test_advice_says_why_a_fix_was_withheld():
    from jaxlint.lint.diagnostics import Diagnostic, Location, WithheldFix
    from jaxlint.upgrade.fixes import advice_for

    where = Location(1, 1)
    withheld = Diagnostic("JAX101", "m", "f.py", where, where,
                          fix_withheld=WithheldFix("the replacement is newer than the min version", "0.4.25"))
    assert advice_for(withheld) == ("fix withheld: the replacement is newer than the min version (offered once the "
                                    "min version is 0.4.25 or newer)")
    assert "by hand" in advice_for(Diagnostic("JAX101", "m", "f.py", where, where))
