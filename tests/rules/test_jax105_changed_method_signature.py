"""JAX105 changed-method-signature: the signature rows of every jax wheel (``rules/signatures_generated.toml``) for
method calls on receivers whose class is plain to see, constructor calls and (rows JAX103 lacks) function calls."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxlint.catalogue.signatures import SignatureRow, class_rows, function_rows
from jaxlint.analysis.signature_calls import omits
from jaxlint.lint.ast_gate import collect_facts
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.lint.inference import ValueInference
from jaxlint.lint.names import NameResolver
from jaxlint.lint.prefilter import Scan
from jaxlint.lint.text_gate import TextFacts
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.base import Rule
from jaxlint.rules.jax105_changed_method_signature import ChangedMethodSignature


def class_of_last(source: str):
    module = cst.parse_module(textwrap.dedent(source))
    receivers = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node):
            if isinstance(node.func, cst.Attribute):
                receivers.append(node.func.value)

    module.visit(Calls())
    found = ValueInference(module, NameResolver(module)).classes.instance_class(receivers[-1])
    return found.name.value if isinstance(found, cst.ClassDef) else found


# -- the receivers the inference learned --------------------------------------------------------------------------
@pytest.mark.parametrize("source,expected", [
    ("import jax\nw = jax.jit(f)\nw.go()", "jax.stages.Wrapped"),
    ("import jax\n@jax.jit\ndef f(x):\n    return x\nf.go()", "jax.stages.Wrapped"),
    ("import jax\nlowered = jax.jit(f).lower(x)\nlowered.go()", "jax.stages.Lowered"),
    ("import jax\nc = jax.jit(f).lower(x).compile()\nc.go()", "jax.stages.Compiled"),
    ("import jax\nt = jax.jit(f).trace(x)\nl = t.lower()\nl.go()", "jax.stages.Lowered"),
    ("from jax import export\nexp = export.export(jax.jit(f))(x)\nexp.go()", "jax.export.Exported"),
    ("import jax\nexp = jax.export.deserialize(blob)\nexp.go()", "jax.export.Exported"),
    ("import jax\nmesh = jax.make_mesh((2,), ('x',))\nmesh.go()", "jax.sharding.Mesh"),
    ("from jax.sharding import Mesh\nmesh = Mesh(devices, ('x',))\nmesh.go()", "jax.sharding.Mesh"),
    # not plain to see: strict, the rule stays silent
    ("import jax\n@jax.jit\n@other\ndef f(x):\n    return x\nf.go()", None),
    ("import jax\ndef f(lowered):\n    lowered.compile().go()", None),
    ("import jax\nw = jax.jit(f)\nw = other\nw.lower(x).go()", None),
    ("import jax\nexp = jax.export.export(f)\nexp.go()", None),  # the function export returns, not an Exported
    ("import penzai\nx = thing.at(1)\nx.go()", None),  # ``.at`` on an unknown receiver
])
def test_instance_class(source, expected):
    assert class_of_last(source) == expected


# -- what a call passes or omits ------------------------------------------------------------------------------------
def call(text: str) -> cst.Call:
    return cst.parse_expression(text)


@pytest.mark.parametrize("text,position,expected", [
    ("f(a)", 1, True),
    ("f(a, b)", 1, False),
    ("f(a, debug_info=True)", 1, False),
    ("f(*args)", 1, False),
    ("f(**kw)", 1, False),
    ("f(a, b, c)", -1, True),  # keyword-only: positional arguments never pass it
])
def test_omits(text, position, expected):
    row = SignatureRow("jax.X", "default-changed", "0.5.0", "0.4.38", member="m", parameter="debug_info",
                       position=position)
    assert omits(call(text), row) is expected


def test_every_class_is_found_under_its_old_names_too():
    rows = class_rows()
    assert rows and function_rows()
    assert all(row.owner in rows for members in rows.values() for member_rows in members.values()
               for row in member_rows)


# -- findings -------------------------------------------------------------------------------------------------------
def lint(source: str, min_version: str | None = None, target: str = "0.12.0.1") -> list[str]:
    settings = Settings(select=("JAX105",), target_version=Version(target),
                        explicit_min_version=Version(min_version) if min_version else None,
                        min_version_source="test")
    result = lint_source(textwrap.dedent(source), "a.py", settings)
    return [d.message for d in result.diagnostics if d.code == "JAX105"]


def test_a_removed_method_on_a_compiled_stage():
    assert lint("""
        import jax
        compiled = jax.jit(f).lower(x).compile()
        compiled.compiler_ir()
    """) == ["`compiled.compiler_ir(...)` (`jax.stages.Compiled.compiler_ir`): the method was removed in JAX 0.4.14 "
             "(`AttributeError` from there; last in 0.4.13)."]


def test_a_decorated_function_lowered_then_compiled():
    assert len(lint("""
        import jax
        @jax.jit
        def step(x):
            return x
        step.lower(1).compile().compiler_ir("hlo")
    """)) == 1


def test_the_target_below_the_change_is_silent():
    assert lint("import jax\nc = jax.jit(f).lower(x).compile()\nc.compiler_ir()\n", target="0.4.13") == []


def test_a_class_under_an_old_public_name():
    """``jax.experimental.pjit.NamedSharding`` and ``jax.sharding.MeshPspecSharding`` share ``jax.NamedSharding``'s
    rows: the class is found under every public name a release gave it."""
    for spelled in ("from jax.experimental.pjit import NamedSharding as S",
                    "from jax.sharding import MeshPspecSharding as S", "from jax.sharding import NamedSharding as S"):
        (message,) = lint(f"{spelled}\ns = S(mesh, spec)\ns.is_compatible_aval(shape)\n")
        assert "the method was removed in JAX 0.4.29" in message


def test_a_constructor_keyword_removed():
    assert lint("import jax\nspec = jax.ShapeDtypeStruct((8,), dtype, named_shape={'b': 8})\n") == [
        "`jax.ShapeDtypeStruct(named_shape=...)`: the keyword was removed in JAX 0.4.34 (`TypeError` from there); "
        "no replacement keyword is known."]


def test_a_non_plain_successor_is_named_without_a_fix():
    """``BlockSpec(indexing_mode=)``: 0.7.1 dropped it; ``pipeline_mode=`` was there before, and means other things."""
    (message,) = lint("from jax.experimental import pallas as pl\nb = pl.BlockSpec((8,), f, indexing_mode=m)\n")
    assert "`pipeline_mode=` in its place, which is no plain rename" in message


def test_renamed_keyword_fixed_at_the_min_version_and_withheld_below():
    source = "from jax.experimental.layout import Format\nfmt = Format(device_local_layout=d)\n"
    settings = Settings(select=("JAX105",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.7.0"), min_version_source="test")
    fixed = fix_source(source, "a.py", settings).source
    assert fixed == "from jax.experimental.layout import Format\nfmt = Format(layout=d)\n"
    assert fix_source(fixed, "a.py", settings).source == fixed  # idempotent
    low = Settings(select=("JAX105",), target_version=Version("0.12.0.1"),
                   explicit_min_version=Version("0.6.2"), min_version_source="test")
    assert fix_source(source, "a.py", low).source == source


def test_the_fix_keeps_comments_and_line_endings():
    source = "from jax.experimental.layout import Format\r\nfmt = Format(  # why\r\n    device_local_layout=d,\r\n)\r\n"
    settings = Settings(select=("JAX105",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.7.0"), min_version_source="test")
    assert fix_source(source, "a.py", settings).source == source.replace("device_local_layout", "layout")


@pytest.mark.parametrize("min_version,count", [("0.8.0", 1), ("0.8.1", 0), (None, 0)])
def test_a_default_change_only_where_the_range_crosses_it(min_version, count):
    source = "from jax.experimental.pallas import tpu as pltpu\np = pltpu.CompilerParams()\n"
    assert len(lint(source, min_version)) == count


def test_a_default_passed_explicitly_is_silent():
    source = "from jax.experimental.pallas import tpu as pltpu\np = pltpu.CompilerParams(shape_invariant_numerics=True)\n"
    assert lint(source, "0.8.0") == []


@pytest.mark.parametrize("source", [
    "import jax\ndef f(lowered):\n    return lowered.compile().compiler_ir()\n",  # unknown receiver
    "import jax\nclass Compiled:\n    def compiler_ir(self):\n        pass\nc = Compiled()\nc.compiler_ir()\n",
    "import jax\nc = jax.jit(f).lower(x).compile()\nc = other()\nc.compiler_ir()\n",  # reassigned
    "import jax\nimport penzai\nx = thing.at(1)\ny = x.at[0].set(1)\n",  # penzai's ``.at``: no jax.Array row
    "import jax\nspec = jax.ShapeDtypeStruct((8,), dtype, **extra)\n",
])
def test_silent(source):
    assert lint(source) == []


def test_array_members_attached_at_import_have_no_rows():
    """``at`` left ``Array``'s class body in 0.4.21 but array_methods.py still sets it: no member-removed row."""
    assert "at" not in class_rows().get("jax.Array", {})


# -- the text gate ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    # a flax ``Module`` refers to a class with rows, but calls no method or constructor that has any
    "import flax.linen as nn\nclass M(nn.Module):\n    def __call__(self, x):\n        return x * 2\n",
    # ``as_text`` has no row; ``compiler_ir`` (which has one) is not spelled
    "import jax\ndef hlo(f, x):\n    return jax.jit(f).lower(x).compile().as_text()\n",
    # ``compiler_ir`` spelled, but no owner of it (``jax.jit``, ``jax.stages.*``) is referred to
    "import flax.linen as nn\nclass M(nn.Module):\n    def hlo(self, compiled):\n        return compiled.compiler_ir()\n",
    # a callee whose rows are all keyword rows, called without those keywords (one spelled in another call)
    "import jax\nx = jax.ShapeDtypeStruct((2,), jnp.float32, sharding=s)\n",
    "import jax\nx = jax.ShapeDtypeStruct((2,), jnp.float32)\ny = f(named_shape=1)\n",
    # a callee whose row is a parameter newly required: every call passes it (by position or by name)
    "import jax\ny = jax.lax.with_sharding_constraint(x, spec)\nz = jax.lax.with_sharding_constraint(x, shardings=s)\n",
    "import jax\ny = jax.lax.with_sharding_constraint(x, **kw)\n",  # ``**kwargs``: never reported (``omits``)
    # a method whose only rows are a default changed (flax 0.8.2's ``make_rng(name=...)``): every call passes it
    "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return cell.make_rng('dropout')\n",
    "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return cell.make_rng(name='dropout')\n",
    "from flax import linen as nn\ndef f(cell: nn.GRUCell, kw):\n    return cell.make_rng(**kw)\n",
    "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    g = cell.make_rng\n    return g\n",  # no call
    # a removed method's name called on a chain whose root nothing but an import binds: a module's function
    "import jax\ny = jax.eval_shape(f, x)\nz = jax.jit(f)\n",
    "import haiku as hk\nimport jax\ny = hk.eval_shape(f, x)\nz = jax.jit(f)(x)  # hk.eval_shape = 1\n",
])
def test_text_gate_rules_out_files_the_ast_gate_rules_out(source):
    rule = ChangedMethodSignature
    facts, words = TextFacts(source), Scan(source).words
    assert Rule.may_match_text.__func__(rule, facts, words), "the base gate keeps it: the case tests the rule's gate"
    assert not rule.may_match_text(facts, words)
    assert not rule.may_match_ast(collect_facts(source))


@pytest.mark.parametrize("source", [
    "import jax\ndef hlo(f, x):\n    return jax.jit(f).lower(x).compile().compiler_ir()\n",
    # the method spelled across a line break and a comment; the receiver's producer imported under another name
    "from jax import jit as j\ndef hlo(f, x):\n    return (j(f).lower(x).compile()  # c\n            .compiler_ir)()\n",
    "from jax.experimental.layout import Format\nfmt = Format(device_local_layout=dll)\n",
    "import jax\nmesh = jax.sharding.AbstractMesh.__init__(m, shape_tuple=(('x', 2),))\n",
    "import jax\nx = jax.ShapeDtypeStruct((2,), jnp.float32,\n    # why\n    named_shape={})\n",
    "from jax import ShapeDtypeStruct as S\nx = S((2,), jnp.float32, named_shape={})\n",
    "import jax\ny = jax.lax.with_sharding_constraint(\n    x,  # the value\n)\n",
    "from jax.lax import with_sharding_constraint as wsc\ny = wsc(x)\n",
    "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return cell.make_rng()\n",
    # the root is bound otherwise too: the inference may give it the class
    "import jax\nt = jax.jit(f).trace(x)\nt.eval_shape()\n",
    "import jax\njax = jax.jit(f).trace(x)\njax.eval_shape()\n",
    "import jax\ndef g(f, jax):\n    return jax.eval_shape(), jax.jit(f)\n",
    "import jax; jax = jax.jit(f).trace(x)\njax.eval_shape()\n",
    "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return cell.make_rng(  # which\n    )\n",
    "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return (cell\n            .make_rng)()\n",
    "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return (cell.clone()\n            .make_rng)()\n",
    # a call the text cannot count for sure (a ``lambda``'s commas): kept
    "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return cell.make_rng(rngs=lambda a, b: 0)\n",
])
def test_text_gate_keeps_what_the_ast_gate_keeps(source):
    assert ChangedMethodSignature.may_match_ast(collect_facts(source))
    assert ChangedMethodSignature.may_match_text(TextFacts(source), Scan(source).words)
