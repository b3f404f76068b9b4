"""The text gate over-approximates the ast gate: a name the ast gate counts as referenced, an import it reads, a call
whose arguments it counts, the text gate never rules out (``support.gate_cases.text_gate_misses``).

Checked on every rule example, fixture and jaxlint's own source, on the ast gate's scope cases, on hand-written
layouts that hide a dot or a call behind a line break, a comment, a bracket or a string, and on hypothesmith
programs. (Run over the 2434 parseable dev-corpus files: 71,011 names and 65,709 calls, 0 misses.)
"""
from __future__ import annotations

import random

import hypothesmith
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from support.gate_cases import SCOPE_CASES, SOURCES, text_gate_misses

from jaxlint.lint.ast_gate import collect_facts, may_match_ast
from jaxlint.lint.engine import passes_prefilter
from jaxlint.lint.prefilter import Scan, rules_that_may_match
from jaxlint.rules import all_rules
from jaxlint.lint.text_gate import (
    BARE,
    MAYBE,
    NOT_A_NAME,
    TextFacts,
    argument_count,
    context_before,
    read_call,
    scan_imports,
)

# Layouts in which the token before a name, or a call's parenthesis, is not where a naive reader looks.
LAYOUT_CASES = [
    "import jax\nx = (jax.\n     tree_map)(f, t)\n",
    "import jax\nx = (jax  # the module\n     .tree_map)(f, t)\n",
    "import jax\nx = (jax.  # the module\n     tree_map)(f, t)\n",
    "import jax\nx = (jax.\n  # a comment line\n\n     tree_map)(f, t)\n",
    "import jax\nx = (jax. # it's\n     tree_map)(f, t)\n",
    "import jax\nx = jax.\\\n    tree_map(f, t)\n",
    "import jax\nx = jax\\\n    .tree_map(f, t)\n",
    "import jax\nx = (jax).tree_map(f, t)\n",
    "import jax\nx = ((jax)).tree_map(f, t)\n",
    "import jax\ndef f():\n    return (jax).tree_map\n",
    "import jax\nassert (jax).tree_map\n",
    "import jax\nx = not (jax).tree_map\n",
    "import jax\nx = [(jax).tree_map, (jax.numpy).array]\n",
    "import jax\nx = jax .\ttree_map(f, t)\n",
    "import jax\r\nx = (jax.\r\n  tree_map)(f, t)\r\n",
    "import jax\nnaïve = jax.tree_map(f, t)\n",
    "from jax import (  # comment\n    tree_map as tm,\n)\ntm(f, t)\n",
    "from \\\n  jax import tree_map\n",
    "from jax . numpy import array\n",
    "import jax . numpy as jnp\njnp.array(1, 2, 3)\n",
    "# read from a\nimport jax\njax.tree_map(f, t)\n",
    "# from a import b,\nfrom jax import tree_map\n",
    "if True: import jax\nx = jax.tree_map\n",
    "x = 1; import jax; jax.tree_map(f, t)\n",
    "from jax.numpy import *\narray(a, b, c)\n",
    "import jax.numpy as jnp\nx = (jnp.array)(a, b, c)\n",
    "import jax.numpy as jnp\nx = (jnp\n  .array)(a, b, c)\n",
    "from jax.numpy import array as arr\narr(a, b, c)\n",
    "from jax.numpy import array as arr\nx = (arr)(a, b, c)\n",
    "import jax.numpy as jnp\njnp.array(a,\n  # x, y)\n  b, c)\n",
    "import jax.numpy as jnp\njnp.array('(', b, c)\n",
    "import jax.numpy as jnp\njnp.array(\"a\\\",(\", b, c)\n",
    "import jax.numpy as jnp\njnp.array(f'{x}', b, c)\n",
    "import jax.numpy as jnp\njnp.array(f'{x[\"(\"]}', b, c)\n",
    "import jax.numpy as jnp\njnp.array(\"\"\"a,(b\"\"\", b, c)\n",
    "import jax.numpy as jnp\njnp.array \\\n(a, b, c)\n",
    "import jax.numpy as jnp\nx = [jnp.array\n  (a, b, c)]\n",
    "import jax.numpy as jnp\nx = [jnp.array  # why\n  (a, b, c)]\n",
    "import jax.numpy as jnp\njnp.array([a, b], c, d)\n",
    "import jax.numpy as jnp\njnp.array(*a, *b, *c)\n",
    "import jax.numpy as jnp\njnp.array(a, b, c,)\n",
    "import jax.numpy as jnp\njnp.array(lambda a, b: a, b, c)\n",
    "import jax.numpy as jnp\nx = jnp.array(a, \\\n  b, c)\n",
    'import jax\nx = f"{jax.tree_map}"\n',
    "import jax\nx = jax.numpy.array(a, b, c).T\n",
    "import jax\nx = ...\nx = 1. .real\nx = jax.tree_map\n",
    # a function named without a call, its keyword passed elsewhere: bound or handed to ``partial`` (JAX103)
    "import functools\nimport jax.numpy as jnp\nf = functools.partial(jnp.clip, a_min=0)\n",
    "from functools import partial as p\nimport jax.numpy as jnp\nf = p(jnp.clip, a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial(\n    jnp.clip, a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial(  # c\n    jnp.clip, a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial(jnp . clip, a_min=0)\n",
    "from functools import *\nimport jax.numpy as jnp\nf = partial(jnp.clip, a_min=0)\n",
    "from functools import partial\nfrom jax.numpy import clip as c\nf = partial(c, a_min=0)\n",
    "import jax.numpy as jnp\nclip_fn = jnp.clip\nclip_fn(x, a_min=0)\n",
    "import jax.numpy as jnp\nclip_fn = (jnp.clip)\nclip_fn(x, a_min=0)\n",
    "import jax.numpy as jnp\nclip_fn = jnp \\\n  .clip\nclip_fn(x, a_min=0)\n",
    "import jax.numpy as jnp\nclip_fn=jnp.clip; clip_fn(x, a_min=0)\n",
    "import jax.numpy as jnp\nclip_fn = \\\n  jnp.clip\nclip_fn(x, a_min=0)\n",
    "import jax.numpy as jnp\nif (clip_fn := jnp.clip):\n    clip_fn(x, a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial(\n    # why\n\n    jnp.clip,\n    a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial(  # a (\n  jnp.clip, a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial(jnp.clip, b=1, a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial(jnp.clip, 'a,b', a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial \\\n  (jnp.clip, a_min=0)\n",
    # an inner attribute that spells the parent's last component: the chain's root decides (``_root_may_be``)
    "from jax import random\nimport numpy as np\nx = np.random.randint(0, 9, dtype='int8')\ny = random.PRNGKey(0)\n",
    "import jax\nimport numpy as np\nx = np . random . randint(0, 9, dtype='int8')\ny = jax.random.PRNGKey(0)\n",
    "import jax\nfrom numpy import *\nx = random.randint(0, 9, dtype='int8')\n",
    "from jax import *\nx = random.randint(0, 9, dtype='int8')\n",
    "import jax\nimport numpy as jax\nx = jax.random.randint(0, 9, dtype='int8')\n",
    "import jax\nx = (jax).random.randint(0, 9, dtype='int8')\n",
    "import jax\nx = (jax.\n  random).randint(0, 9, dtype='int8')\n",
    "import jax\nx = (jax\n  .random.randint)(0, 9, dtype='int8')\n",
    "import jax\nx = [np,\n  jax.random.randint(0, 9, dtype='int8')]\n",
    "import jax\nx = jax.\\\n  random.randint(0, 9, dtype='int8')\n",
    "import jax\nx = f(a).random.randint(0, 9, dtype='int8')\n",
    "import jax\nx = 'np'.random.randint(0, 9, dtype='int8')\n",
    "import jax\nimport numpy as np\nx = np.random.randint\ny = jax.random.randint\n",
    # a method call read from the text (JAX508's ``TextFacts.may_call_method``): across lines, after brackets
    "import flax\nv = m.init(r, x)\nv2 = v.copy(\n  {'a': 1})\n",
    "import flax\nv = m.init(r, x)\nrest, p = v.pop(  # why (\n  'params')\n",
    "import flax\nv = m.init(r, x)\nv2 = (v).copy(add_or_replace={'a': 1})\n",
    "import flax\nv = m.init(r, x)\nv2 = v['a'].copy(**kw)\n",
    "import flax\nv = m.init(r, x)\nv2 = v.copy(lambda a, b=1: a)\n",
    "import flax\nv = m.init(r, x)\nv2 = v \\\n  .unfreeze()\n",
    "import flax\nv = m.init(r, x)\nv2 = (v\n  .pop)('a')[0]\n",
    # a ``with`` statement's keyword first on its line (JAX401's ``TextFacts.starts_a_line_in_code``)
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\nif True:\n\twith mesh:\n\t\tpass\n",
    "import jax\r\nmesh = jax.make_mesh((2,), ('x',))\r\nif True:\r\n  with mesh: pass\r\n",
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\n\x0cwith mesh:\n    pass\n",
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\nx = f'with {mesh}'\nwith mesh:\n    pass\n",
    "import jax\nwith jax.make_mesh((2,), ('x',)):\n    pass\n",
    # JAX401's with items read from the text: an item it keeps after others it passes over
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\nwith self.assertRaises(E, msg='a)'), mesh:\n    pass\n",
    "import jax\nwith jax.sharding.Mesh(d, ('x',)) as m, f(\n  x):\n    pass\n",
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\nwith a.b(x) as (p, q), mesh as m:\n    pass\n",
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\nwith a.b(x) \\\n  , mesh:\n    pass\n",
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\nwith a.b(  # )\n  x), a.b.c[f'{x[0]}'] as y, mesh:\n    pass\n",
    "import jax\nfrom jax.sharding import Mesh as M\nwith M(d, ('x',)):\n    pass\n",
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\nwith (\n  a.b(x),\n  mesh,\n):\n    pass\n",
    "import jax\nmesh = jax.make_mesh((2,), ('x',))\nwith a.b(x) as self.y, self . mesh:\n    pass\n",
    # JAX201: calls whose result may be used as a list, beside calls that cannot be
    "import jax.numpy as jnp\nxx, yy = jnp.meshgrid(x, y)\ng = jnp.meshgrid(x, y)\ng.append(z)\n",
    "import jax.numpy as jnp\nxx, yy = jnp.meshgrid(x, y) + [z]\n",
    "import jax.numpy as jnp\nxx, yy = \\\n  jnp.meshgrid(x, y)\n",
    "import jax.numpy as jnp\nf(a,\n  b, c=jnp.broadcast_arrays(x, y))\n",
    "import jax.numpy as jnp\nx = a, b = jnp.broadcast_arrays(x, y)\n",
    "import jax.numpy as jnp\n(a) = jnp.meshgrid(x, y)\n",
    "import jax.numpy as jnp\n[a][0] = jnp.meshgrid(x, y)\n",
    "import jax.numpy as jnp\nys = jnp.atleast_1d(*xs)\nzs = jnp.atleast_2d(a, b)\nw = jnp.atleast_3d()\n",
    "import jax.numpy as jnp\ngrid = jnp.meshgrid\nxx, yy = grid(x, y)\n",
    "import jax.numpy as jnp\ndef f(*xs):\n    return jnp.broadcast_arrays(*xs)\na, b = f(x, y)\n",
    "import jax.numpy as jnp\na, b = jnp.meshgrid(x, y); c = jnp.meshgrid(x, y) + [z]\n",
    "import jax.numpy as jnp\nx = isinstance(jnp.meshgrid(a, b), list)\ny = type(jnp.broadcast_arrays(a, b))\n",
    "import jax.numpy as jnp\nclass A(jnp.meshgrid(a, b)):\n    pass\n",
    # JAX201: an element of the result stored to, deleted, or a target: no read (``Subscript`` with ``Store``/``Del``)
    "import jax.numpy as jnp\njnp.meshgrid(x, y)[0] = z\njnp.meshgrid(x, y)[1:] += z\n",
    "import jax.numpy as jnp\ndel jnp.meshgrid(x, y)[0]\njnp.broadcast_arrays(x, y)[0]: int = z\n",
    "import jax.numpy as jnp\nfor jnp.meshgrid(x, y)[0] in z:\n    pass\njnp.meshgrid(x, y)[0], b = 1, 2\n",
    "import jax.numpy as jnp\njnp.meshgrid(x, y) [0] = z\njnp.meshgrid(x, y)[0] //= z\n",
    "import jax.numpy as jnp\ng = (\n    jnp.meshgrid(x, y))\ng.append(z)\n",
    "import jax\nimport jax.numpy as jnp\nx = list(jnp.meshgrid(a, b))\ny = jax.lax.scan(f, c, xs)\n",
    "import jax.numpy as jnp\nfrom jax.lax import fori_loop as loop\nx = f(jnp.broadcast_arrays(a, b))\n",
    "import jax.numpy as jnp\nx = jnp.stack(jnp.meshgrid(a, b) + [c])\ny = f(x=jnp.meshgrid(a, b))\n",
    "import jax.numpy as jnp\nx = f(a, jnp.meshgrid(a, b))\ny = (jnp.meshgrid(a, b))\n",
    "import jax.numpy as jnp\ndef f():\n    return (jnp.meshgrid(a, b))\n",
    # JAX508: a member called on a value, beside the same member as an imported module's function
    "import copy\nimport flax\nv = m.init(r, x)\nw = copy.copy(v)\nu = v.copy({'a': 1})\n",
    "import copy\nimport flax\nv = m.init(r, x)\nu = (copy).copy({'a': 1})\n",
    "import flax\n'import copy'\nv = m.init(r, x)\nu = copy.copy({'a': 1})\n",
    "import flax\nv = m.init(r, x)\nu = copy \\\n  .copy({'a': 1})\nimport copy\n",
    "import flax\nimport jax\nv = m.init(r, x)\nleaves = jax.tree_util.tree_flatten(v)\nt = v['p'].tree_flatten()\n",
    # JAX202: a ``mode=`` that may be the promise mode (or anything but another mode's plain string)
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, mode='clip')\nz = jnp.take_along_axis(x, i, mode=m)\n",
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, mode  # why\n  = m)\n",
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, mode \\\n  = m)\n",
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, mode='promise_in' '_bounds')\n",
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, mode=b'clip')\nz = jnp.take_along_axis(x, i, mode=f'clip')\n",
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, mode='promise_in_bounds')\n",
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, mode=None)\n",
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, ｍode=m)\nz = 'mode=\"clip\"'\n",
    # JAX503/JAX504: a method called on a value beside flax's module functions of the same name
    "import flax\nv = model.init(r, x)\np = flax.core.unfreeze(v)\nq = v.unfreeze()\n",
    "import mylib\nimport flax\nv = model.init(r, x)\np = mylib.unfreeze(v)\n",
    "import flax\nv = model.init(r, x)\np = (flax).core.unfreeze(v)\n",
    "import flax\n'from flax import core'\nv = model.init(r, x)\np = core.unfreeze(v)\nrest, q = core.pop(v, 'a')\n",
    # JAX509's method calls read from the text
    "from flax import linen as nn\ncell = nn.LSTMCell(features=8)\ncarry = cell.initialize_carry(\n  rng, batch_dims=(4,))\n",
    "from flax import linen as nn\ncell = nn.LSTMCell(features=8)\ncarry = (cell\n  .initialize_carry)(rng, batch_dims=(4,))\n",
    "from flax import linen as nn\ncarry = [nn.LSTMCell(features=8)][0].initialize_carry(rng, batch_dims=(4,))\n",
    "import optax\nfrom flax import nnx\noptimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)\n"
    "optimizer.update(  # why\n  grads)\n",
    # JAX503/JAX504's calls read from the text
    "import flax\nv = (model\n  .init)(r, x)\nrest, p = v.pop(\n  'params')\n",
    "import flax\nv = m.init_with_output(r, x)[1]\nrest, p = v.pop('params')  # pop(a, b)\n",
    "import flax\nv = m.init(r, x)\nw = v \\\n  .unfreeze()\n",
    "import flax\nout = model.apply(v, x,\n  mutable=['stats'])\nstats = out[1].unfreeze()\n",
    "import flax\nout = (model\n  .apply)(v, x, mutable=['stats'])\nstats = out[1].unfreeze()\n",
    # JAX507's keyword passed to a function with rows: across lines, through ``partial``, through a plain alias
    "import optax\nx = optax.projections.projection_box(\n  # the tree\n  pytree=p)\n",
    "import functools\nimport optax\nbox = functools.partial(\n  optax.projections.projection_box, pytree=p)\n",
    "from functools import partial\nfrom optax import projections as proj\nbox = partial(proj.projection_box,\n  pytree=p)\n",
    "import optax\nbox = optax.projections.projection_box\nx = box(pytree=p)\n",
    "from optax.projections import projection_box as box\nx = box(p, pytree\n  =p)\n",
]


def _all_cases():
    yield from SOURCES
    yield from ((f"scope-{i}", source) for i, source in enumerate(SCOPE_CASES))
    yield from ((f"layout-{i}", source) for i, source in enumerate(LAYOUT_CASES))


CASES = list(_all_cases())


@pytest.mark.parametrize("source", [s for _, s in CASES], ids=[n for n, _ in CASES])
def test_text_gate_never_rules_out_what_the_ast_gate_sees(source):
    misses = text_gate_misses(source)
    if misses is None:
        pytest.skip("not parseable by ast")
    assert not misses


_CALL_QUESTIONS = [("jax.numpy.array", 2), ("jax.numpy.array", 0), ("jax.numpy.clip", 1), ("jax.sharding.Mesh", 1)]
_CALL_TEXTS = ["import jax.numpy as jnp\n# jnp.array(a, b, c)\nx = jnp.array(a, 'b, c')\n",
               'import jax.numpy as jnp\n"""jnp.array(a, b, c)"""\nx = jnp.array(\n  a, b, c)\ny = jnp.clip(x, a_min=0)\n',
               "import jax.numpy as jnp\nx = jnp.array(f'{a}', b, c)\ny = f(jnp.array)\n"]


@pytest.mark.parametrize("source", [s for _, s in CASES] + _CALL_TEXTS,
                         ids=[n for n, _ in CASES] + [f"calls-{i}" for i in range(len(_CALL_TEXTS))])
def test_calls_read_without_the_strings_give_the_same_answers(source):
    """``may_call_with_more_than`` and ``may_call_with_keyword`` skip the strings map for calls that cannot
    change their answer: the same answers as reading every call with it."""
    for qualified, arguments in _CALL_QUESTIONS:
        full = any(call is None or call.positional > arguments for call in TextFacts(source)._calls_of(qualified))
        assert TextFacts(source).may_call_with_more_than(qualified, arguments) == full, (qualified, arguments)
        for keywords in (frozenset({"a_min"}), frozenset({"dtype", "copy"})):
            full = any(call is None or not call.keywords.isdisjoint(keywords)
                       for call in TextFacts(source)._calls_of(qualified))
            assert TextFacts(source).may_call_with_keyword(qualified, keywords) == full, (qualified, keywords)


def test_layout_cases_are_python():
    # A typo would make a case unparseable, and the superset test would silently skip it.
    for source in LAYOUT_CASES:
        assert collect_facts(source) is not None, source


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # generated programs such as ``0()``
@hsettings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_text_gate_on_generated_programs(program):
    assert not text_gate_misses(program)


def test_each_rule_text_gate_keeps_its_must_flag_examples():
    for rule in all_rules():
        for example in rule.INVALID:
            assert rule.may_match_text(TextFacts(example.code), Scan(example.code).words), \
                f"{rule.code} text gate skips {example.code!r}"


# Files the word prefilter keeps but the text gate alone rules out (what it is for).
@pytest.mark.parametrize("source", [
    "import jax\nx = jax.tree_util.tree_map(f, t)\n",
    "from jax.tree_util import tree_map\nx = tree_map(f, t)\n",
    "import jax.numpy as jnp\nx = jnp.array([1, 2], jnp.float32)\n",
    "import jax.numpy as jnp\nx = jnp.array(f(a, b, c), dtype=d)\n",
    "import jax.numpy as jnp\nx = jnp.array('a, b, c')\n",
    "import jax.numpy as jnp\nx = jnp.zeros(3)\ny = f(x).cross(z)\n",
    "import jax\njax.config.update('jax_enable_x64', True)\n",
    '"""Args:\n    cache: the util cache\n"""\nimport jax\n',  # words of jax.util.cache, in prose
    # ``ops.attention`` after the word ``ops`` may be jax.experimental.pallas.ops.attention, but the file never
    # spells ``pallas``: no import or chain can reach that module
    "import jax\nfrom . import ops\nx = jax.tree_util.tree_map(f, t)\ny = ops.attention(q)\n",
    # a list argument's words, but no list: a parenthesized expression, or a list-bound name in a larger argument
    "import jax.numpy as jnp\nloss = jnp.sum((y - t) ** 2)\n",
    "import jax.numpy as jnp\nloss = jnp.mean((y - t))\n",
    "import jax.numpy as jnp\nw = [1, 2]\nloss = jnp.mean(w[0] ** 2)\n",
    # a catalogue keyword (``a_min``) and a function that takes it, named but neither called with it, bound nor
    # handed to ``partial``
    "import jax\nimport jax.numpy as jnp\nx = jax.tree_util.tree_map(jnp.clip, t)\ny = f(a_min=0)\n",
    "import jax.numpy as jnp\nfns = [jnp.clip]\ny = f(a_min=0)\n",
    "import jax.numpy as jnp\ndef g():\n    return jnp.clip\ny = f(a_min=0)\n",
    "import jax\nimport jax.numpy as jnp\nx = jax.tree_util.tree_map(\n    jnp.clip, t)\ny = f(a_min=0)\n",
    "import jax\nimport jax.numpy as jnp\nx = jax.tree_util.tree_map(  # c\n\n    jnp.clip, t)\ny = f(a_min=0)\n",
    "from functools import partial\nimport jax.numpy as jnp\nf = partial(jnp.clip, b=1)\ny = g(a_min=0)\n",
    # names bound to a list only as an attribute or in a tuple target: no assignment's only target (rlax, praxis)
    "import jax.numpy as jnp\nloss, w = [sum(x) for x in y]\nz = jnp.sum(w, axis=-1)\n",
    "import jax.numpy as jnp\nclass A:\n    def f(self):\n        self.w = [1]\n        return jnp.flip(w, axis=[1])\n",
    # JAX503/JAX504: ``init`` and ``pop``/``unfreeze`` as words, not both after a dot (no method call of each)
    "import flax\nvariables = init(rng)\nrest, params = variables.pop('params')\n",
    "import flax.linen as nn\nv = model.init(rng, x)\nparams = unfreeze(v)\n",
    # JAX104's names as variables, never as attributes (praxis, vmoe: ``device_buffers = jax.device_put(...)``)
    "import jax\ndevice_buffers = jax.device_put(x, devices)\nreturn f(\n    device_buffers)\n",
    "import jax\nto_py = 1\nprint(to_py, block_host_until_ready)\n",
    "import jax\ndevice_buffers = [s.data for s in x.addressable_shards]\nd = [s.device for s in x.addressable_shards]\n",
    # an inner attribute that spells a removed or changed name's parent, under another root (keras' tests:
    # ``from keras.src import random`` and ``np.random.randint(..., dtype="int8")``; ``np.linalg.solve``)
    "import numpy as np\nfrom keras.src import random\nimport jax\nx = np.random.randint(0, 9, dtype='int8')\n",
    "import jax\nimport numpy as np\nx = np . linalg . solve(a, b)\n",
    "import jax\nimport numpy as np\nx = self.random.randint(0, 9, dtype='int8')\ny = np.linalg.solve(a, b)\n",
    # JAX601's row shape asked of one call (``jnp.arange`` with a step and ``dtype=``), not of two (axlearn)
    "import jax.numpy as jnp\nx = jnp.arange(0, 10, 2)\ny = jnp.arange(5, dtype=jnp.bfloat16)\n",
    # JAX508: FrozenDict members spelled, but no call of one in a shape its ast gate keeps (praxis' tests)
    "import flax.linen as nn\nout, state = model.apply(v, x, mutable=['stats'])\nd = state.copy()\n"
    "k = cfg.pop('a', None)\ne = {}.copy()\n",
    # JAX401: ``with`` in an f-string's text, in prose, after ``async`` (the ast gate reads ``ast.With`` only)
    "import jax\ndef f(mesh: jax.sharding.Mesh):\n    msg = f'a leaf with {mesh}'\n",
    'import jax\ndef f(mesh: jax.sharding.Mesh):\n    """\nwith a mesh\n"""\n    x = 1  # with a mesh\n',
    "import jax\nasync def f(mesh: jax.sharding.Mesh):\n    async with mesh:\n        pass\n",
    # JAX401: ``with`` statements whose items are all read for sure as none it keeps (chex's and axlearn's tests:
    # a method's call, a longer chain, a subscript)
    "import jax\ndef f(mesh: jax.sharding.Mesh):\n    with self.assertRaisesRegex(ValueError, 'a(b'):\n        pass\n",
    "import jax\ndef f(mesh: jax.sharding.Mesh):\n    with mock.patch.object(a, 'b') as p, self.x.y[0] as q:\n"
    "        pass\n",
    "import jax\ndef f(mesh: jax.sharding.Mesh):\n    with self.x.y as (a, b), self.z.w(  # )\n      1) as self.v:\n"
    "        pass\n",
    # JAX508: members spelled only as functions of imported modules, with a call that makes variables (praxis' and
    # gemma's: ``jax.tree_util.tree_flatten(params)``, ``copy.copy(v)``, ``epy.pretty_repr(v)``)
    "import copy\nimport jax\nimport flax\nv = model.init(r, x)\nleaves = jax.tree_util.tree_flatten(v)\n"
    "w = copy.copy(v)\nu = epy.pretty_repr(v)\nfrom etils import epy\n",
    # JAX202: every ``mode=`` another mode's plain string, which wraps before and after (axlearn's decoders)
    "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, mode='clip', axis=2)\nz = jnp.take_along_axis(\n"
    "    x,  # the values\n    i,\n    axis=2,\n    mode=r\"fill\",\n)\nw = jnp.take_along_axis(x, i, axis=1)\n",
    # JAX503/JAX504: ``unfreeze``/``pop`` only as flax's module functions, the fix's own spelling (vmoe's and
    # uncertainty-baselines' ``flax.core.unfreeze(model.init(...))``)
    "import flax\nfrom flax import core as fcore\nparams = flax.core.unfreeze(model.init(r, x))\n"
    "rest, p = fcore.pop(model.init(r, x), 'params')\n",
    # JAX201: every call's result unpacked or one array given to ``atleast_*d`` (keras' and dm_pix's code)
    "import jax.numpy as jnp\nxx, yy = jnp.meshgrid(x, y)\n[a] = jnp.broadcast_arrays(  # (\n  x)\n"
    "(p, q) = jnp.meshgrid(x, ')')\nz = jnp.atleast_2d(\n  w)\n",
    "import jax.numpy as jnp\ndef f(x):\n    x = jnp.atleast_1d(x)  # one array\n    a, *b = jnp.meshgrid(x, x)\n"
    "    return a\n",
    # JAX201: the first argument of a call, in a file without a loop whose carry could hold it (keras, kauldron)
    "import jax.numpy as jnp\nindices = list(jnp.meshgrid(*indices, indexing='ij'))\n"
    "grid = jnp.stack(jnp.meshgrid(\n  *s, indexing='ij'), axis=-1)\nu = jnp.array(jnp.meshgrid(*xs)).reshape(-1)\n",
    # JAX201: an element or a slice of the result read at once (numpyro's ``jnp.broadcast_arrays(x, y)[0]``), the
    # first argument of a call on the call's next line (numpyro's ``jnp.stack(\n jnp.meshgrid(...))``)
    "import jax.numpy as jnp\ndef f(x, y):\n    return jnp.broadcast_arrays(x, y)[0]\na = jnp.meshgrid(x, y)[1:]\n"
    "ok = jnp.meshgrid(x, y)[0] == z\nb = [jnp.meshgrid(x, y)[0] for _ in z]\n",
    "import jax.numpy as jnp\ngrid = jnp.stack(  # (\n    jnp.meshgrid(*s, indexing='ij'), axis=-1)\n",
    # JAX509: a method with rows and one of its keywords spelled, but no call of it with the keyword
    "import optax\nnoise = optax.perturbations.Gumbel()\nx = noise.sample(key, shape)\nseed = 0\nupdate = 1\n",
    # JAX503/JAX504: ``pop``/``unfreeze`` and ``init`` after dots, but no call of each (of ``pop``, with one key)
    "import flax\nfn = model.init\nrest = d.pop('a', None)\nthaw = v.unfreeze\n",
    "import flax\nv = model.init(r, x)\nrest = d.pop()\n",
    # JAX601's rows about a number first: the first argument is a name or a call, never a literal (levanter)
    "import jax.numpy as jnp\nidx = jnp.nonzero(mask, size=3)\nj = jnp.nonzero(f(-1))[0]\n",
    # JAX508: a member called, but no call that makes variables: ``apply`` without ``mutable=`` (praxis' layers)
    "import flax\ny = layer.apply(v, x)\nstats = out[1].unfreeze()\nmutable = True\n",
    # JAX507: a function with rows called, and its row's keyword spelled, but never passed to it (vmoe, jax-resnet)
    "import optax\nx = optax.projections.projection_box(tree=p, lower=0.0, upper=1.0)\ny = g(pytree=p)\n",
    "from flax.training import checkpoints\ncheckpoints.save_checkpoint(d, target, step)\nkw = dict(gda_manager=m)\n",
    "import optax\nfns = [optax.projections.projection_box]\ny = g(pytree=p)\n",
])
def test_text_gate_rules_out_files_that_only_share_words(source):
    rules = [rule for rule in all_rules() if not rule.opt_in]
    candidates = rules_that_may_match(source, rules)
    assert candidates, "the word prefilter alone keeps this file: the case tests the text gate"
    facts = TextFacts(source)
    words = Scan(source).words
    assert not [rule.code for rule in candidates if rule.may_match_text(facts, words)]
    assert not passes_prefilter(source, rules)
    assert not may_match_ast(source, candidates)  # the ast gate agrees: nothing was lost


@pytest.mark.parametrize("source, expected", [
    ("f()", 0), ("f(a)", 1), ("f(a, b)", 2), ("f(a, b,)", 2), ("f((a, b), [c, d], {e: g})", 3),
    ("f(a, b=1, c=2)", 1), ("f(a, *b, **c)", 2), ("f(a == b, c)", 2), ("f(x := 1, y)", 2), ("f(a, # c\n b=1)", 1),
    ("f(lambda x=1: x, b)", 2), ("f(\n  a,\n  # c\n)", 1),
    ("f('a, b', \"c, d\")", 2), ("f(a  # x, y\n, b)", 2), ("f (a, b)", 2), ("f", -1), ("f.x", -1), ("f[a, b]", -1),
    ("f\n(a)", None), ("f  # c\n", None), ("f\\\n(a)", None), ("(f)(a, b, c)", None), ("f(f'{a}', b)", None),
    ("f('''a''', b)", None), ("f('a\n', b)", None), ("f(a, b", None), ("f(a, 'b", None),
])
def test_argument_count(source, expected):
    callee_end = source.index("f") + 1
    assert argument_count(source, callee_end) == expected


@pytest.mark.parametrize("source, expected", [
    ("tree_map", BARE), ("x = tree_map", BARE), ("jax.tree_map", "jax"), ("jax . tree_map", "jax"),
    ("(jax).tree_map", MAYBE), ("f(x).tree_map", NOT_A_NAME), ("return (x).tree_map", MAYBE),
    ("x[0].tree_map", NOT_A_NAME), ("'s'.tree_map", NOT_A_NAME), ("....tree_map", NOT_A_NAME),
    ("(jax\n .tree_map", MAYBE), ("(jax.\n tree_map", MAYBE), ("(jax.  # c\n tree_map", MAYBE),
    ("(jax.\n# c\n\n tree_map", MAYBE), ("x = 1\ntree_map", BARE), ("x = 1  # c\ntree_map", BARE),
    ("x = '#'  # c\ntree_map", MAYBE), ("x = \\\ntree_map", MAYBE), ("f(')').tree_map", MAYBE),
])
def test_context_before(source, expected):
    assert context_before(source, source.rindex("tree_map")) == expected


@pytest.mark.parametrize("source, expected", [
    # what ``context_before`` cannot tell line by line, told once strings and comments are known
    ('"""A sentence.\n    tree_map: prose\n"""', NOT_A_NAME), ("# jax.tree_map(f)", NOT_A_NAME),
    ("x = 'jax.tree_map'", NOT_A_NAME), ('x = "a.\\\n tree_map"', NOT_A_NAME),
    ('f(x)  # ends a sentence.\ntree_map', BARE), ('x = "a."\ntree_map', BARE), ("(jax.\n tree_map", "jax"),
    ("(jax\n  # c\n  .tree_map", "jax"), ("x = jax \\\n  .tree_map", "jax"), ("(f(\n a,\n b)\n .tree_map", NOT_A_NAME),
    ("(f(\n ')',  # (\n b).tree_map", NOT_A_NAME), ("(\n  a\n).tree_map", "a"), ("if (\n jax . x\n).tree_map", "x"),
    ("(a *\n b).tree_map", NOT_A_NAME), ("(x == y).tree_map", NOT_A_NAME), ("(a, b).tree_map", NOT_A_NAME),
    ("(x := jax).tree_map", NOT_A_NAME), ("(jax  # c)\n ).tree_map", "jax"),
    ("(x[0]\n .tree_map", NOT_A_NAME), ('("s"\n .tree_map', NOT_A_NAME), ("(x.\n tree_map", "x"),
    ('f"{jax.\n tree_map}"', MAYBE), ('f"{x}" if a else (jax.\ntree_map', "jax"),
])
def test_context_once_strings_and_comments_are_known(source, expected):
    facts = TextFacts(source)
    [(end, context)] = facts.occurrences("tree_map")
    assert facts._code_context(end - len("tree_map"), context) == expected


def test_a_string_prefix_is_no_name():
    source = 'assert x, \\\n    f"{a}"\n'
    facts = TextFacts(source)
    [(end, context)] = facts.occurrences("f")
    assert context == MAYBE  # line by line: the line before ends in a backslash
    assert facts._code_context(end - 1, context) == NOT_A_NAME
    assert not facts.may_refer("jax.experimental.ode.f")


@pytest.mark.parametrize("source, expected", [
    ("import jax.numpy as jnp\njnp.clip(x, a_min=0)", True),
    ("import jax.numpy as jnp\njnp.clip(x, 0)\nf(a_min=0)", False),
    ("import jax.numpy as jnp\njnp.clip(x, **{'a_min': 0})", False),  # ast's keyword.arg is None
    ("import jax.numpy as jnp\njnp.clip(\n  x,\n  # a_min=0\n  a_max=1)", False),
    ("import jax.numpy as jnp\njnp.clip(x, '''a_min=''', a_min=1)", True),
    ("import jax.numpy as jnp\njnp.clip(x, '''(''', 1)", False),
    ("import jax.numpy as jnp\njnp.clip(x, f'{a}', a_min=1)", True),
    ("from jax.numpy import clip as c\nc(x, a_min=0)", True),
    ("import jax.numpy as jnp\nc = jnp.clip; c(x, a_min=0)", False),  # not a call of jnp.clip to ast
    ("import jax.numpy as jnp\njnp.clip\\\n(x, a_min=0)", True),  # cannot see the call: maybe
])
def test_call_keywords_read_from_the_text(source, expected):
    assert TextFacts(source).may_call_with_keyword("jax.numpy.clip", frozenset({"a_min"})) is expected


@pytest.mark.parametrize("source, expected", [
    ("f(None)", "None"), ("f( None  # c\n)", "None"), ("f((None), 1)", "None"), ("f(\n  # c\n  None)", "None"),
    ("f(None \\\n, b)", "None"), ("f(Nonesuch)", "Nonesuch"), ("f(*a, None)", ""), ("f(x=None)", ""),
    ("f(**k)", ""), ("f()", ""), ("f(a.b(c), d)", "a.bc"),
])
def test_the_first_argument_read_from_the_text(source, expected):
    assert read_call(source, 1).first == expected


@pytest.mark.parametrize("source, kept", [
    ("f(a)", True), ("f(a, b)", True), ("f(a, b, c)", False), ("f(a, k=1)", False), ("f(a, **kw)", False),
    ("f(lambda a, b, c: 0)", True), ("f(x, lambda b, k=1: 0)", True), ("f(x, lambda **k: 0)", True),
    ("f(\n  a,  # b, c\n  'b, c')", True),
])
def test_a_call_with_at_most_so_many_arguments(source, kept):
    """``may_call_with_at_most(f, 2, {"k"})``: a ``lambda``'s parameters are no arguments (its commas, ``k=`` and
    ``**`` answer "maybe")."""
    assert TextFacts("from m import f\n" + source).may_call_with_at_most("m.f", 2, frozenset({"k"})) is kept


def test_scan_imports_reads_what_ast_reads_and_more():
    source = ("import jax.numpy as jnp, os\nfrom jax import (  # c\n    tree_util as tu,\n    lax)\n"
              "from jax.numpy import *\n# taken from a\nimport jax\nfrom . import sibling\n")
    imports = scan_imports(source)
    assert collect_facts(source).import_names <= imports.import_names
    assert imports.bindings["jnp"] == {"jax.numpy"}
    assert imports.bindings["tu"] == {"jax.tree_util"}
    assert "jax.lax" in imports.bindings["lax"]
    assert "jax" in imports.bindings["jax"]
    assert imports.star_modules == ["jax.numpy"]
    assert "a.jax" in imports.import_names  # the comment's "from a / import jax" is read too: a harmless extra


def test_long_comment_runs_do_not_backtrack_catastrophically():
    # The separator pattern must split a comment in one way only; 2^n splits would hang here.
    source = "from a" + " #" * 2000 + "\n" + "x" * 10 + "\n"
    scan_imports(source)
    source = "import " + "a . " * 3000 + "# " + " " * 3000
    scan_imports(source)


def test_scans_stay_linear_on_pathological_files():
    # Each of these would take minutes if a scan per occurrence ran to the end of the file or line.
    one_line = "import jax.numpy as jnp; " + "f(x).cross(y); jnp.array('" * 20000
    facts = TextFacts(one_line)
    assert facts.may_call_with_more_than("jax.numpy.array", 2)  # unterminated strings: cannot tell
    assert not facts.may_refer("jax.numpy.cross")
    comments = "import jax\n" + "# a comment\n" * 20000 + "tree_map\n" * 2000
    # The first occurrence follows 20000 comment-only lines: too many to read back, so "maybe".
    assert [context for _, context in TextFacts(comments).occurrences("tree_map")][:2] == [MAYBE, BARE]
    assert context_before("x.\n" + "# c\n" * 100 + "tree_map", len("x.\n" + "# c\n" * 100)) == MAYBE


def test_bounded_scans_answer_maybe():
    far = "import jax.numpy as jnp\njnp.array(" + "a + " * 2000 + "b)\n"
    assert argument_count(far, far.index("array") + len("array")) is None
    assert context_before("(" + "a + " * 2000 + "a).tree_map", len("(" + "a + " * 2000 + "a).")) == MAYBE


@pytest.mark.parametrize("source, expected", [
    ("import jax.numpy as jnp\nf(jnp.array)(a, b, c)", False),  # the bracket closes f's call
    ("import jax.numpy as jnp\n(jnp.array)(a, b, c)", True),
    ("import jax.numpy as jnp\nx = (  # c\n  jnp.array)(a, b, c)", True),
    ("import jax.numpy as jnp\nreturn (jnp.array)(a, b, c)", True),
    ("import jax.numpy as jnp\nf(jnp.array\n  )", False),
    ("import jax.numpy as jnp\n@jnp.array\ndef f(a, b, c): pass", False),  # a decorator: the call is not there
    ("import jax.numpy as jnp\nx = [jnp.array\n  # c\n  (a, b, c)]", True),  # a call across lines
    ("import jax.numpy as jnp\nx = [jnp.array  # c\n  (a, b)]", False),
])
def test_calls_read_across_lines_and_brackets(source, expected):
    assert TextFacts(source).may_call_with_more_than("jax.numpy.array", 2) is expected


# -- answered without reading the imports (issue 27: the text gate's CPU) ------------------------------------------
def test_may_import_skips_the_imports_when_a_module_part_is_not_a_word():
    from jaxlint.lint.text_gate import module_parts

    modules = frozenset({"jax.experimental.maps", "jax.experimental.maps.xmap"})
    assert module_parts(modules) == (frozenset({"jax", "experimental", "maps"}),)  # the larger set is implied
    source = "import jax.experimental\nfrom jax.experimental import pjit\n"
    facts = TextFacts(source)
    assert not facts.may_import(modules, Scan(source).words)
    assert facts._imports is None  # ``maps`` is no word of the file: no import can name the module
    # with every part among the words, the imports are read (and decide)
    for source, expected in [("from jax.experimental import maps\n", True),
                             ("import jax.experimental.maps as m\n", True),
                             ("import jax.experimental  # maps\nmaps = 1\n", False)]:
        facts = TextFacts(source)
        assert facts.may_import(modules, Scan(source).words) is expected, source
        assert facts._imports is not None
    # without words, as before: the imports decide
    assert TextFacts("from jax.experimental import maps\n").may_import(modules)


def test_may_import_skip_agrees_with_the_imports_on_every_example():
    from jaxlint.catalogue.symbols import CatalogueSymbolRule

    modules = CatalogueSymbolRule.ast_modules
    for name, source in SOURCES + [(case, case) for case in LAYOUT_CASES]:
        words = Scan(source).words
        assert TextFacts(source).may_import(modules, words) == TextFacts(source).may_import(modules), name


def test_refers_to_any_reads_the_imports_only_for_a_name_the_words_spell():
    from jaxlint.lint.text_gate import names_by_last

    by_last = names_by_last(frozenset({"jax.tree_map", "jax.experimental.maps.xmap"}))
    source = "import jax\nx = jax.tree_util.tree_leaves(t)\n"  # no ``tree_map``, no ``xmap``
    facts = TextFacts(source)
    assert not facts.refers_to_any(by_last, Scan(source).words)
    assert facts._imports is None
    source = "from jax import tree_map\n"
    facts = TextFacts(source)
    assert facts.refers_to_any(by_last, Scan(source).words)


def test_refers_to_any_answers_a_repeated_question_once(monkeypatch):
    from jaxlint.lint.text_gate import names_by_last

    calls = []
    original = TextFacts._refers_to_any

    def counted(self, by_last, words):
        calls.append(by_last)
        return original(self, by_last, words)

    monkeypatch.setattr(TextFacts, "_refers_to_any", counted)
    source = "import jax\nx = jax.tree_map(f, t)\n"
    facts, words = TextFacts(source), Scan(source).words
    rules = [rule for rule in all_rules() if rule.code in ("JAX101", "JAX402")]
    assert len(rules) == 2 and all(rule.may_match_text(facts, words) for rule in rules)
    assert len(calls) == 1  # JAX101 and JAX402 share their names: the second asks the cache
    # another table, or other words, are answered afresh
    assert facts.refers_to_any(names_by_last(frozenset({"jax.numpy.foo"})), words) is False
    assert facts.refers_to_any(names_by_last(rules[0].ast_names), set(words) - {"tree_map"}) is False
    assert len(calls) == 3


def test_whole_word_starts_as_before():
    """The whole-word search (one pattern per word since issue 27) finds what ``str.find`` and a boundary test
    found, on jaxlint's own source and on random texts of words, non-ASCII letters and separators."""
    from support import old_text_scans
    from jaxlint.lint.text_gate import _whole_word_starts

    generator = random.Random(27)
    pieces = ["jnp", "jax", "x", "xx", "_x", "x_", "\u00e9", "\u00e9x", "1", "x1", " ", ".", "(", "\n", "#", "x.x"]
    words = ["x", "xx", "jnp", "jax", "_x", "\u00e9", "x1", "1", "x.x", ".", " x", "x(", ""]
    texts = ["".join(generator.choices(pieces, k=generator.randint(0, 20))) for _ in range(3_000)]
    texts += [source for _, source in SOURCES[-40:]]
    for text in texts:
        for word in words + ["import", "from", "numpy", "self"]:
            if word:
                assert list(_whole_word_starts(text, word)) == list(old_text_scans.whole_word_starts(text, word)), \
                    (text, word)


# ``may_qualify``: a dotted name is referenced only through an import that binds a prefix of it, or a star import of
# a module it lies under. Each of these keeps ``jax.numpy.function`` through a statement written across lines,
# behind comments, continuations, parentheses or a star, or inside a function: a reading that missed the binding
# would rule the file out.
QUALIFY_KEPT = [
    "from jax import (\n    numpy  # the module\n    as xnp,\n)\nxnp.function\n",
    "import jax.numpy \\\n    as jn\njn.function\n",
    "from jax import *\nnumpy.function\n",
    "from jax.numpy import *\nfunction\n",
    "def f():\n    import jax\n    return jax.numpy.function\n",
    "import jax.numpy as jnp, numpy as np\nx = (jnp\n     .function)\n",
    "from jax import numpy; numpy . function\n",
]
# Spelled, but no import binds ``jax``, ``jax.numpy`` or the name (the chains' roots are another package's, or are
# not imported): no qualified name can be ``jax.numpy.function``.
QUALIFY_RULED_OUT = [
    "import numpy\nimport jaxlib\nx = numpy.function  # not jax's\n",
    "from numpy import numpy\nx = numpy.function  # jax\n",
    "import jaxlib.jax as jax\nx = jax.numpy.function\n",
    "from .jax import numpy\nnumpy.function\n",
    "x = jax.numpy.function\n",
]


@pytest.mark.parametrize("source", QUALIFY_KEPT + QUALIFY_RULED_OUT)
def test_qualify_cases_agree_with_the_ast_gate(source):
    assert not text_gate_misses(source)


@pytest.mark.parametrize("source", QUALIFY_KEPT)
def test_a_name_under_an_imported_prefix_is_kept(source):
    from jaxlint.lint.text_gate import names_by_last

    facts = TextFacts(source)
    assert facts.may_qualify("jax.numpy.function")
    assert facts.may_refer("jax.numpy.function")
    assert facts.refers_to_any(names_by_last(frozenset({"jax.numpy.function"})), Scan(source).words)


@pytest.mark.parametrize("source", QUALIFY_RULED_OUT)
def test_a_name_no_import_can_qualify_is_ruled_out_without_its_occurrences(source, monkeypatch):
    from jaxlint.lint.text_gate import names_by_last

    facts = TextFacts(source)
    monkeypatch.setattr(TextFacts, "occurrences", lambda self, word: pytest.fail(f"looked for {word}"))
    assert not facts.may_refer("jax.numpy.function")
    assert not facts.refers_to_any(names_by_last(frozenset({"jax.numpy.function"})), Scan(source).words)
    assert "jax.numpy.function" not in collect_facts(source).referenced()


@pytest.mark.parametrize("source", [source.rstrip("\n") + "(1, b=2)\n" for source in QUALIFY_KEPT])
def test_a_call_under_an_imported_prefix_is_read(source):
    """The calls of a name an import may qualify are read (``may_qualify`` guards ``_call_sites`` too), and the ast
    gate sees the same call."""
    facts = TextFacts(source)
    assert facts.may_call_with_more_than("jax.numpy.function", 0)
    assert facts.may_call_with_keyword("jax.numpy.function", frozenset({"b"}))
    assert not text_gate_misses(source)


@pytest.mark.parametrize("source", [source.rstrip("\n") + "(1, b=2)\n" for source in QUALIFY_RULED_OUT])
def test_a_call_no_import_can_qualify_is_not_looked_for(source, monkeypatch):
    facts = TextFacts(source)
    monkeypatch.setattr(TextFacts, "occurrences", lambda self, word: pytest.fail(f"looked for {word}"))
    assert not facts.may_call_with_more_than("jax.numpy.function", 0)
    assert not facts.may_call_with_keyword("jax.numpy.function", frozenset({"b"}))
    assert not facts.may_pass_keyword("jax.numpy.function", frozenset({"b"}))
    facts_ast = collect_facts(source)
    assert not any("jax.numpy.function" in facts_ast.qualified_names(call.func) for call in facts_ast.calls)


@pytest.mark.parametrize("source", [
    "import optax\nx = optax.projections.projection_box(\n  # the tree\n  pytree=p)\n",
    "import functools\nimport optax\nbox = functools.partial(\n  optax.projections.projection_box, pytree=p)\n",
    "import optax\nbox = optax.projections.projection_box\nx = box(pytree=p)\n",
    "from optax.projections import projection_box as box\nx = box(p, pytree\n  =p)\n",
])
def test_jax507_gates_keep_a_row_keyword_passed(source):
    """JAX507's gates ask for a row's keyword passed to its function, directly, through ``partial`` or an alias:
    both keep these files (the first two are reported; the ast gate keeps the alias, which the resolver may follow)."""
    rule = next(rule for rule in all_rules() if rule.code == "JAX507")
    assert rule.may_match_text(TextFacts(source), Scan(source).words)
    assert rule.may_match_ast(collect_facts(source))


def test_the_last_reading_is_shared_with_the_next_question_about_the_same_text():
    """The lint's word split and text facts serve the effective-floor note that reads the same text next."""
    from jaxlint.lint.engine import prefiltered_rules
    from jaxlint.lint.text_gate import reading

    source = "import jax\nx = jax.tree_map(f, t)\n"
    prefiltered_rules(source, [rule for rule in all_rules() if not rule.opt_in])
    scan, facts = reading(source)
    assert reading(source) == (scan, facts)
    assert facts.imports.import_names  # read once, by the lint's gate: the note finds it done
    copy = "".join(list(source))  # equal, but another string: no answer of the last one is reused
    assert copy is not source and reading(copy)[0] is not scan


def test_a_method_call_in_a_string_or_a_comment_is_no_call():
    """``may_call_method`` looks a call it may accept up among the strings and comments: scenic's docstrings show
    ``flax_model.init(...).pop('params')``, which kept JAX503 and JAX508 on files with no such call."""
    from jaxlint.lint.text_gate import a_call

    source = 'def f():\n    """rest, p = v.pop(\'params\')"""\n    # w = v.copy(\'x\')\n    return "x.unfreeze()"\n'
    facts = TextFacts(source)
    assert not any(facts.may_call_method(member, a_call) for member in ("pop", "copy", "unfreeze"))
    assert TextFacts(source + "rest, p = v.pop('params')\n").may_call_method("pop", a_call)
    # strings that cannot be read for certain: every call is a "maybe"
    assert TextFacts('x = """\nv.pop(\'a\')\n').may_call_method("pop", a_call)


@pytest.mark.parametrize("source, called", [
    ("w = (m.init(r, x).unfreeze)()\n", True),
    ("w = (m.init(r, x)\n  .unfreeze)()\n", True),
    ("w = (m.init(r, x)[0].unfreeze)()\n", True),
    ("w = (v.unfreeze)()\n", True),
    ("w = f(m.init(r, x).unfreeze)\n", False),  # an argument: no call of it
    ("w = f(m[0].unfreeze)\n", False),
])
def test_a_parenthesized_chain_with_a_call_in_it_is_called(source, called):
    """``read_call`` steps over a call or subscript of the chain when it asks whether the chain stands in
    parentheses (``_parenthesized``): it read ``(m.init(r, x).unfreeze)()`` as no call, and JAX504's text gate
    dropped the file, a finding lost."""
    from jaxlint.lint.engine import lint_source
    from jaxlint.lint.text_gate import a_call
    from jaxlint.project.settings import Settings

    source = "import flax\n" + source
    assert TextFacts(source).may_call_method("unfreeze", a_call) is called
    gated = lint_source(source, "x.py", Settings()).diagnostics
    assert [d.code for d in gated] == [d.code for d in lint_source(source, "x.py", Settings(), prefilter=False)
                                       .diagnostics]
