"""Step 4 of ``jaxlint upgrade``: the target environment is built from releases that work at the target, a
dependency that nothing fixes is said once, and the report shows one count of verified sites. No JAX needed."""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from jaxlint.project.versions import Version
from jaxlint.upgrade.dependencies import DependencyResult, Finding
from jaxlint.upgrade.environment import Distribution
from jaxlint.upgrade.report import UpgradeReport, render_markdown
from jaxlint.upgrade.steps import Upgrade, UpgradeOptions
from jaxlint.verify.envs import relaxed_requirements, requirements_for, with_releases

TARGET = "0.12.0.1"


def _blocking(name, version, fixed_in):
    finding = Finding(f"{name}/core.py", 5, 12, "JAX101", "`jax.tree_map` was removed in JAX 0.6.0")
    return DependencyResult(name, version, [finding], fixed_in=fixed_in)


def _upgrade(tmp_path, target_python=None):
    options = UpgradeOptions(tmp_path, Version(TARGET), sys.executable, command=("python", "run.py"),
                             target_python=target_python)
    return Upgrade(options, echo=lambda line: None)


@pytest.fixture
def built(monkeypatch):
    """Records what the target environment would be built with (and builds nothing)."""
    calls = []

    def baseline_env(version, python, platform, *, echo, releases=None, **_):
        calls.append((version, releases))
        raise RuntimeError("not built in this test")

    monkeypatch.setattr("jaxlint.verify.envs.baseline_env", baseline_env)
    return calls


def test_the_target_environment_takes_the_release_that_works_in_place_of_the_broken_one(tmp_path, built):
    upgrade = _upgrade(tmp_path)
    upgrade._verify(SimpleNamespace(sites=["a site"]), False, [_blocking("mydep", "0.1", "0.2")])
    assert built == [(TARGET, {"mydep": "0.2"})]
    assert upgrade.report.verify["note"] == "Not run: not built in this test"
    assert upgrade.report.verify["releases"] == {"mydep": "0.2"}


def test_a_dependency_no_release_fixes_is_said_once_and_no_site_runs(tmp_path, built):
    upgrade = _upgrade(tmp_path)
    never_fixed = _blocking("olddep", "1.0", None)
    never_fixed.note = "the newest release checked (1.1) still break at JAX 0.12.0.1"
    upgrade._verify(SimpleNamespace(sites=["a", "b", "c"]), False, [_blocking("mydep", "0.1", "0.2"), never_fixed])
    assert built == []  # nothing is built for a run that cannot verify anything
    assert upgrade.report.verify["ran"] is False and upgrade.report.verified_sites == []
    assert upgrade.report.verify["note"] == (
        "Not run: no site can be verified while the target environment holds olddep 1.0, which breaks at JAX "
        f"{TARGET} (the newest release checked (1.1) still break at JAX 0.12.0.1) (see \"Blocking dependencies\").")
    markdown = render_markdown(upgrade.report)
    assert markdown.count("olddep 1.0, which breaks") == 1
    # Releases not looked up (--no-index): said so, not "none works".
    upgrade = _upgrade(tmp_path)
    upgrade.options.check_releases = False
    upgrade._verify(SimpleNamespace(sites=["a"]), False, [_blocking("olddep", "1.0", None)])
    assert "olddep 1.0, which breaks at JAX 0.12.0.1 (no newer release was looked up (--no-index))" in \
        upgrade.report.verify["note"]


def test_a_given_target_environment_that_holds_the_broken_release_is_said_once(tmp_path, built, monkeypatch):
    installed = [Distribution("mydep", "0.1"), Distribution("jax", TARGET)]
    monkeypatch.setattr("jaxlint.upgrade.environment.list_distributions", lambda python: installed)
    upgrade = _upgrade(tmp_path, target_python="/envs/new/bin/python")
    upgrade._verify(SimpleNamespace(sites=["a"]), False, [_blocking("mydep", "0.1", "0.2")])
    assert "mydep 0.1, which breaks at JAX 0.12.0.1 (install mydep==0.2 in --target-python)" in \
        upgrade.report.verify["note"]
    # The fixed release installed there: it runs (here, up to the interpreter check of the fake path).
    installed[0] = Distribution("mydep", "0.2")
    upgrade = _upgrade(tmp_path, target_python="/envs/new/bin/python")
    upgrade._verify(SimpleNamespace(sites=["a"]), False, [_blocking("mydep", "0.1", "0.2")])
    assert "holds" not in (upgrade.report.verify["note"] or "") and built == []


def test_releases_replace_the_installed_versions_and_are_never_relaxed():
    requirements = requirements_for(TARGET, None, ["mydep==0.1", "numpy==2.1.0", "My_Dep2==3"])
    replaced = with_releases(requirements, {"mydep": "0.2", "my-dep2": "4"})
    assert replaced.others == ["numpy==2.1.0"]
    assert replaced.releases == ["my-dep2==4", "mydep==0.2"]
    assert replaced.all == [f"jax=={TARGET}", f"jaxlib=={TARGET}", "my-dep2==4", "mydep==0.2", "numpy==2.1.0"]
    # The fallback resolution bounds the other packages by their installed versions, never these releases.
    assert relaxed_requirements(replaced) == ["numpy<=2.1.0"]
    assert with_releases(requirements, {}) is requirements


def _sites(statuses):
    return [{"file": "m.py", "row": row, "column": 1, "code": "JAX101", "status": status, "detail": "d"}
            for row, status in enumerate(statuses, 1)]


def test_the_report_shows_one_count_of_verified_sites():
    report = UpgradeReport(project=".", target=TARGET, dry_run=False, python="py")
    report.verify = {"command": ["python", "run.py"], "ran": True, "note": None, "baseline": "0.4.20",
                     "target": TARGET}
    report.verified_sites = _sites(["died-before"] * 15 + ["verified"])
    markdown = render_markdown(report)
    assert "## Verify: 1 of 16 site(s) verified" in markdown
    assert "1 of 16 site(s) verified, 0 artifact(s)." in markdown.splitlines()[2]
    assert "By status: 15 died-before, 1 verified." in markdown
    assert "Verified sites (16)" not in markdown
    report.verify["releases"] = {"mydep": "0.2"}
    assert "AFTER's environment took the releases that work at the target in place of the blocking ones: mydep 0.2." \
        in render_markdown(report)
