"""--add-noqa and JAX001 unused-noqa."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from jaxlint.lint.engine import lint_source
from jaxlint.run.noqa_add import add_noqa_to_source, remove_unused_noqa, unused_noqa
from jaxlint.project.settings import Settings

WRAP = "jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)"
HEADER = "import jax.numpy as jnp\n"
ON = Settings(extend_select=("JAX001",))


def add(source: str) -> tuple[str, int, list[int]]:
    return add_noqa_to_source(source, lint_source(source, "t.py", Settings()).diagnostics)


def test_add_noqa_appends_and_merges():
    source = (HEADER + f"a = {WRAP}\n" + f"b = {WRAP}  # type: ignore\n" + f"c = {WRAP}  # noqa: E501\n"
              + f"d = {WRAP}  # noqa\n" + "from jax.experimental import export\n")
    text, added, skipped = add(source)
    assert added == 4 and skipped == []
    assert text.splitlines()[1:] == [
        f"a = {WRAP}  # noqa: JAX202",
        f"b = {WRAP}  # type: ignore  # noqa: JAX202",
        f"c = {WRAP}  # noqa: E501, JAX202",
        f"d = {WRAP}  # noqa",
        "from jax.experimental import export  # noqa: JAX302",
    ]
    assert lint_source(text, "t.py", Settings()).diagnostics == []
    assert add(text)[1] == 0  # idempotent


def test_add_noqa_never_breaks_a_multiline_string_or_continuation():
    source = (HEADER + f'a = {WRAP[:-1]}, doc="""\nwhy?""")\n'
              + "t = jnp.take_along_axis(x, idx, \\\n    axis=0, wrap_negative_indices=None)\n"
              + f's = """\n{WRAP}""" + str({WRAP})\n')
    text, added, skipped = add(source)
    assert skipped == [2, 4] and added == 1
    assert text == source.replace("None))\n", "None))  # noqa: JAX202\n")
    compile(text, "t.py", "exec")


def test_add_noqa_keeps_crlf():
    source = (HEADER + f"a = {WRAP}\n").replace("\n", "\r\n")
    text, added, _ = add(source)
    assert text == (HEADER + f"a = {WRAP}  # noqa: JAX202\n").replace("\n", "\r\n")


def test_unused_noqa_reports_only_jax_codes_that_suppress_nothing():
    source = (HEADER + "a = 1  # noqa: JAX202\n" + f"b = {WRAP}  # noqa: JAX202\n" + "c = 2  # noqa: E501, JAX201\n"
              + "d = 3  # noqa\n" + "e = 4  # noqa: JAX202, JAX001\n" + "s = '# noqa: JAX202'\n")
    found = unused_noqa(source, "t.py", ON)
    assert [(d.code, d.start.row, d.start.column) for d in found] == [("JAX001", 2, 8), ("JAX001", 4, 8)]
    assert "`JAX202`" in found[0].message and found[0].fix is not None
    fixed = remove_unused_noqa(source, found)
    assert fixed.splitlines()[1:4] == ["a = 1", f"b = {WRAP}  # noqa: JAX202", "c = 2  # noqa: E501"]
    assert unused_noqa(fixed, "t.py", ON) == []


def test_unused_noqa_respects_selection():
    source = HEADER + "a = 1  # noqa: JAX202\n"
    assert unused_noqa(source, "t.py", Settings()) == []  # opt-in, as ruff's RUF100
    assert unused_noqa(source, "t.py", Settings(extend_select=("JAX001",), ignore=("JAX001",))) == []
    assert unused_noqa(source, "t.py", Settings(extend_select=("JAX001",), ignore=("JAX202",))) == []  # a disabled rule's code is not judged


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxlint", "--isolated", *args], cwd=tmp_path, capture_output=True,
                          text=True)


def test_cli_add_noqa_then_check_is_clean(tmp_path):
    (tmp_path / "m.py").write_text(HEADER + f"a = {WRAP}\nfrom jax.experimental import export\n")
    result = run(tmp_path, "--add-noqa", "m.py")
    assert result.returncode == 0 and "Added 2 noqa directives." in result.stderr
    assert run(tmp_path, "m.py").returncode == 0


def test_cli_reports_and_fixes_unused_noqa(tmp_path):
    (tmp_path / "m.py").write_text(HEADER + f"a = {WRAP}  # noqa: JAX202\nb = 1  # noqa: JAX202\n")
    result = run(tmp_path, "m.py", "--extend-select", "JAX001", "--output-format", "json")
    assert result.returncode == 1 and '"code": "JAX001"' in result.stdout
    result = run(tmp_path, "--fix", "--extend-select", "JAX001", "m.py")
    assert result.returncode == 0, result.stdout
    assert (tmp_path / "m.py").read_text() == HEADER + f"a = {WRAP}  # noqa: JAX202\nb = 1\n"
