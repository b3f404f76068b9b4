"""``jaxlint upgrade`` for real: code written for JAX 0.10.2, a dependency installed with pip that calls a removed
JAX API (its fixed release on a local index), an old flax import, a test command, and an artifact JAX 0.12.0.1
reads only with the expired-versions flag. Both runs of the command, and the migration, use the test JAX venvs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.ui.cli import main
from tests.support.jaxenv import jax_python
from tests.upgrade.conftest import make_venv, tree_hash
from tests.upgrade.distributions import OLD_DEP, build_wheel

pytestmark = pytest.mark.jax
TARGET = "0.12.0.1"

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "upgrade"  # the README's example project


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """The project, its environment (JAX 0.10.2, mydep 0.1 installed by pip), and an index with mydep 0.2."""
    base = tmp_path_factory.mktemp("upgrade-e2e")
    old, new = jax_python("0.10.2"), jax_python(TARGET)
    old_site = subprocess.run([str(old), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
    python = make_venv(base / "venv", Path(old_site))
    links = base / "links"
    wheel = build_wheel(links, "mydep", "0.1", OLD_DEP)
    from tests.upgrade.distributions import NEW_DEP

    build_wheel(links, "mydep", "0.2", NEW_DEP)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True)
    project = base / "project"
    shutil.copytree(EXAMPLE, project)
    return base, project, str(python), str(new), links


def _upgrade(setup, *extra, monkeypatch):
    base, project, python, new, links = setup
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    monkeypatch.setenv("JAXLINT_UPGRADE_CACHE", str(base / "cache"))
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.chdir(project)
    args = ["upgrade", ".", "--to", TARGET, "--python", python, "--target-python", new, *extra,
            "--report", str(base / "report.md"), "--report", str(base / "report.json"), "--", "python", "run.py"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return result, json.loads((base / "report.json").read_text()), (base / "report.md").read_text()


def test_upgrade_end_to_end_then_a_second_run_is_a_no_op(setup, monkeypatch):
    base, project, *_ = setup
    before = tree_hash(project)
    dry, dry_report, _ = _upgrade(setup, "--dry-run", monkeypatch=monkeypatch)
    assert tree_hash(project) == before, dry.output
    assert dry_report["fixes_applied"] and dry_report["dry_run"] is True

    result, report, markdown = _upgrade(setup, "--migrate-exports", str(base / "migrated"), monkeypatch=monkeypatch)
    assert "jnp.meshgrid(xs, xs))" in (project / "app" / "model.py").read_text(), result.output
    # the blocking dependency, and the release to pin
    [dep] = report["blocking_dependencies"]
    assert (dep["name"], dep["version"], dep["fixed_in"]) == ("mydep", "0.1", "0.2")
    assert "### mydep 0.1: pin `mydep>=0.2`" in markdown
    # the sites, verified by running `python run.py` on 0.10.2 (old code) and 0.12.0.1 (fixed code)
    assert report["verify"]["ran"] and (report["verify"]["baseline"], report["verify"]["target"]) == ("0.10.2", TARGET)
    sites = {(s["file"], s["row"], s["code"]): s["status"] for s in report["verified_sites"]}
    assert sites == {("app/model.py", 4, "JAX102"): "verified", ("app/model.py", 9, "JAX201"): "verified",
                     ("app/model.py", 15, "JAX202"): "verified"}, report["verified_sites"]
    # the artifact's verdict, and its migration
    [artifact] = report["artifacts"]
    assert artifact["verdict"] == "loads-with-flag" and artifact["migration"]["status"] == "migrated", artifact
    assert (base / "migrated" / "model.jaxexport").is_file()
    # the old flax use (flax.optim, removed in flax 0.6.0) is a finding left, with its porting advice
    [left] = report["findings_left"]
    assert (left["file"], left["code"]) == ("app/train.py", "JAX501") and "TrainState" in left["message"], left
    # the pin changes
    assert {p["name"]: p["proposed"] for p in report["pins"]} == {
        "jax": "jax>=0.10.2,<0.13", "jaxlib": "jaxlib==0.12.0.1", "mydep": "mydep>=0.2"}

    after = tree_hash(project)
    again, second, markdown = _upgrade(setup, monkeypatch=monkeypatch)
    assert tree_hash(project) == after
    assert second["fixes_applied"] == [] and "Nothing to fix." in markdown
    assert second["verify"]["note"] == "Nothing to verify: no fix was applied."
