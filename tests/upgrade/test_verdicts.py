"""One project, one fake dependency for each verdict ``jaxlint upgrade`` gives, and a local package index (a folder
of small wheels and sdists, read by pip with ``--no-index --find-links``): the environment runs an older Python
than the target JAX needs (with its own pip, as a real old environment has), and jaxlint is installed in it.

- laterfix 1.0 (breaks); on the index 1.1 (breaks), 1.2 (an sdist only), 2.0 and 2.1 (fixed, need Python >= 3.12),
  3.0 (fixed, needs Python >= 3.13): blocking, fixed in 2.0, which needs Python >= 3.12;
- neverfixed 0.1 (breaks); on the index 0.2 (an sdist only) and 0.3 (still breaks): blocking, no release to pin;
- testsonly: breaks only in its tests; oldalias: a deprecated alias that still works; jaxmode: the old call never
  runs under JAX (after ``if JAX_MODE: return``): none of them blocks;
- unused: breaks, but the project never imports it: not a dependency;
- oldreq 1.0 (breaks) requires gone and kept, which both break; on the index oldreq 2.0 (fixed) requires kept only,
  gone 0.2 and kept 0.2 are fixed: oldreq and kept get a pin raise, gone none (no longer needed);
- the project's package imports neverfixed (no release fixes it): a fix site in it is not verified, one in
  ``tools/fit.py`` (which does not import it) is, and a command that imports the package is not run at all;
- jaxlint (a copy of this one, some of whose files import jax), imported by the project's script: never listed.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.ui.cli import main
from tests.upgrade.conftest import make_venv, write_tree
from tests.upgrade.distributions import build_sdist, build_wheel, install_unpacked

pytestmark = pytest.mark.slow
TARGET = "0.12.0.1"  # needs Python >= 3.12

BROKEN = "import jax\n\n\ndef flatten(tree):\n    return jax.tree_map(lambda x: x, tree)\n"
FIXED = "import jax\n\n\ndef flatten(tree):\n    return jax.tree.map(lambda x: x, tree)\n"
INSTALLED = {
    "laterfix": ("1.0", {"laterfix/__init__.py": BROKEN}),
    "neverfixed": ("0.1", {"neverfixed/__init__.py": BROKEN}),
    "testsonly": ("1.0", {"testsonly/__init__.py": FIXED, "testsonly/tests/test_flatten.py": BROKEN,
                          "testsonly/flatten_test.py": BROKEN}),
    "oldalias": ("1.0", {"oldalias/__init__.py": "from jax.experimental.pjit import pjit  # deprecated in 0.8.0\n"}),
    "jaxmode": ("1.0", {"jaxmode/__init__.py": "import jax\nJAX_MODE = True\n\n\ndef flatten(tree):\n"
                                               "    if JAX_MODE:\n        return jax.tree.leaves(tree)\n"
                                               "    return jax.tree_leaves(tree)\n"}),
    "unused": ("1.0", {"unused/__init__.py": BROKEN}),
}
# oldreq 1.0 requires gone and kept; its fixed release 2.0 only kept.
REQUIRES = {"oldreq": ("jax", "gone", "kept"), "gone": ("jax",), "kept": ("jax",)}
INSTALLED.update({"oldreq": ("1.0", {"oldreq/__init__.py": BROKEN}), "gone": ("0.1", {"gone/__init__.py": BROKEN}),
                  "kept": ("0.1", {"kept/__init__.py": BROKEN})})
TREE_MAP = "import jax\n\n\ndef f(tree):\n    return jax.tree_map(lambda x: x, tree)\n"
PROJECT = {
    "pyproject.toml": '[project]\nname = "proj"\nversion = "0"\ndependencies = ["jax>=0.4.30", "laterfix", '
                      '"neverfixed", "testsonly", "oldalias", "jaxmode", "oldreq"]\n',
    "proj/__init__.py": "import laterfix\nimport neverfixed\nimport testsonly\nimport oldalias\nimport jaxmode\n"
                        "import oldreq\n",
    "proj/model.py": TREE_MAP,
    "tools/lint.py": "import jaxlint  # the project's own script runs the linter\n",
    "tools/fit.py": TREE_MAP,
    "run.py": "from proj import model\n",
    "fit_run.py": "from tools import fit\n",
}


def _older_python() -> str | None:
    """An interpreter older than the target JAX supports (3.12): the old environment of a real project."""
    for name in ("python3.11", "python3.10", "python3.9"):
        found = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if found and subprocess.run([found, "-c", "import venv"], capture_output=True).returncode == 0:
            return found
    return None


def _installed_jaxlint(site: Path) -> None:
    """This jaxlint's own files and metadata, installed as pip leaves them (some of its files import jax)."""
    import importlib.metadata

    import jaxlint

    package = Path(jaxlint.__file__).parent
    files = {f"jaxlint/{p.relative_to(package).as_posix()}": p.read_text(encoding="utf-8")
             for p in package.rglob("*.py") if "__pycache__" not in p.parts}
    install_unpacked(site, "jaxlint", jaxlint.__version__, files,
                     requires=tuple(importlib.metadata.requires("jaxlint") or ()))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    old = _older_python()
    if old is None:
        pytest.skip("no Python older than 3.12 on this machine to stand for the old environment")
    base = tmp_path_factory.mktemp("verdicts")
    site = base / "site"
    for name, (version, files) in INSTALLED.items():
        install_unpacked(site, name, version, files, requires=REQUIRES.get(name, ("jax",)))
    _installed_jaxlint(site)
    # the old environment's own pip (it runs on the old Python, as in a real environment)
    tools = base / "pip-only"
    tools.mkdir()
    import pip

    (tools / "pip").symlink_to(Path(pip.__file__).parent, target_is_directory=True)
    python = make_venv(base / "venv", site, tools, base=old)
    links = base / "links"
    for version, files, needs in (("1.0", BROKEN, None), ("1.1", BROKEN, ">=3.8"), ("2.0", FIXED, ">=3.12"),
                                  ("2.1", FIXED, ">=3.12"), ("3.0", FIXED, ">=3.13")):
        build_wheel(links, "laterfix", version, {"laterfix/__init__.py": files}, requires_python=needs)
    build_sdist(links, "laterfix", "1.2", {"laterfix/__init__.py": FIXED})
    build_wheel(links, "neverfixed", "0.1", {"neverfixed/__init__.py": BROKEN})
    build_sdist(links, "neverfixed", "0.2", {"neverfixed/__init__.py": BROKEN})
    build_wheel(links, "neverfixed", "0.3", {"neverfixed/__init__.py": BROKEN})
    build_wheel(links, "oldreq", "2.0", {"oldreq/__init__.py": FIXED}, requires=("jax", "kept>=0.2"))
    for name in ("gone", "kept"):
        build_wheel(links, name, "0.2", {f"{name}/__init__.py": FIXED})
    project = write_tree(base / "project", PROJECT)
    return base, project, str(python), links


def _upgrade(world, monkeypatch, *extra):
    base, project, python, links = world
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    monkeypatch.setenv("JAXLINT_UPGRADE_CACHE", str(base / "cache"))
    monkeypatch.chdir(project)
    report = base / "report.json"
    result = CliRunner().invoke(main, ["upgrade", ".", "--to", TARGET, "--python", python, "--dry-run",
                                       "--report", str(report), *extra], catch_exceptions=False)
    return result, json.loads(report.read_text())


def test_each_dependency_gets_its_verdict_and_the_fix_is_found_for_the_target_s_python(world, monkeypatch):
    result, report = _upgrade(world, monkeypatch)
    # the environment's Python cannot run the target: said first, exit 2 (the dependencies are still looked at)
    assert result.exit_code == 2, result.output
    assert report["preflight"][0]["blocking"] and "needs Python >= 3.12" in report["preflight"][0]["problem"]
    checked = {d["name"]: d for d in report["dependencies_checked"]}
    # not imported by the project: not a dependency; jaxlint: never one
    assert set(checked) == {"laterfix", "neverfixed", "testsonly", "oldalias", "jaxmode", "oldreq", "gone", "kept"}
    # broken only in its tests, a deprecation that still works, code that never runs under JAX: not blocking
    assert not checked["testsonly"]["blocking"] and checked["testsonly"]["warnings"] == 0
    assert not checked["oldalias"]["blocking"] and checked["oldalias"]["warnings"] == 1
    assert not checked["jaxmode"]["blocking"] and checked["jaxmode"]["warnings"] == 1
    blocking = {d["name"]: d for d in report["blocking_dependencies"]}
    assert set(blocking) == {"laterfix", "neverfixed", "oldreq", "gone", "kept"}
    # fixed in a release that needs a newer Python than the environment's: looked up for the target's Python
    later = blocking["laterfix"]
    assert (later["fixed_in"], later["requires_python"], later["lookup_python"]) == ("2.0", ">=3.12", "3.12"), later
    assert later["releases_checked"] == ["3.0", "2.0", "1.2", "1.1"]
    assert "1.2 (older) had no wheel" in later["note"]
    never = blocking["neverfixed"]
    assert never["fixed_in"] is None and never["releases_checked"] == ["0.3"], never
    assert "(0.3) still breaks" in never["note"]
    pins = {p["name"]: p for p in report["pins"]}
    assert pins["laterfix"]["proposed"] == "laterfix>=2.0" and ">=3.12" in pins["laterfix"]["reason"]
    assert pins["neverfixed"]["proposed"] is None
    # gone: only oldreq 1.0 required it, and oldreq 2.0, the release proposed, does not
    assert pins["oldreq"]["proposed"] == "oldreq>=2.0" and pins["kept"]["proposed"] == "kept>=0.2"
    assert blocking["gone"]["fixed_in"] == "0.2" and pins["gone"]["proposed"] is None
    assert blocking["gone"]["no_longer_needed"] == (
        "no longer needed: oldreq 2.0, the release(s) proposed, does not require gone (oldreq 1.0 did), and the "
        "project neither imports nor pins it")
    assert blocking["kept"]["no_longer_needed"] is None
    assert "gone 0.1: no longer needed: oldreq 2.0" in result.stderr
    # the progress says what happened to each release
    assert "laterfix==3.0: wheel downloaded, Requires-Python >=3.13: not available for Python 3.12; nothing " \
           "breaks" in result.stderr
    assert "laterfix==1.2: no wheel for Python 3.12 on the package index (not checked)" in result.stderr
    assert "laterfix==1.1: wheel downloaded, Requires-Python >=3.8; 1 finding(s) that break" in result.stderr

    # a second run reads the (signed) release cache: the same verdicts, nothing downloaded
    again, second = _upgrade(world, monkeypatch)
    assert second["blocking_dependencies"] == report["blocking_dependencies"]
    assert "laterfix==2.0: read from the release cache" in again.stderr
    assert "wheel downloaded" not in again.stderr


def test_verify_runs_the_sites_that_do_not_import_a_dependency_no_release_fixes(world, monkeypatch, tmp_path):
    target = str(make_venv(tmp_path / "new"))  # a target on Python 3.12 (without JAX: verify stops there)
    # The command imports the project's package, which imports neverfixed: said, not run.
    result, report = _upgrade(world, monkeypatch, "--target-python", target, "--", "python", "run.py")
    assert report["verify"]["ran"] is False
    assert report["verify"]["note"].startswith(
        "Not run: `python run.py` imports neverfixed at startup (run.py -> proj/__init__.py -> neverfixed), and "
        "neverfixed 0.1 has no release that works on the target"), report["verify"]
    assert {(s["file"], s["status"]) for s in report["verified_sites"]} == {
        ("proj/model.py", "not-verified"), ("tools/fit.py", "not-verified")}
    # A command that does not: verify runs for the site in tools/fit.py (here up to the missing JAX of the
    # fake environments), where it used to be off for every site.
    result, report = _upgrade(world, monkeypatch, "--target-python", target, "--", "python", "fit_run.py")
    assert "1 of 2 site(s) not verified: their file imports a blocking dependency" in result.stderr, result.stderr
    assert "has no JAX installed" in report["verify"]["note"], report["verify"]
