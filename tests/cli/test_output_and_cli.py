"""Issue 24 item 9, output and CLI: -o into a missing or unwritable folder, -n, --fix --statistics when all was fixed,
`exclude` replacing the default excludes, an undecodable byte located, no ``x as x`` alias."""
from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import NO_FIX, NONE_ARG, NONE_ARG_FIXED, run

FINDING = "a.py:2:5: JAX202 [*] `wrap_negative_indices=None`"


def test_output_file_into_missing_folders_creates_them(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    result = run(["--no-cache", "--exit-zero", "-o", "reports/lint/out.txt", "a.py"], tmp_path)
    assert result.exit_code == 0 and result.output == ""
    written = (tmp_path / "reports/lint/out.txt").read_text()
    assert written.startswith(FINDING) and written.endswith("[*] 1 fixable with the `--fix` option.\n")


def test_output_file_that_cannot_be_written_is_an_error_and_the_report_goes_to_stdout(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    (tmp_path / "taken").write_text("a file, not a folder\n")
    result = run(["--no-cache", "--exit-zero", "-o", "taken/out.txt", "a.py"], tmp_path)
    assert result.exit_code == 2  # an error, even with --exit-zero (as ruff)
    assert result.stderr == "jaxlint: error: cannot write taken/out.txt: Not a directory; the report follows on stdout\n"
    assert result.stdout.startswith(FINDING)
    assert result.stdout.endswith("Found 1 error.\n[*] 1 fixable with the `--fix` option.\n")


def test_n_is_no_cache(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    assert run(["-n", "a.py"], tmp_path).exit_code == 1
    assert not (tmp_path / ".jaxlint_cache").exists()
    run(["a.py"], tmp_path)
    assert (tmp_path / ".jaxlint_cache").exists()


def test_fix_statistics_reports_the_fixed_count_when_nothing_remains(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    result = run(["--no-cache", "--fix", "--statistics"], tmp_path)
    assert result.exit_code == 0
    assert result.stdout == "Found 1 error (1 fixed, 0 remaining).\n"
    assert (tmp_path / "a.py").read_text() == NONE_ARG_FIXED


def test_fix_statistics_ends_with_the_fixed_count_as_ruff(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    (tmp_path / "b.py").write_text(NO_FIX)
    result = run(["--no-cache", "--fix", "--statistics"], tmp_path)
    assert result.exit_code == 1
    assert result.stdout == "1\tJAX202\t[ ] take-along-axis-wrap\nFound 2 errors (1 fixed, 1 remaining).\n"


def _tree(tmp_path: Path) -> Path:
    for name in ("build/gen.py", ".venv/lib/site.py", "src/a.py", "src/__pycache__/a.py", ".jaxlint_cache/x.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    return tmp_path


def test_default_excludes_apply_until_exclude_is_set(tmp_path):
    _tree(tmp_path)
    assert run(["--show-files"], tmp_path).stdout.splitlines() == ["src/a.py"]
    assert run(["--show-files", "--extend-exclude", "nothing"], tmp_path).stdout.splitlines() == ["src/a.py"]


def test_exclude_on_the_command_line_replaces_the_default_excludes(tmp_path):
    _tree(tmp_path)
    # jaxlint's cache and __pycache__ stay out whatever `exclude` says
    assert run(["--show-files", "--exclude", ""], tmp_path).stdout.splitlines() == [
        ".venv/lib/site.py", "build/gen.py", "src/a.py"]
    assert run(["--show-files", "--exclude", "src"], tmp_path).stdout.splitlines() == [
        ".venv/lib/site.py", "build/gen.py"]


def test_exclude_in_the_config_replaces_the_default_excludes(tmp_path):
    _tree(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nexclude = [".venv"]\n')
    assert run(["--show-files"], tmp_path).stdout.splitlines() == ["build/gen.py", "src/a.py"]
    assert run(["--show-files", "--force-exclude", "build/gen.py"], tmp_path).stdout.splitlines() == ["build/gen.py"]
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["src"]\n')
    assert run(["--show-files"], tmp_path).stdout.splitlines() == []
    assert run(["--show-files", "--force-exclude", "build/gen.py"], tmp_path).stdout.splitlines() == []


def test_undecodable_byte_is_reported_where_it_is(tmp_path):
    (tmp_path / "bad.py").write_bytes(b"x = 1\ny = '\xc3\xa9\xff'\n")
    result = run(["--no-cache", "bad.py"], tmp_path)
    assert result.exit_code == 1
    assert result.stdout.startswith("bad.py:2:7: JAX000 cannot decode: line 2: byte b'\\xff' at offset 13")
    stdin = run(["--no-cache", "-", "--stdin-filename", "bad.py"], tmp_path, input=b"x = 1\ny = '\xc3\xa9\xff'\n")
    assert stdin.stdout.startswith("bad.py:2:7: JAX000 cannot decode: line 2:")


def test_renamed_from_import_never_aliases_a_name_to_itself(tmp_path):
    source = ("from jax import tree_leaves as leaves, tree_map as tree_map\n"
              "from jax.experimental.export import minimum_supported_serialization_version as "
              "minimum_supported_calling_convention_version\n")
    (tmp_path / "m.py").write_text(source)
    result = run(["--no-cache", "--isolated", "--fix", "--min-version", "0.4.30", "--select", "JAX101,JAX302", "m.py"],
                 tmp_path)
    assert (tmp_path / "m.py").read_text() == (
        "from jax.tree import leaves, map as tree_map\n"
        "from jax.export import minimum_supported_calling_convention_version\n")
    assert result.exit_code == 0
