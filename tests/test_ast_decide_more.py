"""More findings decided from ``ast`` (``jaxlint.lint.ast_findings``), in the style of ``test_ast_findings.py``: the
corpus shapes that sent files without a finding to libcst, reduced to small cases, and the rules JAX202, JAX205,
JAX102 and JAX508. Each case is linted through the libcst visit and through ``ast_findings.decide``; where ``decide``
answers, the diagnostics must be equal field by field. The ``DECIDED`` cases must be answered.
"""
from __future__ import annotations

import ast
from dataclasses import replace

import libcst as cst
import pytest

from jaxlint.analysis.ast_calls import simple_string
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings
from test_ast_findings import ast_decided, libcst_findings

JAX201 = rule_by_code("JAX201")

# JAX201: a result bound to a name that is never used as a list (the scope of the binding is searched), and a loop
# in a file where no carry can hold a call (more loops: ``tests/test_ast_findings_jax201_carry.py``).
JAX201_DECIDED = {
    "bound, then passed on": "import jax.numpy as jnp\ndef f(x, y):\n    g = jnp.meshgrid(x, y, indexing='ij')\n"
                             "    return jnp.stack(g, axis=-1)\n",
    "bound, iterated and indexed": "import jax.numpy as jnp\ng = jnp.meshgrid(x, y)\nh = [jnp.expand_dims(a, -1) "
                                   "for a in g]\nz = g[0] + g[1]\nk = g\nk.append(1)\n",
    "the same name used as a list in another function": "import jax.numpy as jnp\ndef f(x, y):\n"
                                                        "    g = jnp.meshgrid(x, y)\n    return jnp.asarray(g)\n"
                                                        "def h(x):\n    g = list(x)\n    g[0] += 1\n"
                                                        "    g.append(2)\n",
    "two names, unpacked later": "import jax.numpy as jnp\nxs = jnp.broadcast_arrays(*xs)\na = b = jnp.meshgrid(x)\n"
                                 "u, v = a\n",
    "annotated": "import jax.numpy as jnp\ng: list = jnp.meshgrid(x, y)\nh = g[0]\n",
    "annotated attribute": "import jax.numpy as jnp\nself.g: list = jnp.meshgrid(x, y)\n",
    "a class body": "import jax.numpy as jnp\nclass A:\n    g = jnp.meshgrid(x, y)\n    h = g[0]\ng = []\n"
                    "g.append(1)\n",
    "returned by a function whose calls are unpacked": "import jax.numpy as jnp\ndef grids(x, y):\n"
                                                       "    return jnp.meshgrid(x, y)\na, b = grids(x, y)\n"
                                                       "g = grids(x, y)\nh = jnp.stack(g)\n"
                                                       "def twice(x):\n    return grids(x, x)\n",
    "returned by a function never called, or decorated": "import jax.numpy as jnp\ndef meshgrid(*x, indexing='xy'):\n"
                                                          "    return jnp.meshgrid(*x, indexing=indexing)\n"
                                                          "@cache\ndef grids(x):\n    return jnp.meshgrid(x, x)\n"
                                                          "grids(x).append(1)\nf = lambda x: jnp.meshgrid(x, x)\n",
    "a loop, no call in the carry": "import jax\nimport jax.numpy as jnp\nx = jnp.atleast_1d(x)\n"
                                    "c, ys = jax.lax.scan(body, init, xs)\n",
    "a loop and an unpacked call": "import jax\nimport jax.numpy as jnp\nx, y = jnp.meshgrid(x, y)\n"
                                   "c, ys = jax.lax.scan(body, init, xs)\n",
}
JAX201_UNDECIDED = {
    "bound, appended": "import jax.numpy as jnp\ndef f(x, y):\n    g = jnp.meshgrid(x, y)\n    g.append(1)\n",
    "bound, made global, used elsewhere": "import jax.numpy as jnp\ndef f(x, y):\n    global g\n"
                                          "    g = jnp.meshgrid(x, y)\ndef h():\n    g.append(1)\n",
    "bound, used in a closure": "import jax.numpy as jnp\ndef f(x, y):\n    g = jnp.meshgrid(x, y)\n"
                                "    def h():\n        g.append(1)\n",
    "bound, grown in place": "import jax.numpy as jnp\ng = jnp.meshgrid(x, y)\ng += [1]\n",
    "bound, item assigned": "import jax.numpy as jnp\ng = jnp.meshgrid(x, y)\ng[0] = 1\n",
    "bound, compared": "import jax.numpy as jnp\ng = jnp.meshgrid(x, y)\nok = g == [a, b]\n",
    "bound, type": "import jax.numpy as jnp\ng = jnp.meshgrid(x, y)\nok = type(g) is list\n",
    "bound, isinstance": "import jax.numpy as jnp\ng = jnp.meshgrid(x, y)\nok = isinstance(g, list)\n",
    "returned, a caller appends": "import jax.numpy as jnp\ndef grids(x, y):\n    return jnp.meshgrid(x, y)\n"
                                  "g = grids(x, y)\ng.append(z)\n",
    "returned, a caller compares": "import jax.numpy as jnp\ndef grids(x, y):\n    return jnp.meshgrid(x, y)\n"
                                   "ok = grids(x, y) == [a, b]\n",
    "a loop and a bound call": "import jax\nimport jax.numpy as jnp\ng = jnp.meshgrid(x, y)\n"
                               "c, ys = jax.lax.scan(body, init, xs)\n",
}

# JAX202: the calls without a finding, and the findings without a fix (a non-literal mode; the promise mode below
# the keyword's release); a finding with a fix is undecided.
JAX202 = rule_by_code("JAX202")
LOW_MIN = replace(Settings(), explicit_min_version=Version("0.4.30"), min_version_source="test")
_TAL = "import jax.numpy as jnp\n"
JAX202_DECIDED = {
    "another string mode, on lines": _TAL + "y = jnp.take_along_axis(\n    b, t[:, None], mode=\"clip\", axis=2\n)\n"
                                     "z = jnp.take_along_axis(x, i, axis=1, mode='fill')\n",
    "a mode given positionally": _TAL + "y = jnp.take_along_axis(x, i, 0, 'clip')\n",
    "an explicit keyword": _TAL + "y = jnp.take_along_axis(x, i, 0, mode=m, wrap_negative_indices=True)\n",
    "an enum member, a None mode": "import jax\n" + _TAL + "y = jnp.take_along_axis(x, i, 0, mode=jax.lax."
                                   "GatherScatterMode.from_any(m))\nz = jnp.take_along_axis(x, i, 0, mode=None)\n",
    "star arguments": _TAL + "y = jnp.take_along_axis(x, i, *rest, wrap_negative_indices=None)\n"
                      "z = jnp.take_along_axis(x, i, **kw)\n",
    "a non-literal mode": _TAL + "def f(m):\n    return jnp.take_along_axis(x, i, axis=0, mode=m)\n"
                          "y = jnp.take_along_axis(x, i, 0, modes[\n    0])\n",
    "a non-literal mode, noqa": _TAL + "y = jnp.take_along_axis(x, i, 0, mode=m)  # noqa: JAX202\n",
    "not jax": "import numpy as np\ny = np.take_along_axis(x, i, 0, mode='promise_in_bounds')\n",
}
JAX202_DECIDED["an import in a function"] = "def f(m):\n    import jax.numpy as jnp\n" \
                                            "    return jnp.take_along_axis(x, i, 0, mode=m)\n"
# the promise mode's fix, ``add_keyword``'s edit placed from ``ast``: after the last argument, on a line of its own
# where that argument ends with a comma and starts its own line (scenic's calls)
_PROMISE = "mode='promise_in_bounds'"
JAX202_FIXES_DECIDED = {
    "the promise mode": _TAL + f"y = jnp.take_along_axis(x, i, 0, {_PROMISE})\n",
    "one argument a line": _TAL + f"y = jnp.take_along_axis(\n    x,\n    i,\n    axis=0,\n    {_PROMISE},\n)\n",
    "a trailing comma on the call's line": _TAL + f"y = jnp.take_along_axis(x, i, 0, {_PROMISE},)\n",
    "a trailing comma, on the previous argument's line": _TAL + f"y = jnp.take_along_axis(\n    x, i, {_PROMISE},\n)\n",
    "in a function": _TAL + f"def f(x, i):\n    return jnp.take_along_axis(\n        x, i,\n        {_PROMISE},\n"
                     "    )\n",
    "a comment after the comma before": _TAL + f"y = jnp.take_along_axis(x, i,  # c\n    # d\n    {_PROMISE},\n)\n",
    "the only argument": _TAL + f"y = jnp.take_along_axis(\n    {_PROMISE},\n)\n",
    "a positional mode": _TAL + "y = jnp.take_along_axis(\n    x,\n    i,\n    0,\n    'promise_in_bounds',\n)\n",
    "a dedented argument": _TAL + f"def f(x, i):\n    return jnp.take_along_axis(\n  x, i,\n  {_PROMISE},\n    )\n",
    "a bracket after it on its line": _TAL + f"y = f(jnp.take_along_axis(x, i, {_PROMISE}), [1,\n" + " " * 57 + "2])\n",
    "two calls on lines": _TAL + f"y = (jnp.take_along_axis(x, i, {_PROMISE}),\n     jnp.take_along_axis(\n"
                          f"         x, i,\n         {_PROMISE},\n     ))\n",
}
JAX202_SETTINGS_DECIDED = {
    "the promise mode below the keyword's release": (LOW_MIN, _TAL + "y = jnp.take_along_axis(x, i, 0, "
                                                              "mode='promise_in_bounds')\n"),
}
JAX202_UNDECIDED = {
    "wrap_negative_indices=None": _TAL + "y = jnp.take_along_axis(x, i, 0, mode='clip', wrap_negative_indices=None)\n",
    "a parenthesized mode": _TAL + "y = jnp.take_along_axis(x, i, 0, mode=(m))\n",
    "the promise mode in parentheses": _TAL + "y = jnp.take_along_axis(x, i, 0, mode=('promise_in_bounds'))\n",
    "a continuation before the last argument": _TAL + f"y = jnp.take_along_axis(x, i, \\\n    {_PROMISE},)\n",
    "the argument before in parentheses": _TAL + f"y = jnp.take_along_axis(x, (i),\n    {_PROMISE},\n)\n",
    # (``AstView`` gives up on a ``\r``: ``ast`` ends a line there)
    "CRLF line endings": _TAL.replace("\n", "\r\n") + f"y = jnp.take_along_axis(\r\n    x,\r\n    {_PROMISE},\r\n)\r\n",
    "a mode with a comment": _TAL + "y = jnp.take_along_axis(x, i, 0, mode=modes[  # c\n    0])\n",
}
# JAX205 (no fix): every call read from ``ast``.
JAX205 = rule_by_code("JAX205")
JAX205_DECIDED = {
    "names, every axis given": _TAL + "def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):\n"
                                "    return jnp.cross(x1, x2, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)\n",
    "two 2-vectors": _TAL + "z = jnp.cross([1.0, 2.0], (3, -4))\n",
    "a constructor, keywords": "import numpy as np\n" + _TAL + "z = jnp.cross(b=np.asarray([[1, 2], [3, 4]]), "
                                "a=jnp.array([1j, 2]))\n",
    "a constructor with ndmin, or a dtype": "import numpy as np\n" + _TAL + "z = jnp.cross(np.array([1, 2], ndmin=2), "
                                            "u)\nw = jnp.cross(np.array([1, 2], float), u)\n",
    "axis and axisa": _TAL + "z = jnp.cross([[1, 2, 3], [4, 5, 6]], v, axisa=0)\nw = jnp.cross([[1, 2, 3]] * 2, v, "
                      "axis=-2)\n",
    "a literal axis only": _TAL + "z = jnp.cross([1, 2], v, axisa=k)\nw = jnp.cross([1, 2], v, axis=+1)\n"
                           "y = jnp.cross([1, 2], v, axisa=None)\nx = jnp.cross([1, 2], v, axis=None)\n",
    "3-vectors, a starred element, booleans": _TAL + "z = jnp.cross([1, 2, 3], v)\nw = jnp.cross([*p], v)\n"
                                              "y = jnp.cross([True, 2], v)\n",
    "noqa and compat code": _TAL + "z = jnp.cross([1, 2], v)  # noqa: JAX205\ntry:\n    w = jnp.cross([1, 2], v)\n"
                            "except AttributeError:\n    pass\n",
}
JAX205_DECIDED["an import in a function"] = "def f(v):\n    import jax.numpy as jnp\n    return jnp.cross([1, 2], v)\n"
JAX205_UNDECIDED = {
    "a star import": "from jax.numpy import *\nz = cross([1, 2], v)\n",
}
# JAX102: a file that spells no option as a string, an attribute or a keyword has no finding.
JAX102 = rule_by_code("JAX102")
JAX102_DECIDED = {
    "an option's name as a variable": "import jax\nfor jax_array, t in zip(a, b):\n    f(jax_array)\n"
                                      "def _make_jax_array(jax_array=None):\n    return jax_array\n",
    "longer spellings": "import jax\njax.config.update('jax_array_x', True)\nx = conv.jax_array_to_torch(y)\n"
                        "s = 'the jax_array option'\n",
    # A bare option's name as a keyword: the visit reads a keyword's name only as a ``JAX`` environment variable or
    # a compiler option (the corpus: recurrentgemma, levanter pass ``check_rep=False`` to ``shard_map``).
    "a bare option as a call's keyword": "import jax\nfrom jax.experimental.shard_map import shard_map\n"
                                         "f = shard_map(g, mesh=m, in_specs=p, out_specs=p, check_rep=False)\n"
                                         "def h(x, check_rep=True):\n    return run(x, check_rep=check_rep)\n",
    "a bare option as a keyword to os.environ.update and dict": "import os\nimport jax\n"
                                                                "os.environ.update(check_rep='1', CHECK_REP='1')\n"
                                                                "f = jax.jit(g, compiler_options=dict(check_rep=1))\n",
    "a lower-case variable as a keyword to os.environ.update": "import os\nos.environ.update(jax_array='1')\n",
    # a string no setting reads: a list's element, a later argument, a subscript read, a comparison (jumanji's
    # observation fields, jax-md's ``getattr(FLAGS, 'jax_test_dut', None)``)
    "an option's name where no setting reads a string":
        "import jax\nfrom collections import namedtuple\nObs = namedtuple('Obs', ['jax_array', 'other'])\n"
        "assert isinstance(obs['jax_array'], jax.Array)\nd = getattr(FLAGS, 'jax_test_dut', None)\n"
        "if key == 'jax_array':\n    pass\nprint(f'{x}jax_array')\nobs = {'jax_array': x}\nd['jax_array'] = y\n",
    "a variable not in capitals, stored to": "import os\nos.environ['Jax_Array'] = '1'\n",
}
# JAX102's settings, decided from ``ast`` (``AstConfigAccess``): the options without a verified default (no fix)
JAX102_SETTINGS_DECIDED = {
    "an update": "import jax\njax.config.update('jax_array', True)\n",
    "a read": "import jax\nok = jax.config.jax_array\n",
    "an update by keyword": "import jax\njax.config.update(name='jax_array', val=True)\n",
    "an environment variable stored to": "import os\nos.environ['JAX_ARRAY'] = '1'\n",
    "an environment variable set by a call": "import os\nos.environ.setdefault('JAX_ARRAY', '1')\n"
                                             "os.putenv('JAX_ARRAY', '1')\n",
    "an environment dict": "import os\nos.environ.update({'JAX_ARRAY': '1', **other, 'X': 2})\n",
    "an unusual case that lowers to a flag": "import os\nos.environ['JAX_ARRAY'.title()] = '1'\n",
    "writes": "import jax\njax.config.jax_array = True\njax.config.jax_array += 1\njax.config.jax_array: bool = True\n"
              "a = jax.config.jax_array = False\njax.config.jax_array, b = 1, 2\ndel jax.config.jax_array\n",
    "a bare option and a catalogue option": "import jax\njax.config.update('check_rep', False)\n"
                                            "jax.config.update('jax_enable_memories', True)\n",
    "config imported three ways": "from jax import config\nconfig.update('jax_array', True)\n"
                                  "from jax.config import config as c2\nc2.update('jax_array', 1)\n"
                                  "import jax.config\nx = jax.config.jax_array\n",
    "an alias in a function, and self.cfg": "import jax\ndef setup():\n    cfg = jax.config\n"
                                              "    cfg.update('jax_array', True)\n    return cfg.jax_array\n"
                                              "class R:\n    def __init__(self):\n        self.cfg = jax.config\n"
                                              "    def go(self):\n        self.cfg.update('jax_array', True)\n",
    "update on a dict and a parameter": "import jax\nd = {}\nd.update('jax_array', 1)\ndef f(cfg):\n"
                                        "    cfg.update('jax_array', 1)\n",
    "not jax.config": "from absl import flags\nflags.FLAGS.jax_array\nimport os\n"
                      "os.environ['jax_array'] = '1'\nv = os.environ.get('JAX_ARRAY')\n",
    "compat code": "import jax\nif hasattr(jax.config, 'jax_array'):\n    jax.config.update('jax_array', True)\n"
                   "try:\n    jax.config.update('jax_array', True)\nexcept AttributeError:\n    pass\n",
    "star import": "from jax import *\nconfig.update('jax_array', True)\n",
    "a continuation line and a comment": "import jax\njax.config.update(\n    'jax_array',  # gone\n    True)\n"
                                         "x = f(a,\n      jax.config.jax_array)\n",
    "a project's own compile, and re.compile": "import jax, re\nclass C:\n"
                                                "    def compile(self, f, compiler_options=None):\n"
                                                "        return f\n    def b(self, f):\n"
                                                "        return self.compile(f, compiler_options={'x': 1})\n"
                                                "p = re.compile('jax_array')\n",
    "a receiver returned by the module's function": "import jax\ndef config():\n    return jax.config\n"
                                                    "cfg = config()\ncfg.update('jax_array', True)\n",
}
JAX102_SETTINGS_AT_A_TARGET = "import jax\njax.config.update('jax_pallas_use_mosaic_gpu', True)\n"
JAX102_UNDECIDED = {
    "an environment keyword": "import os\nos.environ.update(JAX_ARRAY='1')\n",
    "an environment keyword among option keywords": "import os\nf = shard_map(g, check_rep=False)\n"
                                                    "os.environ.update(JAX_ARRAY='1')\n",
    "a compiler option keyword": "import jax\nf = jax.jit(g, compiler_options=dict(memory_fitting_effort=0.5))\n",
    "a compiler option": "import jax\nf = jax.jit(g, compiler_options={'exec_time_optimization_effort': 0.5})\n",
    "a compiler options dict through a name": "import jax\nopts = {'exec_time_optimization_effort': 0.5}\n"
                                              "f = jax.jit(g, compiler_options=opts)\n",
    "an option whose default is known, set to it": "import jax\n"
                                                   "jax.config.update('jax_memory_fitting_effort', 0.0)\n",
    "an option whose default is known, set to another value": "import jax\n"
                                                              "jax.config.update('jax_memory_fitting_effort', 1)\n",
}
# JAX508: no member call (of a shape it reports) on, and no ``isinstance`` of, a value the tracker may hold.
JAX508 = rule_by_code("JAX508")
JAX503 = rule_by_code("JAX503")
_FLAX = "import flax.linen as nn\n"
JAX508_DECIDED = {
    "a state's attribute copied, kwargs popped": _FLAX + "def step(state, x, **kwargs):\n"
                                                 "    new = state.model_state.copy({'batch_stats': s})\n"
                                                 "    auc = kwargs.pop('auc', False)\n"
                                                 "    _, new_state = model.apply(v, x, mutable=['batch_stats'])\n",
    "shapes a dict shares": _FLAX + "variables = model.init(rng, x)\nv = variables.copy()\nw = variables.pop(k)\n"
                            "u = variables.pop(k, None)\nz = variables.copy(**kw)\n",
    "attributes and other calls": _FLAX + "a = self.variables.unfreeze()\nb = make().pretty_repr()\n"
                                  "c = isinstance(self.params, dict)\nd = state.opt.params.unfreeze()\n",
    "the file keeps the FrozenDict": _FLAX + "flax.config.update('flax_return_frozendict', True)\n"
                                     "variables = model.init(rng, x)\nprint(variables.pretty_repr())\n",
    "no flax import": "variables = model.init(rng, x)\nprint(variables.pretty_repr())\n",
    "a TrainState file without init: members of other values": _FLAX + "from flax.training import train_state\n"
        "def f(state: train_state.TrainState, p):\n    a = p.unfreeze()\n    b = state.opt_state.copy({})\n"
        "    c = state.params.copy()\n    return isinstance(p, dict)\n",
    "a state field replaced, not created (vmoe)": _FLAX + "from flax.core import FrozenDict\n"
        "def f(state: T, rngs):\n    state = state.replace(rngs=rngs)\n    ok = isinstance(state.rngs, FrozenDict)\n"
        "    return model.init(r, x)\n",
    # JAX503's shape (``_reported_by_jax503_or_jax504``): a pop of one ``SimpleString`` assigned, on init's result
    "JAX503's pop of a name from init (uncertainty-baselines)": _FLAX + "def init(rng):\n"
        "    variables = model.init(rng, x, train=False)\n    states, params = variables.pop('params')\n"
        "    del variables\n    return flax.core.unfreeze(params), states\n",
    "JAX503's pop of an init call, a bytes or parenthesized key": _FLAX + "a, b = model.init(rng, x).pop(b'params')\n"
        "v = model.init(rng, x)\n[c, d] = v.pop((\n    'params'))\ne, f = v.pop(\"\"\"params\"\"\")\n",
    "a pop of init's result into a starred pair": _FLAX + "v = model.init(rng, x)\na, *b = v.pop('params' 'x')\n",
}
# a call on a callee with parentheses in its text: ``AstView.span`` does not place it
JAX508_UNDECIDED = {
}
# findings (``flax`` unbound here: withheld fixes, but ``isinstance``'s), decided from ``ast`` as libcst decides them
JAX508_FINDINGS_DECIDED = {
    "a name": _FLAX + "variables = model.init(rng, x)\nprint(variables.pretty_repr())\n",
    "a state's params": _FLAX + "state = TrainState.create(apply_fn=f, params=model.init(r, x), tx=t)\n"
                        "p = state.params.unfreeze()\n",
    "isinstance": _FLAX + "from flax.core import FrozenDict\nv = model.init(rng, x)\nok = isinstance(v, FrozenDict)\n",
    "an annotated state's params": _FLAX + "from flax.training import train_state\n"
                                   "def f(state: train_state.TrainState):\n    p = state.params\n"
                                   "    return p['Dense_0'].unfreeze()\n",
    "a create field": _FLAX + "state = S.create(params=p, stats=model.init(r, x))\nb = state.stats.unfreeze()\n",
    "an apply pair through a name": _FLAX + "out = model.apply(v, x, mutable=True)\nb = out[1].unfreeze()\n",
    "an annotated state's params passed on as another field": _FLAX + "from flax.training import train_state\n"
        "def f(state: train_state.TrainState):\n    s = S.create(stats=state.params)\n    return s.stats.unfreeze()\n",
    # not JAX503's shape: JAX508 reports these pops
    "a pop of a joined key": _FLAX + "v = model.init(rng, x)\na, b = v.pop('par' 'ams')\n",
    "a pop of an f-string key": _FLAX + "v = model.init(rng, x)\na, b = v.pop(f'params')\n",
    "a pop subscripted": _FLAX + "v = model.init(rng, x)\nparams = v.pop('params')[1]\n",
    "a pop of a name not only from init": _FLAX + "v = model.init(rng, x)\nif c:\n    v = v.copy({})\n"
        "a, b = v.pop('params')\n",
    "a pop of a state's params": _FLAX + "state = TrainState.create(apply_fn=f, params=model.init(r, x), tx=t)\n"
        "a, b = state.params.pop('Dense_0')\n",
    "an init call": _FLAX + "print(model.init(rng, x).pretty_repr())\n",
    "a subscript of a pair": _FLAX + "print(model.init_with_output(rng, x)[1].pretty_repr())\n",
    "a copy of a subscript": _FLAX + "v = model.init(rng, x)\nprint(v['params'].copy({}).pretty_repr())\n",
}
# Names only imports bind, in several scopes or to several things: resolved by scope as ``NameResolver`` does
# (``AstView.qualified_name``); JAX101/JAX402 skip an import with a fix in compat code, as the libcst path drops it.
CATALOGUE_RULES = [rule_by_code("JAX101"), rule_by_code("JAX402")]
JAX501 = rule_by_code("JAX501")
_OPTIMIZERS = "try:\n    from jax.example_libraries import optimizers\nexcept ModuleNotFoundError:\n" \
              "    from jax.experimental import optimizers\n"
NAMES_DECIDED = {
    "an import and an assignment": ((JAX501,), "import flax\ndef f():\n    flax = None\n    return flax.optim\n"),
    "imported in functions only": (CATALOGUE_RULES, "def f():\n    import jax\n    jax.config.update('x', 1)\n"
                                   "def g():\n    import jax\n    from jax import config as jax_config\n"
                                   "    return jax.tree_map(f, x)\n"),
    "bound to two modules in a try": (CATALOGUE_RULES, "try:\n    from jax.extend import linear_util as lu\n"
                                      "except ImportError:\n    from jax import linear_util as lu\n"
                                      "w = lu.wrap_init(f)\n"),
    "a renamed module imported in compat code": (CATALOGUE_RULES, _OPTIMIZERS + "opt = optimizers.adam(1e-3)\n"
                                                 "@optimizers.optimizer\ndef sgd(step):\n    pass\n"),
    "an import in the function, a use outside": (CATALOGUE_RULES, "def f():\n    import jax\n"
                                                  "x = jax.tree_map(f, x)\n"),
    "module and function imports of different things": (
        (JAX501,), "import flax.optim as opt\ndef f():\n    import mylib as opt\n    return opt.Adam\n"
                   "class A:\n    import os as opt\n    def g(self):\n        return opt.Adam\n"
                   "    b = [opt.x for _ in opt.y]\n"),
    "scopes: decorators, defaults, a lambda, a comprehension": (
        (JAX501,), "import flax\ndef f(a=flax.optim.Adam):\n    import os as flax\n    @flax.optim.x\n"
                   "    def g(b=flax.optim.Adam):\n        return [flax.optim.SGD for flax.x in flax.optim.y]\n"
                   "    h = lambda c=flax.optim.Adam: flax.optim.Adam\n"),
}
NAMES_UNDECIDED = {
    "a builtin's name imported in a function": ((JAX501,), "def f():\n    import flax as open\nx = open.optim\n"),
}
# JAX103: a name bound to a list somewhere, passed where an array is wanted in a scope that binds it otherwise.
JAX103 = rule_by_code("JAX103")
_LISTS = _TAL + "def build(v):\n    m = [[] for _ in v]\n    pvals = []\n    return m, pvals\n"
JAX103_DECIDED = {
    "a parameter": _LISTS + "def root(m):\n    return 1.0 / jnp.sqrt(m)\nf = lambda m: jnp.sqrt(m)\n",
    "unpacked, a loop target, augmented": _LISTS + "def test():\n    pvals, err = stats()\n"
                                          "    assert jnp.min(pvals) > 0\n    for m in ms:\n        jnp.sum(m)\n"
                                          "class A:\n    m: int\n    x = jnp.sum(m)\n"
                                          "def g():\n    m += 1\n    return jnp.sum(m)\n",
}
JAX103_UNDECIDED = {
    "a list in the same scope": _LISTS + "def test():\n    pvals = [1, 2]\n    return jnp.min(pvals)\n",
    "a list in the enclosing scope": _LISTS + "def test():\n    pvals = [1, 2]\n    def inner():\n"
                                     "        return jnp.min(pvals)\n",
    "made global": _LISTS + "def test():\n    global pvals\n    pvals, err = stats()\n    return jnp.min(pvals)\n",
    "a walrus": _LISTS + "def test():\n    [(pvals := p) for p in ps]\n    return jnp.min(pvals)\n",
}
# JAX103: pjit's removed keywords renamed (a fix of one edit per keyword), or the fix withheld.
_PJIT = "from functools import partial\nfrom jax.experimental.pjit import pjit\nfrom jax.sharding import PartitionSpec as P\n"
JAX103_PJIT_FIXED = {
    "both keywords": _PJIT + "f = pjit(g, in_axis_resources=P('x'), out_axis_resources=None)\n",
    "aligned to the bracket": _PJIT + "f = pjit(g,\n         in_axis_resources=P('x'),\n         out_axis_resources=None,\n"
                              "         donate_argnums=(0,))\n",
    "one keyword, in a function": _PJIT + "def step(g):\n    return pjit(\n        g,\n"
                                  "        out_axis_resources=P('x'),  # why\n    )\n",
}
# a decorator's edit: ``_fix`` leaves a compound statement's header to libcst (but for a fix withheld: no edit)
JAX103_PJIT_IN_A_HEADER = {
    "partial in a decorator": _PJIT + "@partial(pjit, in_axis_resources=(P('x'),), out_axis_resources=P('x'))\n"
                              "def f(x):\n    return x\n",
}
JAX103_PJIT_UNFIXED = {
    "the new keyword passed too": _PJIT + "f = pjit(g, in_axis_resources=P('x'), in_shardings=P('x'))\n",
}
# JAX401 (its fix withheld by the min version): a ``with`` item whose name the scope binds in a way the inference
# never reads as a mesh, or a call of a local function whose result it never reads as one.
JAX401 = rule_by_code("JAX401")
LOW_JAX103 = replace(Settings(), explicit_min_version=Version("0.4.1"), min_version_source="test")
LOW_JAX401 = replace(Settings(), explicit_min_version=Version("0.4.20"), min_version_source="test")
_MESH = "from jax.sharding import Mesh\n"
JAX401_DECIDED = {
    "a for target": _MESH + "for mesh in [Mesh(d, 'x')]:\n    with mesh:\n        pass\n",
    "a parameter, then assigned": _MESH + "def f(mesh=None):\n    if mesh is None:\n"
                                  "        mesh = Mesh(d, 'x')\n    with mesh:\n        pass\n",
    "an unpacking": _MESH + "mesh, other = Mesh(d, 'x'), 1\nwith mesh:\n    pass\n",
    "an unpacking in a method": _MESH + "class T:\n    def test(self):\n        mesh, params = self.data()\n"
                                "        with mesh:\n            pass\n    def other(self):\n"
                                "        mesh = Mesh(d, 'x')\n",
    "a starred parameter, an augmented name": _MESH + "def f(*mesh):\n    with mesh:\n        pass\n"
                                              "def g(m):\n    m += 1\n    with m:\n        pass\n"
                                              "def h():\n    def mesh():\n        pass\n    with mesh:\n"
                                              "        pass\n",
    "an annotated parameter assigned another value": "import haliax as hax\n" + _MESH + "class L:\n"
                                                     "    def __init__(self, mesh: Mesh | None = None):\n"
                                                     "        if mesh is None:\n"
                                                     "            mesh = hax.partitioning._get_mesh()\n"
                                                     "        with mesh:\n            pass\n",
    "a context manager of the file": "import jax\nfrom contextlib import contextmanager\n@contextmanager\n"
                                     "def spec(arr: jax.Array):\n    yield 1\nwith spec(a) as s:\n    pass\n"
                                     "async def make():\n    return Mesh(d, 'x')\nwith make():\n    pass\n"
                                     "def setup():\n    jax.config.update('x', 1)\nwith setup():\n    pass\n",
    # compat code: its finding is dropped whatever the name holds, so the inference need not follow it (orbax)
    "a name behind a feature test": "import jax\nfrom typing import cast\ndef load(s):\n"
                                    "    local_mesh = cast(jax.sharding.NamedSharding, s).mesh\n"
                                    "    if hasattr(jax, 'set_mesh'):\n        with jax.set_mesh(local_mesh):\n"
                                    "            pass\n    else:\n        with local_mesh:\n            pass\n"
                                    "    try:\n        with local_mesh:\n            pass\n"
                                    "    except AttributeError:\n        pass\n",
}
JAX401_UNDECIDED = {
    "a name outside the feature test": "import jax\nfrom typing import cast\ndef load(s):\n"
                                       "    local_mesh = cast(jax.sharding.NamedSharding, s).mesh\n"
                                       "    with local_mesh:\n        pass\n",
    # (an annotated parameter is decided: ``tests/test_ast_findings.py``)
    "an unpacking with a plain target": _MESH + "mesh = (a, mesh) = x\nwith mesh:\n    pass\n",
    "a with target": _MESH + "with Mesh(d, 'x') as (mesh, b):\n    with mesh:\n        pass\n",
    # (a call of the module's own function is decided: ``tests/test_ast_findings_jax401_reach.py``)
}

DECIDED_CASES = {
    **{f"names: {name}": (rules, None, source) for name, (rules, source) in NAMES_DECIDED.items()},
    "names: an import in a function": ((JAX501,), None, "def f():\n    import flax\n    return flax.optim.Adam\n"),
    **{f"JAX103 {name}": ((JAX103,), None, source) for name, source in JAX103_DECIDED.items()},
    **{f"JAX103 pjit: {name}": ((JAX103,), None, source) for name, source in JAX103_PJIT_FIXED.items()},
    **{f"JAX103 pjit below the new keywords: {name}": ((JAX103,), LOW_JAX103, source)
       for name, source in {**JAX103_PJIT_FIXED, **JAX103_PJIT_IN_A_HEADER}.items()},
    **{f"JAX103 pjit: {name}": ((JAX103,), None, source) for name, source in JAX103_PJIT_UNFIXED.items()},
    **{f"JAX401 {name}": ((JAX401,), LOW_JAX401, source) for name, source in JAX401_DECIDED.items()},
    **{f"JAX201 {name}": ((JAX201,), None, source) for name, source in JAX201_DECIDED.items()},
    **{f"JAX202 {name}": ((JAX202,), None, source) for name, source in JAX202_DECIDED.items()},
    **{f"JAX202 {name}": ((JAX202,), settings, source) for name, (settings, source) in JAX202_SETTINGS_DECIDED.items()},
    **{f"JAX202 fix {name}": ((JAX202,), None, source) for name, source in JAX202_FIXES_DECIDED.items()},
    **{f"JAX102 {name}": ((JAX102,), None, source) for name, source in JAX102_DECIDED.items()},
    **{f"JAX102 settings: {name}": ((JAX102,), None, source) for name, source in JAX102_SETTINGS_DECIDED.items()},
    **{f"JAX102 settings at the target {target}": ((JAX102,), replace(Settings(), target_version=Version(target)),
                                                   JAX102_SETTINGS_AT_A_TARGET) for target in ("0.11.1", "0.11.2")},
    **{f"JAX508 {name}": ((JAX508,), None, source) for name, source in JAX508_DECIDED.items()},
    **{f"JAX508 {name}": ((JAX508,), None, source) for name, source in JAX508_FINDINGS_DECIDED.items()},
    **{f"JAX503+JAX508 {name}": ((JAX503, JAX508), None, source) for name, source in JAX508_DECIDED.items()
       if name.startswith("JAX503's")},
    **{f"JAX205 {name}": ((JAX205,), None, source) for name, source in JAX205_DECIDED.items()},
    **{f"JAX205 {name}, removed at the target": ((JAX205,), replace(Settings(), target_version=Version("0.12.0")),
                                                 source) for name, source in JAX205_DECIDED.items()},
}
UNDECIDED_CASES = {
    **{f"names: {name}": (rules, None, source) for name, (rules, source) in NAMES_UNDECIDED.items()},
    **{f"JAX103 {name}": ((JAX103,), None, source) for name, source in JAX103_UNDECIDED.items()},
    **{f"JAX103 pjit: {name}": ((JAX103,), None, source) for name, source in JAX103_PJIT_IN_A_HEADER.items()},
    **{f"JAX401 {name}": ((JAX401,), LOW_JAX401, source) for name, source in JAX401_UNDECIDED.items()},
    **{f"JAX201 {name}": ((JAX201,), None, source) for name, source in JAX201_UNDECIDED.items()},
    **{f"JAX202 {name}": ((JAX202,), None, source) for name, source in JAX202_UNDECIDED.items()},
    **{f"JAX205 {name}": ((JAX205,), None, source) for name, source in JAX205_UNDECIDED.items()},
    **{f"JAX102 {name}": ((JAX102,), None, source) for name, source in JAX102_UNDECIDED.items()},
    **{f"JAX508 {name}": ((JAX508,), None, source) for name, source in JAX508_UNDECIDED.items()},
}
EXAMPLES = [(rule, example) for rule in (JAX102, JAX202, JAX205, JAX508) for example in (*rule.VALID, *rule.INVALID)]


@pytest.mark.parametrize("rules,settings,source", list(DECIDED_CASES.values()), ids=list(DECIDED_CASES))
def test_decided_from_ast_exactly_as_libcst(rules, settings, source):
    decided = ast_decided(source, rules, settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, rules, settings)


@pytest.mark.parametrize("rules,settings,source", list(UNDECIDED_CASES.values()), ids=list(UNDECIDED_CASES))
def test_undecidable_cases_go_to_libcst(rules, settings, source):
    assert ast_decided(source, rules, settings) is None


def test_jax201_undecided_names_are_findings():
    """Not vacuous: the undecided names are findings of the libcst visit (but for the loop: a carry the view does
    not follow)."""
    for name, source in JAX201_UNDECIDED.items():
        if name != "a loop and a bound call":
            assert libcst_findings(source, [JAX201]), name


@pytest.mark.parametrize("rule,example", EXAMPLES,
                         ids=[f"{rule.code}-{index}" for index, (rule, _) in enumerate(EXAMPLES)])
def test_rule_examples_both_ways(rule, example):
    """Every example of the rules made to decide here: decided exactly as libcst, or undecided; never decided where
    a finding has a fix."""
    settings = example_settings(rule, example)
    if not rule.applies_to(settings):
        return  # the engine drops the rule before it asks
    expected = libcst_findings(example.code, [rule], settings)
    decided = ast_decided(example.code, [rule], settings)
    if any(finding["fix"] for finding in expected) and rule not in (JAX508, JAX202):  # their fixes: decided on ast
        assert decided is None, "a finding with a fix needs libcst"
    elif decided is not None:
        assert decided == expected


def test_jax202_cases_are_not_vacuous():
    found = {name: libcst_findings(source, [JAX202]) for name, source in JAX202_DECIDED.items()}
    assert {name for name, findings in found.items() if findings} == {"a non-literal mode", "an import in a function"}
    assert len(found["a non-literal mode"]) == 2 and "(modes[\n    0] != " in found["a non-literal mode"][1]["message"]
    (settings, source), = JAX202_SETTINGS_DECIDED.values()
    (withheld,) = libcst_findings(source, [JAX202], settings)
    assert withheld["fix_withheld"] and not withheld["fix"]
    for name, source in JAX202_UNDECIDED.items():
        assert libcst_findings(source, [JAX202]), name
    for name, source in JAX202_FIXES_DECIDED.items():
        findings = libcst_findings(source, [JAX202])
        assert findings and all(finding["fix"] for finding in findings), name
    (fix,) = libcst_findings(JAX202_FIXES_DECIDED["one argument a line"], [JAX202])
    assert fix["fix"]["edits"][0]["content"] == ",\n    wrap_negative_indices=False"
    (fix,) = libcst_findings(JAX202_UNDECIDED["CRLF line endings"], [JAX202])
    assert fix["fix"]["edits"][0]["content"] == ",\r\n    wrap_negative_indices=False"


def test_jax205_cases_are_not_vacuous():
    found = {name: libcst_findings(source, [JAX205]) for name, source in JAX205_DECIDED.items()}
    counts = {name: len(findings) for name, findings in found.items()}
    assert counts == {"names, every axis given": 0, "two 2-vectors": 1, "a constructor, keywords": 1,
                      "a constructor with ndmin, or a dtype": 1, "axis and axisa": 1, "a literal axis only": 1,
                      "3-vectors, a starred element, booleans": 0, "noqa and compat code": 0,
                      "an import in a function": 1}
    for name, source in JAX205_UNDECIDED.items():
        assert libcst_findings(source, [JAX205]), name


def test_jax102_undecided_cases_are_findings():
    for name, source in JAX102_UNDECIDED.items():
        assert libcst_findings(source, [JAX102]), name


def test_jax102_settings_cases_are_not_vacuous():
    """The settings decided from ``ast`` are the visit's findings, as many as the case says."""
    counts = {name: len(libcst_findings(source, [JAX102])) for name, source in JAX102_SETTINGS_DECIDED.items()}
    assert counts == {"an update": 1, "a read": 1, "an update by keyword": 1, "an environment variable stored to": 1,
                      "an environment variable set by a call": 2, "an environment dict": 1,
                      "an unusual case that lowers to a flag": 0, "writes": 6,
                      "a bare option and a catalogue option": 2,
                      "config imported three ways": 3, "an alias in a function, and self.cfg": 3,
                      "update on a dict and a parameter": 0, "not jax.config": 0, "compat code": 0, "star import": 1,
                      "a continuation line and a comment": 2, "a project's own compile, and re.compile": 0,
                      "a receiver returned by the module's function": 1}
    assert [len(libcst_findings(JAX102_SETTINGS_AT_A_TARGET, [JAX102], replace(Settings(), target_version=Version(t))))
            for t in ("0.11.1", "0.11.2")] == [0, 1]


def test_jax508_cases_are_not_vacuous():
    """The undecided cases are findings; the file that keeps the FrozenDict would be one but for ``applies``."""
    for name, source in JAX508_UNDECIDED.items():
        assert libcst_findings(source, [JAX508]), name
    assert not libcst_findings(JAX508_DECIDED["the file keeps the FrozenDict"], [JAX508])
    assert libcst_findings(JAX508_DECIDED["the file keeps the FrozenDict"].replace("flax_return_frozendict", "x"),
                           [JAX508])


def test_jax508_pops_left_to_jax503_are_its_findings():
    """Not vacuous: JAX503 reports the pops JAX508 leaves to it, and JAX508 reports them once the key is no
    ``SimpleString``."""
    for name, source in JAX508_DECIDED.items():
        if name.startswith("JAX503's"):
            pops = source.count(".pop(")
            assert [f["code"] for f in libcst_findings(source, [JAX503, JAX508])] == ["JAX503"] * pops, name
            assert len(libcst_findings(source.replace(".pop(", ".pop(f'x' + "), [JAX508])) == pops, name


SIMPLE_STRINGS = ["'k'", 'b"k"', "('k')", "'''k'''", r"r'\k'", "u'k'", "'k\\\nl'"]
NOT_SIMPLE_STRINGS = ["'k' 'l'", "('k'\n 'l')", "b'k' b'l'"]


@pytest.mark.parametrize("literal", SIMPLE_STRINGS + NOT_SIMPLE_STRINGS)
def test_simple_string_is_libcsts(literal):
    """``ast_calls.simple_string`` of a string constant's text answers as libcst's ``SimpleString``."""
    source = f"f({literal})\n"
    constant = ast.parse(source).body[0].value.args[0]
    argument = cst.parse_module(source).body[0].body[0].value.args[0].value
    assert simple_string(ast.get_source_segment(source, constant)) is isinstance(argument, cst.SimpleString)
    assert isinstance(argument, cst.SimpleString) is (literal in SIMPLE_STRINGS)


def test_name_cases_are_not_vacuous():
    found = {name: libcst_findings(source, rules) for name, (rules, source) in NAMES_DECIDED.items()}
    assert {name: len(findings) for name, findings in found.items()} == {
        "imported in functions only": 1, "bound to two modules in a try": 0,
        "a renamed module imported in compat code": 0, "an import in the function, a use outside": 0,
        "module and function imports of different things": 1,
        "scopes: decorators, defaults, a lambda, a comprehension": 1, "an import and an assignment": 0}
    # out of compat code the import is a finding with a fix
    (finding,) = libcst_findings(_OPTIMIZERS.replace("ModuleNotFoundError", "ValueError"), CATALOGUE_RULES)[-1:]
    assert finding["fix"]


def test_jax103_cases_are_not_vacuous():
    for name, source in JAX103_DECIDED.items():
        assert not libcst_findings(source, [JAX103]), name
    for name in ("a list in the same scope", "a list in the enclosing scope"):
        assert libcst_findings(JAX103_UNDECIDED[name], [JAX103]), name


def test_jax103_pjit_cases_are_findings_with_a_fix_unless_withheld():
    for name, source in {**JAX103_PJIT_FIXED, **JAX103_PJIT_IN_A_HEADER}.items():
        (finding,) = libcst_findings(source, [JAX103])
        assert finding["fix"], name
        (withheld,) = libcst_findings(source, [JAX103], LOW_JAX103)
        assert not withheld["fix"], name
    for name, source in JAX103_PJIT_UNFIXED.items():
        (finding,) = libcst_findings(source, [JAX103])
        assert not finding["fix"], name


# PEP 695 bounds: the resolver reads a bound's names in the parameters' scope (they were left unresolved: a removed
# name in a bound went unreported), and files with one go to libcst (the ports do not read bounds as the visitors do).
TYPE_BOUNDS = {
    "a function's": "import jax.numpy as jnp\ndef f[T: jnp.DeviceArray](x: T) -> T:\n    return x\n",
    "a class's": "import jax.numpy as jnp\nclass C[T: jnp.DeviceArray]:\n    pass\n",
    "a tuple of classes": "import jax.numpy as jnp\ndef f[T: (jnp.DeviceArray, int)](x):\n    return x\n",
}


@pytest.mark.parametrize("source", list(TYPE_BOUNDS.values()), ids=list(TYPE_BOUNDS))
def test_a_removed_name_in_a_type_parameters_bound_is_found_by_libcst(source):
    from test_ast_findings import CATALOGUE_RULES

    assert ast_decided(source, CATALOGUE_RULES) is None
    (finding,) = libcst_findings(source, CATALOGUE_RULES)
    assert finding["code"] == "JAX101" and "jax.numpy.DeviceArray" in finding["message"]


def test_ast_names_reads_a_bound_in_the_parameters_scope():
    from jaxlint.lint.ast_names import AstNames

    tree = ast.parse(TYPE_BOUNDS["a function's"])
    bound = tree.body[1].type_params[0].bound.value  # the ``jnp`` of the bound
    assert AstNames(tree).qualified_name(bound) == "jax.numpy"


def test_jax401_cases_are_not_vacuous():
    """The decided names are no meshes to the inference, but they would be, bound only by their plain assignment;
    some undecided ones are meshes."""
    for name, source in JAX401_DECIDED.items():
        assert not libcst_findings(source, [JAX401], LOW_JAX401), name
    assert libcst_findings(_MESH + "def f():\n    mesh = Mesh(d, 'x')\n    with mesh:\n        pass\n", [JAX401],
                           LOW_JAX401)


@pytest.mark.parametrize("case", ["an option's name as a variable", "a bare option as a call's keyword"])
def test_engine_skips_libcst_for_jax102(monkeypatch, case):
    """JAX102 has no names to gate on, but its gate parses the file: the engine decides on that tree."""
    from jaxlint.lint import engine
    from jaxlint.lint.engine import lint_source

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    monkeypatch.setattr(engine, "parse", no_libcst)
    source = JAX102_DECIDED[case]
    assert lint_source(source, "t.py", Settings(), rules=[JAX102]).diagnostics == []


def test_jax508_decided_findings_are_not_vacuous():
    """The JAX508 cases that went to libcst before are findings there, each with a fix (``isinstance``) or a withheld
    one (``flax`` is not bound)."""
    for name, source in {**JAX508_FINDINGS_DECIDED, **JAX508_UNDECIDED}.items():
        found = libcst_findings(source, [JAX508])
        assert found and all(finding["fix"] or finding["fix_withheld"] for finding in found), name
