"""JAX601 behaviour-change and its rows (``rules/behaviour.toml``): each row's pattern, the version range that
crosses it, and the rows' own evidence (the changelog line, the example run on both sides)."""
from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from jaxlint.catalogue.behaviour import by_hand, changes
from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version, parse_version

REPO = Path(__file__).resolve().parents[2]


def found(source: str, min_version: str = "0.4.20", target: str | None = None) -> list[str]:
    settings = replace(Settings(select=("JAX601",)), explicit_min_version=Version(min_version),
                       min_version_source="test")
    if target:
        settings = replace(settings, target_version=Version(target))
    return [d.message for d in lint_source(source, "a.py", settings).diagnostics if d.code == "JAX601"]


@pytest.mark.parametrize("source, reported", [
    ("import jax.numpy as jnp\njnp.einsum('i,i,i', a, b, c)\n", "jax.numpy.einsum"),
    ("import jax.numpy as jnp\njnp.einsum('i,i', a, b)\n", None),  # two operands: one order
    ("import jax.numpy as jnp\njnp.einsum('i,i,i', a, b, c, optimize='optimal')\n", None),
    ("import jax.numpy as jnp\njnp.einsum(*args)\n", None),  # a starred call: unknown
    ("import jax\njax.random.randint(k, (2,), 0, 9, dtype=jnp.uint16)\n", "jax.random.randint"),
    ("import jax\njax.random.randint(k, (2,), 0, 9)\n", None),
    ("from jax.scipy.stats import rankdata\nrankdata(x, method='dense')\n", "jax.scipy.stats.rankdata"),
    ("from jax.scipy.stats import rankdata\nrankdata(x)\n", None),  # 'average' was already float
    ("from jax.scipy import fft\nfft.idctn(x, s=(2,))\n", "jax.scipy.fft.idctn"),
    ("from jax.scipy import fft\nfft.idctn(x, s=(2,), axes=(0,))\n", None),
    ("import jax.numpy as jnp\njnp.arange(0, 2, 0.1, dtype=jnp.bfloat16)\n", "jax.numpy.arange"),
    ("import jax.numpy as jnp\njnp.arange(2, dtype=jnp.bfloat16)\n", None),  # no step
    ("import jax.numpy as jnp\njnp.array(None)\n", "jax.numpy.array"),
    ("import jax.numpy as jnp\njnp.array(x)\n", None),
    ("import jax.numpy as jnp\njnp.nonzero(-1)\n", "jax.numpy.nonzero"),
    ("import jax.numpy as jnp\njnp.nonzero(x)\n", None),
    ("import jax.numpy as jnp\njnp.unique(x, return_inverse=False)\n", None),
    ("import jax.numpy as jnp\njnp.unique(x, return_inverse=True)\n", "jax.numpy.unique"),
    ("import jax.numpy as jnp\njnp.unique(jnp.array([[1, 2], [2, 1]]), return_inverse=True)\n", "jax.numpy.unique"),
    ("import jax.numpy as jnp\njnp.unique(jnp.array([x, 1]), return_inverse=True)\n", "jax.numpy.unique"),
    # a literal 1-D input: its inverse indices are flat on both sides of the change
    ("import jax.numpy as jnp\njnp.unique(jnp.array([2, 1, 2]), return_inverse=True)\n", None),
    ("import jax.numpy as jnp\njnp.unique([2, -1.5, 2], return_inverse=True)\n", None),
    ("import jax.numpy as jnp\njnp.unique(('a', 'b'), return_inverse=True)\n", None),
    ("import jax\njax.make_mesh((2,), ('x',), axis_types=(Auto,))\n", None),
    ("import jax.numpy as jnp\njnp.floor(x)\n", None),  # no static pattern: by hand
])
def test_each_pattern(source, reported):
    messages = found(source)
    assert [m.split("`")[1] for m in messages] == ([reported] if reported else [])


def test_the_range_must_cross_the_release():
    source = "import jax\njax.make_mesh((2,), ('x',))\n"  # 0.9.0
    assert found(source, "0.8.0") and found(source, "0.8.2", "0.9.0")
    assert not found(source, "0.9.0")  # the min already has it
    assert not found(source, "0.4.30", "0.8.2")  # the target does not reach it


def test_the_message_says_what_changed_and_how_to_keep_the_old_behaviour():
    (text,) = found("import jax.numpy as jnp\njnp.einsum('i,i,i', a, b, c)\n")
    assert text == ("`jax.numpy.einsum` changed in JAX 0.5.0: the default `optimize` is `'auto'` (it was `'optimal'`): "
                    "with three operands or more, another contraction order, so other rounding and another compiled "
                    "program; to keep the old behaviour, pass `optimize='optimal'`.")


# -- the rows' evidence -------------------------------------------------------------------------------------------
HEADING = re.compile(r"^(?:jax|JAX) (\d+\.\d+\.\d+) \([A-Z][a-z]+ \d+,? \d{4}\), [^:]+: \".+\"$", re.S)


@pytest.mark.parametrize("row", changes(), ids=lambda row: row.api)
def test_each_row_quotes_its_changelog_line_and_shows_the_change(row):
    heading = HEADING.match(row.reason)
    assert heading, f"{row.api}: the reason must be `jax X (date), section: \"bullet\"`"
    assert parse_version(heading.group(1)) <= parse_version(row.changed_in)  # a notice may come before the change
    assert parse_version(row.example_old_version) < parse_version(row.changed_in) <= \
        parse_version(row.example_new_version)
    assert row.executed and row.example_old_result and row.example_old_result != row.example_new_result


def test_the_rows_without_a_pattern_are_the_by_hand_list():
    assert {row.api for row in by_hand()} == {
        "jax.numpy.floor", "jax.numpy.ceil", "jax.numpy.trunc", "jax.numpy.isscalar", "jax.numpy.cov",
        "jax.numpy.trim_zeros", "jax.numpy.sign", "jax.numpy.linalg.solve", "jax.Array.astype", "jax.Array.__bool__",
        "jax.Array.view", "jax.sharding.PartitionSpec"}


def test_the_example_tool_records_results_in_the_rows_it_ran():
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from run_behaviour_examples import write
    finally:
        sys.path.remove(str(REPO / "tools"))
    text = ("# head\n[[change]]\napi = \"a\"\nexample_old_result = \"\"\nexample_new_result = \"\"\n"
            "executed = false\n\n"
            "[[change]]\napi = \"b\"\nexample_old_result = \"\"\nexample_new_result = \"\"\nexecuted = false\n")
    assert write(text, [("1", "x \"y\""), None]) == text.replace(
        'example_old_result = ""\nexample_new_result = ""\nexecuted = false\n\n',
        'example_old_result = "1"\nexample_new_result = "x \\"y\\""\nexecuted = true\n\n', 1)


@pytest.mark.slow
def test_the_recorded_examples_still_print_what_they_recorded(monkeypatch):
    """Re-runs every row's example in the JAX environments the rows name, where they exist."""
    import os

    envs = Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs"))
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from run_behaviour_examples import main
    finally:
        sys.path.remove(str(REPO / "tools"))
    if not any((envs / f"jax-{v}").exists() for v in ("0.4.20", "0.8.0", "0.10.2")):
        pytest.skip(f"no JAX environments under {envs}")
    assert main(["--envs", str(envs)]) == 0


@pytest.mark.parametrize("source, kept", [
    ("import jax\njax.random.randint(k, (2,), 0, 9, dtype=jnp.int8)\n", True),
    ("import jax\njax.random.randint(k, (2,), 0, 9, dtype=jnp.int32)\n", False),  # not a value the row names
    ("import jax.numpy as jnp\njnp.array(x, jnp.float32)\n", False),  # no `(None`
    ("import jax.numpy as jnp\njnp.einsum('i,i', a, b)\n", False),  # two operands
    ("import jax.numpy as jnp\njnp.einsum('i,i,i', a, b, c)\n", True),
    ("import jax\njax.make_mesh((2,), ('x',), axis_types=t)\n", False),
])
def test_the_gates_keep_only_files_with_a_possible_use(source, kept):
    """A corpus run (5,650 files) cost 2.3 s more with JAX601 before its gates looked at the row's keyword and
    values: every file that called `jnp.array`, `arange` or `einsum` went on to libcst."""
    from jaxlint.lint.ast_gate import collect_facts
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    rule = rule_by_code("JAX601")
    text = rule.may_match_text(TextFacts(source), Scan(source).words)
    assert (text and rule.may_match_ast(collect_facts(source))) is kept
