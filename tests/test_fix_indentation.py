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
    # the catalogue's call rewrites paste an argument (``rewrites.cst_arguments``, ``_pasted``): jaxline's
    # ``device_put_sharded`` in a 2-space function (the ``ast`` path and libcst disagreed on the fourth corpus)
    "JAX101 device_put_sharded, 2-space": ("def f(leaves, devices, n):\n  return jax.device_put_sharded(\n"
                                           "      [g(\n          leaves, i) for i in range(n)],\n      devices)\n",
                                           "def f(leaves, devices, n):\n  return jax.device_put(jax.numpy.stack([g(\n"
                                           "          leaves, i) for i in range(n)]), jax.sharding.NamedSharding("
                                           "jax.sharding.Mesh(devices, (\"x\",)), jax.sharding.PartitionSpec(\"x\")))\n"),
    "JAX101 index_update, 2-space": ("def f(x, y):\n  return jax.ops.index_update(x, jax.ops.index[0], g(\n      y))\n",
                                     "def f(x, y):\n  return x.at[0].set(g(\n      y))\n"),
    "JAX101 tie_in, 2-space": ("def f(x, y):\n  return jax.lax.tie_in(x, g(\n      y))\n",
                               "def f(x, y):\n  return g(\n      y)\n"),
}


@pytest.mark.parametrize("name", CASES)
def test_a_fix_keeps_the_indentation_of_a_continuation_line(name):
    source, fixed = CASES[name]
    outcome = fix_source(HEAD + source, "x.py", Settings(), unsafe=True)
    assert outcome.source == HEAD + fixed
    # a second --fix changes nothing
    assert fix_source(outcome.source, "x.py", Settings(), unsafe=True).source == outcome.source


@pytest.mark.parametrize("name", CASES)
def test_libcst_writes_the_same_fix(name, monkeypatch):
    """The same, with every file's findings from the libcst visit (where ``ast`` cannot decide a fix)."""
    monkeypatch.setattr("jaxlint.lint.ast_findings.decide", lambda *args, **kwargs: None)
    source, fixed = CASES[name]
    assert fix_source(HEAD + source, "x.py", Settings(), unsafe=True).source == HEAD + fixed
