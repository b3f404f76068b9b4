"""Files as users have them: read-only files and folders, owners and groups, paths that cannot be read, symlink
loops, .gitignore, and configuration mistakes. I/O errors are JAX002 findings (ruff's E902), never "a bug"."""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from jaxlint.run import sources
from tests.cli.test_cli import CLEAN, NONE_ARG, NONE_ARG_FIXED, run

needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="POSIX symlinks")


# -- writing ------------------------------------------------------------------------------------------------------
def test_a_read_only_file_is_never_replaced(tmp_path):
    target = tmp_path / "a.py"
    target.write_text(NONE_ARG)
    target.chmod(0o444)
    (tmp_path / "b.py").write_text(NONE_ARG)
    result = run(["--no-cache", "--fix"], tmp_path)
    assert result.exit_code == 2
    assert "jaxlint: error: cannot write a.py: Permission denied" in result.stderr
    assert "its fixes were not applied" in result.stderr
    assert "a.py:2:5: JAX202 [*]" in result.stdout, "the unfixed finding is still reported"
    assert target.read_text() == NONE_ARG and stat.S_IMODE(target.stat().st_mode) == 0o444
    assert (tmp_path / "b.py").read_text() == NONE_ARG_FIXED, "the other files are fixed"
    assert "bug in jaxlint" not in result.output


def test_a_read_only_notebook_is_never_replaced(tmp_path):
    from tests.notebooks.test_notebooks import make_notebook

    notebook = make_notebook([("code", NONE_ARG)], tmp_path / "nb.ipynb")
    before = notebook.read_bytes()
    notebook.chmod(0o444)
    result = run(["--no-cache", "--fix"], tmp_path)
    assert result.exit_code == 2 and "cannot write nb.ipynb" in result.stderr
    assert "nb.ipynb:cell 1:2:5: JAX202" in result.stdout
    assert notebook.read_bytes() == before


def test_add_noqa_skips_a_read_only_file(tmp_path):
    target = tmp_path / "a.py"
    target.write_text(NONE_ARG)
    target.chmod(0o444)
    result = run(["--no-cache", "--add-noqa"], tmp_path)
    assert "cannot write" in result.stderr and target.read_text() == NONE_ARG


@pytest.mark.skipif(not hasattr(os, "chown"), reason="POSIX owners")
def test_fix_keeps_mode_owner_and_group(tmp_path):
    target = tmp_path / "a.py"
    target.write_text(NONE_ARG)
    target.chmod(0o640)
    before = target.stat()
    if os.geteuid() == 0:  # root can give the file another group: check the fixed file keeps it
        os.chown(target, before.st_uid, 4321)
        before = target.stat()
    run(["--no-cache", "--fix"], tmp_path)
    after = target.stat()
    assert target.read_text() == NONE_ARG_FIXED
    assert (stat.S_IMODE(after.st_mode), after.st_uid, after.st_gid) == (0o640, before.st_uid, before.st_gid)


def test_when_the_group_cannot_be_kept_the_file_is_rewritten_in_place(tmp_path, monkeypatch):
    target = tmp_path / "a.py"
    target.write_text("old\n")
    inode = target.stat().st_ino
    real_stat = os.stat

    def other_group(path, *args, **kwargs):  # the temporary file gets a group the original does not have
        result = real_stat(path, *args, **kwargs)
        if str(path).endswith(".jaxlint-tmp"):
            values = list(result)
            values[stat.ST_GID] = result.st_gid + 1
            return os.stat_result(values)
        return result

    def refuse(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(sources.os, "stat", other_group)
    monkeypatch.setattr(sources.os, "chown", refuse)
    sources.write_atomic(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert real_stat(target).st_ino == inode, "written in place: same file, same owner and group"
    assert not list(tmp_path.glob("*.jaxlint-tmp"))


def test_a_writable_file_in_a_read_only_folder_is_fixed_in_place(tmp_path, monkeypatch):
    """mkstemp fails there (permission denied): the file itself is writable, so it is rewritten in place."""
    (tmp_path / "a.py").write_text(NONE_ARG)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)  # sources imports it where it writes
    result = run(["--no-cache", "--fix"], tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "a.py").read_text() == NONE_ARG_FIXED
    assert "bug in jaxlint" not in result.output


def test_a_write_that_fails_is_reported_not_a_bug(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(NONE_ARG)

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", disk_full)
    result = run(["--no-cache", "--fix"], tmp_path)
    assert result.exit_code == 2
    assert "cannot write a.py: No space left on device (os error 28)" in result.stderr
    assert "a.py:2:5: JAX202" in result.stdout and "bug in jaxlint" not in result.output
    assert (tmp_path / "a.py").read_text() == NONE_ARG


# -- reading ------------------------------------------------------------------------------------------------------
def test_a_file_that_cannot_be_read_is_a_jax002_finding(tmp_path, monkeypatch):
    (tmp_path / "secret.py").write_text(NONE_ARG)
    (tmp_path / "b.py").write_text(NONE_ARG)
    real_read = Path.read_bytes

    def denied(self):
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    result = run(["--no-cache"], tmp_path)
    assert result.exit_code == 1
    assert "secret.py:1:1: JAX002 Permission denied (os error 13)" in result.stdout
    assert "b.py:2:5: JAX202" in result.stdout
    assert "bug in jaxlint" not in result.output


@needs_symlinks
def test_symlink_loops_and_dangling_links_are_jax002(tmp_path):
    os.symlink("loop_b.py", tmp_path / "loop_a.py")
    os.symlink("loop_a.py", tmp_path / "loop_b.py")
    os.symlink("missing.py", tmp_path / "dangling.py")
    (tmp_path / "ok.py").write_text(NONE_ARG)
    result = run(["--no-cache", "--output-format", "concise"], tmp_path)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "dangling.py:1:1: JAX002 No such file or directory (os error 2)" in lines
    assert "loop_a.py:1:1: JAX002 Too many levels of symbolic links (os error 40)" in lines
    assert any(line.startswith("ok.py:2:5: JAX202") for line in lines)
    named = run(["--no-cache", "loop_a.py", "ok.py"], tmp_path)
    assert "loop_a.py:1:1: JAX002 Too many levels of symbolic links" in named.stdout
    assert "ok.py:2:5: JAX202" in named.stdout and named.exit_code == 1


def test_json_carries_io_errors_in_the_contract_shape(tmp_path):
    import json

    result = run(["--no-cache", "--output-format", "json", "nope.py"], tmp_path)
    [item] = json.loads(result.stdout)
    assert item["code"] == "JAX002" and item["location"] == {"row": 1, "column": 1} and item["fix"] is None
    assert item["filename"] == str(tmp_path / "nope.py")


# -- .gitignore ---------------------------------------------------------------------------------------------------
@pytest.fixture
def repository(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("env/\n*_gen.py\n!keep_gen.py\n")
    for name in ("env/lib/site.py", "pkg/mod.py", "pkg/a_gen.py", "pkg/keep_gen.py", "pkg/sub/local.py",
                 "pkg/sub/other.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(CLEAN)
    (tmp_path / "pkg" / "sub" / ".gitignore").write_text("local.py\n")
    return tmp_path


def test_gitignored_files_and_folders_are_not_checked(repository):
    shown = run(["--show-files"], repository).stdout.splitlines()
    assert shown == ["pkg/keep_gen.py", "pkg/mod.py", "pkg/sub/other.py"]


def test_a_gitignore_above_the_checked_folder_applies_inside_a_repository(repository):
    assert run(["--show-files", "pkg"], repository).stdout.splitlines() == [
        "pkg/keep_gen.py", "pkg/mod.py", "pkg/sub/other.py"]


def test_no_respect_gitignore_flag_and_config_key(repository):
    everything = ["env/lib/site.py", "pkg/a_gen.py", "pkg/keep_gen.py", "pkg/mod.py", "pkg/sub/local.py",
                  "pkg/sub/other.py"]
    assert run(["--show-files", "--no-respect-gitignore"], repository).stdout.splitlines() == everything
    (repository / "pyproject.toml").write_text("[tool.jaxlint]\nrespect-gitignore = false\n")
    assert run(["--show-files"], repository).stdout.splitlines() == everything
    assert len(run(["--show-files", "--respect-gitignore"], repository).stdout.splitlines()) == 3


def test_a_gitignored_file_named_on_the_command_line_is_checked_unless_force_exclude(repository):
    assert run(["--show-files", "pkg/a_gen.py"], repository).stdout.splitlines() == ["pkg/a_gen.py"]
    assert run(["--show-files", "--force-exclude", "pkg/a_gen.py", "env/lib/site.py", "pkg/mod.py"],
               repository).stdout.splitlines() == ["pkg/mod.py"]


def test_outside_a_repository_the_walked_folders_gitignore_applies(tmp_path):
    (tmp_path / ".gitignore").write_text("skip.py\n")
    (tmp_path / "skip.py").write_text(CLEAN)
    (tmp_path / "keep.py").write_text(CLEAN)
    assert run(["--show-files"], tmp_path).stdout.splitlines() == ["keep.py"]


# -- configuration mistakes ---------------------------------------------------------------------------------------
def test_every_config_error_at_once_with_did_you_mean(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint]\nselct = ["JAX2"]\nextend_exclude = ["x"]\ntarget-version = 3\nunsafe-fixes = "yes"\n')
    (tmp_path / "a.py").write_text(CLEAN)
    result = run(["--no-cache"], tmp_path)
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("jaxlint: error: ")]
    assert len(errors) == 4, result.stderr
    assert "unknown key `selct` in jaxlint settings (did you mean `select`?)" in errors[0]
    assert "unknown key `extend_exclude` in jaxlint settings (did you mean `extend-exclude`?)" in errors[1]
    assert "`target-version` must be a version string" in errors[2]
    assert "`unsafe-fixes` must be true or false" in errors[3]


def test_an_unknown_key_far_from_any_gets_no_guess(tmp_path):
    (tmp_path / "jaxlint.toml").write_text("colour = 'red'\n")
    result = run(["--no-cache"], tmp_path)
    assert result.exit_code == 2 and "unknown key `colour`" in result.stderr and "did you mean" not in result.stderr


def test_a_folder_named_on_the_command_line_inside_an_ignored_folder_is_checked(repository):
    """As ruff: `jaxlint env/lib` checks env/lib although the repository ignores env/ (only the .gitignore files
    from there down apply)."""
    (repository / "env" / "lib" / ".gitignore").write_text("skip.py\n")
    (repository / "env" / "lib" / "skip.py").write_text(CLEAN)
    assert run(["--show-files", "env/lib"], repository).stdout.splitlines() == ["env/lib/site.py"]
    assert run(["--show-files", "env"], repository).stdout.splitlines() == ["env/lib/site.py"]


@needs_symlinks
def test_fixing_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "mod.py").write_text(NONE_ARG)
    os.symlink("real/mod.py", tmp_path / "link.py")
    result = run(["--no-cache", "--fix", "link.py"], tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "link.py").is_symlink()
    assert (tmp_path / "real" / "mod.py").read_text() == NONE_ARG_FIXED


def test_jax002_is_documented_and_listed():
    import json

    from click.testing import CliRunner

    from jaxlint.ui.cli import main

    doc = CliRunner().invoke(main, ["rule", "JAX002"])
    assert doc.exit_code == 0 and doc.output.startswith("# JAX002 io-error") and "E902" in doc.output
    listed = json.loads(CliRunner().invoke(main, ["rules", "--output-format", "json"]).output)
    assert [row["code"] for row in listed[:3]] == ["JAX000", "JAX001", "JAX002"]
    assert listed[2]["name"] == "io-error" and listed[1]["enabled"] == "opt-in"
