"""Step 3: which installed distributions are scanned, what blocks, and which newer release to pin."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from jaxlint.project.versions import Version
from jaxlint.upgrade.dependencies import Finding, lint_files, own_min_version, project_dependencies, scan, uses_jax
from jaxlint.upgrade.environment import Distribution, list_distributions
from jaxlint.upgrade.releases import available_versions, find_fixed_release, lint_release, newer_releases
from tests.upgrade.conftest import make_venv
from tests.upgrade.distributions import install_unpacked

TARGET = Version("0.12.0.1")


def _names(dists) -> set[str]:
    return {d.name for d in dists}


def test_the_environment_is_read_in_the_other_interpreter(fake_site, tmp_path):
    python = make_venv(tmp_path / "venv", fake_site)
    dists = {d.name: d for d in list_distributions(str(python))}
    assert {"mydep", "other"} <= set(dists)
    assert dists["mydep"].version == "0.1" and dists["mydep"].requires == ["jax"]
    assert sorted(f.relative_to(fake_site).as_posix() for f in dists["mydep"].files) == \
        ["mydep/__init__.py", "mydep/core.py"]


def test_a_pythonpath_of_jaxlint_s_own_is_not_part_of_the_environment(fake_site, tmp_path, monkeypatch):
    python = make_venv(tmp_path / "venv")
    monkeypatch.setenv("PYTHONPATH", str(fake_site))
    assert "mydep" not in _names(list_distributions(str(python)))


def test_only_distributions_that_use_jax_are_scanned(fake_site, tmp_path):
    install_unpacked(fake_site, "quiet", "1.0", {"quiet/__init__.py": "from flax import linen\n"}, requires=())
    install_unpacked(fake_site, "jaxlib", "0.10.2", {"jaxlib/__init__.py": "import jax\n"}, requires=())
    project = tmp_path / "project"
    install_unpacked(project, "proj", "0", {"proj/__init__.py": "import jax\n"})
    dists = list_distributions(str(make_venv(tmp_path / "venv", fake_site, project)))
    # declared (mydep), undeclared but imported (quiet); not jaxlib itself, not the project, not `other`
    assert _names(project_dependencies(dists, project)) == {"mydep", "quiet"}


def test_a_venv_inside_the_project_holds_dependencies(fake_site, tmp_path):
    project = tmp_path / "project"
    python = make_venv(project / ".venv")
    site = next((project / ".venv").rglob("site-packages"))
    install_unpacked(site, "mydep", "0.1", {"mydep/__init__.py": "import jax\n"})
    assert _names(project_dependencies(list_distributions(str(python)), project)) == {"mydep"}


def test_uses_jax_reads_declared_requirements_with_markers_and_extras():
    assert uses_jax(Distribution("a", "1", ["flax>=0.8; python_version>'3.9'"]))
    assert uses_jax(Distribution("b", "1", ["Optax[test]"]))
    assert not uses_jax(Distribution("c", "1", ["jaxtyping", "numpy"]))
    assert not uses_jax(Distribution("jax-cuda12-plugin", "1", ["jax"]))


def test_a_dependency_calling_a_removed_api_blocks_and_deprecations_do_not(fake_site):
    [result] = scan([Distribution("mydep", "0.1", ["jax"], sorted((fake_site / "mydep").glob("*.py")))], TARGET)
    assert result.blocking
    assert [(f.file, f.row, f.code) for f in result.findings] == [("mydep/core.py", 5, "JAX101")]
    assert "jax.tree_map" in result.findings[0].message
    assert result.as_json()["fixed_in"] is None


def test_dependency_files_are_never_written(fake_site):
    before = (fake_site / "mydep" / "core.py").read_bytes()
    lint_files(sorted((fake_site / "mydep").glob("*.py")), TARGET, TARGET)
    assert (fake_site / "mydep" / "core.py").read_bytes() == before
    assert not list(fake_site.rglob(".jaxlint_cache"))


def test_a_dependency_is_linted_from_its_own_floor():
    assert own_min_version(["jax>=0.4.30", "numpy"], TARGET) == Version("0.4.30")
    assert own_min_version(["numpy"], TARGET) == TARGET
    assert own_min_version(["jax>=0.13"], TARGET) == TARGET  # never above the target


def test_newer_releases_are_bounded_and_newest_first():
    available = [Version(v) for v in ("0.6", "0.5", "0.4", "0.3", "0.2", "0.1")]
    assert newer_releases("0.2", available) == [Version("0.6"), Version("0.5"), Version("0.4")]
    assert newer_releases("0.6", available) == []


def test_the_index_is_asked_through_pip_s_own_settings(index):
    assert available_versions("mydep", sys.executable) == [Version("0.2"), Version("0.1")]
    assert available_versions("not-there", sys.executable) is None


def test_the_fixed_release_is_found_downloaded_and_cached(index, fake_site):
    [result] = scan([Distribution("mydep", "0.1", ["jax"], sorted((fake_site / "mydep").glob("*.py")))], TARGET)
    find_fixed_release(result, TARGET, sys.executable)
    assert result.fixed_in == "0.2" and result.releases_checked == ["0.2"]
    # cached: the wheel is not downloaded again
    for wheel in index.glob("*.whl"):
        os.remove(wheel)
    assert lint_release("mydep", Version("0.2"), TARGET, sys.executable) == []


def test_no_fixed_release_says_why(index, fake_site):
    old = [Distribution("mydep", "0.2", ["jax"], sorted((fake_site / "mydep").glob("*.py")))]
    [result] = scan(old, TARGET)
    find_fixed_release(result, TARGET, sys.executable)
    assert result.fixed_in is None and "newest release" in result.note


def test_a_release_that_still_breaks_is_not_the_pin(index, tmp_path, fake_site):
    from tests.upgrade.distributions import OLD_DEP, build_wheel

    build_wheel(index, "mydep", "0.3", OLD_DEP)  # the newest release broke again
    [result] = scan([Distribution("mydep", "0.1", ["jax"], sorted((fake_site / "mydep").glob("*.py")))], TARGET)
    find_fixed_release(result, TARGET, sys.executable)
    assert result.fixed_in is None and result.releases_checked == ["0.3"]
    assert "still break" in result.note


def test_finding_round_trips_through_the_cache_format():
    finding = Finding("a/b.py", 3, 4, "JAX101", "m")
    assert Finding.from_json(finding.as_json()) == finding


SHIMS = """import jax
import jax.numpy as np


def leaves(tree):
    try:
        return jax.tree_leaves(tree)
    except AttributeError:
        return jax.tree.leaves(tree)


def order(values, stable):
    try:
        return np.argsort(values, stable=stable)
    except TypeError:
        return np.argsort(values, kind="stable" if stable else "quicksort")


def flat(tree):
    try:
        return jax.tree_leaves(tree)
    except ValueError:
        return []
"""


def test_uses_inside_compatibility_shims_do_not_block(tmp_path):
    """try/except ImportError-TypeError-AttributeError around the old spelling: the new one runs where it works."""
    path = tmp_path / "lib" / "shims.py"
    path.parent.mkdir()
    path.write_text(SHIMS)
    blocking, warnings = lint_files([path], TARGET, TARGET)
    assert [(f.row, f.code) for f in blocking] == [(21, "JAX101")]  # `except ValueError` guards nothing
    assert [(f.row, f.code) for f in warnings] == [(16, "JAX103")]


def test_a_planted_release_cache_file_does_not_choose_the_pin(index, fake_site):
    """A file in the release cache (a CI cache restored from another branch, or another user's) that says the newest
    release is clean, when its wheel still breaks: the pin proposed is unchanged, and the file is replaced."""
    import json

    from jaxlint.project.fingerprint import engine_fingerprint
    from jaxlint.upgrade.releases import _cache_key
    from support.signed import signed_json_bytes, signed_with_another_key
    from tests.upgrade.distributions import OLD_DEP, build_wheel

    build_wheel(index, "mydep", "0.3", OLD_DEP)  # the newest release broke again
    planted_file = _cache_key("mydep", Version("0.3"), TARGET)
    clean = json.dumps({"findings": []}).encode()
    context = f"mydep|0.3|{TARGET}|{engine_fingerprint()}"
    for planted in (clean, signed_with_another_key("release", context, clean)):
        planted_file.parent.mkdir(parents=True, exist_ok=True)
        planted_file.write_bytes(planted)
        [result] = scan([Distribution("mydep", "0.1", ["jax"], sorted((fake_site / "mydep").glob("*.py")))], TARGET)
        find_fixed_release(result, TARGET, sys.executable)
        assert result.fixed_in is None and result.releases_checked == ["0.3"]
        assert "still break" in result.note
        stored = signed_json_bytes(planted_file.read_bytes(), "release", context)
        assert [finding["code"] for finding in stored["findings"]] == ["JAX101"]
