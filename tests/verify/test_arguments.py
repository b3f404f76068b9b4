"""`jaxlint verify` arguments: every mistake is reported before anything is built or run; the command is mapped
to each run's interpreter; its output streams live; a failure shows the exception; nothing compared is a failure."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.project.config import Overrides, SettingsResolver
from jaxlint.verify import validate
from jaxlint.verify.cli import verify_command
from jaxlint.verify.plan import make_plan, make_plan_from_git
from jaxlint.verify.run import RunResult, resolve_argv, run_command

SAMPLE = Path(__file__).resolve().parents[1] / "verify_sample"
NO_JAX = sys.executable  # jaxlint's own interpreter: the test environment has no JAX


@pytest.fixture
def empty_env_dir(tmp_path, monkeypatch):
    envs = tmp_path / "envs"
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(envs))
    return envs


def _verify(*args, cwd=SAMPLE):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(verify_command, list(args))
    finally:
        os.chdir(old)


def test_negative_tolerances_are_usage_errors():
    for option in ("--rtol", "--atol"):
        result = _verify("sample", "--baseline-python", NO_JAX, option, "-1", "--", "python", "run.py")
        assert result.exit_code == 2 and "x>=0" in result.output, result.output


def test_a_target_without_jax_is_refused_before_any_env_is_built(empty_env_dir):
    result = _verify("sample", "--baseline-jax", "0.10.2", "--target-python", NO_JAX, "--", "python", "run.py")
    assert result.exit_code == 2
    assert f"the target interpreter {NO_JAX} has no JAX installed" in result.output
    assert "--target-python" in result.output and not empty_env_dir.exists()


def test_a_baseline_jax_that_is_not_a_version_is_refused(monkeypatch, empty_env_dir):
    monkeypatch.setattr("jaxlint.verify.main.require_jax", lambda python, label, platform: {"jax_version": "0.1"})
    result = _verify("sample", "--baseline-jax", "banana", "--", "python", "run.py")
    assert result.exit_code == 2 and "--baseline-jax 'banana' is not a JAX version" in result.output
    assert not empty_env_dir.exists()


def test_a_baseline_jax_the_index_does_not_have_is_refused(monkeypatch):
    monkeypatch.setattr(validate, "published_jax_versions",
                        lambda python, package="jax": ["0.10.1", "0.10.2", "0.11.0"])
    with pytest.raises(validate.InvalidArgument, match=r"no jax 0.10.3 \(closest: 0.10.2, 0.10.1, 0.11.0\)"):
        validate.check_baseline_jax("0.10.3", NO_JAX, print)
    assert validate.check_baseline_jax("0.10.2", NO_JAX, print) == "0.10.2"


def test_a_baseline_jax_without_a_jaxlib_for_this_python_is_refused_before_any_build(monkeypatch):
    published = {"jax": ["0.4.13", "0.4.17", "0.10.2"], "jaxlib": ["0.4.17", "0.10.2"]}
    monkeypatch.setattr(validate, "published_jax_versions", lambda python, package="jax": published[package])
    monkeypatch.setattr(validate, "_python_version", lambda python: "3.12")
    with pytest.raises(validate.InvalidArgument) as refused:
        validate.check_baseline_jax("0.4.13", NO_JAX, print)
    assert str(refused.value) == (
        "--baseline-jax 0.4.13: the package index has no jaxlib 0.4.13 for Python 3.12 (the target's interpreter, "
        "which builds the baseline environment); the oldest jaxlib it has for Python 3.12 is 0.4.17. Give "
        "--baseline-python with an environment of an older Python that has it")
    assert validate.check_baseline_jax("0.4.17", NO_JAX, print) == "0.4.17"


@pytest.mark.slow
def test_the_real_index_has_no_jaxlib_0_4_13_for_python_3_12():
    from tests.support.jaxenv import python312

    python = python312()
    if python is None:
        pytest.skip("no Python 3.12")
    with pytest.raises(validate.InvalidArgument, match="no jaxlib 0.4.13 for Python 3.12"):
        validate.check_baseline_jax("0.4.13", python, print)


def test_gpu_platform_on_a_host_without_one_is_refused(monkeypatch):
    monkeypatch.setattr(validate.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(validate.os.path, "exists", lambda path: False)
    monkeypatch.setattr(validate.shutil, "which", lambda name: None)
    for platform in ("gpu", "tpu"):
        with pytest.raises(validate.InvalidArgument, match=f"--platform {platform}: this host has no"):
            validate.check_platform(platform)
    validate.check_platform("cpu")
    monkeypatch.setattr(validate.glob, "glob", lambda pattern: ["/dev/nvidia0"] if "nvidia" in pattern else [])
    validate.check_platform("gpu")


def test_missing_paths_are_refused():
    result = _verify("no-such-dir", "--baseline-python", NO_JAX, "--", "python", "run.py")
    assert result.exit_code == 2 and "no such file or directory: no-such-dir" in result.output


def test_no_fixes_is_a_failure_unless_allowed(tmp_path):
    (tmp_path / "clean.py").write_text("import jax\njax.tree.map(abs, [1])\n")
    args = ["clean.py", "--baseline-python", NO_JAX]
    refused = _verify(*args, "--", "python", "clean.py", cwd=tmp_path)
    assert refused.exit_code == 1 and "nothing was compared" in refused.output, refused.output
    assert "--from-git HEAD" in refused.output  # the way to verify what --fix already changed
    assert _verify(*args, "--allow-nothing-compared", "--", "python", "clean.py", cwd=tmp_path).exit_code == 0


def test_the_target_version_is_taken_as_in_check(tmp_path):
    (tmp_path / "m.py").write_text("import jax\nx = jax.tree_map(abs, [1])\n")
    # JAX 0.4.20 still has jax.tree_map: nothing to fix for that target (and no interpreter is even looked at).
    result = _verify("m.py", "--target-version", "0.4.20", "--baseline-python", NO_JAX, "--", "python", "m.py",
                     cwd=tmp_path)
    assert result.exit_code == 1 and "no fixes to verify in m.py" in result.output, result.output
    # For 0.6.0 there is a fix, so the interpreters are checked next (and this one has no JAX).
    result = _verify("m.py", "--target-version", "0.6.0", "--baseline-python", NO_JAX, "--", "python", "m.py",
                     cwd=tmp_path)
    assert result.exit_code == 2 and "has no JAX installed" in result.output, result.output


def test_an_interpreter_named_by_path_is_replaced_by_each_runs_own(tmp_path):
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (venv_bin / "pytest").write_text("#!/bin/sh\n")
    run = tmp_path / "other" / "bin"
    run.mkdir(parents=True)
    (run / "pytest").write_text("#!/bin/sh\n")
    (run / "pytest").chmod(0o755)
    python = str(run / "python")
    assert resolve_argv([str(venv_bin / "python"), "run.py"], python) == [python, "run.py"]
    assert resolve_argv([".venv/bin/python3.12", "-m", "x"], python) == [python, "-m", "x"]
    assert resolve_argv([str(venv_bin / "pytest"), "-x"], python) == [str(run / "pytest"), "-x"]
    assert resolve_argv(["/bin/sh", "-c", "true"], python) == ["/bin/sh", "-c", "true"]  # not an environment's


def test_output_streams_live_with_prefixes_and_is_kept(tmp_path):
    seen = []
    code = "import sys; print('to out', flush=True); print('to err', file=sys.stderr, flush=True); sys.exit(3)"
    result = run_command("BEFORE", ["python", "-c", code], sys.executable, tmp_path, None, tmp_path / "rec",
                         platform=None, max_calls=1, echo=seen.append)
    assert result.exit_code == 3
    assert "  BEFORE | to out" in seen and "  BEFORE ! to err" in seen
    assert result.stdout_tail == ["to out"] and result.stderr_tail == ["to err"]


def test_a_failure_shows_the_exception_not_jaxs_footer(tmp_path):
    stderr = ["Traceback (most recent call last):", '  File "run.py", line 5, in <module>',
              "AttributeError: DynamicJaxprTracer has no attribute foo", "--------------------",
              "For simplicity, JAX has removed its internal frames from the traceback of the following exception. "
              "Set JAX_TRACEBACK_FILTERING=off to include these."]
    run = RunResult("AFTER", "python", [], 1, 0.1, tmp_path, tmp_path, [], stderr)
    assert run.last_error_line() == "AttributeError: DynamicJaxprTracer has no attribute foo"
    pytest_out = ["E   jax.errors.TracerBoolConversionError: Attempted boolean conversion", "", "=== 1 failed ==="]
    assert RunResult("AFTER", "python", [], 1, 0.1, tmp_path, tmp_path, pytest_out, []).last_error_line() == \
        "jax.errors.TracerBoolConversionError: Attempted boolean conversion"
    assert RunResult("AFTER", "python", [], 1, 0.1, tmp_path, tmp_path, ["done"], []).last_error_line() == "done"


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                            GIT_COMMITTER_EMAIL="t@t"))


def test_from_git_takes_the_committed_file_as_before_and_the_working_tree_as_after(tmp_path):
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    original = "import jax\n\n\ndef f(x):\n    return jax.tree_map(abs, x)\n"
    (project / "pkg" / "a.py").write_text(original)
    (project / "pkg" / "b.py").write_text(original)
    (project / "pkg" / "c.py").write_text(original)
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "start")
    resolver = SettingsResolver(Overrides())
    fixed = make_plan([project / "pkg" / "a.py"], resolver, project).files[0].fixed
    (project / "pkg" / "a.py").write_text(fixed)  # what `jaxlint --fix` writes
    (project / "pkg" / "b.py").write_text(fixed + "y = 1\n")  # --fix, then another edit
    plan = make_plan_from_git([project / "pkg"], resolver, project, "HEAD")
    assert [f.relative for f in plan.files] == ["pkg/a.py"]  # c.py is unchanged: nothing was rewritten there
    assert plan.files[0].source.text == original and plan.files[0].fixed == fixed
    assert [s.kind for s in plan.sites] == ["value"]
    assert len(plan.problems) == 1 and "b.py: changed since HEAD, but not (only) by jaxlint's fixes of the committed " \
        "file: it has other edits (line 6 of the committed file is not at a finding" in plan.problems[0]
    with pytest.raises(RuntimeError, match="no-such-rev"):
        make_plan_from_git([project / "pkg"], resolver, project, "no-such-rev")


def test_from_git_names_settings_not_other_edits_when_only_the_min_version_differs(tmp_path):
    """`jaxlint --fix --min-version 0.4.27` then `verify --from-git HEAD` without it: the working tree differs from
    the fixes verify computes, but only at jaxlint's own findings: that is a settings mismatch, not other edits."""
    from jaxlint.project.versions import Version

    project = tmp_path / "project"
    project.mkdir()
    # keywords out of positional order: renamed from 0.4.27, withheld below (no by-position spelling keeps their order)
    original = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.clip(x, a_max=0.0, a_min=-1.0)\n"
    (project / "a.py").write_text(original)
    (project / "b.py").write_text(original)
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "start")
    newer = SettingsResolver(Overrides(select=("JAX103",), min_version=Version("0.4.27")))
    fixed = make_plan([project / "a.py"], newer, project).files[0].fixed
    assert fixed != original
    (project / "a.py").write_text(fixed)
    (project / "b.py").write_text(fixed + "y = 1\n")
    older = SettingsResolver(Overrides(select=("JAX103",), min_version=Version("0.4.20")))
    problems = dict(p.split(": ", 1) for p in make_plan_from_git([project], older, project, "HEAD").problems)
    assert problems[str((project / "a.py").resolve())] == (
        "changed since HEAD, but only at jaxlint's findings, not as its fixes give with these settings (here: "
        "--min-version 0.4.20, --target-version 0.12.0.1): the fix at line 5 is withheld below --min-version 0.4.27; "
        "run verify with the settings --fix ran with: not verified")
    assert "other edits (line 6 of the committed file is not at a finding" in \
        problems[str((project / "b.py").resolve())]
    assert make_plan_from_git([project / "a.py"], newer, project, "HEAD").files[0].fixed == fixed


def test_a_baseline_with_the_targets_jax_is_noted(monkeypatch, capsys, tmp_path):
    from jaxlint.verify import envs, main

    monkeypatch.setattr(main, "require_jax", lambda python, label, platform: {
        "jax_version": "0.4.30" if "old" in python else "0.12.0.1"})
    monkeypatch.setattr(main, "check_baseline_jax", lambda value, python, echo: value)
    monkeypatch.setattr(envs, "baseline_env", lambda version, target, platform, **kw: tmp_path / "bin" / "python")
    warning = ("warning: the baseline and the target are both JAX 0.12.0.1: the comparison proves nothing about the "
               "upgrade\n")
    main.resolve_interpreters(None, "/same/python", "/new/python", None)
    assert capsys.readouterr().err == warning
    main.resolve_interpreters("0.12.0.1", None, "/new/python", None)
    assert capsys.readouterr().err == warning
    main.resolve_interpreters(None, "/old/python", "/new/python", None)
    main.resolve_interpreters("0.4.30", None, "/new/python", None)
    assert capsys.readouterr().err == ""


def test_an_installer_setting_that_names_none_is_a_usage_error_before_the_build(monkeypatch, tmp_path):
    from jaxlint.verify import envs, main

    monkeypatch.setattr(main, "require_jax", lambda python, label, platform: {"jax_version": "0.12.0.1"})
    monkeypatch.setattr(main, "check_baseline_jax", lambda value, python, echo: value)
    built = []
    monkeypatch.setattr(envs, "baseline_env", lambda *a, **k: built.append(a))
    monkeypatch.setenv("JAXLINT_INSTALLER", "conda")
    with pytest.raises(validate.InvalidArgument, match="JAXLINT_INSTALLER='conda': expected pip, uv, auto"):
        main.resolve_interpreters("0.4.30", None, "/new/python", None)
    assert built == []
