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


PROJECT = {
    "proj/__init__.py": "",
    "proj/graphs.py": "import numpy as np\nfrom proj import helpers\n",
    "proj/helpers.py": "import olddep\n",
    "proj/plain.py": "import jax\n",
    "pkg/__init__.py": "import olddep\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/inner.py": "import jax\n",
    "proj/wrapped.py": "def f():\n    import wrapper  # in a function: it still runs when f is called\n",
    "proj/relative.py": "from . import helpers\n",
    "run.py": "from proj import plain\n",
    "run_graphs.py": "import proj.graphs\n",
}
# olddep 1.0 breaks and nothing fixes it; wrapper requires it; numpy and jax do not (jax installs a top-level
# ``docs`` folder too, as jraph and dm-haiku do: that is not importing olddep).
INSTALLED = [Distribution("olddep", "1.0", ["jax"], top_level=["olddep", "docs"]),
             Distribution("wrapper", "2.0", ["olddep>=1", "pytest; extra == 'test'"], top_level=["wrapper"]),
             Distribution("numpy", "2.0", [], top_level=["numpy"]),
             Distribution("jax", TARGET, [], top_level=["jax", "docs"])]


def _site(root, file, row=1):
    return SimpleNamespace(id=f"{file}:{row}", file=root / file, row=row, column=1, code="JAX101")


def _project_upgrade(tmp_path, command=("python", "run.py")):
    for name, text in PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    upgrade = _upgrade(tmp_path)
    upgrade.options.command = command
    upgrade._distributions = INSTALLED
    never_fixed = _blocking("olddep", "1.0", None)
    never_fixed.note = "the newest release checked (1.1) still breaks at JAX 0.12.0.1"
    return upgrade, [_blocking("mydep", "0.1", "0.2"), never_fixed]


@pytest.fixture
def verified(monkeypatch, tmp_path):
    """Records the plan verify runs, and says every site verified (files shown relative to the project)."""
    monkeypatch.chdir(tmp_path)
    runs = []

    def verify(plan, command, **_):
        runs.append(plan)
        run = SimpleNamespace(exit_code=0)
        return SimpleNamespace(baseline=SimpleNamespace(jax_version="0.4.13", run=run),
                               target=SimpleNamespace(jax_version=TARGET, run=run),
                               sites=[SimpleNamespace(site=s, status="verified", detail="1 call(s) compared")
                                      for s in plan.sites])

    monkeypatch.setattr("jaxlint.verify.verifier.verify", verify)
    monkeypatch.setattr(Upgrade, "_target_python", lambda self, purpose, releases=None: sys.executable)
    return runs


def test_only_the_sites_whose_file_imports_a_dependency_no_release_fixes_are_not_verified(tmp_path, verified):
    upgrade, blocking = _project_upgrade(tmp_path)
    sites = [_site(tmp_path, "proj/plain.py"), _site(tmp_path, "proj/graphs.py", 2),
             _site(tmp_path, "proj/wrapped.py"), _site(tmp_path, "proj/relative.py"),
             _site(tmp_path, "pkg/sub/inner.py")]
    upgrade._verify(SimpleNamespace(sites=sites), False, blocking)
    assert len(verified) == 1 and upgrade.report.verify["ran"] is True
    shown = {(s["file"], s["status"]): s["detail"] for s in upgrade.report.verified_sites}
    why = ("not verified: olddep 1.0 has no release that works on the target (JAX 0.12.0.1): the newest release "
           "checked (1.1) still breaks at JAX 0.12.0.1")
    assert shown == {
        ("proj/plain.py", "verified"): "1 call(s) compared",
        # through the project's own imports, a distribution that requires it, a relative import
        ("proj/graphs.py", "not-verified"): f"{why} (proj/graphs.py -> proj/helpers.py -> olddep)",
        ("proj/wrapped.py", "not-verified"): f"{why} (proj/wrapped.py -> wrapper)",
        ("proj/relative.py", "not-verified"): f"{why} (proj/relative.py -> proj/helpers.py -> olddep)",
        # importing pkg.sub.inner runs pkg/__init__.py
        ("pkg/sub/inner.py", "not-verified"): f"{why} (pkg/sub/inner.py -> pkg/__init__.py -> olddep)"}
    assert upgrade.report.verify["note"] == ("4 of 5 site(s) not verified: their file imports a blocking dependency "
                                             "the target environment cannot do without.")
    assert upgrade.report.verify["releases"] == {"mydep": "0.2"}  # the fixed one is replaced as before
    markdown = render_markdown(upgrade.report)
    assert "## Verify: 1 of 5 site(s) verified" in markdown and "By status: 1 verified, 4 not-verified." in markdown
    assert not upgrade.report.done


def test_every_site_importing_the_dependency_is_said_and_nothing_runs(tmp_path, verified, built):
    upgrade, blocking = _project_upgrade(tmp_path)
    upgrade._verify(SimpleNamespace(sites=[_site(tmp_path, "proj/helpers.py")]), False, blocking)
    assert verified == [] and built == [] and upgrade.report.verify["ran"] is False
    assert upgrade.report.verify["note"] == ("Not run: every fix site's file imports olddep, which the target "
                                             "environment cannot do without (see \"Blocking dependencies\").")
    assert [s["status"] for s in upgrade.report.verified_sites] == ["not-verified"]
    assert upgrade.report.verified_sites[0]["detail"].endswith("(proj/helpers.py -> olddep)")


def test_a_command_that_imports_the_dependency_at_startup_is_not_run(tmp_path, verified, built):
    for command in (("python", "run_graphs.py"), ("python", "-m", "run_graphs")):
        upgrade, blocking = _project_upgrade(tmp_path, command)
        upgrade._verify(SimpleNamespace(sites=[_site(tmp_path, "proj/plain.py")]), False, blocking)
        assert verified == [] and built == []
        assert upgrade.report.verify["note"].startswith(
            f"Not run: `{' '.join(command)}` imports olddep at startup (run_graphs.py -> proj/graphs.py -> "
            "proj/helpers.py -> olddep), and olddep 1.0 has no release that works on the target"), \
            upgrade.report.verify["note"]
        assert [s["status"] for s in upgrade.report.verified_sites] == ["not-verified"]
    # A command jaxlint cannot read the start of (pytest) runs.
    upgrade, blocking = _project_upgrade(tmp_path, ("pytest", "run_graphs.py"))
    upgrade._verify(SimpleNamespace(sites=[_site(tmp_path, "proj/plain.py")]), False, blocking)
    assert len(verified) == 1 and upgrade.report.verified_sites[0]["status"] == "verified"


def test_without_a_dependency_that_blocks_verify_every_site_is_verified(tmp_path, verified):
    upgrade, blocking = _project_upgrade(tmp_path, ("python", "run_graphs.py"))
    upgrade._verify(SimpleNamespace(sites=[_site(tmp_path, "proj/graphs.py")]), False, blocking[:1])
    assert [s["status"] for s in upgrade.report.verified_sites] == ["verified"]
    assert upgrade.report.verify["note"] is None


def test_a_given_target_environment_that_holds_the_broken_release_is_said_once(tmp_path, built, monkeypatch):
    installed = [Distribution("mydep", "0.1"), Distribution("jax", TARGET)]
    monkeypatch.setattr("jaxlint.upgrade.environment.list_distributions", lambda python: installed)
    (tmp_path / "m.py").write_text("import mydep\n")
    site = SimpleNamespace(id="m.py:1", file=tmp_path / "m.py", row=1, column=1, code="JAX101")
    upgrade = _upgrade(tmp_path, target_python="/envs/new/bin/python")
    upgrade._verify(SimpleNamespace(sites=[site]), False, [_blocking("mydep", "0.1", "0.2")])
    assert upgrade.report.verified_sites[0]["detail"] == (
        "not verified: --target-python holds mydep 0.1, which breaks at JAX 0.12.0.1 (install mydep==0.2 there) "
        "(m.py -> mydep)")
    # The fixed release installed there: it runs (here, up to the interpreter check of the fake path).
    installed[0] = Distribution("mydep", "0.2")
    upgrade = _upgrade(tmp_path, target_python="/envs/new/bin/python")
    upgrade._verify(SimpleNamespace(sites=[site]), False, [_blocking("mydep", "0.1", "0.2")])
    assert "holds" not in (upgrade.report.verify["note"] or "") and built == []
    assert upgrade.report.verified_sites == []


def test_releases_not_looked_up_are_said_so(tmp_path, verified, built):
    upgrade, _ = _project_upgrade(tmp_path)
    upgrade.options.check_releases = False
    upgrade._verify(SimpleNamespace(sites=[_site(tmp_path, "proj/helpers.py")]), False,
                    [_blocking("olddep", "1.0", None)])
    assert upgrade.report.verified_sites[0]["detail"] == (
        "not verified: olddep 1.0 has no release that works on the target (JAX 0.12.0.1): no newer release was "
        "looked up (--no-index) (proj/helpers.py -> olddep)")


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
