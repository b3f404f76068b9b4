"""``flax_values.pop_may_be_unpacked``: JAX503's and JAX508's text gates keep a ``.pop("key")`` only where it may be
the whole value of an assignment (JAX503: ``a, b = v.pop("k")``) or, for JAX508, subscripted; each case is checked
against the rule's ast gate, which reads the same on the tree."""
from __future__ import annotations

import pytest

from jaxlint.analysis.flax_values import pop_may_be_unpacked
from jaxlint.lint.ast_gate import collect_facts
from jaxlint.lint.prefilter import Scan
from jaxlint.lint.text_gate import TextFacts
from jaxlint.rules import rule_by_code

HEAD = "import flax\nv = model.init(r, x)\n"
UNPACKED = [
    "a, b = v.pop('params')\n",
    "(a, b) = v.pop('params')\n",
    "[a, b] = v.pop('params')\n",
    "a, b = (v.pop('params'))\n",
    "a, b = \\\n    v.pop('params')\n",
    "a, b = (\n    v.pop('params'))\n",
    "a, b = v['x'].pop('params')\n",
    "a, b = v.pop(  # why\n    'params')\n",
]
NOT_UNPACKED = [
    "rngs.pop('params')\n",
    "x = v.pop('params')\n",
    "self.x = v.pop('params')\n",
    "def f():\n    return v.pop('params')\n",
    "f(a, v.pop('params'))\n",
    "if v.pop('params') == 1:\n    pass\n",
    "x; v.pop('params')\n",
    "d = {'a': v.pop('params')}\n",
    "'''a, b = v.pop('params')'''\n",  # a docstring's example
]


@pytest.mark.parametrize("tail, kept", [(tail, True) for tail in UNPACKED] + [(tail, False) for tail in NOT_UNPACKED])
def test_jax503_keeps_a_pop_that_may_be_unpacked(tail, kept):
    source = HEAD + tail
    facts = TextFacts(source)
    assert facts.may_call_method("pop", pop_may_be_unpacked(facts)) is kept
    jax503 = rule_by_code("JAX503")
    assert jax503.may_match_text(facts, Scan(source).words) is kept
    # the text gate keeps at least what the ast gate keeps (here: the same)
    assert jax503.may_match_ast(collect_facts(source)) is kept


@pytest.mark.parametrize("tail, kept", [
    ("k = v.pop('params')[0]\n", True),
    ("k = v.pop('params') [1]\n", True),
    ("k = (v.pop('params')\n     [1])\n", True),
    ("a, b = v.pop('params')\n", True),
    ("k = v.pop('params')\n", False),
    ("f(v.pop('params'))\n", False),
])
def test_jax508_also_keeps_a_subscripted_pop(tail, kept):
    source = HEAD + tail
    facts = TextFacts(source)
    assert facts.may_call_method("pop", pop_may_be_unpacked(facts, or_subscripted=True)) is kept


def test_strings_that_cannot_be_read_leave_every_pop_kept():
    source = HEAD + "x = '''\nrngs.pop('params')\n"  # an unterminated string: no masked code
    facts = TextFacts(source)
    assert facts.masked_code() is None
    assert facts.may_call_method("pop", pop_may_be_unpacked(facts))
