"""JAX105 changed-method-signature: the signature rows of every jax wheel (``rules/signatures_generated.toml``) for
method calls on receivers whose class is plain to see, constructor calls and (rows JAX103 lacks) function calls."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxlint.catalogue.signatures import SignatureRow, class_rows, function_rows
from jaxlint.analysis.signature_calls import omits
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.lint.inference import ValueInference
from jaxlint.lint.names import NameResolver
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
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
