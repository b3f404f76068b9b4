"""Fuzzing: on generated programs and on real files of this repository with JAX snippets inserted, ``lint_source``
and ``fix_source`` never raise, the fix parses and is idempotent (``tests/support/fuzzing.py``; the volume run over
a corpus of real projects is ``tools/fuzz_corpus.py``)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from jaxlint.project.settings import Settings
from support.fuzzing import (check_program, changed_outside, insert, insertion_points, is_clean, mutate,
                             snippets)

ROOT = Path(__file__).resolve().parents[2]
ALL = Settings(select=("ALL",))
SNIPPETS = snippets()
# This repository's own modules (never third-party code); small ones keep each example fast.
FILES = sorted(p for folder in ("src/jaxlint", "examples", "tests/fixtures", "tests/support", "tools")
               for p in (ROOT / folder).rglob("*.py") if p.stat().st_size <= 12_000)



def fuzz(examples: int) -> hsettings:
    return hsettings(max_examples=examples, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                            HealthCheck.data_too_large, HealthCheck.large_base_example])


TRIED = {"grammar": 0, "node": 0, "grammar+snippet": 0, "repo files": 0}


def _assert_ok(program: str, failures) -> None:
    assert not failures, "\n".join(f"{f.kind}: {f.detail}" for f in failures) + f"\n--- program:\n{program}"


@lru_cache(maxsize=None)
def _file(path: Path) -> tuple[str, tuple, bool]:
    text = path.read_text(encoding="utf-8")
    return text, tuple(insertion_points(text)), is_clean(text, ALL)


@fuzz(20)
@given(hypothesmith.from_grammar())
def test_grammar_programs(program):
    TRIED["grammar"] += 1
    _assert_ok(program, [f for f in check_program(program, ALL) if f.kind != "input-unparseable"])


@pytest.mark.slow  # hypothesmith's node strategy: about half a minute per run on an idle core
@fuzz(20)
@given(hypothesmith.from_node())
def test_node_programs(program):
    TRIED["node"] += 1
    _assert_ok(program, [f for f in check_program(program, ALL) if f.kind != "input-unparseable"])


@fuzz(30)
@given(hypothesmith.from_grammar(), st.sampled_from(SNIPPETS), st.data())
def test_grammar_programs_with_a_jax_snippet(program, snippet, data):
    points = insertion_points(program)
    if not points:
        return
    point = data.draw(st.sampled_from(points), label="point")
    mutated, _ = insert(program, point, snippet.code)
    TRIED["grammar+snippet"] += 1
    _assert_ok(mutated, [f for f in check_program(mutated, snippet.settings) if f.kind != "input-unparseable"])


@pytest.mark.slow  # each example lints and fixes a whole source file of jaxlint's
@fuzz(15)
@given(st.sampled_from(FILES), st.sampled_from(SNIPPETS), st.data())
def test_repository_files_with_a_jax_snippet(path, snippet, data):
    text, points, clean = _file(path)
    if not points:
        return
    body_point = data.draw(st.sampled_from(points), label="statement position")
    module_points = [p for p in points if p[1] == ""]
    import_point = data.draw(st.none() | st.sampled_from(module_points), label="imports at")
    program, regions = mutate(text, snippet, body_point, import_point)
    TRIED["repo files"] += 1
    # Every mutation of a parseable file must parse: an insertion point is before a whole statement.
    _assert_ok(program, check_program(program, snippet.settings, regions if clean else None))


def test_insertion_points_respect_statements():
    source = ("import os\n@dec\ndef f(x):\n    if x:\n        a = 1; b = 2\n    elif x:\n        pass\n"
              "    else: pass\n    return \\\n        x\nclass C: pass\n")
    assert insertion_points(source) == [(0, ""), (1, ""), (3, "    "), (4, "        "), (6, "        "),
                                        (8, "    "), (10, ""), (11, "")]
    mutated, region = insert(source, (4, "        "), "import jax\ny = jax.tree_map(f, t)\n")
    assert region == (4, 6)
    assert mutated.splitlines()[4:6] == ["        import jax", "        y = jax.tree_map(f, t)"]
    assert changed_outside(mutated, mutated.replace("tree_map", "tree.map"), [region]) == []
    assert changed_outside(mutated, mutated.replace("os", "sys"), [region])
    # a new import section after the standard library's, set apart by a blank line, is an added import; a blank
    # line alone is not
    module = "import ast\n\n\ndef f():\n    pass\n"
    assert changed_outside(module, module.replace("import ast\n", "import ast\n\nimport jax\n"), []) == []
    assert changed_outside(module, module.replace("import ast\n", "import ast\n\n"), [])


@pytest.mark.parametrize("snippet", SNIPPETS[:: max(1, len(SNIPPETS) // 12)], ids=lambda s: s.origin)
def test_snippet_imports_moved_to_the_top(snippet):
    text, points, _ = _file(ROOT / "src/jaxlint/rules/jax204_ds_none.py")
    inner = [p for p in points if p[1]][len(points) // 3]
    program, regions = mutate(text, snippet, inner, (0, ""))
    _assert_ok(program, check_program(program, snippet.settings, regions))


def test_report_counts(capsys):
    """Not a check: how many programs the property tests above tried (visible with ``-s``)."""
    with capsys.disabled():
        print(f"\nfuzz programs tried: {TRIED}")
