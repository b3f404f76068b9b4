"""Configuration files: discovery, every key, validation errors (exit 2 naming the file and the key), pins."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxlint.project.pins import lower_bound
from jaxlint.project.versions import Version
from tests.cli.test_cli import NONE_ARG, NONE_ARG_FIXED, run

PROMISE = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, axis=0, mode='promise_in_bounds')\n"
PROMISE_FIXED = ("import jax.numpy as jnp\n"
                 "y = jnp.take_along_axis(x, i, axis=0, mode='promise_in_bounds', wrap_negative_indices=False)\n")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("name,body", [
    ("pyproject.toml", "[tool.jaxlint]\nselekt = ['JAX2']\n"),
    ("jaxlint.toml", "selekt = ['JAX2']\n"),
    (".jaxlint.toml", "selekt = ['JAX2']\n"),
])
def test_unknown_key_names_file_and_key(tmp_path, name, body):
    write(tmp_path / name, body)
    write(tmp_path / "a.py", NONE_ARG)
    result = run([], tmp_path)
    assert result.exit_code == 2
    assert name in result.output and "unknown key `selekt`" in result.output


@pytest.mark.parametrize("body,fragment", [
    ("select = 'JAX2'", "`select` must be a list"),
    ("select = ['E501']", "`E501` is not a rule code"),
    ("ignore = ['JAX9']", "`JAX9` matches no rule"),
    ("target-version = '0.x'", "`target-version`: not a JAX version"),
    ("min-version = 11", "`min-version` must be a version string"),
    ("unsafe-fixes = 'yes'", "`unsafe-fixes` must be true or false"),
    ("output-format = 'xml'", "`output-format` must be one of"),
    ("per-file-ignores = ['a.py']", "`per-file-ignores` must be a table"),
    ("exclude = 'build'", "`exclude` must be a list of strings"),
    ("target_version = '0.11.1'", "did you mean `target-version`"),
])
def test_bad_values_are_errors(tmp_path, body, fragment):
    write(tmp_path / "jaxlint.toml", body + "\n")
    write(tmp_path / "a.py", NONE_ARG)
    result = run([], tmp_path)
    assert result.exit_code == 2, result.output
    assert "jaxlint.toml" in result.output and fragment in result.output


def test_invalid_toml(tmp_path):
    write(tmp_path / "jaxlint.toml", "select = [\n")
    write(tmp_path / "a.py", NONE_ARG)
    result = run([], tmp_path)
    assert result.exit_code == 2 and "invalid TOML" in result.output


def test_pyproject_without_table_is_not_a_config(tmp_path):
    write(tmp_path / "jaxlint.toml", "ignore = ['JAX202']\n")
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'x'\n")
    write(tmp_path / "sub" / "a.py", NONE_ARG)
    assert run(["sub"], tmp_path).exit_code == 0


def test_closest_config_wins(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.jaxlint]\nignore = ['JAX202']\n")
    write(tmp_path / "quiet" / "a.py", NONE_ARG)
    write(tmp_path / "loud" / ".jaxlint.toml", "select = ['JAX']\n")
    write(tmp_path / "loud" / "a.py", NONE_ARG)
    result = run([], tmp_path)
    flagged = [line.split(":")[0] for line in result.output.splitlines() if "JAX202" in line]
    assert flagged == [str(Path("loud") / "a.py")]


def test_dot_file_beats_plain_file_in_the_same_directory(tmp_path):
    write(tmp_path / "jaxlint.toml", "select = ['JAX']\n")
    write(tmp_path / ".jaxlint.toml", "ignore = ['JAX202']\n")
    write(tmp_path / "a.py", NONE_ARG)
    assert run([], tmp_path).exit_code == 0


def test_per_file_ignores_and_excludes(tmp_path):
    write(tmp_path / "jaxlint.toml",
          "exclude = ['vendored']\nextend-exclude = ['gen_*.py']\n[per-file-ignores]\n'tests/*' = ['JAX202']\n")
    write(tmp_path / "vendored" / "a.py", NONE_ARG)
    write(tmp_path / "gen_x.py", NONE_ARG)
    write(tmp_path / "tests" / "t.py", NONE_ARG)
    write(tmp_path / "src" / "m.py", NONE_ARG)
    result = run([], tmp_path)
    flagged = [line.split(":")[0] for line in result.output.splitlines() if "JAX202" in line]
    assert flagged == [str(Path("src") / "m.py")]
    # An excluded file named explicitly is still checked, unless --force-exclude (pre-commit passes paths).
    assert run(["gen_x.py"], tmp_path).exit_code == 1
    assert run(["--force-exclude", "gen_x.py", "vendored/a.py"], tmp_path).exit_code == 0


def test_config_keys_for_versions_fixes_and_format(tmp_path):
    write(tmp_path / "jaxlint.toml",
          "target-version = '0.12.0'\nmin-version = '0.10.2'\nunsafe-fixes = false\noutput-format = 'json'\n")
    write(tmp_path / "a.py", PROMISE)
    result = run([], tmp_path)
    assert result.exit_code == 1
    assert json.loads(result.output)[0]["code"] == "JAX202"
    settings = run(["--show-settings"], tmp_path).output
    assert "target version: 0.12.0\n" in settings and "min version:    0.10.2 (jaxlint.toml: min-version)" in settings


def test_min_version_from_pins_controls_fix_safety(tmp_path):
    write(tmp_path / "pyproject.toml", "[project]\nname = 'p'\ndependencies = ['jax[cuda12]>=0.4.30,<0.13']\n")
    write(tmp_path / "a.py", PROMISE)
    settings = run(["--show-settings"], tmp_path).output
    assert "min version:    0.4.30 (pyproject.toml:3: jax[cuda12]>=0.4.30,<0.13)" in settings
    result = run(["--fix"], tmp_path)  # the keyword does not exist in 0.4.30: no fix
    assert (tmp_path / "a.py").read_text() == PROMISE
    assert "needs JAX >= 0.10.2 (min version is 0.4.30)" in result.output
    run(["--fix", "--min-version", "0.10.2"], tmp_path)
    assert (tmp_path / "a.py").read_text() == PROMISE_FIXED


def test_min_version_from_requirements_txt(tmp_path):
    write(tmp_path / "requirements.txt", "numpy\njaxlib==0.10.2\njax==0.10.2  # pinned\n")
    write(tmp_path / "a.py", NONE_ARG)
    assert "min version:    0.10.2 (requirements.txt:3: jax==0.10.2)" in \
        run(["--show-settings"], tmp_path).output


def test_min_version_from_setup_py_literal_install_requires(tmp_path):
    write(tmp_path / "setup.py", "from setuptools import setup\nREQS = ['jax>=0.9']\n"
          "setup(name='p', install_requires=['flax', 'jax>=0.4.30'], extras_require={'x': ['jax>=0.5']})\n")
    write(tmp_path / "a.py", NONE_ARG)
    assert "min version:    0.4.30 (setup.py:3: jax>=0.4.30)" in run(["--show-settings"], tmp_path).output


def test_setup_py_is_read_not_run_and_computed_values_are_ignored(tmp_path):
    write(tmp_path / "setup.py",
          "import sys\nsys.exit(3)\nREQS = compute(['jax>=0.9'])\nsetup(install_requires=REQS)\n")
    write(tmp_path / "a.py", NONE_ARG)
    assert "(not pinned: assuming the target version)" in run(["--show-settings"], tmp_path).output


def test_setup_py_variables_are_resolved_not_run(tmp_path):
    write(tmp_path / "setup.py", "import sys\nsys.exit(3)\nREQS = ['jax>=0.9']\nsetup(install_requires=REQS)\n")
    write(tmp_path / "a.py", NONE_ARG)
    assert "min version:    0.9 (setup.py:3: jax>=0.9)" in run(["--show-settings"], tmp_path).output


@pytest.mark.parametrize("dependency,expected", [
    ("  - conda-forge::jax=0.4.30", "0.4.30 (environment.yml:5: jax==0.4.30)"),
    ("  - jax >=0.5.1", "0.5.1 (environment.yml:5: jax >=0.5.1)"),
    ("  - pip:\n    - 'jax[cuda12]>=0.6.1'", "0.6.1 (environment.yml:6: jax[cuda12]>=0.6.1)"),
])
def test_min_version_from_environment_yml(tmp_path, dependency, expected):
    write(tmp_path / "environment.yml", f"name: p\ndependencies:\n  - python=3.12\n  - jaxlib\n{dependency}\n")
    write(tmp_path / "a.py", NONE_ARG)
    assert f"min version:    {expected}" in run(["--show-settings"], tmp_path).output


def test_unpinned_project_assumes_target(tmp_path):
    write(tmp_path / "a.py", NONE_ARG)
    assert "(not pinned: assuming the target version)" in run(["--show-settings"], tmp_path).output


def test_isolated_and_explicit_config(tmp_path):
    write(tmp_path / "jaxlint.toml", "ignore = ['JAX202']\n")
    write(tmp_path / "other.toml", "select = ['JAX']\n")
    write(tmp_path / "a.py", NONE_ARG)
    assert run([], tmp_path).exit_code == 0
    assert run(["--isolated"], tmp_path).exit_code == 1
    assert run(["--config", "other.toml"], tmp_path).exit_code == 1


def test_cli_unsafe_fixes_overrides_config(tmp_path):
    write(tmp_path / "jaxlint.toml", "unsafe-fixes = true\n")
    write(tmp_path / "a.py", NONE_ARG)
    run(["--fix", "--no-unsafe-fixes"], tmp_path)
    assert (tmp_path / "a.py").read_text() == NONE_ARG_FIXED


@pytest.mark.parametrize("line,expected", [
    ("jax>=0.4.30", "0.4.30"), ("jax == 0.10.2", "0.10.2"), ("jax[cuda12]~=0.11.1", "0.11.1"),
    ("JAX>=0.5,<0.7", "0.5"), ("jax ^0.4.35", "0.4.35"), ("jax>0.4.20; python_version>'3.9'", "0.4.20"),
])
def test_lower_bound(line, expected):
    assert lower_bound(line) == Version(expected)


@pytest.mark.parametrize("line", ["jaxlib>=0.4.30", "jax-md>=0.2", "jaxtyping", "jax", "# jax>=0.4", "flax>=0.8"])
def test_not_a_jax_pin(line):
    assert lower_bound(line) is None
