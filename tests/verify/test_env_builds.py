"""Both environment builders (verify's baseline, exports' JAX envs) with uv and with pip, against stand-ins for the
tools (tests/support/fake_installers.py): the command lines run, the progress shown, the relaxed retry, the
duration. The real builds are in test_envs.py and tests/exports/test_fresh_envs.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

from jaxlint.project.versions import Version
from jaxlint.verify.installer import ENV_VAR
from tests.support.fake_installers import make


def _seconds_as_n(lines: list[str]) -> list[str]:
    return [re.sub(r" in \d+s ", " in Ns ", line) for line in lines]


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_baseline_env_with_uv_streams_retries_relaxed_and_checks_with_uv(monkeypatch, tmp_path):
    from jaxlint.verify.envs import MARKER, baseline_env

    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_INSTALLER_LOG", str(log))
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path / "envs"))
    monkeypatch.setenv(ENV_VAR, str(make(tmp_path / "bin", "uv", "uv")))
    target = make(tmp_path / "target" / "bin", "target-python", "python")
    seen: list[str] = []
    python = baseline_env("0.4.30", str(target), "cpu", echo=seen.append)
    env = python.parents[1]
    assert seen[0] == f"baseline env (JAX 0.4.30): building {env} with uv"
    assert "  [2/3] uv install (3 requirement(s))" in seen
    assert "  uv | Resolved 3 packages in 1ms" in seen and "  uv |  + jax==0.4.30" in seen
    # uv's conflict report in full, then the relaxed retry; the version that moved is listed
    at = seen.index("  the target's exact versions do not install with JAX 0.4.30; uv says:")
    assert seen[at + 1:at + 3] == ["  uv | error: No solution found when resolving dependencies",
                                   "  uv |   cause: flax==9.9 needs jax>=0.8.1"]
    assert "  version differs from the target: flax==9.9 -> flax==9.8" in seen
    assert "  [3/3] uv pip check, and JAX computes a sum" in seen
    assert _seconds_as_n(seen)[-1].startswith(f"baseline env (JAX 0.4.30): built in Ns with uv at {env}")
    calls = [c for c in _calls(log) if c[0] == "uv"]
    constraints = str(env / "jaxlint-constraints.txt")
    assert calls == [
        ["uv", "venv", "--quiet", "--allow-existing", "--python", str(target), str(env)],
        ["uv", "pip", "install", "--python", str(python), "-c", constraints, "jax==0.4.30", "jaxlib==0.4.30",
         "flax==9.9"],
        ["uv", "pip", "install", "--python", str(python), "-c", constraints, "jax==0.4.30", "jaxlib==0.4.30",
         "flax<=9.9"],
        ["uv", "pip", "freeze", "--exclude-editable", "--python", str(python)],
        ["uv", "pip", "freeze", "--exclude-editable", "--python", str(python)],  # what a reuse will check
        ["uv", "pip", "check", "--python", str(python)],
    ]
    assert json.loads((env / MARKER).read_text())["installer"] == "uv"
    assert json.loads((env / ".jaxlint-env.json").read_text()) == {
        "tool": "jaxlint", "env": env.name, "jax": "0.4.30", "platform": "cpu", "builder": "verify",
        "packages": {"flax": "9.8", "jax": "0.4.30", "jaxlib": "0.4.30"}}


def test_exports_env_with_uv_shows_progress_and_duration(monkeypatch, tmp_path):
    from jaxlint.exports.envs import python_for_jax

    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_INSTALLER_LOG", str(log))
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path / "envs"))
    monkeypatch.setenv(ENV_VAR, str(make(tmp_path / "bin", "uv", "uv")))
    seen: list[str] = []
    python = python_for_jax(Version("0.10.2"), log=seen.append)
    env = tmp_path / "envs" / "jax-0.10.2"
    assert python == env / "bin" / "python"
    assert _seconds_as_n(seen) == [
        f"building an environment with JAX 0.10.2 in {env} with uv (once; later runs reuse it)",
        "  uv | Resolved 3 packages in 1ms", "  uv | Installed 3 packages in 2ms", "  uv |  + jax==0.4.30",
        f"built the JAX 0.10.2 environment in Ns with uv at {env}"]
    assert [c[1:] for c in _calls(log) if c[0] == "uv"][1] == ["pip", "install", "--python", str(python),
                                                               "jax==0.10.2", "flatbuffers", "numpy"]


def test_exports_env_with_pip_shows_progress_and_duration(monkeypatch, tmp_path):
    from jaxlint.exports import envs

    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_INSTALLER_LOG", str(log))
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path / "envs"))
    monkeypatch.setenv(ENV_VAR, "pip")
    base = make(tmp_path / "base", "base-python", "python3.12")
    monkeypatch.setattr(envs, "_base_python", lambda: str(base))
    seen: list[str] = []
    python = envs.python_for_jax(Version("0.10.2"), log=seen.append)
    env = tmp_path / "envs" / "jax-0.10.2"
    assert _seconds_as_n(seen) == [
        f"building an environment with JAX 0.10.2 in {env} with pip (once; later runs reuse it)",
        "  pip | Collecting jax==0.10.2", "  pip | Installing collected packages: jax",
        "  pip | Successfully installed jax-0.10.2", f"built the JAX 0.10.2 environment in Ns with pip at {env}"]
    assert _calls(log) == [["python3.12", "-m", "venv", str(env)],
                           ["python", "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off",
                            "jax==0.10.2", "flatbuffers", "numpy"],
                           ["python", "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"]]
    assert python == env / "bin" / "python"
