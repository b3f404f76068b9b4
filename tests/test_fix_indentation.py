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
                                           "jax.sharding.Mesh(devices, (\"x\",)), "
                                           "jax.sharding.PartitionSpec(\"x\")))\n"),
    "JAX101 index_update, 2-space": ("def f(x, y):\n  return jax.ops.index_update(x, jax.ops.index[0], g(\n      y))\n",
                                     "def f(x, y):\n  return x.at[0].set(g(\n      y))\n"),
    "JAX101 tie_in, 2-space": ("def f(x, y):\n  return jax.lax.tie_in(x, g(\n      y))\n",
                               "def f(x, y):\n  return g(\n      y)\n"),
    # what a fix writes of a multi-line statement that it changes: a dict's entries, a keyword added on its own line,
    # the names an import keeps (``code_in_place`` with the statement's ancestors; ``Rule.block_indent``)
    "JAX102 a dict's entry dropped, in a function": ("def f(g):\n    return jax.jit(\n        g,\n"
                                                     "        compiler_options={\n            'a': False,\n"
                                                     "            'memory_fitting_effort': 0.0,\n        },\n    )\n",
                                                     "def f(g):\n    return jax.jit(\n        g,\n"
                                                     "        compiler_options={\n            'a': False,\n"
                                                     "        },\n    )\n"),
    "JAX202 a keyword on its own line, in a function": ("def f(x, i):\n  return jax.numpy.take_along_axis(\n"
                                                        "      x,\n      i,\n      mode='promise_in_bounds',\n  )\n",
                                                        "def f(x, i):\n  return jax.numpy.take_along_axis(\n"
                                                        "      x,\n      i,\n      mode='promise_in_bounds',\n"
                                                        "      wrap_negative_indices=False,\n  )\n"),
    "JAX101 an import's names kept, in a function": ("def f():\n    from jax.experimental import (\n        maps,\n"
                                                     "        pjit)\n    return pjit\n",
                                                     "def f():\n    from jax.experimental import (\n"
                                                     "        pjit)\n    return pjit\n"),
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


def _in_a_function(code: str) -> str | None:
    """``code`` with its statements after the leading imports moved into a function (2-space indentation); None
    where an import follows another statement or spans lines, or a statement says ``global`` (moving them would
    change what the fix adds and where, or what a name holds)."""
    lines = code.split("\n")
    head = 0
    while head < len(lines) and (lines[head].startswith(("import ", "from ")) or not lines[head].strip()):
        head += 1
    body = lines[head:]
    if not any(line.strip() for line in body) or any(line.lstrip().startswith(("import ", "from ", "global "))
                                                     for line in body) \
            or any(line.count("(") != line.count(")") for line in lines[:head]):
        return None
    return "\n".join([*lines[:head], "def _wrapped():", *(f"  {line}" if line.strip() else line for line in body)])


def _examples_with_a_fix():
    from jaxlint.rules import all_rules

    for rule in all_rules():
        for example in rule.INVALID:
            fixed = example.unsafe_fixed if example.unsafe_fixed is not None else example.fixed
            if fixed is None or fixed == example.code:
                continue
            source, expected = _in_a_function(example.code), _in_a_function(fixed)
            if source is not None and expected is not None:
                yield pytest.param(rule, example, source, expected, id=f"{rule.code}: {example.note}")


@pytest.mark.parametrize("rule,example,source,expected", list(_examples_with_a_fix()))
def test_every_rule_example_fixes_alike_inside_a_function(rule, example, source, expected):
    """Each rule's examples with a fix, their statements moved into a function: the fix indents as the block does."""
    from support.rule_harness import example_settings

    settings = example_settings(rule, example)
    assert fix_source(source, "example.py", settings, rules=[rule], unsafe=True).source == expected
