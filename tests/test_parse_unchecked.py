"""libcst checks every node it builds (``CSTNode._validate``); for text ``ast`` has parsed, ``engine.parse`` skips
that check (about 14% of the parse). The tree must be the same, and the check must stay on everywhere else."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from jaxlint.lint import engine

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [path for path in sorted((ROOT / "tests" / "fixtures").rglob("*.py"))] + [
    ROOT / "src" / "jaxlint" / "lint" / "engine.py", ROOT / "src" / "jaxlint" / "catalogue" / "symbols.py"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_unchecked_tree_is_the_checked_tree(path):
    source = path.read_text(encoding="utf-8")
    checked = engine.parse(source)
    unchecked = engine.parse(source, valid_python=True)
    assert unchecked.deep_equals(checked)
    assert unchecked.code == source


def test_the_check_is_back_after_a_parse_and_after_a_failure():
    original = cst.CSTNode.__post_init__
    engine.parse("x = 1\n", valid_python=True)
    with pytest.raises(engine.ParseFailure):
        engine.parse("x = (\n", valid_python=True)
    assert cst.CSTNode.__post_init__ is original
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_a_file_ast_rejects_is_still_parsed_with_the_check(monkeypatch):
    seen = []
    original = engine.parse
    monkeypatch.setattr(engine, "parse", lambda source, **kw: seen.append(kw) or original(source, **kw))
    result = engine.lint_source("import jax\nx = jax.tree_map(f, t\n", "x.py", engine.Settings())
    assert [d.code for d in result.diagnostics] == ["JAX000"]
    assert seen == [{"valid_python": False}]
    # an index-update rewrite: not decided from ``ast``, so libcst parses it (unchecked: ``ast`` accepted it)
    engine.lint_source("import jax\ny = jax.ops.index_update(x, 0, 1)\n", "x.py", engine.Settings())
    assert seen[-1] == {"valid_python": True}
