"""Large modules are linted in pieces (``jaxlint.lint.large_files``): the pieces are cut where top-level statements
start, and linting in pieces finds exactly what linting the whole module finds."""
from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.lint import engine, large_files
from jaxlint.project.settings import Settings
from jaxlint.rules import all_rules

from tests.support.corpus import named_sources

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("source, starts", [
    ("import jax\nx = 1\n", ["import jax", "x = 1"]),
    ("@dec\n@dec2(1)\ndef f():\n    pass\nx = 1\n", ["@dec", "x = 1"]),
    ("if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\ny = 2\n", ["if a:", "y = 2"]),
    ("try:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\nz = 1\n", ["try:", "z = 1"]),
    ("x = f(\na,\n)\ny = [\n1]\n", ["x = f(", "y = ["]),
    ('s = """\nnot = a statement\n"""\nt = 1\n', ['s = """', "t = 1"]),
    ("x = 1 + \\\n2\n# a comment\n\ny = 3  # (\nz = 4\n", ["x = 1 + \\", "y = 3  # (", "z = 4"]),
    ("x = '('\nelse_ = 1\n", ["x = '('", "else_ = 1"]),
])
def test_statement_starts(source, starts):
    found = large_files.statement_starts(source)
    assert [source[start:].split("\n")[0] for start in found] == starts


def test_unreadable_strings_are_not_cut():
    assert large_files.statement_starts("x = '''never closed\ny = 1\n") is None


def _whole_and_pieces(source: str, monkeypatch, piece: int):
    rules = all_rules()
    settings = Settings()
    whole = engine.lint_source(source, "x.py", settings, rules=rules, whole=True).diagnostics
    monkeypatch.setattr(large_files, "LARGE_FILE", 0)
    monkeypatch.setattr(large_files, "PIECE", piece)
    in_pieces = engine.lint_source(source, "x.py", settings, rules=rules).diagnostics
    return whole, in_pieces


SOURCES = named_sources()


# One statement per piece: every finding whose rule looks at other statements (an import's uses, a ``global``
# rebinding, a scan of a function defined elsewhere, an option set twice) must still see them.
@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_pieces_find_what_the_whole_module_finds(name, source, monkeypatch):
    whole, in_pieces = _whole_and_pieces(source, monkeypatch, piece=1)
    assert in_pieces == whole


def _generated(size: int) -> str:
    import sys
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from big_file import generate
    finally:
        sys.path.pop(0)
    return generate(size, "many")


def test_a_generated_large_module(monkeypatch):
    source = _generated(60_000)
    whole, in_pieces = _whole_and_pieces(source, monkeypatch, piece=5_000)
    assert len(whole) > 100
    assert in_pieces == whole


@pytest.mark.parametrize("name", ["generated", "JAX302", "JAX102", "JAX201"])
def test_fixes_of_a_large_module_are_the_same(name, monkeypatch):
    if name == "generated":
        source = _generated(10_000)
    else:
        source = (ROOT / "tests" / "fixtures" / name / "before.py").read_text(encoding="utf-8")
    whole = engine.fix_source(source, "x.py", Settings(), unsafe=True, rules=all_rules())
    monkeypatch.setattr(large_files, "LARGE_FILE", 0)
    monkeypatch.setattr(large_files, "PIECE", 1)
    in_pieces = engine.fix_source(source, "x.py", Settings(), unsafe=True, rules=all_rules())
    assert whole.applied and in_pieces.source == whole.source
    assert [(a.code, a.row, a.column) for a in in_pieces.applied] == [(a.code, a.row, a.column) for a in whole.applied]


def test_a_syntax_error_is_reported_once_at_its_place(monkeypatch):
    source = "import jax\n" + "x = jax.tree_map(f, t)\n" * 3 + "def broken(:\n    pass\n" + "y = 1\n"
    whole, in_pieces = _whole_and_pieces(source, monkeypatch, piece=1)
    assert [(d.code, d.start) for d in in_pieces] == [(d.code, d.start) for d in whole] and whole[0].code == "JAX000"


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "fixtures").rglob("*.py")), ids=lambda p: p.parent.name + p.name)
def test_crlf_modules_in_pieces(path, monkeypatch):
    source = path.read_text(encoding="utf-8").replace("\n", "\r\n")
    whole = engine.fix_source(source, "x.py", Settings(), unsafe=True, rules=all_rules())
    monkeypatch.setattr(large_files, "LARGE_FILE", 0)
    monkeypatch.setattr(large_files, "PIECE", 1)
    in_pieces = engine.fix_source(source, "x.py", Settings(), unsafe=True, rules=all_rules())
    assert in_pieces.source == whole.source and in_pieces.remaining == whole.remaining
