"""The command line as users type it: exit codes, output lines, fixes on disk, stdin, config errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.ui.cli import main

NONE_ARG = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=None)\n"
NONE_ARG_FIXED = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=True)\n"
NO_FIX = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, 0, mode=m)\n"
CLEAN = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, 0)\n"


def run(args, cwd: Path, input: bytes | None = None):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, input=input, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(NONE_ARG)
    (tmp_path / "b.py").write_text(NO_FIX)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_findings_exit_1_with_ruff_style_lines(project):
    result = run([], project)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("a.py:2:5: JAX202 [*] `wrap_negative_indices=None`")
    assert lines[1].startswith("b.py:2:5: JAX202 `take_along_axis` with a non-literal `mode`")
    assert lines[2] == "Found 2 errors."
    assert lines[3] == "[*] 1 fixable with the `--fix` option."


def test_check_subcommand_is_the_default(project):
    assert run(["check", "."], project).output == run(["."], project).output


def test_clean_exit_0(project):
    result = run(["clean.py"], project)
    assert result.exit_code == 0
    assert result.output.strip() == "All checks passed!"


def test_fix_writes_and_reports(project):
    result = run(["--fix"], project)
    assert result.exit_code == 1  # b.py still has a finding without a fix
    assert "Found 2 errors (1 fixed, 1 remaining)." in result.output
    assert (project / "a.py").read_text() == NONE_ARG_FIXED
    assert (project / "b.py").read_text() == NO_FIX
    again = run(["--fix"], project)
    assert "(0 fixed, 1 remaining)" in again.output
    assert (project / "a.py").read_text() == NONE_ARG_FIXED


def test_fix_everything_exit_0(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    result = run(["--fix", "a.py"], tmp_path)
    assert result.exit_code == 0
    assert "Found 1 error (1 fixed, 0 remaining)." in result.output


def test_diff_writes_nothing_and_exits_1(project):
    result = run(["--diff", "a.py"], project)
    assert result.exit_code == 1
    assert "-y = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=None)" in result.output
    assert "+y = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=True)" in result.output
    assert (project / "a.py").read_text() == NONE_ARG


def test_exit_zero(project):
    assert run(["--exit-zero"], project).exit_code == 0


def test_select_and_ignore(project):
    assert run(["--ignore", "JAX202"], project).exit_code == 0
    assert run(["--ignore", "JAX2"], project).exit_code == 0
    assert run(["--select", "JAX2"], project).exit_code == 1
    # The more specific selector wins.
    assert run(["--ignore", "JAX2", "--extend-select", "JAX202"], project).exit_code == 1


def test_unknown_selector_is_a_usage_error(project):
    result = run(["--select", "JAX999"], project)
    assert result.exit_code == 2
    assert "JAX999" in result.output


def test_target_version_before_the_change_finds_nothing(project):
    assert run(["--target-version", "0.11.0"], project).exit_code == 0


def test_min_version_after_the_change_silences_behaviour_rules(project):
    assert run(["--min-version", "0.11.1"], project).exit_code == 0


def test_bad_version_is_a_usage_error(project):
    assert run(["--target-version", "latest"], project).exit_code == 2


def test_min_newer_than_target_is_an_error(project):
    result = run(["--min-version", "0.12.0", "--target-version", "0.11.1"], project)
    assert result.exit_code == 2
    assert "newer than the target" in result.output


def test_statistics(project):
    result = run(["--statistics"], project)
    assert result.output.splitlines() == ["2\tJAX202\t[-] take-along-axis-wrap"]


def test_json_contract_shape(project):
    result = run(["--output-format", "json", "a.py"], project)
    assert result.exit_code == 1
    (item,) = json.loads(result.output)
    # ruff's keys, in ruff's order, then jaxlint's own two (documented in docs/output.md).
    assert list(item) == ["code", "message", "filename", "location", "end_location", "fix", "url", "noqa_row", "cell",
                          "fix_withheld", "unevaluated_annotation"]
    assert item["fix_withheld"] is None and item["unevaluated_annotation"] is False
    assert item["url"] is None  # jaxlint's docs are not online (`jaxlint rule CODE` prints them): no link
    assert item["filename"] == str((project / "a.py").resolve())
    assert item["location"] == {"row": 2, "column": 5}
    assert item["noqa_row"] == 2 and item["cell"] is None
    assert item["fix"]["applicability"] == "safe"
    (edit,) = item["fix"]["edits"]
    assert edit == {"content": "True", "location": {"row": 2, "column": 61}, "end_location": {"row": 2, "column": 65}}


def test_output_file(project):
    result = run(["--output-format", "json", "-o", "out.json", "a.py"], project)
    assert result.exit_code == 1 and result.output == ""
    assert json.loads((project / "out.json").read_text())[0]["code"] == "JAX202"


def test_stdin_check(tmp_path):
    result = run(["-", "--stdin-filename", "pkg/mod.py"], tmp_path, input=NONE_ARG.encode())
    assert result.exit_code == 1
    assert result.output.startswith("pkg/mod.py:2:5: JAX202 [*]")


def test_stdin_fix_prints_fixed_source(tmp_path):
    result = run(["--fix", "-"], tmp_path, input=NONE_ARG.encode())
    assert result.exit_code == 0
    assert result.stdout == NONE_ARG_FIXED


def test_missing_path_is_a_jax002_finding_and_the_other_paths_are_checked(tmp_path):
    """As ruff's E902: one finding per missing path, the run goes on, exit 1."""
    (tmp_path / "a.py").write_text(NONE_ARG)
    result = run(["--no-cache", "nope.py", "a.py"], tmp_path)
    assert result.exit_code == 1
    assert "nope.py:1:1: JAX002 No such file or directory (os error 2)" in result.stdout
    assert "a.py:2:5: JAX202" in result.stdout
    assert "bug in jaxlint" not in result.output


def test_syntax_error_file_is_one_jax000_and_the_run_continues(tmp_path):
    (tmp_path / "broken.py").write_text("import jax.numpy as jnp\njnp.take_along_axis(\n")
    (tmp_path / "ok.py").write_text(NONE_ARG)
    result = run(["--fix"], tmp_path)
    assert "broken.py:2:20: JAX000 SyntaxError: '(' was never closed" in result.output
    assert (tmp_path / "ok.py").read_text() == NONE_ARG_FIXED
    assert (tmp_path / "broken.py").read_text() == "import jax.numpy as jnp\njnp.take_along_axis(\n"
    assert result.exit_code == 1


def test_python_312_grammar_is_parsed(tmp_path):
    source = ("import jax.numpy as jnp\ntype Pair[T] = tuple[T, T]\ndef f[T](x: T) -> T:\n"
              "    return jnp.take_along_axis(x, i, 0, wrap_negative_indices=None)\n"
              "print(f\"{\"nested\"!r}\")\n")
    (tmp_path / "new.py").write_text(source)
    result = run(["--fix", "new.py"], tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "new.py").read_text() == source.replace("=None", "=True")


def test_empty_files(tmp_path):
    (tmp_path / "__init__.py").write_bytes(b"")
    result = run(["--fix"], tmp_path)
    assert result.exit_code == 0
    assert (tmp_path / "__init__.py").read_bytes() == b""


def test_crlf_and_bom_round_trip(tmp_path):
    data = b"\xef\xbb\xbf" + NONE_ARG.replace("\n", "\r\n").encode() + b"# caf\xc3\xa9\r\n"
    (tmp_path / "win.py").write_bytes(data)
    assert run(["--fix", "win.py"], tmp_path).exit_code == 0
    assert (tmp_path / "win.py").read_bytes() == data.replace(b"=None", b"=True")


def test_declared_latin1_round_trip(tmp_path):
    data = b"# -*- coding: latin-1 -*-\n" + NONE_ARG.encode() + b"s = '\xe9'\n"
    (tmp_path / "latin.py").write_bytes(data)
    assert run(["--fix", "latin.py"], tmp_path).exit_code == 0
    assert (tmp_path / "latin.py").read_bytes() == data.replace(b"=None", b"=True")


def test_undecodable_file_is_jax000(tmp_path):
    data = NONE_ARG.encode() + b"s = '\xe9'\n"
    (tmp_path / "bad.py").write_bytes(data)
    result = run(["--fix", "bad.py"], tmp_path)
    assert result.exit_code == 1
    assert "bad.py:3:6: JAX000 cannot decode: line 3" in result.output
    assert (tmp_path / "bad.py").read_bytes() == data


def test_file_permissions_kept(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(NONE_ARG)
    path.chmod(0o755)
    run(["--fix", "script.py"], tmp_path)
    assert path.stat().st_mode & 0o777 == 0o755
    assert not [p for p in tmp_path.iterdir() if "jaxlint-tmp" in p.name]


def test_noqa_comments(tmp_path):
    (tmp_path / "a.py").write_text(
        "import jax.numpy as jnp\n"
        "a = jnp.take_along_axis(x, i, 0, wrap_negative_indices=None)  # noqa\n"
        "b = jnp.take_along_axis(x, i, 0, wrap_negative_indices=None)  # noqa: JAX202\n"
        "c = jnp.take_along_axis(x, i, 0, wrap_negative_indices=None)  # noqa: E501\n"
        "d = jnp.take_along_axis(x, i, 0, wrap_negative_indices=None)  # NOQA:JAX201,JAX202\n"
    )
    result = run(["a.py"], tmp_path)
    assert [line.split(":")[1] for line in result.output.splitlines()[:-2]] == ["4"]


def test_file_level_noqa(tmp_path):
    (tmp_path / "a.py").write_text("# jaxlint: noqa\n" + NONE_ARG)
    (tmp_path / "b.py").write_text("# jaxlint: noqa: JAX202\n" + NONE_ARG)
    (tmp_path / "c.py").write_text("# jaxlint: noqa: JAX201\n" + NONE_ARG)
    result = run([], tmp_path)
    assert [line.split(":")[0] for line in result.output.splitlines() if "JAX202" in line] == ["c.py"]


def test_console_script_and_module_entry_points(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    module = subprocess.run([sys.executable, "-m", "jaxlint", "a.py"], cwd=tmp_path, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")})
    assert module.returncode == 1 and "JAX202" in module.stdout
    script = Path(sys.executable).with_name("jaxlint")
    if script.exists():
        console = subprocess.run([str(script), "a.py"], cwd=tmp_path, capture_output=True, text=True)
        assert console.stdout == module.stdout


def test_rules_and_rule_docs(tmp_path):
    listing = run(["rules"], tmp_path)
    assert listing.exit_code == 0 and "JAX202" in listing.output and "take-along-axis-wrap" in listing.output
    docs = run(["rule", "JAX202"], tmp_path)
    assert docs.exit_code == 0
    assert "# JAX202 take-along-axis-wrap" in docs.output and "## Fix safety" in docs.output
    assert "0.11.1" in docs.output and "unexpected keyword argument 'wrap_negative_indices'" in docs.output
    assert run(["rule", "JAX999"], tmp_path).exit_code == 2


def test_help_and_version(tmp_path):
    assert run(["--help"], tmp_path).exit_code == 0
    assert "jaxlint" in run(["--version"], tmp_path).output
