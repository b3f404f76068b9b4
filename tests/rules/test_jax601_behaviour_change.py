"""JAX601 behaviour-change and its rows (``rules/behaviour.toml``): each row's pattern, the version range that
crosses it, and the rows' own evidence (the changelog line, the example run on both sides)."""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from jaxlint.catalogue.behaviour import by_hand, changes, crossed
from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version, parse_version
from jaxlint.rules import rule_by_code
from jaxlint.rules.jax601_behaviour_change import ROWS

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
HEADING = re.compile(r"^(jax|JAX|flax|optax) (\d+\.\d+\.\d+) \([A-Z][a-z]+ \d+,? \d{4}\), [^:]+: \".+\"$", re.S)


@pytest.mark.parametrize("row", changes(), ids=lambda row: row.api)
def test_each_row_quotes_its_changelog_line_and_shows_the_change(row):
    heading = HEADING.match(row.reason)
    assert heading, f"{row.api}: the reason must be `<library> X (date), section: \"bullet\"`"
    assert heading.group(1).lower() == row.library  # the release of the library whose pins must cross it
    assert parse_version(heading.group(2)) <= parse_version(row.changed_in)  # a notice may come before the change
    assert parse_version(row.example_old_version) < parse_version(row.changed_in) <= \
        parse_version(row.example_new_version)
    assert row.executed and row.example_old_result and row.example_old_result != row.example_new_result


def test_the_rows_without_a_pattern_are_the_by_hand_list():
    assert {row.api for row in by_hand()} == {
        "jax.numpy.floor", "jax.numpy.ceil", "jax.numpy.trunc", "jax.numpy.isscalar", "jax.numpy.cov",
        "jax.numpy.trim_zeros", "jax.numpy.sign", "jax.numpy.linalg.solve", "jax.Array.astype", "jax.Array.__bool__",
        "jax.Array.view", "jax.sharding.PartitionSpec",
        # from the full read of the changelog (tools/data/changelog_jax.csv): the values decide, not the call's shape
        "jax.numpy.array_equal", "jax.pure_callback", "jax.Array.__float__", "jax.scipy.special.logsumexp",
        "jax.numpy.fabs", "jax.pmap", "jax.tree_util.tree_map", "jax.random.key", "jax.random.PRNGKey", "jax.scipy.linalg.toeplitz",
        "jax.scipy.special.gamma", "jax.stages.Compiled.cost_analysis", "jax.numpy.sum", "jax.devices",
        "jax.numpy.hstack",
        # flax and optax: the value's type or dtype decides (JAX503/504/508 report FrozenDict methods on `init`'s dict)
        "flax.training.checkpoints.save_checkpoint", "flax.linen.Module.init",
        "flax.training.early_stopping.EarlyStopping", "flax.nnx.Module", "optax.MultiSteps", "optax.inject_hyperparams"}


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


def test_the_example_tool_gives_a_new_row_its_result_lines():
    """A row written by hand has no result lines yet: ``--write`` adds them, rather than marking it executed alone."""
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from run_behaviour_examples import write
    finally:
        sys.path.remove(str(REPO / "tools"))
    text = "[[change]]\napi = \"a\"\nexecuted = false\n"
    assert write(text, [("1", "2")]) == \
        "[[change]]\napi = \"a\"\nexample_old_result = \"1\"\nexample_new_result = \"2\"\nexecuted = true\n"


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


@pytest.mark.parametrize("source, kept", [
    ("import jax.numpy as jnp\njnp.einsum('i,i', a, b)\n", False),  # two operands: fewer than the row requires
    ("import jax.numpy as jnp\njnp.einsum('i,i',\n    a,  # first, second\n    b)\n", False),
    ("import jax.numpy as jnp\njnp.einsum('i,i,i', a, b, c)\n", True),
    ("import jax.numpy as jnp\njnp.einsum('i,i,i',\n    a,  # x)\n    b, c)\n", True),
    ("import jax.numpy as jnp\nfrom jax.numpy import einsum as e\ne('i,i,i', a, b, c)\n", True),
    ("import jax.numpy as jnp\njnp.einsum('i,i', *operands)\n", False),  # ``*args``: never reported (``matches``)
    ("import jax.numpy as jnp\nf = jnp.einsum\nf('i,i,i', a, b, c)\n", False),  # the rule reads direct calls only
    # the keyword the row reads, passed to another call only
    ("import jax\nimport jax.numpy as jnp\njax.random.randint(k, (2,), 0, 9)\nx = jnp.zeros(3, dtype=jnp.int8)\n", False),
    ("import jax\nimport jax.numpy as jnp\njax.random.randint(k, (2,), 0, 9,\n    dtype=jnp.int8)\n", True),
    # ``jnp.array(None)``: the first argument read from the call, not ``(None`` anywhere in the file
    ("import jax.numpy as jnp\nx = jnp.array(y, jnp.float32)\nz = f(None)\n", False),
    ("import jax.numpy as jnp\nx = jnp.array(None_or_y)\n", False),
    ("import jax.numpy as jnp\nx = jnp.array(\n    # nothing\n    None)\n", True),
    ("import jax.numpy as jnp\nx = jnp.array((None), dtype=d)\n", True),
])
def test_the_text_gate_reads_the_calls_shape(source, kept):
    """The text gate asks for a call of the row's API with as many positional arguments as the row requires, and
    with the keyword it reads (``read_call``, the count JAX103's gate reads): 124 dev-corpus files call
    ``jnp.einsum`` with fewer than three operands, which its words and the `optimize` row alone kept."""
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    assert rule_by_code("JAX601").may_match_text(TextFacts(source), Scan(source).words) is kept


# -- flax and optax rows: the range that must cross the release is the project's pin of that library -------------
def pinned(library: str, low: str | None, high: str | None = None) -> Settings:
    from jaxlint.project.version_pins import Bound, PinnedRange

    lower = Bound(Version(low), "requirements.txt:1", f"{library}>={low}") if low else None
    upper = Bound(Version(high), "requirements.txt:1", f"{library}<{high}") if high else None
    return replace(Settings(select=("JAX601",)), explicit_min_version=Version("0.4.20"), min_version_source="test",
                   pinned=PinnedRange(Path("."), lower, None, ((library, lower, upper),)))


def found_with(source: str, settings: Settings) -> list[str]:
    return [d.message for d in lint_source(source, "a.py", settings).diagnostics if d.code == "JAX601"]


LINEN = "import flax.linen as nn\n"
NNX = "from flax import nnx\n"


@pytest.mark.parametrize("source, reported", [
    # the module built and called at once, with the mask third: 0.7.5 takes it for `inputs_v`
    (LINEN + "y = nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask)\n",
     "flax.linen.MultiHeadDotProductAttention"),
    (LINEN + "y = nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask, True)\n",
     "flax.linen.MultiHeadDotProductAttention"),
    ("from flax.linen import MultiHeadDotProductAttention as MHA\ny = MHA(num_heads=8)(q, kv, mask)\n",
     "flax.linen.MultiHeadDotProductAttention"),
    (LINEN + "y = nn.MultiHeadDotProductAttention(num_heads=8)(q, kv)\n", None),  # inputs_v defaults to inputs_k
    (LINEN + "y = nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask=mask)\n", None),
    (LINEN + "y = nn.MultiHeadDotProductAttention(num_heads=8)(*args)\n", None),
    (LINEN + "attention = nn.MultiHeadDotProductAttention(8, 1, 2, 3)\n", None),  # the constructor's arguments
    (LINEN + "y = nn.Dense(8)(q, kv, mask)\n", None),
    (NNX + "self.dropout = nnx.Dropout(0.1, rngs=rngs)\n", "flax.nnx.Dropout"),
    (NNX + "self.dropout = nnx.Dropout(0.1)\n", None),  # the rngs come with the call: the same on both sides
    ("import flax.linen as nn\ny = nn.Dropout(0.1)(x, deterministic=False, rng=rngs)\n", None),  # linen's Dropout
    # a norm layer without its scale or bias: `None`, no longer an `nnx.Param(None)`, from 0.10.3
    (NNX + "self.norm = nnx.LayerNorm(8, use_scale=False, rngs=rngs)\n", "flax.nnx.LayerNorm"),
    (NNX + "self.norm = nnx.BatchNorm(8, use_bias=False, rngs=rngs)\n", "flax.nnx.BatchNorm"),
    (NNX + "self.norm = nnx.GroupNorm(8, use_bias=False, use_scale=False, rngs=rngs)\n", "flax.nnx.GroupNorm"),
    (NNX + "self.norm = nnx.RMSNorm(8, use_scale=False, rngs=rngs)\n", "flax.nnx.RMSNorm"),
    (NNX + "self.norm = nnx.LayerNorm(8, use_scale=True, rngs=rngs)\n", None),
    (NNX + "self.norm = nnx.LayerNorm(8, use_scale=flag, rngs=rngs)\n", None),  # not known to be False
    (NNX + "self.norm = nnx.RMSNorm(8, use_bias=False, rngs=rngs)\n", None),  # RMSNorm has no bias
    (LINEN + "y = nn.LayerNorm(use_scale=False)(x)\n", None),  # linen's LayerNorm
])
def test_each_flax_pattern(source, reported):
    messages = found_with(source, pinned("flax", "0.6.0"))
    assert [m.split("`")[1] for m in messages] == ([reported] if reported else [])


def test_a_flax_row_follows_the_flax_pins_not_the_jax_range():
    source = LINEN + "y = nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask)\n"  # flax 0.7.5
    assert found_with(source, pinned("flax", "0.7.4"))
    assert not found_with(source, pinned("flax", "0.7.5"))  # the pins start with the new call
    assert not found_with(source, pinned("flax", "0.6.0", "0.7.5"))  # flax<0.7.5: never reaches it
    # flax not pinned from below: the JAX min decides, against the JAX that flax 0.7.5 needs (0.4.19)
    assert found(source, "0.4.16") and found_with(source, replace(pinned("optax", "0.1.0"),
                                                                  explicit_min_version=Version("0.4.16")))
    assert not found(source, "0.4.20")  # JAX 0.4.20 runs flax 0.7.4 and 0.7.5 alike: nothing known to cross
    assert not found_with(source, replace(Settings(select=("JAX601",)), target_version=Version("0.4.16")))  # no min
    assert not found(source, "0.4.16", "0.4.18")  # the target runs no flax 0.7.5 either
    dropout = NNX + "d = nnx.Dropout(0.1, rngs=rngs)\n"  # flax 0.11.0
    assert found_with(dropout, pinned("flax", "0.10.2")) and not found_with(dropout, pinned("flax", "0.11.0"))
    assert found(dropout, "0.5.3") and not found(dropout, "0.6.0")  # flax 0.11.0 needs JAX 0.6.0


def test_a_flax_message_names_the_library():
    (text,) = found_with(NNX + "d = nnx.Dropout(0.1, rngs=rngs)\n", pinned("flax", "0.10.0"))
    assert text.startswith("`flax.nnx.Dropout` changed in flax 0.11.0: a `Dropout` built with `rngs` keeps a forked")
    assert text.endswith("pass them at the call: `self.dropout(x, rngs=rngs)` (the same on both sides).")


@pytest.mark.parametrize("source, kept", [
    (LINEN + "y = nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask)\n", True),
    (NNX + "d = nnx.Dropout(0.1, rngs=rngs)\n", True),
    (NNX + "d = nnx.Dropout(0.1)\n", False),  # no `rngs=`
    (NNX + "n = nnx.LayerNorm(8, use_bias=False, rngs=rngs)\n", True),
    (NNX + "n = nnx.LayerNorm(8, rngs=rngs)\n", False),
    (NNX + "n = nnx.LayerNorm(8, use_bias=True, rngs=rngs)\n", False),
    (LINEN + "y = nn.Dense(8)(x)\n", False),
])
def test_the_gates_keep_the_flax_uses(source, kept):
    from jaxlint.lint.ast_gate import collect_facts
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    rule = rule_by_code("JAX601")
    text = rule.may_match_text(TextFacts(source), Scan(source).words)
    assert (text and rule.may_match_ast(collect_facts(source))) is kept


MHA = "nn.MultiHeadDotProductAttention(num_heads=8)"


@pytest.mark.parametrize("source, kept", [
    (LINEN + f"y = {MHA}(q, kv, mask)\n", True),
    (LINEN + f"y = {MHA}(\n    q,  # the query)\n    kv, mask)\n", True),
    (LINEN + f"y = {MHA}  (q, kv, mask)\n", True),
    (LINEN + f"y = ({MHA})(q, kv, mask)\n", True),  # the text cannot tell: kept
    (LINEN + f"y = {MHA}(q, kv)\n", False),  # the instance's call takes two positional arguments
    (LINEN + f"y = {MHA}(q, kv, mask=mask)\n", False),
    (LINEN + f"y = {MHA}(*args)\n", False),
    (LINEN + f"y = {MHA}(q, kv, **kw)\n", False),
    (LINEN + f"self.attention = {MHA}\n", False),  # built, called elsewhere: the rule reads one expression
    (LINEN + "y = nn.MultiHeadDotProductAttention(8, 1, 2, 3)\n", False),  # the constructor's arguments
    # a parenthesis after the constructor's call: the text does not tell ``f(MHA(...))`` from ``(MHA(...))(...)``
    (LINEN + f"y = wrap({MHA})\n", "text only"),
])
def test_an_instance_rows_gates_read_the_instances_call(source, kept):
    """A flax row about the call of an instance built in the same expression (``_row_of``): each gate reads the
    second parentheses, not the constructor's (25 files of code nobody tuned on build the attention module apart
    from its call, or call it with two arguments: both gates kept them all)."""
    from jaxlint.lint.ast_gate import collect_facts
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    rule = rule_by_code("JAX601")
    assert rule.may_match_text(TextFacts(source), Scan(source).words) is bool(kept)
    assert rule.may_match_ast(collect_facts(source)) is (kept is True)
    assert bool(found_with(source, pinned("flax", "0.7.0"))) is (kept is True)


LIBRARY_ROWS = [row for row in changes() if row.library != "jax"]


def test_the_flax_and_optax_rows_run_on_one_jax_on_both_sides():
    assert len(LIBRARY_ROWS) == 12
    for row in LIBRARY_ROWS:
        old, new = row.example_old_env, row.example_new_env
        assert old and new and f"{row.library}-{row.example_old_version}" in old
        assert f"{row.library}-{row.example_new_version}" in new
        assert old.rpartition("-jax-")[2] == new.rpartition("-jax-")[2]  # only the library differs


@pytest.mark.slow
@pytest.mark.parametrize("row", LIBRARY_ROWS, ids=lambda row: row.api)
def test_each_flax_and_optax_example_prints_what_it_recorded(row):
    """Runs the row's example in the two environments it names (built on first use, as the breakage data's are)."""
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from run_behaviour_examples import run_example
    finally:
        sys.path.remove(str(REPO / "tools"))
    from support.jaxenv import named_env

    old, new = named_env(row.example_old_env), named_env(row.example_new_env)
    assert (run_example(old, row.example), run_example(new, row.example)) == \
        (row.example_old_result, row.example_new_result)


# -- rows recognised by what an argument holds: jnp.sign of a complex value, solve of a batched vector -------------
SIGN = "import jax.numpy as jnp\n"
VALUE_CASES = [
    (SIGN + "print(jnp.sign(jnp.array(3 + 4j)))\n", "jax.numpy.sign"),  # tests/data/breakages/sign-complex
    (SIGN + "z = jnp.zeros(3, dtype=jnp.complex64)\nphase = jnp.sign(z)\n", "jax.numpy.sign"),
    (SIGN + "phase = jnp.sign(x.astype(complex))\n", "jax.numpy.sign"),
    (SIGN + "phase = jnp.sign(jnp.exp(1j * theta))\n", "jax.numpy.sign"),
    (SIGN + "phase = jnp.sign(jnp.fft.fft(x))\n", "jax.numpy.sign"),
    (SIGN + "import jax\nphase = jnp.sign(jax.lax.complex(x, y))\n", "jax.numpy.sign"),
    (SIGN + "phase = jnp.sign(jnp.array([1, 2j]))\n", "jax.numpy.sign"),
    (SIGN + "def f():\n    z = jnp.array(1j)\n    return jnp.sign(z)\n", "jax.numpy.sign"),
    (SIGN + "print(jnp.sign(jnp.array([-2.0, 0.0, 3.0])))\n", None),  # real
    (SIGN + "phase = jnp.sign(z)\n", None),  # not known
    (SIGN + "phase = jnp.sign(jnp.abs(jnp.array(3 + 4j)))\n", None),  # abs is real
    (SIGN + "phase = jnp.sign(jnp.array(3 + 4j).real)\n", None),
    (SIGN + "phase = jnp.sign(jnp.array(1j, dtype=jnp.float32))\n", None),  # the dtype says real
    (SIGN + "z = jnp.array(1j)\nz = w\nphase = jnp.sign(z)\n", None),  # bound twice, once unknown
    (SIGN + "def f(z=1j):\n    return jnp.sign(z)\n", None),  # a parameter
    (SIGN + "import numpy as np\nphase = np.sign(3 + 4j)\n", None),  # NumPy's own sign
    (SIGN + "z = jnp.array([1j, 2j])\nphase = jnp.sign(z[0])\n", "jax.numpy.sign"),  # an item of a complex array
    (SIGN + "pair = (1j, 2.0)\nphase = jnp.sign(pair[1])\n", None),  # an item of a tuple: its own number
    (SIGN + "a = jnp.stack([jnp.eye(3)] * 2)\nb = jnp.ones((2, 3))\nx = jnp.linalg.solve(a, b)\n",
     "jax.numpy.linalg.solve"),  # tests/data/breakages/solve-batched-vector
    (SIGN + "x = jnp.linalg.solve(jnp.ones((4, 2, 3, 3)), jnp.zeros((4, 2, 3)))\n", "jax.numpy.linalg.solve"),
    (SIGN + "import jax\nb = jax.random.normal(key, (5, 3))\nx = jnp.linalg.solve(a=jnp.ones((5, 3, 3)), b=b)\n",
     "jax.numpy.linalg.solve"),
    (SIGN + "x = jnp.linalg.solve(jnp.eye(3), jnp.ones(3))\n", None),  # a 1-D b: the same on both sides
    (SIGN + "x = jnp.linalg.solve(jnp.eye(3), jnp.ones((3, 2)))\n", None),  # b of a's ndim: a matrix
    (SIGN + "a = jnp.stack([jnp.eye(3)] * 2)\nb = jnp.ones((2, 3))\nx = jnp.linalg.solve(a, b[..., None])\n", None),
    (SIGN + "x = jnp.linalg.solve(a, b)\n", None),  # shapes not known
    (SIGN + "x = jnp.linalg.solve(jnp.ones((2, 3, 3)), b.reshape(2, 3, 1))\n", None),
]


@pytest.mark.parametrize("source, reported", VALUE_CASES)
def test_each_value_pattern_on_both_paths(source, reported):
    """The ``ast`` path and the libcst path (``prefilter=False``: no gate, no ``ast`` decision) agree."""
    settings = replace(Settings(select=("JAX601",)), explicit_min_version=Version("0.4.20"),
                       min_version_source="test")
    for prefilter in (True, False):
        messages = [d.message for d in lint_source(source, "a.py", settings, prefilter=prefilter).diagnostics]
        assert [m.split("`")[1] for m in messages] == ([reported] if reported else []), prefilter


def test_a_value_row_follows_the_range():
    source = SIGN + "a = jnp.stack([jnp.eye(3)] * 2)\nb = jnp.ones((2, 3))\nx = jnp.linalg.solve(a, b)\n"
    assert found(source, "0.4.30") and not found(source, "0.5.0")
    assert found(SIGN + "jnp.sign(1j)\n", "0.4.20") and not found(SIGN + "jnp.sign(1j)\n", "0.4.24")


def test_the_same_call_text_with_different_values_is_not_reported():
    source = SIGN + ("def f():\n    b = jnp.ones((2, 3))\n    return jnp.linalg.solve(a, b)\n"
                     "def g():\n    b = jnp.ones(3)\n    return jnp.linalg.solve(a, b)\n"
                     "a = jnp.stack([jnp.eye(3)] * 2)\n")
    assert not found(source, "0.4.30")


def test_a_value_row_is_decided_on_the_whole_file_when_libcst_sees_a_cut():
    """A file that goes to libcst (JAX101's index-update rewrite is decided there) is cut to the statements that can
    hold a finding (``lint.focus``): the assignment of ``b`` is not among them, and the answer stays the same."""
    from jaxlint.lint import focus

    source = SIGN + "import jax\na = jnp.stack([jnp.eye(3)] * 2)\n" + \
        "".join(f"c{i} = {i}\n" for i in range(60)) + "b = jnp.ones((2, 3))\nx = jnp.linalg.solve(a, b)\n" + \
        "y = jax.ops.index_update(x, 0, 1.0)\n"
    settings = replace(Settings(select=("JAX601", "JAX101")), explicit_min_version=Version("0.4.30"),
                       min_version_source="test")
    plans = []
    original = focus.plan

    def recorded(*args, **kwargs):
        plans.append(original(*args, **kwargs))
        return plans[-1]

    focus.plan = recorded
    try:
        codes = [d.code for d in lint_source(source, "a.py", settings).diagnostics]
    finally:
        focus.plan = original
    assert plans and plans[0] is not None, "the file was cut"
    assert sorted(codes) == ["JAX101", "JAX601"]


def test_the_value_rows_stay_on_the_by_hand_list():
    """The uses whose dtype or shape is not known are still counted by hand in the upgrade report."""
    rows = {row.api: row for row in by_hand()}
    assert rows["jax.numpy.sign"].match == "complex-argument" and rows["jax.numpy.sign"].also_by_hand
    assert rows["jax.numpy.linalg.solve"].match == "batched-vector"


# A first argument read from the text (``CallText.first``) that ``ast`` reads as a literal (``Constant``,
# ``UnaryOp``) is never ruled out by the text gate of a row about numbers (``_may_be_a_literal``); the others are
# what it rules out.
_FIRST_ARGUMENTS = ["1", "-1", "+ 2", "~x", "not x", "not(x)", "(1)", "((-1))", "1.5e3", "0x1F", ".5", "3j", "None",
                    "True", "False", "...", "'s'", "b's'", "rb'x'", "u'x'", "f'{x}'", "x", "x.y", "x[0]", "f(x)",
                    "f(-1)", "x - 1", "_x", "notes", "None_x", "lambda: 1", "x if c else 1", "Truex", "await_x",
                    "x  # c\n", "(\n  -x\n)", "naïve"]


@pytest.mark.parametrize("argument", _FIRST_ARGUMENTS)
def test_a_literal_first_argument_is_never_ruled_out(argument):
    from jaxlint.lint import code_map
    from jaxlint.lint.text_gate import read_call
    from jaxlint.rules.jax601_behaviour_change import _may_be_a_literal

    source = f"jnp.nonzero({argument})\n"
    node = ast.parse(source).body[0].value.args[0]
    call = read_call(source, len("jnp.nonzero"), code_map.scan(source), len("jnp."))
    assert call is not None and call.positional == 1
    literal = type(node) in (ast.Constant, ast.UnaryOp)
    if literal:
        assert _may_be_a_literal(call.first), call.first
    elif argument in ("x", "x.y", "x[0]", "f(x)", "f(-1)", "x - 1", "_x", "lambda: 1", "x if c else 1"):
        assert not _may_be_a_literal(call.first), call.first


def test_a_range_that_crosses_no_row_does_not_run_the_rule_at_all():
    """``may_report_under``: every report needs its row's release in the range (``crossed``), so where none is (no
    pins: min = target; a min at or above every row) the engine leaves the rule out of every file's rules, while it
    stays enabled (JAX001 still reads a ``# noqa: JAX601`` as unused there)."""
    from jaxlint.lint.engine import rules_for
    from jaxlint.rules import enabled_rules

    rule = rule_by_code("JAX601")
    no_pins = Settings(select=("JAX601",))
    above_every_row = replace(no_pins, explicit_min_version=no_pins.target_version, min_version_source="test")
    crossing = replace(no_pins, explicit_min_version=Version("0.4.20"), min_version_source="test")
    for settings in (no_pins, above_every_row):
        assert not any(crossed(row, settings) for row in ROWS.values())
        assert rule in enabled_rules(settings, ())
        assert rule not in rules_for(settings, "module.py")
    assert rule in rules_for(crossing, "module.py")
    source = "import jax.numpy as jnp\nx = jnp.einsum('ij,jk,kl->il', a, b, c)\n"
    assert [d.code for d in lint_source(source, "module.py", crossing).diagnostics] == ["JAX601"]
    assert not lint_source(source, "module.py", no_pins).diagnostics
    # still enabled: a ``# noqa: JAX601`` that suppresses nothing is reported by JAX001 as before
    from jaxlint.run.noqa_add import unused_noqa

    with_noqa = Settings(select=("JAX601", "JAX001"))
    assert [d.code for d in unused_noqa(source.replace("c)\n", "c)  # noqa: JAX601\n"), "module.py", with_noqa)] \
        == ["JAX001"]
