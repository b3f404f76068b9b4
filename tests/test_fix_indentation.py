"""A fix whose text holds a node of the user's code that spans lines keeps the indentation of its continuation lines
(``Rule.code_in_place``): ``Module.code_for_node`` renders a node at column 0, and a fix built from it moved
``model.init(\\n        rng, x)`` to ``model.init(\\n    rng, x)`` inside a function (stop 52, found where the ``ast``
path and libcst disagreed on scenic's nested 2-space functions)."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.project.settings import Settings

HEAD = "import flax\nimport jax\nimport optax\nfrom flax import nnx\n\n\n"
CASES = {
    "JAX503, 2-space nested": ("def g():\n  def f(model, rng, x):\n    s, p = model.init(\n        rng, x).pop('params')\n"
                               "    return p\n",
                               "def g():\n  def f(model, rng, x):\n    s, p = flax.core.pop(model.init(\n"
                               "        rng, x), 'params')\n    return p\n"),
    "JAX504, 2-space nested": ("def g():\n  def f(model, rng, x):\n    v = model.init(\n        rng, x).unfreeze()\n"
                               "    return v\n",
                               "def g():\n  def f(model, rng, x):\n    v = flax.core.unfreeze(model.init(\n"
                               "        rng, x))\n    return v\n"),
    "JAX505, 2-space nested": ("def g():\n  def f(model):\n    opt = nnx.Optimizer(model, optax.adam(\n"
                               "        1e-3))\n    return opt\n",
                               "def g():\n  def f(model):\n    opt = nnx.Optimizer(model, optax.adam(\n"
                               "        1e-3), wrt=nnx.Param)\n    return opt\n"),
    "JAX505, 4-space, in an if": ("def f(model):\n    if model:\n        opt = nnx.Optimizer(model, optax.adam(\n"
                                  "                1e-3))\n        return opt\n",
                                  "def f(model):\n    if model:\n        opt = nnx.Optimizer(model, optax.adam(\n"
                                  "                1e-3), wrt=nnx.Param)\n        return opt\n"),
    # JAX504's fix needs libcst here, which then writes JAX505's too (alone, JAX505's is decided from ``ast``)
    "JAX504 and JAX505 in one function": ("def g():\n  def f(model, rng, x):\n    v = model.init(\n        rng, x)"
                                          ".unfreeze()\n    opt = nnx.Optimizer(model, optax.adam(\n        1e-3))\n"
                                          "    return v, opt\n",
                                          "def g():\n  def f(model, rng, x):\n    v = flax.core.unfreeze(model.init(\n"
                                          "        rng, x))\n    opt = nnx.Optimizer(model, optax.adam(\n"
                                          "        1e-3), wrt=nnx.Param)\n    return v, opt\n"),
    "JAX401, 2-space nested": ("def f(d):\n  if d:\n    with jax.sharding.Mesh(\n            d, ('x',)):\n      pass\n",
                               "def f(d):\n  if d:\n    with jax.set_mesh(jax.sharding.Mesh(\n            d, ('x',))):\n"
                               "      pass\n"),
}


@pytest.mark.parametrize("name", CASES)
def test_a_fix_keeps_the_indentation_of_a_continuation_line(name):
    source, fixed = CASES[name]
    outcome = fix_source(HEAD + source, "x.py", Settings(), unsafe=True)
    assert outcome.source == HEAD + fixed
    # a second --fix changes nothing
    assert fix_source(outcome.source, "x.py", Settings(), unsafe=True).source == outcome.source
