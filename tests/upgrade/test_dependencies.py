"""Step 3: which installed distributions are scanned, what blocks, and which newer release to pin."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from jaxlint.project.versions import Version
from jaxlint.upgrade.dependencies import (DependencyResult, Finding, lint_files, own_min_version, project_dependencies,
                                          scan, uses_jax)
from jaxlint.upgrade.environment import Distribution, list_distributions
from jaxlint.upgrade import releases
from jaxlint.upgrade.releases import (ReleaseLint, available_versions, find_fixed_release, lint_release,
                                      lookup_python, newer_releases)
from jaxlint.upgrade.import_graph import imported_modules
from tests.upgrade.conftest import make_venv, write_tree
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
    install_unpacked(project, "proj", "0", {"proj/__init__.py": "import jax, jaxlib, other\nimport mydep, quiet\n"})
    dists = list_distributions(str(make_venv(tmp_path / "venv", fake_site, project)))
    # declared (mydep), undeclared but imported (quiet); not jaxlib itself, not the project, not `other`
    assert _names(project_dependencies(dists, project)) == {"mydep", "quiet"}


def test_only_what_the_project_s_code_reaches_is_a_dependency(fake_site, tmp_path):
    """A shared environment: jaxlint and other projects' JAX packages are there, but the project never runs them."""
    install_unpacked(fake_site, "jaxlint", "0.1.0", {"jaxlint/__init__.py": "import jax\n"}, requires=("libcst",))
    install_unpacked(fake_site, "unused", "1.0", {"unused/__init__.py": "import jax\n"})
    install_unpacked(fake_site, "wrapper", "1.0", {"wrapper/__init__.py": "import json\n"}, requires=("inner",))
    install_unpacked(fake_site, "inner", "1.0", {"inner/__init__.py": "import jax\n"})
    install_unpacked(fake_site, "hidden", "1.0", {"hidden/__init__.py": "import jax\n"}, requires=())
    install_unpacked(fake_site, "pulls", "1.0", {"pulls/__init__.py": "import jax, hidden\n"})
    install_unpacked(fake_site, "tested", "1.0", {"tested/__init__.py": "import jax\n"},
                     requires=("jax", "unused; extra == 'test'"))
    project = tmp_path / "project"
    write_tree(project, {"app/main.py": "import mydep\nfrom wrapper import x\nimport pulls.sub\nimport tested\n",
                         "app/tools.py": "def f():\n    import jaxlint  # the project's own script calls the linter\n",
                         ".venv/lib/site.py": "import unused\n"})
    dists = list_distributions(str(make_venv(tmp_path / "venv", fake_site)))
    # mydep and tested: imported; inner: through wrapper's requirement; hidden: imported by pulls
    assert _names(project_dependencies(dists, project)) == {"mydep", "inner", "pulls", "hidden", "tested"}
    # a requirement of the project's own (a plugin it never imports by name) is one of its dependencies too
    write_tree(project, {"requirements.txt": "# runtime\nunused>=1.0  # loaded as a plugin\n-e .\n"})
    assert "unused" in _names(project_dependencies(dists, project))


def test_the_import_graph_reads_imports_of_files_that_do_not_parse():
    assert imported_modules("import a.b as c, d\nfrom e.f import g\nfrom . import h\n") == {"a", "d", "e"}
    assert imported_modules("print 'py2'\nimport a.b as c, d\nfrom e.f import g\n") == {"a", "d", "e"}


def test_a_venv_inside_the_project_holds_dependencies(fake_site, tmp_path):
    project = tmp_path / "project"
    python = make_venv(project / ".venv")
    site = next((project / ".venv").rglob("site-packages"))
    install_unpacked(site, "mydep", "0.1", {"mydep/__init__.py": "import jax\n"})
    write_tree(project, {"run.py": "import mydep\n"})
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


def test_newer_releases_are_newest_first():
    available = [Version(v) for v in ("0.6", "0.5", "0.4", "0.3", "0.2", "0.1")]
    assert newer_releases("0.2", available) == [Version("0.6"), Version("0.5"), Version("0.4"), Version("0.3")]
    assert newer_releases("0.6", available) == []


def test_releases_are_looked_up_for_the_target_s_python():
    """The old environment's Python is raised to the oldest the target JAX supports; --target-python's wins."""
    assert lookup_python(TARGET, Version("3.10.13"), None) == Version("3.12")  # 0.12.0.1 needs 3.12
    assert lookup_python(TARGET, Version("3.13.1"), None) == Version("3.13")
    assert lookup_python(TARGET, Version("3.10.13"), Version("3.14.0")) == Version("3.14")
    assert lookup_python(TARGET, None, None) == Version("3.12")
    assert lookup_python(Version("99.0"), Version("3.11.2"), None) == Version("3.11")  # a JAX jaxlint does not know


def _fake_index(monkeypatch, fixed_from: str | None, count: int, no_wheel=(), broken_again=()):
    """Releases 0.1 .. 0.<count> (0.1 installed) that break before ``fixed_from``; the downloads are counted."""
    versions = [Version(f"0.{n}") for n in range(count, 0, -1)]
    looked: list[str] = []
    monkeypatch.setattr(releases, "available_versions", lambda name, pip, python=None: versions)

    def lint(name, version, target, pip, python=None):
        looked.append(str(version))
        if str(version) in no_wheel:
            return ReleaseLint(version, None, how="no wheel")
        breaks = fixed_from is None or version < Version(fixed_from) or str(version) in broken_again
        return ReleaseLint(version, [Finding("d/core.py", 1, 0, "JAX101", "m")] if breaks else [], ">=3.12")

    monkeypatch.setattr(releases, "lint_release", lint)
    return looked


def test_the_first_fixed_release_is_found_by_bisection_in_a_few_downloads(monkeypatch):
    """60 newer releases, fixed from 0.17: the newest, then halves; never more than MAX_RELEASES downloads."""
    looked = _fake_index(monkeypatch, "0.17", 61)
    lines: list[str] = []
    result = DependencyResult("dep", "0.1", [Finding("d/core.py", 1, 0, "JAX101", "m")])
    find_fixed_release(result, TARGET, sys.executable, lines.append, Version("3.12"))
    assert result.fixed_in == "0.17" and result.requires_python == ">=3.12" and result.note is None
    assert looked[0] == "0.61" and len(looked) <= releases.MAX_RELEASES == 8
    assert result.releases_checked == sorted(looked, key=Version, reverse=True)
    assert "0.17 is the first release that does not break" in lines[-1]
    assert "0.16" in looked  # the one before it was seen to break


def test_a_release_without_a_wheel_is_stepped_over_and_said(monkeypatch):
    looked = _fake_index(monkeypatch, "0.3", 5, no_wheel=("0.3", "0.5"))
    lines: list[str] = []
    result = DependencyResult("dep", "0.1", [Finding("d/core.py", 1, 0, "JAX101", "m")])
    find_fixed_release(result, TARGET, sys.executable, lines.append, Version("3.12"))
    # 0.5 has no wheel: the newest with one is 0.4; 0.3 has none either, 0.2 breaks
    assert result.fixed_in == "0.4" and looked == ["0.5", "0.4", "0.3", "0.2"]
    assert "0.3 (older) had no wheel" in result.note
    assert lines[0] == "  dep==0.5: no wheel for Python 3.12 on the package index (not checked)"
    assert lines[1].startswith("  dep==0.4: wheel downloaded, Requires-Python >=3.12; nothing breaks")


def test_the_search_stops_at_its_download_budget_and_says_so(monkeypatch):
    monkeypatch.setattr(releases, "MAX_RELEASES", 3)
    _fake_index(monkeypatch, "0.17", 61)
    result = DependencyResult("dep", "0.1", [Finding("d/core.py", 1, 0, "JAX101", "m")])
    find_fixed_release(result, TARGET, sys.executable, python_version=Version("3.12"))
    assert result.fixed_in is not None and Version(result.fixed_in) > Version("0.17")
    assert "stopped after 3 downloads" in result.note


def test_a_newest_release_that_broke_again_is_not_pinned(monkeypatch):
    looked = _fake_index(monkeypatch, "0.3", 9, broken_again=("0.9",))
    result = DependencyResult("dep", "0.1", [Finding("d/core.py", 1, 0, "JAX101", "m")])
    find_fixed_release(result, TARGET, sys.executable, python_version=Version("3.12"))
    assert result.fixed_in is None and looked == ["0.9"] and "(0.9) still breaks" in result.note


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
    cached = lint_release("mydep", Version("0.2"), TARGET, sys.executable)
    assert (cached.findings, cached.how) == ([], "cached")


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


def test_a_dependency_s_tests_examples_and_docs_never_block(tmp_path):
    broken = "import jax\nflat = jax.tree_map(lambda x: x, {})\n"
    files = {"lib/core.py": "import jax\n", "lib/tests/check.py": broken, "lib/core_test.py": broken,
             "lib/test_core.py": broken, "lib/conftest.py": broken, "lib/examples/demo.py": broken,
             "lib/docs/conf.py": broken, "lib/benchmarks/run.py": broken}
    write_tree(tmp_path, files)
    blocking, warnings = lint_files([tmp_path / name for name in files], TARGET, TARGET)
    assert blocking == [] and warnings == []
    write_tree(tmp_path, {"lib/testing.py": broken})  # library code, whatever its name says
    blocking, _ = lint_files([tmp_path / "lib/core.py", tmp_path / "lib/testing.py"], TARGET, TARGET)
    assert [(f.file, f.code) for f in blocking] == [("lib/testing.py", "JAX101")]


JAX_MODE = """\
import jax
from lib.internal import JAX_MODE, NUMPY_MODE


def flatten(tree):
    if JAX_MODE:
        return jax.tree_util.tree_leaves(tree)
    return jax.tree_leaves(tree)


def other(tree):
    if NUMPY_MODE or JAX_MODE:
        return []
    else:
        return jax.tree_leaves(tree)


def third(tree):
    if not JAX_MODE:
        return jax.tree_leaves(tree)
    return jax.tree_leaves(tree)


def fourth(tree):
    if JAX_MODE:
        print("no return: what follows runs")
    return jax.tree_leaves(tree)
"""


def test_code_after_an_early_return_under_jax_mode_never_blocks(tmp_path):
    """TensorFlow Probability's substrates: ``if JAX_MODE: return ...`` ends the function under JAX."""
    path = tmp_path / "lib" / "flat.py"
    path.parent.mkdir()
    path.write_text(JAX_MODE)
    blocking, warnings = lint_files([path], TARGET, TARGET)
    assert [(f.row, f.code) for f in blocking] == [(21, "JAX101"), (27, "JAX101")]
    assert [(f.row, f.code) for f in warnings] == [(8, "JAX101"), (15, "JAX101"), (20, "JAX101")]


def test_a_flax_deprecation_that_still_works_does_not_block(tmp_path):
    path = tmp_path / "lib" / "state.py"
    path.parent.mkdir()
    path.write_text("import flax\nfrom flax import nnx\nstate = nnx.VariableState(nnx.Param, 1.0)\n"
                    "g = flax.jax_utils.pmean(1, 'batch')\n")
    blocking, warnings = lint_files([path], TARGET, TARGET)
    assert blocking == []
    assert [(f.row, f.code) for f in warnings] == [(3, "JAX506"), (4, "JAX506")]


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
    clean = json.dumps({"findings": [], "requires_python": ""}).encode()
    context = f"mydep|0.3|{TARGET}|any|{engine_fingerprint()}"
    for planted in (clean, signed_with_another_key("release", context, clean)):
        planted_file.parent.mkdir(parents=True, exist_ok=True)
        planted_file.write_bytes(planted)
        [result] = scan([Distribution("mydep", "0.1", ["jax"], sorted((fake_site / "mydep").glob("*.py")))], TARGET)
        find_fixed_release(result, TARGET, sys.executable)
        assert result.fixed_in is None and result.releases_checked == ["0.3"]
        assert "still break" in result.note
        stored = signed_json_bytes(planted_file.read_bytes(), "release", context)
        assert [finding["code"] for finding in stored["findings"]] == ["JAX101"]


FALLBACK = """\
import jax
from jax.experimental import hijax as hjx

HiPrim = getattr(hjx, 'HiPrim', None) or hjx.VJPHiPrimitive
leaves = (getattr(jax.tree, "leaves", None)
          or jax.tree_leaves)
also = hjx.VJPHiPrimitive
first = hjx.VJPHiPrimitive or getattr(hjx, 'HiPrim', None)
plain = getattr(hjx, 'HiPrim') or hjx.VJPHiPrimitive
"""


def test_the_fallback_after_a_getattr_with_a_default_does_not_block(tmp_path):
    """flax 0.12.10: ``getattr(hjx, 'HiPrim', None) or hjx.VJPHiPrimitive`` runs the old name only where the new one
    is missing; the same name used plainly, first, or after a getattr that raises, still blocks."""
    path = tmp_path / "lib" / "variables.py"
    path.parent.mkdir()
    path.write_text(FALLBACK)
    blocking, warnings = lint_files([path], TARGET, TARGET)
    assert [(f.row, f.code) for f in blocking] == [(7, "JAX101"), (8, "JAX101"), (9, "JAX101")]
    assert [(f.row, f.code) for f in warnings] == [(4, "JAX101"), (6, "JAX101")]


def test_a_dependency_s_prefixed_example_and_test_folders_never_block(tmp_path):
    """jraph ships ``jraph/ogb_examples/``: examples whatever their prefix, as are ``*_test/`` and ``*_tests/``."""
    broken = "import jax\nflat = jax.tree_map(lambda x: x, {})\n"
    files = {"lib/core.py": "import jax\n", "lib/ogb_examples/train.py": broken, "lib/model_test/check.py": broken,
             "lib/graph_nets_tests/check.py": broken, "lib/my_docs/conf.py": broken}
    write_tree(tmp_path, files)
    blocking, warnings = lint_files([tmp_path / name for name in files], TARGET, TARGET)
    assert blocking == [] and warnings == []
    library = {"lib/examples_util/core.py": broken, "lib/testing_utils/core.py": broken, "lib/_test/core.py": broken}
    write_tree(tmp_path, library)  # library code: the word is not the folder's suffix
    blocking, _ = lint_files([tmp_path / "lib/core.py", *(tmp_path / name for name in library)], TARGET, TARGET)
    assert sorted(f.file for f in blocking) == sorted(library)


def _prerelease_index(tmp_path, monkeypatch, versions: dict[str, dict[str, str]]) -> None:
    from tests.upgrade.distributions import build_wheel

    links = tmp_path / "pre-links"
    for version, files in versions.items():
        build_wheel(links, "predep", version, files)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    monkeypatch.setenv("JAXLINT_UPGRADE_CACHE", str(tmp_path / "cache"))


def _blocking(version: str) -> DependencyResult:
    return DependencyResult("predep", version, [Finding("predep/core.py", 5, 11, "JAX101", "m")])


def test_a_dependency_that_publishes_only_pre_releases_is_said_so(tmp_path, monkeypatch):
    """jraph publishes only ``0.0.N.devM`` releases: pip lists none without --pre. Not "could not be looked up"."""
    from tests.upgrade.distributions import OLD_DEP

    _prerelease_index(tmp_path, monkeypatch, {"0.1.dev0": OLD_DEP, "0.2.dev0": OLD_DEP})
    lines: list[str] = []
    result = _blocking("0.2.dev0")
    find_fixed_release(result, TARGET, sys.executable, lines.append)
    assert result.fixed_in is None
    assert result.note == ("predep publishes only pre-releases (0.2.dev0, 0.1.dev0) and 0.2.dev0, the one "
                           "installed, is the newest: no release fixes it")
    assert lines == [f"  {result.note}"]
    result = _blocking("0.1.dev0")
    find_fixed_release(result, TARGET, sys.executable)
    assert result.fixed_in is None and result.note == (
        "newer pre-release(s) of predep (0.2.dev0) are not checked: jaxlint pins final releases only; try one by "
        "hand if a pre-release will do")


def test_pre_releases_newer_than_every_final_one_are_named_when_no_final_one_fixes(tmp_path, monkeypatch):
    from tests.upgrade.distributions import NEW_DEP, OLD_DEP

    _prerelease_index(tmp_path, monkeypatch, {"0.1": OLD_DEP, "0.2": OLD_DEP, "0.2rc1": NEW_DEP, "0.3rc1": NEW_DEP})
    result = _blocking("0.1")
    find_fixed_release(result, TARGET, sys.executable)
    assert result.fixed_in is None and result.releases_checked == ["0.2"]
    assert result.note == ("the newest release checked (0.2) still breaks at JAX 0.12.0.1: no newer release can be "
                           "pinned; newer pre-release(s) of predep (0.3rc1) are not checked: jaxlint pins final "
                           "releases only; try one by hand if a pre-release will do")
    result = _blocking("0.2")  # the newest final release is installed
    find_fixed_release(result, TARGET, sys.executable)
    assert result.note.startswith("0.2 is the newest release on the package index; newer pre-release(s) of predep "
                                  "(0.3rc1)")


def test_a_fixed_final_release_needs_no_word_on_pre_releases(tmp_path, monkeypatch):
    from tests.upgrade.distributions import NEW_DEP, OLD_DEP

    _prerelease_index(tmp_path, monkeypatch, {"0.1": OLD_DEP, "0.2": NEW_DEP, "0.3rc1": NEW_DEP})
    result = _blocking("0.1")
    find_fixed_release(result, TARGET, sys.executable)
    assert (result.fixed_in, result.note) == ("0.2", None)


def test_a_library_s_own_names_in_its_own_files_do_not_block(tmp_path):
    """optax 0.2.1's ``__init__.py`` imports its own ``monte_carlo`` (removed from optax in 0.2.7): there in that
    release. The same name used by another library, or a JAX name used by optax, still blocks."""
    files = {"optax/__init__.py": "from optax import monte_carlo\n", "optax/monte_carlo.py": "x = 1\n",
             "optax/core.py": "import jax\nleaves = jax.tree_leaves({})\n",
             "other/use.py": "from optax import monte_carlo\n"}
    write_tree(tmp_path, files)
    blocking, warnings = lint_files([tmp_path / name for name in files], TARGET, TARGET)
    assert sorted((f.file.split("/", 1)[1], f.code) for f in blocking) == [("optax/core.py", "JAX101"),
                                                                          ("other/use.py", "JAX502")]
    assert warnings == []
