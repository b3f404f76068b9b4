"""The project model for versions: each file's range comes from its nearest enclosing package's pins (the lowest
lower bound over all its pin files), independent of --config and the current directory, shown with the file:line of
each bound, part of the cache key; fixes it withholds are counted in the summary."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxlint.lint.diagnostics import Diagnostic, Location, WithheldFix
from jaxlint.output.withheld import withheld_line
from jaxlint.project.pins import upper_bound
from jaxlint.project.version_pins import ProjectPins
from jaxlint.project.versions import Version
from jaxlint.run.results import FileResult
from tests.cli.test_cli import run

TREE_MAP = "import jax\ny = jax.tree_map(f, t)\n"
# jax.tree.map exists from 0.4.25; below it the portable spelling is jax.tree_util.tree_map.
AT_0_4_6 = "import jax\ny = jax.tree_util.tree_map(f, t)\n"
AT_0_4_30 = "import jax\ny = jax.tree.map(f, t)\n"
# jax.extend.core.Primitive exists from 0.4.27, and there is no older spelling of the same object.
PRIMITIVE = "import jax\np = jax.core.Primitive('p')\nq = jax.core.Primitive('q')\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def two_pin_files(root: Path) -> None:
    write(root / "requirements.txt", "jax>=0.4.6\n")
    write(root / "requirements-dev.txt", "pytest\njax>=0.4.30\n")


# -- the lowest lower bound over all pin files ------------------------------------------------------------------
def test_a_dev_requirements_file_does_not_raise_the_floor(tmp_path):
    two_pin_files(tmp_path)
    write(tmp_path / "a.py", TREE_MAP)
    assert "min version:    0.4.6 (requirements.txt:1: jax>=0.4.6)" in run(["--show-settings"], tmp_path).output
    run(["--fix", "--no-cache"], tmp_path)
    assert (tmp_path / "a.py").read_text() == AT_0_4_6


@pytest.mark.parametrize("name,text,where", [
    ("Pipfile", "[packages]\nflax = '*'\njax = '>=0.4.6'\n", "Pipfile:3: jax>=0.4.6"),
    ("Pipfile", "[dev-packages]\njax = {version = '>=0.4.6', extras = ['cpu']}\n", "Pipfile:2: jax>=0.4.6"),
    ("constraints.txt", "numpy<2\njax>=0.4.6  # oldest CI\n", "constraints.txt:2: jax>=0.4.6"),
    ("requirements/min.txt", "jax==0.4.6\n", "requirements/min.txt:1: jax==0.4.6"),
])
def test_pipfile_and_constraints_files_lower_the_floor(tmp_path, name, text, where):
    write(tmp_path / "requirements.txt", "jax>=0.4.30\n")
    write(tmp_path / name, text)
    write(tmp_path / "a.py", TREE_MAP)
    assert f"min version:    0.4.6 ({where})" in run(["--show-settings"], tmp_path).output
    run(["--fix", "--no-cache"], tmp_path)
    assert (tmp_path / "a.py").read_text() == AT_0_4_6


def test_an_unbounded_jax_requirement_leaves_the_floor_to_the_bounded_ones(tmp_path):
    write(tmp_path / "Pipfile", "[packages]\njax = '*'\n")
    write(tmp_path / "requirements.txt", "jax>=0.4.30\n")
    write(tmp_path / "a.py", TREE_MAP)
    run(["--fix", "--no-cache"], tmp_path)
    assert (tmp_path / "a.py").read_text() == AT_0_4_30


# -- a monorepo, run from its root ------------------------------------------------------------------------------
def monorepo(root: Path) -> None:
    (root / ".git").mkdir()
    write(root / "pyproject.toml", "[project]\nname = 'top'\ndependencies = ['jax>=0.4.30']\n")
    write(root / "packages" / "old" / "pyproject.toml", "[project]\nname = 'old'\ndependencies = ['jax>=0.4.6']\n")
    write(root / "packages" / "bare" / "setup.py", "from setuptools import setup\nsetup(name='bare')\n")
    write(root / "docs" / "requirements.txt", "sphinx\n")  # pins other things: not a package of its own
    for folder in ("src", "packages/old/src", "packages/bare", "docs"):
        write(root / folder / "a.py", TREE_MAP)


def test_a_sub_package_has_its_own_pins_when_run_from_the_root(tmp_path):
    monorepo(tmp_path)
    run(["--fix", "--no-cache"], tmp_path)
    assert (tmp_path / "packages/old/src/a.py").read_text() == AT_0_4_6
    assert (tmp_path / "src/a.py").read_text() == AT_0_4_30
    assert (tmp_path / "docs/a.py").read_text() == AT_0_4_30  # docs/requirements.txt says nothing about jax
    # a package that does not pin jax is not given its parent's pins: the min version is the target's
    assert (tmp_path / "packages/bare/a.py").read_text() == AT_0_4_30


def test_show_settings_for_a_file_shows_its_package_and_the_pin_of_each_bound(tmp_path):
    monorepo(tmp_path)
    write(tmp_path / "packages/old/requirements-test.txt", "jax>=0.4.10,<0.5\n")
    output = run(["--show-settings", "packages/old/src/a.py"], tmp_path).output
    assert "min version:    0.4.6 (packages/old/pyproject.toml:3: jax>=0.4.6)" in output
    assert (f"pinned range:   >=0.4.6 (packages/old/pyproject.toml:3) (package {tmp_path / 'packages/old'})"
            in output)  # the pyproject's requirement is open above: the union of the ranges is too
    top = run(["--show-settings", "src/a.py"], tmp_path).output
    assert "min version:    0.4.30 (pyproject.toml:3: jax>=0.4.30)" in top
    # the pins are shown even when --min-version decides
    overridden = run(["--show-settings", "--min-version", "0.5.0", "packages/old/src/a.py"], tmp_path).output
    assert "min version:    0.5.0 (--min-version)" in overridden
    assert "pinned range:   >=0.4.6 (packages/old/pyproject.toml:3)" in overridden


def test_the_highest_upper_bound_is_shown_with_its_pin(tmp_path):
    write(tmp_path / "requirements.txt", "jax>=0.4.6,<0.5\n")
    write(tmp_path / "requirements-dev.txt", "jax>=0.4.30,<0.6\n")
    write(tmp_path / "a.py", TREE_MAP)
    assert "pinned range:   >=0.4.6 (requirements.txt:1), <0.6 (requirements-dev.txt:1)" in \
        run(["--show-settings", "a.py"], tmp_path).output


# -- independent of --config and of the current directory -------------------------------------------------------
def test_a_config_file_elsewhere_keeps_the_project_pins(tmp_path):
    project = tmp_path / "project"
    two_pin_files(project)
    write(project / "a.py", TREE_MAP)
    write(tmp_path / "elsewhere" / "jaxlint.toml", "select = ['JAX']\n")
    output = run(["--show-settings", "--config", "../elsewhere/jaxlint.toml"], project).output
    assert "min version:    0.4.6 (requirements.txt:1: jax>=0.4.6)" in output
    run(["--fix", "--no-cache", "--config", "../elsewhere/jaxlint.toml"], project)
    assert (project / "a.py").read_text() == AT_0_4_6


def test_the_range_does_not_depend_on_the_current_directory(tmp_path):
    monorepo(tmp_path)
    run(["--fix", "--no-cache", "../packages/old/src/a.py"], tmp_path / "src")
    assert (tmp_path / "packages/old/src/a.py").read_text() == AT_0_4_6


def test_a_min_version_in_the_config_still_wins_over_the_pins(tmp_path):
    two_pin_files(tmp_path)
    write(tmp_path / "jaxlint.toml", "min-version = '0.4.30'\n")
    write(tmp_path / "a.py", TREE_MAP)
    run(["--fix", "--no-cache"], tmp_path)
    assert (tmp_path / "a.py").read_text() == AT_0_4_30


def test_pins_are_looked_up_once_per_folder(tmp_path, monkeypatch):
    import jaxlint.project.version_pins as version_pins

    monorepo(tmp_path)
    asked: list[Path] = []
    real = version_pins.folder_pins
    monkeypatch.setattr(version_pins, "folder_pins",
                        lambda folder, names=None, warnings=None: asked.append(folder) or real(folder, names, warnings))
    pins = ProjectPins(tmp_path)
    for _ in range(3):
        pins.for_directory(tmp_path / "packages/old/src")
        pins.for_directory(tmp_path / "packages/old")
    assert asked == [str(tmp_path / "packages/old/src"), str(tmp_path / "packages/old")]


@pytest.mark.parametrize("line,expected", [
    ("jax>=0.4.6,<0.5", "0.5"), ("jax<=0.4.30", "0.4.30"), ("jax==0.4.30", "0.4.30"), ("jax~=0.4.30", "0.5"),
    ("jax ^0.4.35", "0.5"), ("jax ^1.2", "2"), ("jax>=0.4.6", None), ("jax==0.4.*", None), ("jaxlib<0.5", None),
])
def test_upper_bound(line, expected):
    assert upper_bound(line) == (Version(expected) if expected else None)


# -- withheld fixes, explained ---------------------------------------------------------------------------------
def test_the_summary_counts_the_fixes_the_min_version_withholds(tmp_path):
    two_pin_files(tmp_path)
    write(tmp_path / "a.py", PRIMITIVE)
    output = run(["--no-cache"], tmp_path).output
    assert output.endswith("Found 2 errors.\n"
                           "2 more fixes need JAX >= 0.4.27; this project supports 0.4.6 (requirements.txt:1)\n")
    for output_format in ("concise", "full"):
        assert ("2 more fixes need JAX >= 0.4.27; this project supports 0.4.6 (requirements.txt:1)"
                in run(["--no-cache", "--output-format", output_format], tmp_path).output)
    finding = json.loads(run(["--no-cache", "--output-format", "json"], tmp_path).output)[0]
    assert finding["fix"] is None
    assert finding["fix_withheld"] == {
        "reason": "`jax.extend.core.Primitive` exists from JAX 0.4.27; the min version is 0.4.6 "
                  "(requirements.txt:1: jax>=0.4.6)",
        "needs_min_version": "0.4.27"}
    run(["--no-cache", "--fix"], tmp_path)
    assert (tmp_path / "a.py").read_text() == PRIMITIVE


def test_no_withheld_line_when_the_min_version_allows_the_fix(tmp_path):
    write(tmp_path / "requirements.txt", "jax>=0.4.30\n")
    write(tmp_path / "a.py", PRIMITIVE)
    result = run(["--no-cache", "--output-format", "json"], tmp_path)
    assert [f["fix_withheld"] for f in json.loads(result.output)] == [None, None]
    assert "more fix" not in run(["--no-cache"], tmp_path).output


def _result(path: str, floor: tuple[str, str] | None, *needs: str | None) -> FileResult:
    diagnostics = [Diagnostic("JAX101", "m", path, Location(1, 1), Location(1, 2),
                              fix_withheld=WithheldFix("why", need) if need != "-" else None) for need in needs]
    return FileResult(path, diagnostics, version_floor=floor)


def test_withheld_line_one_version_one_fix():
    assert withheld_line([_result("a.py", ("0.4.6", "requirements.txt:1"), "0.4.25")]) == \
        "1 more fix needs JAX >= 0.4.25; this project supports 0.4.6 (requirements.txt:1)"


def test_withheld_line_groups_by_needed_version_oldest_first():
    results = [_result("a.py", ("0.4.6", "requirements.txt:1"), "0.4.31", "0.4.25", "0.4.25", "-", None),
               _result("b.py", ("0.4.6", "requirements.txt:1"), "0.4.25")]
    assert withheld_line(results) == ("4 more fixes need a newer min version (3 JAX >= 0.4.25, 1 JAX >= 0.4.31); "
                                      "this project supports 0.4.6 (requirements.txt:1)")


def test_withheld_line_names_each_package_floor():
    results = [_result("b/a.py", ("0.4.13", "b/pyproject.toml:3"), "0.4.25"),
               _result("a.py", ("0.4.6", "requirements.txt:1"), "0.4.25"),
               _result("c.py", ("0.4.30", "requirements.txt:1"))]  # nothing withheld there: not named
    assert withheld_line(results) == ("2 more fixes need JAX >= 0.4.25; its packages support 0.4.6 "
                                      "(requirements.txt:1), 0.4.13 (b/pyproject.toml:3)")


def test_withheld_line_is_absent_without_a_needed_version():
    assert withheld_line([_result("a.py", ("0.4.6", "x"), None, "-")]) is None


# -- the cache ------------------------------------------------------------------------------------------------
def test_a_pin_change_between_cached_runs_changes_the_fixes(tmp_path):
    write(tmp_path / "requirements-dev.txt", "jax>=0.4.30\n")
    write(tmp_path / "a.py", TREE_MAP)

    def fix_of_first_finding() -> str:
        finding = json.loads(run(["--output-format", "json"], tmp_path).output)[0]
        return finding["fix"]["edits"][0]["content"] if finding["fix"] else finding["fix_withheld"]["reason"]

    assert fix_of_first_finding() == "jax.tree.map"
    assert fix_of_first_finding() == "jax.tree.map"  # cached
    write(tmp_path / "requirements.txt", "jax>=0.4.6\n")
    assert fix_of_first_finding() == "jax.tree_util.tree_map"


def test_a_moved_pin_changes_the_cached_reason(tmp_path):
    write(tmp_path / "requirements.txt", "jax>=0.4.6\n")
    write(tmp_path / "a.py", PRIMITIVE)

    def reason() -> str:
        return json.loads(run(["--output-format", "json"], tmp_path).output)[0]["fix_withheld"]["reason"]

    assert reason().endswith("(requirements.txt:1: jax>=0.4.6)")
    write(tmp_path / "requirements.txt", "numpy\njax>=0.4.6\n")
    assert reason().endswith("(requirements.txt:2: jax>=0.4.6)")
