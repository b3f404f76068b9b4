"""A blocking dependency that only an old release of another one required gets no pin raise: the walk from what the
project imports and pins, with each blocking dependency at its fixed release (its own Requires-Dist)."""
from __future__ import annotations

from pathlib import Path

from jaxlint.upgrade.dependencies import DependencyResult, Finding
from jaxlint.upgrade.environment import Distribution
from jaxlint.upgrade.pins import propose_dependencies
from jaxlint.upgrade.report import UpgradeReport, render_markdown
from jaxlint.upgrade.still_needed import mark_no_longer_needed


def _blocking(name, version, fixed_in, fixed_requires=None):
    finding = Finding(f"{name}/core.py", 5, 12, "JAX101", "`jax.tree_map` was removed in JAX 0.6.0")
    return DependencyResult(name, version, [finding], fixed_in=fixed_in, fixed_requires=fixed_requires)


# The jax-resnet environment: flax 0.7.0 requires optax; optax 0.2.1 requires chex; all three break at the target.
INSTALLED = [Distribution("flax", "0.7.0", ["jax>=0.4.2", "optax", "numpy"], top_level=["flax"]),
             Distribution("optax", "0.2.1", ["jax>=0.1.55", "chex>=0.1.7", "absl-py"], top_level=["optax"]),
             Distribution("chex", "0.1.82", ["jax>=0.4.6", "numpy"], top_level=["chex"]),
             Distribution("absl-py", "2.0", [], top_level=["absl"]),
             Distribution("numpy", "1.26.4", [], top_level=["numpy"]),
             Distribution("jax", "0.4.13", ["numpy"], top_level=["jax"])]


def _results():
    return [_blocking("flax", "0.7.0", "0.12.10", ["jax>=0.8.1", "optax", "numpy", "pytest; extra == 'testing'"]),
            _blocking("optax", "0.2.1", "0.2.8", ["jax>=0.5.3", "absl-py", "numpy", "chex>=0.1.90; extra == 'test'"]),
            _blocking("chex", "0.1.82", "0.1.90", ["jax>=0.7.0", "numpy"])]


def test_a_dependency_only_an_old_release_required_gets_no_pin_raise(tmp_path):
    # etils (which flax requires) imports chex where it is installed, without requiring it: pip does not install
    # chex for it (jax-resnet's environment).
    (tmp_path / "etils.py").write_text("try:\n    import chex\nexcept ImportError:\n    chex = None\n")
    etils = Distribution("etils", "1.13.0", ["typing_extensions"], [tmp_path / "etils.py"], top_level=["etils"])
    installed = [Distribution("flax", "0.7.0", [*INSTALLED[0].requires, "etils"], top_level=["flax"]),
                 *INSTALLED[1:], etils]
    results = _results()
    results[0].fixed_requires.append("etils")
    mark_no_longer_needed(results, installed, {"flax", "jax"}, ["jax>=0.2.6", "flax"])
    flax, optax, chex = results
    assert flax.no_longer_needed is None and optax.no_longer_needed is None
    assert chex.no_longer_needed == ("no longer needed: optax 0.2.8, the release(s) proposed, does not require chex "
                                     "(optax 0.2.1 did), and the project neither imports nor pins it")
    pins = {c.name: c for c in propose_dependencies(results, None, Path.cwd())}
    assert pins["optax"].proposed == "optax>=0.2.8" and pins["flax"].proposed == "flax>=0.12.10"
    assert pins["chex"].proposed is None
    assert pins["chex"].reason.startswith("chex 0.1.82 breaks at the target, but it is no longer needed: optax 0.2.8")
    report = UpgradeReport(project=".", target="0.12.0.1", dry_run=False, python="py")
    report.blocking_dependencies = [r.as_json() for r in results]
    report.pins = [c.as_json() for c in pins.values()]
    markdown = render_markdown(report)
    assert "### chex 0.1.82: no pin, no longer needed: optax 0.2.8" in markdown
    assert "2 pin change(s) proposed" in markdown  # chex's is listed, not counted
    assert report.blocking_dependencies[2]["no_longer_needed"] == chex.no_longer_needed


def test_a_dependency_the_project_or_another_one_still_needs_keeps_its_pin_raise(tmp_path):
    # The project imports chex itself.
    results = _results()
    mark_no_longer_needed(results, INSTALLED, {"flax", "chex"}, [])
    assert [r.no_longer_needed for r in results] == [None, None, None]
    # The project pins it.
    results = _results()
    mark_no_longer_needed(results, INSTALLED, {"flax"}, ["chex>=0.1"])
    assert results[2].no_longer_needed is None
    # The fixed optax still requires it.
    results = _results()
    results[1].fixed_requires = ["jax", "chex>=0.1.90"]
    mark_no_longer_needed(results, INSTALLED, {"flax"}, [])
    assert results[2].no_longer_needed is None
    # Required now only through an import read in a file (not a Requires-Dist): not judged.
    results = _results()
    results[1].fixed_requires, results[1].fixed_in = None, None
    (tmp_path / "uses.py").write_text("import chex\n")
    mark_no_longer_needed(results[::2], [*INSTALLED[2:], Distribution("uses", "1", [], [tmp_path / "uses.py"])],
                          {"uses"}, [])
    assert results[2].no_longer_needed is None
    # Another installed distribution the project uses requires it.
    results = _results()
    mark_no_longer_needed(results, [*INSTALLED, Distribution("rlax", "0.1", ["chex"], top_level=["rlax"])],
                          {"flax", "rlax"}, [])
    assert results[2].no_longer_needed is None


def test_nothing_is_said_where_a_fixed_release_s_requirements_are_not_known():
    results = _results()
    results[1].fixed_requires = None  # a release cache written by an older jaxlint
    mark_no_longer_needed(results, INSTALLED, {"flax"}, [])
    assert [r.no_longer_needed for r in results] == [None, None, None]
    # no fixed release for optax: chex stays needed through it
    results = _results()
    results[1].fixed_in = results[1].fixed_requires = None
    mark_no_longer_needed(results, INSTALLED, {"flax"}, [])
    assert results[2].no_longer_needed is None
