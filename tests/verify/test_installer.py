"""Which tool builds the JAX environments (uv when it is there, pip otherwise) and the command lines each gets."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from jaxlint.verify import installer as installer_module
from jaxlint.verify.installer import ENV_VAR, Installer, InstallerError, choose

# `uv pip check` and a failed `uv pip install`, as uv 0.13.9 prints them.
UV_CHECK = """Using Python 3.12.1 environment at: env
Checked 9 packages in 3ms
Found 2 incompatibilities
The package `flax` requires `jax>=0.8.1`, but `0.4.30` is installed
The package `jaxlint` requires `click>=8.0`, but it's not installed
"""
UV_CONFLICT = """Using Python 3.12.1 environment at: env
error: No solution found when resolving dependencies
  cause: Because flax==0.12.12 depends on jax>=0.8.1 and you require jax==0.4.30, we can conclude that your
         requirements are unsatisfiable.
"""


def _fake_uv(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    uv = folder / "uv"
    uv.write_text("#!/bin/sh\nexit 0\n")
    uv.chmod(0o755)
    return uv


def test_uv_is_used_when_on_path_and_pip_otherwise(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(installer_module, "_importable_uv", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert choose() == Installer(None) and choose().name == "pip"
    uv = _fake_uv(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(uv.parent))
    assert choose() == Installer(str(uv)) and choose().name == "uv"
    monkeypatch.setenv(ENV_VAR, "pip")
    assert choose().name == "pip"


def test_the_uv_package_beside_jaxlint_comes_first(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    beside = _fake_uv(tmp_path / "venv" / "bin")
    monkeypatch.setattr(installer_module, "_importable_uv", lambda: str(beside))
    monkeypatch.setenv("PATH", str(_fake_uv(tmp_path / "other").parent))
    assert choose().uv == str(beside)


def test_the_environment_variable_requires_uv_or_names_it(monkeypatch, tmp_path):
    monkeypatch.setattr(installer_module, "_importable_uv", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv(ENV_VAR, "uv")
    with pytest.raises(InstallerError, match=r"JAXLINT_INSTALLER=uv but uv is neither installed beside jaxlint "
                                             r"\(pip install 'jaxlint\[fast-envs\]'\) nor on PATH"):
        choose()
    uv = _fake_uv(tmp_path / "somewhere")
    monkeypatch.setenv(ENV_VAR, str(uv))
    assert choose().uv == str(uv)
    monkeypatch.setenv(ENV_VAR, "conda")
    with pytest.raises(InstallerError, match="expected pip, uv, auto or the path of a uv executable"):
        choose()


def test_command_lines():
    env = Path("/envs/jax-0.4.30")
    python = env / "bin" / "python"
    pip, uv = Installer(), Installer("/opt/uv")
    assert pip.create_venv("/usr/bin/python3.12", env) == ["/usr/bin/python3.12", "-m", "venv", str(env)]
    assert uv.create_venv("/usr/bin/python3.12", env) == ["/opt/uv", "venv", "--quiet", "--allow-existing",
                                                          "--python", "/usr/bin/python3.12", str(env)]
    assert pip.install(python, ["-c", "c.txt", "jax==0.4.30"]) == [
        str(python), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", "-c", "c.txt",
        "jax==0.4.30"]
    assert uv.install(python, ["-c", "c.txt", "jax==0.4.30"]) == [
        "/opt/uv", "pip", "install", "--python", str(python), "-c", "c.txt", "jax==0.4.30"]
    assert pip.check(python) == [str(python), "-m", "pip", "check", "--disable-pip-version-check"]
    assert uv.check(python) == ["/opt/uv", "pip", "check", "--python", str(python)]
    assert pip.freeze(python) == [str(python), "-m", "pip", "freeze", "--exclude-editable",
                                  "--disable-pip-version-check"]
    assert uv.freeze(python) == ["/opt/uv", "pip", "freeze", "--exclude-editable", "--python", str(python)]


def test_progress_and_failure_lines_of_each_tool():
    pip, uv = Installer(), Installer("/opt/uv")
    assert [pip.shows(line) for line in ("Collecting jax==0.4.30", "  Downloading jax-0.4.30.whl",
                                         "Installing collected packages: jax", "Successfully installed jax-0.4.30")
            ] == [True, False, True, True]
    assert [uv.shows(line) for line in ("Using Python 3.12.1 environment at: env", "Resolved 7 packages in 1s",
                                        "Prepared 2 packages in 4s", "Installed 7 packages in 30ms",
                                        " + jax==0.4.30")] == [False, True, True, True, True]
    lines = UV_CONFLICT.splitlines()
    assert lines[uv.failure_start(lines):] == lines[1:]
    lines = ["Collecting flax==0.12.12", "ERROR: Cannot install flax==0.12.12 and jax==0.4.30", "The conflict is"]
    assert lines[pip.failure_start(lines):] == lines[1:]


def test_uv_pip_check_problems_skip_packages_jaxlint_does_not_install(monkeypatch, tmp_path):
    import subprocess

    from jaxlint.verify import envs

    monkeypatch.setattr(envs.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, "", UV_CHECK))
    assert envs.pip_check(tmp_path / "python", Installer("/opt/uv")) == [
        "The package `flax` requires `jax>=0.8.1`, but `0.4.30` is installed"]
