"""Probe spans derived for fixes whose rule names none (renames), and the reach markers for the rest."""
from __future__ import annotations

import ast
from pathlib import Path

from jaxlint.project.config import Overrides, SettingsResolver
from jaxlint.lint.diagnostics import Edit
from jaxlint.verify.instrument import instrument_file
from jaxlint.verify.plan import make_plan
from jaxlint.verify.probe_spans import derive_probe

RENAMES = '''import jax
from jax import tree_map


def f(x):
    y = jax.tree_map(lambda a: a + 1, x)
    g = jax.tree_map
    leaves = [jax.tree_leaves(y)]
    return tree_map(lambda a: a, y), g, leaves
'''


def _edit(text: str, old: str, new: str, occurrence: int = 0) -> Edit:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(old, start + 1)
    return Edit(start, start + len(old), new)


def _probed(text: str, edit: Edit) -> str | None:
    span = derive_probe(text, [edit])
    return None if span is None else text[span[0]:span[1]]


def test_a_renamed_function_is_probed_as_the_call_it_makes():
    assert _probed(RENAMES, _edit(RENAMES, "jax.tree_map", "jax.tree.map", 0)) == "jax.tree_map(lambda a: a + 1, x)"
    assert _probed(RENAMES, _edit(RENAMES, "jax.tree_leaves", "jax.tree.leaves")) == "jax.tree_leaves(y)"
    # Only the module part renamed: still the whole call.
    text = "z = jax.tree_util.tree_map(f, x)\n"
    assert _probed(text, _edit(text, "tree_util", "tree")) == "jax.tree_util.tree_map(f, x)"


def test_a_renamed_function_used_as_a_value_is_probed_as_that_value():
    assert _probed(RENAMES, _edit(RENAMES, "jax.tree_map", "jax.tree.map", 1)) == "jax.tree_map"


def test_no_probe_where_wrapping_would_change_the_code():
    assert _probed(RENAMES, _edit(RENAMES, "tree_map", "map", 0)) is None  # an import
    for text, old in (("jax.tree_map = f\n", "jax.tree_map"), ("del jax.tree_map\n", "jax.tree_map"),
                      ("f(tree_map=1)\n", "tree_map"), ("for jax.x in y: pass\n", "jax.x"),
                      ("def tree_map(): pass\n", "tree_map"), ("a, b = 1, 2\n", "a, b")):
        assert _probed(text, _edit(text, old, "q")) is None, text
    text = "y = f(a, jax.tree_map)\n"
    assert _probed(text, _edit(text, "jax.tree_map", "q")) == "jax.tree_map"
    assert derive_probe("x = (\n", [Edit(0, 1, "y")]) is None  # does not parse


def test_every_rename_site_is_probed_and_the_instrumented_code_parses(tmp_path):
    (tmp_path / "m.py").write_text(RENAMES)
    plan = make_plan([tmp_path / "m.py"], SettingsResolver(Overrides()), tmp_path)
    kinds = {(site.row, site.kind) for site in plan.sites}
    # The import is rewritten (`from jax.tree import map as tree_map`), so its use on line 9 is not a site.
    assert kinds == {(2, "reach"), (6, "value"), (7, "value"), (8, "value")}, kinds
    file_plan = plan.files[0]
    result = instrument_file(file_plan.source.text, file_plan.fixed, file_plan.sites)
    assert result.unmarked == []
    ast.parse(result.before), ast.parse(result.after)
    # The argument the fix keeps is recorded too (the lambda is not: its text is its value in both runs).
    assert ("record('m.py:6:JAX101:1', jax.tree_map(lambda a: a + 1, "
            "__import__(\"_jaxlint_probe\").record('m.py:6:JAX101:1::input:1', x)))") in result.before
    assert result.inputs["m.py:6:JAX101:1"] == [("m.py:6:JAX101:1::input:1", "x")]
    assert "record('m.py:6:JAX101:1', jax.tree" in result.after
    assert result.before.splitlines()[1].startswith('__import__("_jaxlint_probe").reach(\'m.py:2:JAX101:1\'); from')
    # Line numbers stay where they were.
    assert len(result.before.splitlines()) == len(RENAMES.splitlines())


def test_a_callable_value_is_recorded_abstractly(monkeypatch, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "probe_copy", Path(__file__).resolve().parents[2] / "src/jaxlint/verify/_jaxlint_probe.py")
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    assert probe._encode(len, None, []) == ("abstract", "callable", ())
    assert probe._encode(lambda: 0, None, []) == ("abstract", "callable", ())
    assert probe._encode(3, None, []) == ("py", "int", 3)
