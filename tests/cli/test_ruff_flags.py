"""ruff's everyday flags, with ruff's meanings: -q, -s, -e, --fix-only, --show-fixes, --show-files, --exclude,
--extend-exclude, --statistics after --fix."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli import CLEAN, NO_FIX, NONE_ARG, NONE_ARG_FIXED, run


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(NONE_ARG)  # one safe fix
    (tmp_path / "b.py").write_text(NO_FIX)  # one finding without a fix
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_quiet_prints_the_findings_and_nothing_else(project):
    result = run(["--no-cache", "-q"], project)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [line for line in result.stdout.splitlines() if ": JAX" in line]
    assert len(result.stdout.splitlines()) == 2
    assert "Found" not in result.output


def test_quiet_on_a_clean_project_prints_nothing(tmp_path):
    (tmp_path / "clean.py").write_text(CLEAN)
    result = run(["--no-cache", "--quiet"], tmp_path)
    assert (result.exit_code, result.output) == (0, "")


def test_silent_prints_nothing_but_keeps_the_exit_code(project):
    result = run(["--no-cache", "-s"], project)
    assert (result.exit_code, result.output) == (1, "")
    result = run(["--no-cache", "--silent", "--fix"], project)
    assert (result.exit_code, result.output) == (1, "")
    assert (project / "a.py").read_text() == NONE_ARG_FIXED


def test_exit_non_zero_on_fix(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    result = run(["--no-cache", "--fix", "-e"], tmp_path)
    assert result.exit_code == 1, "a fix was applied: -e makes that exit 1 though nothing remains"
    assert (tmp_path / "a.py").read_text() == NONE_ARG_FIXED
    again = run(["--no-cache", "--fix", "--exit-non-zero-on-fix"], tmp_path)
    assert again.exit_code == 0, "nothing left to fix and nothing remains"


def test_fix_only_fixes_and_does_not_report_what_remains(project):
    result = run(["--no-cache", "--fix-only"], project)
    assert result.exit_code == 0
    assert result.stdout == "Fixed 1 error.\n"
    assert (project / "a.py").read_text() == NONE_ARG_FIXED
    assert (project / "b.py").read_text() == NO_FIX
    assert run(["--no-cache", "--fix-only", "-e"], project).exit_code == 0  # nothing more to fix


def test_fix_only_with_exit_non_zero_on_fix(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    assert run(["--no-cache", "--fix-only", "-e"], tmp_path).exit_code == 1


def test_show_fixes_lists_the_applied_fixes_per_file_and_rule(project):
    result = run(["--no-cache", "--fix", "--show-fixes"], project)
    assert result.exit_code == 1  # b.py's finding remains
    assert result.stdout.endswith("Fixed 1 error:\n- a.py:\n    1 × JAX202 (take-along-axis-wrap)\n")
    assert "b.py:2:5: JAX202" in result.stdout


def test_show_files_lists_what_would_be_checked_and_checks_nothing(project):
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text(NONE_ARG)
    result = run(["--show-files"], project)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["a.py", "b.py", "clean.py"]
    assert (project / "a.py").read_text() == NONE_ARG


def test_exclude_and_extend_exclude_on_the_command_line(project):
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nexclude = ["a.py"]\n')
    assert run(["--show-files"], project).stdout.splitlines() == ["b.py", "clean.py"]
    # --exclude replaces the configured `exclude`; --extend-exclude adds to it (comma-separated or repeated).
    assert run(["--show-files", "--exclude", "b.py"], project).stdout.splitlines() == ["a.py", "clean.py"]
    assert run(["--show-files", "--extend-exclude", "b.py,clean.py"], project).stdout.splitlines() == []
    assert run(["--show-files", "--extend-exclude", "b.py", "--extend-exclude", "clean.py"],
               project).stdout.splitlines() == []


def test_statistics_after_fix_counts_what_remains(project):
    (project / "c.py").write_text(NONE_ARG + NO_FIX.splitlines(keepends=True)[1])
    result = run(["--no-cache", "--fix", "--statistics"], project)
    assert result.exit_code == 1
    # the fixed two are not counted in the table; the summary after it says so, as in ruff
    assert result.stdout == "2\tJAX202\t[ ] take-along-axis-wrap\nFound 4 errors (2 fixed, 2 remaining).\n"
    assert (project / "a.py").read_text() == NONE_ARG_FIXED


def test_no_python_files_found_is_a_warning(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing to lint\n")
    result = run(["--no-cache"], tmp_path)
    assert result.exit_code == 0
    assert "warning: No Python files found under the given path(s)" in result.stderr
    assert run(["--no-cache", "-q"], tmp_path).output == ""


def test_help_lists_the_new_flags():
    from click.testing import CliRunner

    from jaxlint.ui.cli import main

    text = CliRunner().invoke(main, ["check", "--help"]).output
    for flag in ("-q, --quiet", "-s, --silent", "-e, --exit-non-zero-on-fix", "--fix-only", "--show-fixes",
                 "--show-files", "--exclude", "--extend-exclude", "--respect-gitignore / --no-respect-gitignore"):
        assert flag in text, flag


def test_fix_only_with_show_fixes_lists_the_fixes(project):
    result = run(["--no-cache", "--fix-only", "--show-fixes"], project)
    assert result.exit_code == 0
    assert result.stdout == "Fixed 1 error:\n- a.py:\n    1 × JAX202 (take-along-axis-wrap)\n"
