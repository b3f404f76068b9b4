"""jaxlint's JAX environments in a shared $JAXLINT_ENV_DIR: prune removes only what jaxlint built and nothing being
built, two runs never build one environment at once (the second reuses the first's), and an environment that lost
a package is rebuilt, with a line saying why. The installers are stand-ins (tests/support/fake_installers.py)."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.project.versions import Version
from jaxlint.ui.cli import main
from jaxlint.verify.installer import ENV_VAR
from tests.support.fake_installers import make

REPO = Path(__file__).resolve().parents[2]


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _owned(root: Path, name: str, jax: str, complete: bool) -> Path:
    folder = root / name
    (folder / "bin").mkdir(parents=True)
    (folder / ".jaxlint-env.json").write_text(json.dumps({"tool": "jaxlint", "env": name, "jax": jax}))
    if complete:
        (folder / ".complete").write_text(jax)
    return folder


@pytest.fixture
def shared(tmp_path, monkeypatch):
    """An env dir shared with the user's own jax-* folders."""
    root = tmp_path / "shared"
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(root))
    (root / "jax-experiments").mkdir(parents=True)
    (root / "jax-experiments" / "train.py").write_text("import jax\n")
    (root / "jax-paper").mkdir()
    (root / "jax-paper" / "paper.tex").write_text("\\section{JAX}\n")
    # Markers that do not name the folder: copied from elsewhere, or someone else's.
    (root / "jax-0.10.2-backup").mkdir()
    (root / "jax-0.10.2-backup" / ".complete").write_text("0.10.2")
    (root / "jax-notes").mkdir()
    (root / "jax-notes" / ".jaxlint-env.json").write_text(json.dumps({"tool": "jaxlint", "env": "jax-0.10.2",
                                                                      "jax": "0.10.2"}))
    return root


USERS = ["jax-0.10.2-backup", "jax-experiments", "jax-notes", "jax-paper"]


def _folders(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if not p.name.startswith("."))


def test_prune_removes_only_what_jaxlint_built(shared):
    _owned(shared, "jax-0.10.2", "0.10.2", complete=True)
    _owned(shared, "jax-0.4.30-cpu-py312-abcdef0123", "0.4.30", complete=False)  # interrupted
    (shared / "jax-0.11.0").mkdir()  # an older jaxlint's exports env: only .complete, naming the folder
    (shared / "jax-0.11.0" / ".complete").write_text("0.11.0")
    runner = CliRunner()
    listed = json.loads(runner.invoke(main, ["envs", "--output-format", "json"]).output)
    assert [env["name"] for env in listed["environments"]] == ["jax-0.10.2", "jax-0.11.0",
                                                               "jax-0.4.30-cpu-py312-abcdef0123"]
    text = runner.invoke(main, ["envs"]).output
    assert text.endswith(f"3 environment(s) in {shared}\nnot built by jaxlint, not listed: {', '.join(USERS)}\n")
    incomplete = runner.invoke(main, ["envs", "prune", "--incomplete"])
    assert incomplete.exit_code == 0, incomplete.output
    assert "removed jax-0.4.30-cpu-py312-abcdef0123" in incomplete.output
    assert f"left alone, not built by jaxlint: {', '.join(USERS)}" in incomplete.output
    assert _folders(shared) == sorted(["jax-0.10.2", "jax-0.11.0", *USERS])
    named = runner.invoke(main, ["envs", "prune", "jax-experiments"])
    assert named.exit_code == 2 and "jaxlint did not build jax-experiments" in named.output
    assert runner.invoke(main, ["envs", "prune", "--all"]).exit_code == 0
    assert _folders(shared) == USERS
    assert (shared / "jax-experiments" / "train.py").read_text() == "import jax\n"


def test_prune_skips_an_environment_another_run_is_building(shared):
    building = _owned(shared, "jax-0.10.2", "0.10.2", complete=False)
    with open(shared / ".jax-0.10.2.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # what a build holds while it runs
        for option in ("--incomplete", "--all"):
            result = CliRunner().invoke(main, ["envs", "prune", option])
            assert result.exit_code == 0
            assert "skipped jax-0.10.2: another jaxlint run is building it" in result.output
            assert "freed 0 B (0 environment(s))" in result.output
            assert building.is_dir()
    assert "removed jax-0.10.2" in CliRunner().invoke(main, ["envs", "prune", "--incomplete"]).output


def test_a_folder_jaxlint_did_not_build_is_never_replaced_by_a_build(shared, tmp_path, monkeypatch):
    from jaxlint.exports.envs import EnvError, python_for_jax

    monkeypatch.setenv("FAKE_INSTALLER_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv(ENV_VAR, str(make(tmp_path / "bin", "uv", "uv")))
    (shared / "jax-0.10.2").mkdir()
    (shared / "jax-0.10.2" / "notes.txt").write_text("mine")
    with pytest.raises(EnvError, match="exists but is not an environment jaxlint built"):
        python_for_jax(Version("0.10.2"), log=lambda line: None)
    assert (shared / "jax-0.10.2" / "notes.txt").read_text() == "mine"


# Each builder, run in a process of its own: the python it returns on stdout, its messages on stderr.
BUILDERS = {
    "exports": "from jaxlint.exports.envs import python_for_jax\nfrom jaxlint.project.versions import Version\n"
               "print(python_for_jax(Version('0.10.2'), log=echo))",
    "verify": "from jaxlint.verify.envs import baseline_env\n"
              "print(baseline_env('0.4.30', sys.argv[1], 'cpu', echo=echo))",
}


@pytest.mark.parametrize("builder", sorted(BUILDERS))
def test_two_runs_building_one_environment_build_it_once(builder, tmp_path):
    root, log, gate = tmp_path / "envs", tmp_path / "calls.jsonl", tmp_path / "gate"
    env = dict(os.environ, JAXLINT_ENV_DIR=str(root), FAKE_INSTALLER_LOG=str(log), FAKE_INSTALL_GATE=str(gate),
               PYTHONPATH=f"{REPO / 'src'}{os.pathsep}{REPO}")
    env[ENV_VAR] = str(make(tmp_path / "bin", "uv", "uv"))
    target = make(tmp_path / "target" / "bin", "target-python", "python")
    code = "import sys\ndef echo(line): print(line, file=sys.stderr, flush=True)\n" + BUILDERS[builder]

    def start(name: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", code, str(target)], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=open(tmp_path / f"{name}.err", "w"))

    def wait_for(condition, process) -> None:
        deadline = time.monotonic() + 120  # a bound on waiting for a process to get there, not a measurement
        while not condition():
            assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "first.err").read_text()
            time.sleep(0.05)

    first = start("first")
    wait_for(lambda: Path(f"{gate}.started").exists(), first)  # the first is installing
    second = start("second")
    venvs = lambda: [c for c in _calls(log) if c[:2] == ["uv", "venv"]]
    wait_for(lambda: "waiting for another jaxlint run" in (tmp_path / "second.err").read_text()
             or len(venvs()) > 1, second)
    Path(f"{gate}.open").touch()
    outputs = [process.communicate(timeout=120)[0] for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], (tmp_path / "second.err").read_text()
    assert len(venvs()) == 1  # built once; the second waited, then reused it
    assert outputs[0] == outputs[1] and Path(outputs[0].strip()).parents[1].joinpath(".complete").exists()
    built = Path(outputs[0].strip()).parents[1]
    second_said = (tmp_path / "second.err").read_text().splitlines()
    assert second_said[0] == f"waiting for another jaxlint run that is building {built}"
    assert not any(line.startswith(("building", "baseline env (JAX 0.4.30): building")) for line in second_said)


def _stub_site(site: Path, packages: dict[str, str]) -> None:
    """Importable stand-ins of ``packages`` at their versions (a module and its distribution metadata)."""
    for name, version in packages.items():
        (site / name).mkdir(parents=True, exist_ok=True)
        (site / name / "__init__.py").write_text(f"__version__ = {version!r}\n")
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def _python_over(site: Path, python: Path) -> None:
    """Makes ``python`` an interpreter that sees ``site`` (the environment's site-packages)."""
    python.parent.mkdir(parents=True, exist_ok=True)
    python.write_text(f"#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} \"$@\"\n")
    python.chmod(0o755)


def _remove_package(site: Path, name: str) -> None:
    shutil.rmtree(site / name)
    for info in site.glob(f"{name}-*.dist-info"):
        shutil.rmtree(info)


def test_an_exports_env_that_lost_a_package_is_rebuilt_with_a_message(tmp_path, monkeypatch):
    from jaxlint.exports.envs import python_for_jax

    root, log = tmp_path / "envs", tmp_path / "calls.jsonl"
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(root))
    monkeypatch.setenv("FAKE_INSTALLER_LOG", str(log))
    monkeypatch.setenv(ENV_VAR, str(make(tmp_path / "bin", "uv", "uv")))
    built = {"jax": "0.10.2", "jaxlib": "0.10.2", "flatbuffers": "25.2.10", "numpy": "2.3.1"}
    env = _owned(root, "jax-0.10.2", "0.10.2", complete=True)
    marker = json.loads((env / ".jaxlint-env.json").read_text())
    (env / ".jaxlint-env.json").write_text(json.dumps({**marker, "packages": built}))
    site = env / "lib" / "site-packages"
    _stub_site(site, built)
    _python_over(site, env / "bin" / "python")
    seen: list[str] = []
    assert python_for_jax(Version("0.10.2"), log=seen.append) == env / "bin" / "python"
    assert seen == [] and _calls(log) == []  # whole: reused as it is

    _remove_package(site, "jax")
    python = python_for_jax(Version("0.10.2"), log=seen.append)
    assert seen[0] == (f"the JAX 0.10.2 environment in {env} no longer holds what it was built with (jax 0.10.2 is "
                       "not installed, and 1 more); rebuilding it")
    assert seen[1].startswith("building an environment with JAX 0.10.2")
    assert [c[1] for c in _calls(log)] == ["venv", "pip", "pip"]  # the venv, the install, the freeze
    assert python == env / "bin" / "python" and (env / ".complete").exists() and not site.exists()


def test_a_baseline_env_that_lost_a_package_is_rebuilt_with_a_message(tmp_path, monkeypatch):
    from jaxlint.verify.envs import baseline_env

    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path / "envs"))
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_INSTALLER_LOG", str(log))
    monkeypatch.setenv(ENV_VAR, str(make(tmp_path / "bin", "uv", "uv")))
    target = str(make(tmp_path / "target" / "bin", "target-python", "python"))
    env = baseline_env("0.4.30", target, "cpu").parents[1]
    recorded = json.loads((env / ".jaxlint-env.json").read_text())["packages"]
    assert recorded == {"flax": "9.8", "jax": "0.4.30", "jaxlib": "0.4.30"}
    site = env / "lib" / "site-packages"  # the stand-in installer installed nothing: stand-in packages
    _stub_site(site, recorded)
    _python_over(site, env / "bin" / "python")
    log.unlink()
    seen: list[str] = []
    baseline_env("0.4.30", target, "cpu", echo=seen.append)
    assert seen[0] == f"baseline env (JAX 0.4.30): reusing {env} (remove it with `rm -rf {env}`)"
    assert not any(c[1] == "venv" for c in _calls(log))

    _remove_package(site, "flax")  # pip check does not mind: nothing requires flax; the user's code does
    seen.clear()
    baseline_env("0.4.30", target, "cpu", echo=seen.append)
    assert seen[0] == (f"baseline env (JAX 0.4.30): {env} no longer holds what it was built with (flax 9.8 is not "
                       "installed); rebuilding it")
    assert seen[1] == f"baseline env (JAX 0.4.30): building {env} with uv"
    assert sum(c[1] == "venv" for c in _calls(log)) == 1


def test_a_linked_environment_is_reused_and_never_removed_through_the_link(tmp_path, monkeypatch):
    from jaxlint.exports.envs import EnvError, python_for_jax

    root, log = tmp_path / "envs", tmp_path / "calls.jsonl"
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(root))
    monkeypatch.setenv("FAKE_INSTALLER_LOG", str(log))
    monkeypatch.setenv(ENV_VAR, str(make(tmp_path / "bin", "uv", "uv")))
    mine = _owned(tmp_path / "elsewhere", "jax-0.10.2", "0.10.2", complete=True)  # the user's, linked in
    site = mine / "lib" / "site-packages"
    _stub_site(site, {"jax": "0.10.2", "jaxlib": "0.10.2", "flatbuffers": "25.2.10", "numpy": "2.3.1"})
    _python_over(site, mine / "bin" / "python")
    root.mkdir()
    (root / "jax-0.10.2").symlink_to(mine, target_is_directory=True)
    assert python_for_jax(Version("0.10.2"), log=lambda line: None) == root / "jax-0.10.2" / "bin" / "python"
    _remove_package(site, "numpy")
    with pytest.raises(EnvError, match="is a symbolic link to an environment that needs rebuilding"):
        python_for_jax(Version("0.10.2"), log=lambda line: None)
    assert (mine / "lib" / "site-packages" / "jax").is_dir() and _calls(log) == []


def test_prune_skips_a_build_that_ended_between_listing_and_removing(shared, monkeypatch):
    from contextlib import contextmanager

    from jaxlint.ui import envs as ui_envs

    building = _owned(shared, "jax-0.10.2", "0.10.2", complete=False)

    @contextmanager
    def build_ends_first(folder):
        (folder / ".complete").write_text("0.10.2")  # the build finished and let go of its lock just now
        yield True

    monkeypatch.setattr(ui_envs, "unless_building", build_ends_first)
    result = CliRunner().invoke(main, ["envs", "prune", "--incomplete"])
    assert "skipped jax-0.10.2: a jaxlint run changed it meanwhile" in result.output
    assert (building / ".complete").is_file()
