"""JAX201 (tuple-returning ``meshgrid``/``broadcast_arrays``) in a file with a ``lax.scan``/``fori_loop``/
``while_loop``, decided from ``ast`` (issue 38): the libcst visit reports a call as a carry only where ``_check_loop``
looks (returned by the body, a lambda's body, an element of a tuple or list, an argument of the loop) or through a
name it is bound to (``_candidates_behind``); a call anywhere else (``list(jnp.meshgrid(...))``, unpacked, indexed)
is decided without libcst. Each case is linted through the libcst visit and through ``ast_findings.decide``: where
``decide`` answers, the diagnostics must be equal field by field. See ``tests/test_ast_findings.py``.

Each ``DECIDED`` case has a ``CARRIED`` twin, the same loop with the call moved to where the carry may hold it: that
one is a finding of the libcst visit and must go to libcst (so the decided loops are loops that would report).
"""
from __future__ import annotations

import ast
from dataclasses import asdict

import pytest

from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.rules import rule_by_code
from test_ast_findings import ast_decided, libcst_findings

JAX201 = rule_by_code("JAX201")

_JAX = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n"
# A scan whose initial value is a list: a tuple returned as (part of) the carry is a finding.
_SCAN_BODY = "def body(c, x):\n    return {carry}, x\n"
_LIST_INIT = "out = lax.scan(body, [x, y], xs)\n"

# name -> (decided source, carried twin); reduced from keras/src/backend/jax/nn.py (``list(jnp.meshgrid(...))``
# beside two ``lax.scan`` calls).
PAIRS = {
    "wrapped in list(...), bound to a name": (
        _JAX + "def body(c, x):\n    g = list(jnp.meshgrid(*c, indexing='ij'))\n    return g, x\n" + _LIST_INIT,
        _JAX + "def body(c, x):\n    g = jnp.meshgrid(*c, indexing='ij')\n    return g, x\n" + _LIST_INIT),
    "wrapped in list(...), returned": (
        _JAX + _SCAN_BODY.format(carry="list(jnp.meshgrid(*c))") + _LIST_INIT,
        _JAX + _SCAN_BODY.format(carry="jnp.meshgrid(*c)") + _LIST_INIT),
    "unpacked to names": (
        _JAX + "def body(c, x):\n    u, v = jnp.meshgrid(*c)\n    return [u, v], x\n" + _LIST_INIT,
        _JAX + "def body(c, x):\n    uv = jnp.meshgrid(*c)\n    return uv, x\n" + _LIST_INIT),
    "indexed": (
        _JAX + _SCAN_BODY.format(carry="[jnp.meshgrid(*c)[0], y]") + _LIST_INIT,
        _JAX + _SCAN_BODY.format(carry="[jnp.meshgrid(*c), y]")
        + "out = lax.scan(body, [[x, y], y], xs)\n"),
    "an attribute of the result": (
        _JAX + _SCAN_BODY.format(carry="jnp.broadcast_arrays(*c).count(x)") + _LIST_INIT,
        _JAX + _SCAN_BODY.format(carry="jnp.broadcast_arrays(*c)") + _LIST_INIT),
    "passed to another call by keyword": (
        _JAX + _SCAN_BODY.format(carry="f(a=jnp.meshgrid(*c))") + _LIST_INIT,
        _JAX + "out = lax.scan(body, init=jnp.meshgrid(x, y), xs=xs)\ndef body(c, x):\n    return [*c], x\n"),
    "the initial value wrapped": (
        _JAX + "def body(c, x):\n    return [*c], x\nout = jax.lax.scan(body, list(jnp.meshgrid(x, y)), xs)\n",
        _JAX + "def body(c, x):\n    return [*c], x\nout = jax.lax.scan(body, jnp.meshgrid(x, y), xs)\n"),
    "a fori_loop lambda, wrapped": (
        _JAX + "out = lax.fori_loop(0, 3, lambda i, c: list(jnp.meshgrid(*c)), [x, y])\n",
        _JAX + "out = lax.fori_loop(0, 3, lambda i, c: jnp.meshgrid(*c), [x, y])\n"),
    "a while_loop, wrapped in a tuple unpacking": (
        _JAX + "def body(c):\n    a, b = jnp.meshgrid(*c)\n    return [a, b]\n"
        "out = jax.lax.while_loop(cond, body, init_val=[x, y])\n",
        _JAX + "def body(c):\n    g = (a, b) = jnp.meshgrid(*c)\n    return g\n"
        "out = jax.lax.while_loop(cond, body, init_val=[x, y])\n"),
    "annotated, wrapped": (
        _JAX + "def body(c, x):\n    g: list = list(jnp.meshgrid(*c))\n    return g, x\n" + _LIST_INIT,
        _JAX + "def body(c, x):\n    g: list = jnp.meshgrid(*c)\n    return g, x\n" + _LIST_INIT),
    "a part of the carry, through names": (
        _JAX + "def step(carry, x):\n    (u, v), n = carry\n    uv = list(jnp.meshgrid(u, v))\n"
        "    return (uv, n + 1), x\ninit = ([a, b], 0)\nout = lax.scan(step, init, xs)\n",
        _JAX + "def step(carry, x):\n    (u, v), n = carry\n    uv = jnp.meshgrid(u, v)\n"
        "    return (uv, n + 1), x\ninit = ([a, b], 0)\nout = lax.scan(step, init, xs)\n"),
}
DECIDED = {name: decided for name, (decided, _) in PAIRS.items()}
CARRIED = {name: carried for name, (_, carried) in PAIRS.items()}
# Shapes beside a loop that the fast path answers, with no twin.
DECIDED.update({
    "an unpacked call and a loop": _JAX + "x, y = jnp.meshgrid(x, y)\nc, ys = jax.lax.scan(body, init, xs)\n",
    "a walrus, wrapped": _JAX + "def body(c, x):\n    if (g := list(jnp.meshgrid(*c))):\n        return g, x\n"
                         + _LIST_INIT,
    "the keras shape": _JAX + "def f(indices):\n    indices = list(jnp.meshgrid(*indices, indexing='ij'))\n"
                       "    return x[tuple(indices)]\n"
                       "_, (a, b) = jax.lax.scan(step, (u, v), xs=(p, q))\n"
                       "(paths, scores, masked), _ = lax.scan(step2, (p, s, m), jnp.arange(n))\n",
})


@pytest.mark.parametrize("source", list(DECIDED.values()), ids=list(DECIDED))
def test_decided_from_ast_exactly_as_libcst(source):
    decided = ast_decided(source, [JAX201])
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, [JAX201])


@pytest.mark.parametrize("source", list(CARRIED.values()), ids=list(CARRIED))
def test_carried_twins_go_to_libcst(source):
    assert libcst_findings(source, [JAX201]), "the twin is a carry finding of the libcst visit"
    assert ast_decided(source, [JAX201]) is None


@pytest.mark.parametrize("source", list(CARRIED.values()), ids=list(CARRIED))
def test_carried_twins_are_undecided_for_the_carry(source):
    """The twins differ from the decided cases only in where the call stands: the carry is what leaves them to
    libcst (not another use of the result)."""
    with pytest.raises(Undecidable, match="a loop: its carry may hold such a result"):
        JAX201.findings_from_ast(AstView(source, ast.parse(source)))


def test_check_does_not_parse_with_libcst(monkeypatch):
    """``check`` answers the keras shape from ``ast``: libcst's ``parse_module`` is never called."""
    import libcst

    source = DECIDED["the keras shape"]
    expected = libcst_findings(source, [JAX201])

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    monkeypatch.setattr(libcst, "parse_module", no_libcst)
    result = lint_source(source, "t.py", Settings(), rules=[JAX201])
    assert [asdict(diagnostic) for diagnostic in result.diagnostics] == expected
