"""Every `jaxlint exports` argument is checked before an environment is built or an artifact touched: a clear
`jaxlint exports: error: ...` and exit 2, never a traceback, and nothing left in $JAXLINT_ENV_DIR."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.exports.cli import exports_command


def _python_with(tmp_path: Path, jax: str | None, flatbuffers: bool = True, name: str = "python") -> Path:
    """An interpreter (the test's own, wrapped) whose `import jax` finds a stand-in of version ``jax``."""
    packages = tmp_path / f"site-{name}"
    if jax is not None:
        (packages / "jax").mkdir(parents=True)
        (packages / "jax" / "__init__.py").write_text(f"__version__ = {jax!r}\n")
    if flatbuffers:
        (packages / "flatbuffers").mkdir(parents=True)
        (packages / "flatbuffers" / "__init__.py").write_text("")
    packages.mkdir(exist_ok=True)
    wrapper = tmp_path / "bin" / name
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={packages} exec {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    return wrapper


@pytest.fixture
def env_dir(tmp_path, monkeypatch):
    folder = tmp_path / "envs"
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(folder))
    monkeypatch.chdir(tmp_path)
    return folder


def run(*args):
    return CliRunner().invoke(exports_command, [str(a) for a in args], catch_exceptions=False)


def _nothing_built(env_dir: Path) -> bool:
    return not env_dir.exists() or not any(env_dir.iterdir())


def test_a_baseline_python_without_jax_is_refused_before_anything_is_built(store, tmp_path, env_dir):
    no_jax = _python_with(tmp_path, None, name="nojax")
    result = run("migrate", store, "--out", tmp_path / "out", "--baseline-python", no_jax)
    assert result.exit_code == 2
    assert result.stderr == (f"jaxlint exports: error: --baseline-python {no_jax} has no JAX (ModuleNotFoundError: "
                             "No module named 'jax'): give the python of an environment with JAX installed\n")
    assert _nothing_built(env_dir) and not (tmp_path / "out").exists()


def test_a_target_python_without_jax_is_refused(store, tmp_path, env_dir):
    no_jax = _python_with(tmp_path, None, name="nojax")
    for args in (["migrate", store, "--out", tmp_path / "out"], [store, "--check-load"]):
        result = run(*args, "--target-python", no_jax)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"jaxlint exports: error: --target-python {no_jax} has no JAX ")
        assert "Traceback" not in result.output
    assert _nothing_built(env_dir)


def test_an_interpreter_without_flatbuffers_is_refused(store, tmp_path, env_dir):
    bare = _python_with(tmp_path, "0.12.0.1", flatbuffers=False)
    result = run(store, "--check-load", "--target-python", bare)
    assert result.exit_code == 2
    assert result.stderr == (f"jaxlint exports: error: --target-python {bare} has JAX 0.12.0.1 but not flatbuffers, "
                             "which jax.export needs to read and write artifacts (`pip install flatbuffers` there)\n")


def test_an_import_that_fails_is_refused_where_it_is_imported(store, tmp_path, env_dir):
    target = _python_with(tmp_path, "0.12.0.1")
    (tmp_path / "broken_effects.py").write_text("raise RuntimeError('no such effect registry')\n")
    result = run(store, "--check-load", "--target-python", target, "--import", "nosuchmod")
    assert result.exit_code == 2
    assert result.stderr == (f"jaxlint exports: error: --import nosuchmod: ModuleNotFoundError: No module named "
                             f"'nosuchmod' (imported in {target}, from {tmp_path})\n")
    result = run("migrate", store, "--out", tmp_path / "out", "--target-python", target, "--baseline-python",
                 _python_with(tmp_path, "0.11.0", name="old"), "--import", "broken_effects")
    assert result.exit_code == 2
    assert "--import broken_effects: RuntimeError: no such effect registry" in result.stderr
    assert not (tmp_path / "out").exists()


def test_an_import_no_built_environment_can_find_is_refused_before_building(store, tmp_path, env_dir):
    result = run("migrate", store, "--out", tmp_path / "out", "--import", "nosuchmod")
    assert result.exit_code == 2
    assert result.stderr.startswith("jaxlint exports: error: --import nosuchmod: no module 'nosuchmod' in the "
                                    f"current directory ({tmp_path}), and the environment jaxlint builds holds only ")
    assert run("migrate", store, "--out", tmp_path / "out", "--import", "a b").stderr == (
        "jaxlint exports: error: --import 'a b': not a module name (e.g. mypackage.effects)\n")
    assert _nothing_built(env_dir)


def test_a_baseline_release_the_index_lacks_is_refused_before_building(store, tmp_path, env_dir, monkeypatch):
    from jaxlint.verify import validate

    monkeypatch.setattr(validate, "published_jax_versions", lambda python, package="jax": ["0.4.38", "0.11.0"])
    target = _python_with(tmp_path, "0.12.0.1")
    result = run("migrate", store, "--out", tmp_path / "out", "--target-python", target, "--baseline-jax", "0.4.99")
    assert result.exit_code == 2
    assert result.stderr == ("jaxlint exports: error: --baseline-jax 0.4.99: the package index has no jax 0.4.99 "
                             "(closest: 0.4.38, 0.11.0)\n")
    assert _nothing_built(env_dir)


def test_a_baseline_equal_to_the_target_is_noted(tmp_path, env_dir):
    same = _python_with(tmp_path, "0.12.0.1")
    (tmp_path / "empty").mkdir()
    result = run("migrate", tmp_path / "empty", "--out", tmp_path / "out", "--target-python", same,
                 "--baseline-python", same)
    assert result.exit_code == 0, result.output
    assert ("warning: the baseline and the target are both JAX 0.12.0.1: the comparison proves nothing about the "
            "upgrade\n") in result.stderr


def test_usage_errors_name_the_documented_inspect_command():
    """Click's usage lines say `jaxlint exports inspect`: the command is documented under that name too."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "exports.md").read_text()
    assert "jaxlint exports inspect PATHS" in docs
    result = run("--no-such-option", ".")
    assert result.exit_code == 2 and "exports inspect [OPTIONS] PATHS..." in result.output
