"""Findings decided from ``ast`` (``jaxlint.lint.ast_findings``) are exactly the libcst visit's, or not decided.

Each case is linted twice: through the libcst visit (``whole=True``, no gates) and through ``ast_findings.decide``.
When ``decide`` answers, the diagnostics must be equal field by field (place, message, noqa, annotation flag). The
cases marked ``DECIDED`` must be answered: otherwise the fast path could silently stop working and still pass.
"""
from __future__ import annotations

import ast
import textwrap
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.version_pins import Bound, PinnedRange
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings

JAX501 = rule_by_code("JAX501")
CATALOGUE_RULES = [rule_by_code("JAX101"), rule_by_code("JAX402")]

DECIDED = {
    "rebound": "import flax\nflax = None\nx = flax.optim\n",
    "import": "import flax.optim\n",
    "import as": "import flax.deprecated.nn as old_nn\nfrom flax.optim import Adam\n",
    "two aliases": "import flax.nn, flax.optim\n",
    "from flax": "from flax import nn, optim\n",
    "from flax.optim one name": "from flax.optim import Momentum\n",
    "from flax.optim star": "from flax.optim import *\n",
    "parenthesized import": "from flax.optim import (\n    Adam,\n    Momentum,  # comment\n)\n",
    "attribute": "import flax\nopt = flax.optim.Momentum(learning_rate=0.1, beta=0.9)\n",
    "attribute in a call": "import flax\nopt = make(flax.optim.Adam, 1)\nprint (flax.optim.Adam)\n",
    "deprecated.nn chain": "import flax\nx = flax.deprecated.nn.Dense\n",
    "non-ASCII before": "import flax\ns = 'é€𝄞'; opt = flax.optim.Adam(1e-3)\n",
    "annotation, evaluated": "import flax\ndef f(opt: flax.optim.Optimizer) -> flax.optim.Optimizer:\n    return opt\n",
    "annotation, future": "from __future__ import annotations\nimport flax\ndef f(opt: flax.optim.Optimizer):\n"
                          "    return opt\n",
    "local annotation": "import flax\ndef f():\n    opt: flax.optim.Optimizer = make()\n",
    "class annotation": "import flax\nclass A:\n    opt: flax.optim.Optimizer\n",
    "try ImportError": "try:\n    from flax import optim\nexcept ImportError:\n    optim = None\n",
    "try other": "try:\n    from flax import optim\nexcept ValueError:\n    pass\n",
    "plain if": "import flax\nif use_adam:\n    opt = flax.optim.Adam(1)\nelse:\n    opt = flax.optim.Momentum(1)\n",
    "noqa": "import flax.optim  # noqa: JAX501\nimport flax.nn  # noqa\nfrom flax import optim\n",
    "decorator": "import flax\n@flax.optim.register\ndef f():\n    pass\n",
    "not flax": "from mylib import optim\nopt = optim.Adam(1e-3)\nimport flax\nx = flax.linen.Dense(3)\n",
    "relative": "from . import nn\nfrom .flax import optim\n",
    "import in a function": "def f():\n    import flax.optim\n",
    "continuation lines": "import flax\nx = make(\n    flax.optim.Adam,\n\n    # c\n    flax.optim.SGD)\n"
                          "y = make(a,  # c\n         flax.optim.Adam)\nz = [\n    flax.optim.Adam]\n",
    "unused flax name": "import jax\nflax = 1\nx = jax.numpy.ones(3)\n",
    "paren expression": "import flax\nif (flax.optim.Adam):\n    pass\n",
    "continuation line after its own parenthesis": "import flax\nx = (  # c\n    flax.optim.Adam)\n",
}
# ``if`` and ``and`` tests read as ``context._FeatureTestFinder`` reads them: compat code or not.
_FLAX = "import flax\n"
_ADAM = "    y = flax.optim.Adam\n"
FEATURE_TESTS = {
    "hasattr": "import flax\nif hasattr(flax, 'optim'):\n    x = flax.optim.Adam\n",
    "version and": "import flax\nok = flax.__version__ < '0.6' and flax.optim.Adam\n",
    "no feature test": _FLAX + "if x > 1:\n" + _ADAM,
    "hasattr of another module": _FLAX + "import os\nif hasattr(os, 'x'):\n" + _ADAM,
    "a version attribute of anything": _FLAX + "if foo.__version__ > 1:\n" + _ADAM,
    "a keyword named jax_version": _FLAX + "if f(jax_version=1):\n" + _ADAM,
    "a lambda parameter named jax_version": _FLAX + "if (lambda jax_version: 1)(2):\n" + _ADAM,
    "version() of the package": _FLAX + "from importlib.metadata import version\nif version(\"flax\") < \"0.6\":\n"
                                + _ADAM,
    "version() of another package": _FLAX + "from importlib.metadata import version\nif version('numpy') < '2':\n"
                                    + _ADAM,
    "a call given the module": _FLAX + "if get_version(flax) < (0, 6):\n" + _ADAM,
    "a call given another module": _FLAX + "import os\nif get_version(os) < (0, 6):\n" + _ADAM,
    "a test after the and": _FLAX + "ok = x > 1 and flax.optim.Adam\n",
    "three operands": _FLAX + "ok = hasattr(flax, 'optim') and x and flax.optim.Adam\n",
    "the and's first operand": _FLAX + "ok = flax.optim.Adam and hasattr(flax, 'optim')\n",
    "a conditional expression": _FLAX + "y = flax.optim.Adam if flax.__version__ < '0.6' else None\n",
    "elif": _FLAX + "if x:\n    pass\nelif hasattr(flax, 'optim'):\n" + _ADAM,
    # ``if TYPE_CHECKING:`` (``annotations.is_unevaluated``): its body is never run
    "type checking": "from typing import TYPE_CHECKING\nimport flax\nif TYPE_CHECKING:\n    x: flax.optim.Adam\n",
    "typing.TYPE_CHECKING": "import typing\nimport flax\nif typing.TYPE_CHECKING:\n" + _ADAM,
    "the else of TYPE_CHECKING": "import typing\nimport flax\nif typing.TYPE_CHECKING:\n    pass\nelse:\n" + _ADAM,
}
UNDECIDED = {
    "own parentheses": "import flax\nx = (flax.optim).Adam\n",
    "continuation line after a comment with a quote": "import flax\nx = make(  # don't\n    flax.optim.Adam)\n",
    "star": "from flax import *\nimport flax\nx = flax.optim\n",
    "concatenated package name": "import flax\nif version('fl' 'ax') < '0.6':\n    y = flax.optim.Adam\n",
    "hasattr with a keyword": "import flax\nif hasattr(flax, name='optim'):\n    y = flax.optim.Adam\n",
    "CRLF": "import flax\r\nx = flax.optim.Adam\r\n",
    "comment inside": "import flax\nx = flax.optim.Adam(\n)  # flax.optim\ny = [flax.  # c\n     optim]\n",
}

# JAX101 and JAX402 (``catalogue.symbols_ast``), linted together as the engine runs them.
CATALOGUE_DECIDED = {
    "a rebound root": "import jax\njax = None\nx = jax.numpy.DeviceArray\n",
    "removed class outside annotations": "import jax.numpy as jnp\nx = jnp.DeviceArray\n",
    "removed class through an attribute": "import jax.numpy as jnp\nx = jnp.DeviceArray.mro\n",
    "removed class as a base": "import jax\nclass A(jax.numpy.DeviceArray):\n    pass\n",
    "deprecated, no replacement": "import jax\njax.lax.psend(x, 'i', perm)\n",
    "removed, no replacement": "import jax\nx = jax.experimental.maps.thread_resources.env\n",
    "from-import, no replacement": "from jax.core import pytype_aval_mappings\n",
    "from-import, grouped": "from jax.experimental.maps import thread_resources, xmap\n",
    "import of a deprecated module": "import jax.experimental.pallas.ops.gpu.softmax\n",
    "import of a removed module, aliased": "import jax.experimental.maps as maps\nx = maps.xmap\n",
    "from a removed module": "from jax.experimental.maps import xmap\nfrom jax.experimental.pjit import pjit\n",
    "renamed call that would fail": "import jax\nv = jax.core.Var('', aval)\n",
    "noqa": "import jax.numpy as jnp  # noqa: F401\nx = jnp.DeviceArray  # noqa: JAX101\ny = jnp.DeviceArray\n",
    "an import in a try that binds a fallback": "try:\n    from jax.experimental.maps import xmap\nexcept ImportError:"
                                                "\n    xmap = None\nxmap(f)\n",
    "a used module from-import": "from jax.experimental import maps\nx = maps.thread_resources\n",
    "compat try": "import jax\ntry:\n    x = jax.numpy.DeviceArray\nexcept AttributeError:\n    x = None\n",
    "evaluated annotation of a removed module": "import jax\ndef f(x) -> jax.experimental.maps.xmap:\n"
                                                "    return x\n",
    "not jax": "import numpy as np\nx = np.DeviceArray\ns = str.join\nself.jax.numpy.DeviceArray\n",
    "non-ASCII before": "import jax.numpy as jnp\ns = 'é€𝄞'; x = jnp.DeviceArray\n",
}
# Renames decided with their fix (``symbols_ast._rename_fix``): spelled through the chain's root, no import to add,
# in a simple statement on one line.
CATALOGUE_FIX_DECIDED = {
    "a rename with a fix": "import jax\ny = jax.tree_map(f, x)\n",
    "a comment after": "import jax\ny = jax.tree_map(f, x)  # why\n",
    "two renames on a line": "import jax\nf(jax.tree_map, jax.tree_leaves)\n",
    "another module, loaded by import jax": "import jax\nm = jax.experimental.maps.Mesh(d, ('x',))\n",
    "an import of the new module": "import jax\nimport jax.extend.core\nj = jax.core.Jaxpr\n",
    "indented": "import jax\ndef f(x):\n    return jax.tree_map(g, x)\n",
    # a statement's first token after comment lines that quote code (mesh-transformer-jax): no continuation line
    "first in its statement, after comments with quotes": "import jax\ndef f(x):\n    g(\"x\")\n"
                                                          "    # g(\"y\", x)\n    jax.tree_map(g, x)\n",
    "non-ASCII before": "import jax\ns = 'é€𝄞'\ny = jax.tree_map(f, x)\n",
    # the same length: no line to realign, whatever the statement
    "a rename in a multi-line statement": "import jax\ny = jax.tree_map(\n    f, x)\n",
    "a rename in a compound statement's header": "import jax\nif jax.tree_map(f, x):\n    pass\n",
    "a rename after another statement on its line": "import jax\nx = 1; y = jax.tree_map(f, x)\n",
    # a longer rename: nothing below aligns to a bracket opened after it on its line
    "a longer rename before a hanging bracket": "import jax\nm = jax.experimental.maps.Mesh(\n    d, names)\n",
    "a longer rename in a call on its line": "import jax\nm = f(jax.experimental.maps.Mesh(d, n),\n      x)\n",
    "a longer rename, a comment after the bracket": "import jax\nm = jax.experimental.maps.Mesh(  # why\n"
                                                    "    d, names)\n",
    "a rename on a continuation line": "import jax\ny = f(a,\n      jax.tree_map(g, x),\n      b)\n",
    "a rename needing an import": "import jax\nj = jax.core.Jaxpr\n",
    # a longer rename before lines aligned to a bracket: realigned as ``EditBuilder`` realigns them
    "a longer rename before an aligned continuation": "import jax\nm = jax.experimental.maps.Mesh(d,\n"
                                                      + " " * 31 + "names)\n",
    "a longer rename before a string": "import jax\nm = jax.experimental.maps.Mesh(d, ('x',\n"
                                       "                                  'y'))\n",
    # an edit across lines (``EditBuilder`` realigns nothing for it)
    "a pallas dot on two lines": "import jax\nfrom jax.experimental import pallas as pl\nc = pl.dot(\n    a, b)\n",
    # an import nothing uses: removed (``unused_imports_ast``)
    "an unused module from-import": "from jax.experimental import maps\n",
    # ``array-type``: ``jax.Array`` in an annotation or a type check (``symbols_ast._array_type``)
    "an annotation with a fix": "import jax.numpy as jnp\ndef f(x: jnp.DeviceArray):\n    return x\n",
    "an isinstance check": "import jax.numpy as jnp\nok = isinstance(x, jnp.DeviceArray)\n",
    # a parenthesis before the node that is a tuple's or a larger expression's, not its own (optax, jax-md)
    "after a tuple's parenthesis": "import jax\ndef f(t, x):\n    return (jax.tree_unflatten(t, x),\n"
                                   "            y)\n",
    "after a tuple's parenthesis, on the next line": "import jax\nout = (\n    jax.tree_multimap(f, a, b), c)\n",
    "after a larger expression's parenthesis": "import jax\nu = (\n    jax.tree_multimap(f, a, b) if n else b)\n",
    "after an if's parenthesis": "import jax\nif (\n    x is not jax.tree_map  # c\n):\n    pass\n",
    "a longer rename after a tuple's parenthesis": "import jax\nm = (jax.experimental.maps.Mesh(d, n), 1)\n",
}
CATALOGUE_UNDECIDED = {
    # libcst gives a node the parentheses around it alone; its text holds them
    "a node in parentheses of its own": "import jax\ny = (jax.tree_map)(f, x)\n",
    "a node in parentheses of its own, on lines": "import jax\ny = (\n    jax.tree_map  # c\n)\n",
    "in parentheses of its own after comments with quotes": "import jax\ny = (\n    # g(\"y\")\n"
                                                            "    jax.tree_map)(f, x)\n",
    "a longer rename after another statement on its line": "import jax\n"
                                                            "x = 1; y = jax.experimental.maps.Mesh(d, 'x')\n",
    "a longer rename in a compound statement's header": "import jax\nif jax.experimental.maps.Mesh(d, 'x'):\n"
                                                         "    pass\n",
    "a rename spelled from jax": "from jax import core\nimport jax\ndef f(jax):\n    return core.get_aval(x)\n",
    "a type check through a shadowed isinstance": "import jax.numpy as jnp\nfrom m import isinstance\n"
                                                   "ok = isinstance(x, jnp.DeviceArray)\n",
    "a guarded from-import": "try:\n    from jax.experimental.maps import xmap\nexcept ImportError:\n    pass\n"
                             "xmap(f)\n",
    "cloud_tpu_init": "import jax.cloud_tpu_init\n",
    "positional-call from-import": "from jax.tree_util import tree_multimap\ny = tree_multimap(f, a, b)\n",
    "an index-update rewrite": "import jax\ny = jax.ops.index_update(x, 0, 1)\n",
    "an x64 switch in parentheses": "import jax\nwith (jax.experimental.enable_x64(True)):\n    pass\n",
}
# JAX103 (``ChangedSignature.findings_from_ast``): the calls whose findings have no fix.
JAX103 = rule_by_code("JAX103")
JAX103_DECIDED = {
    "pjit rename": "from jax.experimental.pjit import pjit\nf = pjit(g, in_axis_resources=P('x'))\n",
    "new keyword passed too": "import jax.numpy as jnp\ny = jnp.reshape(x, newshape=(2, 3), shape=(2, 3))\n",
    "pjit both spellings": "from jax.experimental.pjit import pjit\n"
                           "f = pjit(g, in_axis_resources=P('x'), in_shardings=P('x'))\n",
    "removed keyword, no rename": "import jax\ns = jax.ShapeDtypeStruct((2,), dtype, named_shape={})\n",
    "calls that cannot be flagged": "import jax.numpy as jnp\ndef helper(x, axis=0):\n    return x\n"
                                    "helper(a, axis=1)\nprint(a, b, c)\ny = jnp.sum(x)\nz = jnp.array(x, dtype)\n"
                                    "self.clip(x, a_min=0)\ndef run(a_min, **kw):\n    return jnp.clip(a, **kw)\n"
                                    "run(a_min=0)\ndef g():\n    xs = []\n    xs = jnp.stack(xs)\n"
                                    "    return jnp.sum(xs)\n",
    "noqa": "import jax.numpy as jnp\ny = jnp.reshape(x, newshape=(2, 3), shape=(2, 3))  # noqa: JAX103\n",
    "nested in a call": "import jax.numpy as jnp\nprint(jnp.reshape(x, newshape=(2, 3), shape=(2, 3)))\n",
    "partial of jax.jit": "import functools\nimport jax\n@functools.partial(jax.jit, backend='cpu')\ndef f(x):\n"
                          "    return x\n",
    "partial, new keyword passed too": "from functools import partial\nimport jax.numpy as jnp\n"
                                       "g = partial(jnp.reshape, newshape=(2,), shape=(2,))\n",
    "partial of pjit, both spellings": "from functools import partial\nfrom jax.experimental.pjit import pjit\n"
                                       "g = partial(\n    pjit, in_axis_resources=P('x'), in_shardings=P('x'))\n",
    "a multi-line call": "import jax.numpy as jnp\ny = jnp.reshape(\n    x,  # c\n    newshape=(2, 3),\n"
                        "    shape=(2, 3),\n)\n",
    # a list literal where an array is wanted: wrapped in ``jnp.asarray(...)`` (big_vision's ``jnp.mean([...])``)
    "a list literal": "import jax.numpy as jnp\ny = jnp.sum([1, 2])\n",
    "a list comprehension, more arguments": "import jax.numpy as jnp\ndef f(xs):\n"
                                            "    return jnp.mean([x for x in xs], axis=0), {}  # c\n",
    "a list over lines": "import jax\ny = jax.numpy.sum([\n    a,  # c\n    b,\n], axis=1)\n",
    "a list and a trailing comma": "import jax.numpy as jnp\ny = jnp.sum(\n    [1, 2],\n)\n",
    "a function imported by name": "from jax.numpy import sum as total\ny = total([1, 2])\n",
    # flax's nnx bridge test: only ``jnp.array``'s positional arguments are read through an alias
    "a local alias called with positional arguments": "import jax\ndot_general = jax.lax.dot_general\n"
                                                      "y = dot_general(a, b, dims, precision=p)\n",
}
JAX103_UNDECIDED = {
    "jnp.array positional": "import jax.numpy as jnp\ny = jnp.array(x, dtype, False)\n",
    "make_mesh(axis_shapes=)": "import jax\nm = jax.make_mesh(axis_shapes=(2,), axis_names=('x',))\n",
    "a tuple literal": "import jax.numpy as jnp\ny = jnp.sum((1, 2))\n",
    "a list in parentheses": "import jax.numpy as jnp\ny = jnp.sum(([1, 2]))\n",
    "a name bound to a list": "import jax.numpy as jnp\nxs = []\ny = jnp.sum(xs)\n",
    "a local alias": "import jax.numpy as jnp\nclip = jnp.clip\ny = clip(x, a_min=0)\n",
    "an alias of jnp.array": "import jax.numpy as jnp\narr = jnp.array\ny = arr(x, dtype, False)\n",
    "an alias of a function with changed keywords, passed one": "import jax\ndg = jax.lax.dot_general\n"
                                                                 "y = dg(a, b, dims, out_type=t)\n",
    "a helper's **kwargs": "import jax.numpy as jnp\ndef f(x, **kw):\n    return jnp.clip(x, **kw)\n"
                           "f(x, a_min=0)\n",
    "partial of a parenthesized function": "from functools import partial\nimport jax.numpy as jnp\n"
                                            "g = partial((jnp.reshape), newshape=(2,), shape=(2,))\n",
    "partial of a local alias": "from functools import partial\nimport jax.numpy as jnp\nr = jnp.reshape\n"
                                "g = partial(r, newshape=(2,), shape=(2,))\n",
    "parenthesized call": "import jax.numpy as jnp\ny = (jnp.reshape(x, newshape=(2, 3), shape=(2, 3)))\n",
}
# JAX201 (``TupleReturn.findings_from_ast``): files where no result of the TARGETS can be used as a list.
JAX201 = rule_by_code("JAX201")
JAX201_DECIDED = {
    "unpacked": "import jax.numpy as jnp\nxx, yy = jnp.meshgrid(x, y)\n[a, b] = jnp.broadcast_arrays(a, b)\n",
    "passed on and indexed": "import jax.numpy as jnp\ng = jnp.stack(jnp.meshgrid(x, y))\nh = jnp.meshgrid(x, y)[0]\n"
                             "f(*jnp.broadcast_arrays(a, b), k=jnp.meshgrid(x))\nfor g in jnp.meshgrid(x, y):\n"
                             "    pass\nself.grids = jnp.meshgrid(x, y)\nn = jnp.meshgrid(x, y).count(1)\n",
    "one-argument atleast_2d": "import jax.numpy as jnp\nx = jnp.atleast_2d(x)\n",
    # a star import, read as the resolver reads it: the project's module, or jax.numpy's results unpacked
    "a project's star import": "from mypkg.util import *\nimport jax.numpy as jnp\nxx, yy = jnp.meshgrid(x, y)\n"
                               "g = meshgrid(a)\ng.append(b)\n",
    "a star import of jax.numpy, unpacked": "from jax.numpy import *\nxx, yy = meshgrid(x, y)\n",
    "two star imports": "from jax.numpy import *\nfrom numpy import *\ng = meshgrid(x, y)\ng.append(z)\n",
}
JAX201_UNDECIDED = {
    "bound to a name": "import jax.numpy as jnp\ng = jnp.meshgrid(x, y)\ng.append(z)\n",
    "a list method": "import jax.numpy as jnp\njnp.meshgrid(x, y).append(z)\n",
    "item assignment": "import jax.numpy as jnp\njnp.meshgrid(x, y)[0] = z\n",
    "item of an item assigned": "import jax.numpy as jnp\njnp.meshgrid(x, y)[0][1] = z\n",
    "added": "import jax.numpy as jnp\ng = [z] + jnp.meshgrid(x, y)\n",
    "compared": "import jax.numpy as jnp\nok = jnp.meshgrid(x, y) == [a, b]\n",
    "isinstance": "import jax.numpy as jnp\nok = isinstance(jnp.meshgrid(x, y), list)\n",
    "returned": "import jax.numpy as jnp\ndef grids(x, y):\n    return jnp.meshgrid(x, y)\ngrids(x, y).append(z)\n",
    "a loop": "import jax\nimport jax.numpy as jnp\ninit = jnp.meshgrid(x, y)\nc, ys = jax.lax.scan(body, init, xs)\n",
    "walrus": "import jax.numpy as jnp\nif (g := jnp.meshgrid(x, y)):\n    g.append(z)\n",
    "a star import of jax.numpy, used as a list": "from jax.numpy import *\ng = meshgrid(x, y)\ng.append(z)\n",
    "isinstance under a star import": "from mypkg import *\nimport jax.numpy as jnp\n"
                                      "ok = isinstance(jnp.meshgrid(x, y), list)\n",
}
LOW_MIN = replace(Settings(), explicit_min_version=Version("0.4.20"), min_version_source="test")
# Each: (the settings, the source) where the min version decides whether there is a fix.
OLD_MIN = replace(Settings(), explicit_min_version=Version("0.3.25"), min_version_source="test")
CATALOGUE_SETTINGS_DECIDED = {
    "rename above the min version: withheld": (LOW_MIN, "import jax\nv = jax.core.Var(aval)\n"),
    "call limit at a low min version": (LOW_MIN, "import jax\nv = jax.core.Var('', aval)\n"),
}
# JAX401 (``MeshContextManager.findings_from_ast``): where the min version withholds the fix.
JAX401 = rule_by_code("JAX401")
JAX401_SETTINGS_DECIDED = {
    "a constructor call": (LOW_MIN, "import jax\nimport numpy as np\n"
                                    "with jax.sharding.Mesh(np.asarray(jax.devices()), ('d',)):\n    pass\n"),
    "a removed spelling, with other items": (LOW_MIN, "from jax.experimental import maps\n"
                                                      "with maps.Mesh(devices, ('x',)), open(f) as fh:\n    pass\n"),
    "other context managers": (LOW_MIN, "from jax.sharding import Mesh\nimport contextlib\n"
                                        "with Mesh(d, 'x') as m, self.assertRaises(E), contextlib.suppress(E):\n"
                                        "    pass\nwith tf.device('cpu'), lock:\n    pass\n"),
}
_MESH_IMPORT = "from jax.sharding import Mesh\n"
_ALIAS = "import jax\nMesh = jax.sharding.Mesh\n"  # how vmoe's tests spell it
# ``with mesh:`` where ``mesh`` is a local name: the inference's answer, mirrored where it is certain.
JAX401_NAMES_DECIDED = {
    # an annotated parameter: its annotation's kind, with the scope's other bindings
    "a parameter": "import jax\ndef f(mesh: jax.sharding.Mesh):\n    with mesh:\n        pass\n",
    "a parameter annotated Optional": "import typing\nimport jax\ndef f(mesh: typing.Optional[jax.sharding.Mesh] = None):\n"
                                      "    with mesh:\n        pass\n",
    "a parameter annotated otherwise": "import jax\ndef f(mesh: int):\n    with mesh:\n        pass\n",
    "a parameter annotated a mesh, assigned another": _MESH_IMPORT + "def f(mesh: Mesh):\n    mesh = open(p)\n"
                                                      "    with mesh:\n        pass\n",
    "an enclosing function's annotated parameter": _MESH_IMPORT + "def f(mesh: Mesh):\n    def g():\n"
                                                   "        with mesh:\n            pass\n",
    "a parameter annotated a mesh, assigned a mesh": _MESH_IMPORT + "def f(mesh: Mesh = None):\n"
                                                     "    mesh = Mesh(d, 'x')\n    with mesh:\n        pass\n",
    "a parameter annotated a mesh, assigned None": _MESH_IMPORT + "def f(mesh: Mesh):\n    mesh = None\n"
                                                   "    with mesh:\n        pass\n",
    "a name assigned a mesh": "import jax\nmesh = jax.make_mesh((8,), ('x',))\nwith mesh:\n    pass\n",
    "assigned None, then a mesh": _MESH_IMPORT + "def f(d):\n    mesh = None\n    mesh = Mesh(d, ('x',))\n"
                                                "    with mesh:\n        pass\n",
    "chained assignment": _MESH_IMPORT + "a = mesh = Mesh(d, 'x')\nwith mesh:\n    pass\n",
    "assigned something else": "import jax\nfrom unittest import mock\ndef f():\n"
                               "    mesh = mock.create_autospec(jax.sharding.Mesh)\n    with mesh:\n        pass\n",
    "a mesh and a literal": _MESH_IMPORT + "mesh = Mesh(d, 'x')\nmesh = 3\nwith mesh:\n    pass\n",
    "only None": "mesh = None\nwith mesh:\n    pass\n",
    "a method of a local value": "def f(self):\n    mesh = self.make()\n    with mesh:\n        pass\n",
    "the same name in another function": _MESH_IMPORT + "def g():\n    mesh = open(f)\n    with mesh:\n"
                                                       "        pass\ndef f(d):\n    mesh = Mesh(d, 'x')\n"
                                                       "    with mesh:\n        pass\n",
    "an inner function's parameter": _MESH_IMPORT + "def f(d):\n    def h(mesh: int = 0):\n        return mesh\n"
                                                   "    mesh = Mesh(d, 'x')\n    with mesh:\n        pass\n",
    "a mesh in an if": _MESH_IMPORT + "def f(d):\n    if d:\n        mesh = Mesh(d, 'x')\n    else:\n"
                                     "        mesh = None\n    with mesh, open(p) as fh:\n        pass\n",
    "a call through a module alias": _ALIAS + "with Mesh(d, ('x',)):\n    pass\n",
    # the resolver's owner of a name the holder of the ``with`` does not bind (``NameResolver._owner``)
    "bound in the enclosing scope": _MESH_IMPORT + "mesh = Mesh(d, 'x')\ndef f():\n    with mesh:\n        pass\n",
    "bound in the enclosing function": _MESH_IMPORT + "def f(d):\n    mesh = Mesh(d, 'x')\n    def g():\n"
                                       "        with mesh:\n            pass\n",
    "bound in a class body and the module": _MESH_IMPORT + "mesh = Mesh(d, 'x')\nclass A:\n    mesh = 3\n"
                                             "    def g(self):\n        with mesh:\n            pass\n",
    "bound in the enclosing function as something else": _MESH_IMPORT + "mesh = Mesh(d, 'x')\ndef f(p):\n"
                                                         "    mesh = open(p)\n    def g():\n        with mesh:\n"
                                                         "            pass\n",
    "an enclosing function's parameter": "def f(mesh):\n    def g():\n        with mesh:\n            pass\n",
    "bound in another function only": _MESH_IMPORT + "def f(d):\n    mesh = Mesh(d, 'x')\ndef g():\n"
                                      "    with mesh:\n        pass\n",
    # an annotated assignment: its annotation's kind, else its value's
    "an annotated assignment": _MESH_IMPORT + "mesh: Mesh = Mesh(d, 'x')\nwith mesh:\n    pass\n",
    "annotated a mesh, no value": _MESH_IMPORT + "mesh: Mesh\nwith mesh:\n    pass\n",
    "annotated as another type": "from pkg import Checkpointer\ndef f(cfg):\n    ckpt: Checkpointer = cfg.make()\n"
                                 "    with ckpt:\n        pass\n",
    "annotated as another type, no value": "def f():\n    lock: Lock\n    with lock:\n        pass\n",
    "a call through an alias, in a method": _ALIAS + "class T:\n    def test(self):\n        with Mesh(d, 'x'):\n"
                                             "            pass\n",
    "a name assigned through an alias": _ALIAS + "def f(d):\n    mesh = Mesh(d, 'x')\n    with mesh:\n        pass\n",
    "an alias of a removed spelling": "from jax.experimental import maps\nMesh = maps.Mesh\n"
                                      "with Mesh(d, 'x'):\n    pass\n",
    "an alias of something else": "from unittest import mock\nMesh = mock.Mock\nwith Mesh(d, 'x'):\n    pass\n",
    "an alias of a local name": "Mesh = Other\nwith Mesh(d, 'x'):\n    pass\n",
    "an alias of a call": "import jax\nMesh = jax.sharding.Mesh()\nwith Mesh(d, 'x'):\n    pass\n",
    "a chained alias": "import jax\nM = Mesh = jax.sharding.Mesh\nwith Mesh(d, 'x'):\n    pass\n",
    # a name the inference follows one binding of only: two are unknown (paxml's polyfilled context manager)
    "an alias bound twice": _ALIAS + "if old:\n    Mesh = other.Mesh\nwith Mesh(d, 'x'):\n    pass\n",
    "an alias or a function": "import contextlib\nif new:\n    ctx = lib.ctx\nelse:\n    @contextlib.contextmanager\n"
                              "    def ctx():\n        yield\ndef f():\n    with ctx():\n        pass\n",
    # a name a function assigns another name: followed to that name's bindings in the function (paxml)
    "assigned a mesh or a parameter": _MESH_IMPORT + "def f(d, given=None):\n    if given is None:\n"
                                      "        mesh = Mesh(d, 'x')\n    else:\n        mesh = given\n"
                                      "    with mesh:\n        pass\n",
    "assigned an annotated parameter": _MESH_IMPORT + "def f(d, given: Mesh):\n    mesh = given\n"
                                       "    with mesh:\n        pass\n",
    "assigned a name assigned a mesh": _MESH_IMPORT + "def f(d):\n    m = Mesh(d, 'x')\n    mesh = m\n"
                                       "    with mesh:\n        pass\n",
    # a ``nonlocal`` in another function's tree moves nothing the ``with`` reads (t5x)
    "a nonlocal elsewhere": _MESH_IMPORT + "class A:\n    def g(self):\n        mesh = None\n        def h():\n"
                            "            nonlocal mesh\n            mesh = 1\ndef f(d):\n    mesh = Mesh(d, 'x')\n"
                            "    with mesh:\n        pass\n",
}
_CLASS = "from jax.sharding import Mesh\nclass T:\n"
_TEST = "    def test(self):\n        with self.mesh:\n            pass\n"
# ``with self.mesh:``: every store of ``self.mesh`` in the class's methods.
JAX401_ATTRIBUTES_DECIDED = {
    "self.mesh, never stored": "import jax\nclass A:\n    def run(self):\n        with self.mesh:\n            pass\n",
    "stored a mesh": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n" + _TEST,
    "stored from a local name": _CLASS + "    def setUp(self):\n        mesh = Mesh(d, 'x')\n        self.mesh = mesh\n"
                                + _TEST,
    "stored from a parameter": _CLASS + "    def __init__(self, mesh):\n        self.mesh = mesh\n" + _TEST,
    "stored None and a mesh": _CLASS + "    def __init__(self):\n        self.mesh = None\n    def setUp(self):\n"
                              "        self.mesh = Mesh(d, 'x')\n" + _TEST,
    "a lock": "import threading\nclass T:\n    def __init__(self):\n        self._lock = threading.Lock()\n"
              "    def run(self):\n        with self._lock:\n            pass\n",
    "stored in the base class only": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\nclass C(T):\n"
                                     + _TEST,
    "a longer chain": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n    def test(self):\n"
                      "        with self.a.mesh:\n            pass\n",
    "unpacked and a mesh": _CLASS + "    def setUp(self):\n        self.mesh, n = Mesh(d, 'x'), 1\n"
                           "        self.mesh = Mesh(d, 'x')\n" + _TEST,
    "a store in a nested function": _CLASS + "    def setUp(self):\n        def f():\n            self.mesh = 1\n"
                                    "        self.mesh = Mesh(d, 'x')\n" + _TEST,
    "an async method": _CLASS + "    async def setUp(self):\n        self.mesh = Mesh(d, 'x')\n" + _TEST,
    "a class-level annotation": _CLASS + "    mesh: Mesh\n" + _TEST,
    "an optional annotation": "import typing\nimport jax\nclass T:\n    mesh: typing.Optional[jax.sharding.Mesh] = None\n"
                              + _TEST,
    "an annotation | None": "import jax\nclass T:\n    mesh: jax.sharding.Mesh | None = None\n" + _TEST,
    "a builtin annotation and a mesh store": _CLASS + "    mesh: int\n    def setUp(self):\n"
                                             "        self.mesh = Mesh(d, 'x')\n" + _TEST,
    "in a nested function": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n    def test(self):\n"
                            "        def inner():\n            with self.mesh:\n                pass\n",
    "stored through an alias": _ALIAS + "class T:\n    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n" + _TEST,
    "stored from a name assigned through an alias": _ALIAS + "class T:\n    def setUp(self):\n"
                                                    "        mesh = Mesh(d, 'x')\n        self.mesh = mesh\n" + _TEST,
    # an annotated parameter: its annotation's kind (axlearn's ``InferenceRunner.__init__(self, mesh: Mesh)``)
    "stored from an annotated parameter": _CLASS + "    def __init__(self, mesh: Mesh):\n        self.mesh = mesh\n"
                                          + _TEST,
    "stored from a parameter annotated | None": "import jax\nclass T:\n    def __init__(self, m: jax.sharding.Mesh | None):\n"
                                                "        self.mesh = m\n" + _TEST,
    "stored from a parameter annotated otherwise": _CLASS + "    def __init__(self, mesh: int):\n        self.mesh = mesh\n"
                                                   + _TEST,
    "stored from a keyword-only annotated parameter": _CLASS + "    def __init__(self, *, mesh: Mesh = None):\n"
                                                      "        self.mesh = mesh\n" + _TEST,
    "stored from a starred annotated parameter": _CLASS + "    def __init__(self, *mesh: Mesh):\n        self.mesh = mesh\n"
                                                 + _TEST,
    "stored from a parameter annotated with a string": _CLASS + "    def __init__(self, mesh: 'Mesh'):\n"
                                                       "        self.mesh = mesh\n" + _TEST,
    # a decorator the inference does not read as static (orbax: a property's setter), and one it does, rebound
    "a property's setter": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n    @property\n"
                           "    def p(self):\n        return 1\n    @p.setter\n    def p(self, v):\n"
                           "        with self.mesh:\n            pass\n",
    # a receiver that is no method's first parameter: the inference knows nothing of its attributes (orbax's
    # ``_drain(self, pending_save)``: ``with pending_save.drain_lock:``), a lambda's, a name bound twice
    "a later parameter, stored a mesh": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n"
                                        "    def test(self, other):\n        with other.mesh:\n            pass\n",
    "a local name's attribute": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n"
                                "    def test(self):\n        other = self\n        with other.mesh:\n"
                                "            pass\n",
    "a nested function's first parameter": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n"
                                           "    def test(self):\n        def inner(t):\n            with t.mesh:\n"
                                           "                pass\n",
    "a staticmethod rebound": _CLASS + "    def setUp(self):\n        self.mesh = Mesh(d, 'x')\n"
                              "    staticmethod = property\n    @staticmethod\n    def test(self):\n"
                              "        with self.mesh:\n            pass\n",
    "not the first parameter": _CLASS + "    def test(self, other):\n        with other.mesh:\n            pass\n",
    "the receiver rebound": _CLASS + "    def test(self):\n        self = make()\n        with self.mesh:\n"
                            "            pass\n",
    "a nested function binds the receiver": _CLASS + "    def test(self):\n        def inner(self):\n"
                                            "            with self.mesh:\n                pass\n",
    "a function, not a method": "from jax.sharding import Mesh\ndef test(self):\n    with self.mesh:\n        pass\n",
}
JAX401_ATTRIBUTES_UNDECIDED = {
    "an annotated store": _CLASS + "    def setUp(self):\n        self.mesh: Mesh = Mesh(d, 'x')\n" + _TEST,
    "a static method": _CLASS + "    @staticmethod\n    def test(self):\n        with self.mesh:\n            pass\n",
    "a class method through builtins": "import builtins\n" + _CLASS + "    @builtins.classmethod\n"
                                       "    def test(self):\n        with self.mesh:\n            pass\n",
    "stored from a chain": _CLASS + "    def setUp(self):\n        self.mesh = other.mesh\n" + _TEST,
}
JAX401_NAMES_UNDECIDED = {
    "a global": _MESH_IMPORT + "mesh = Mesh(d, 'x')\ndef f():\n    global mesh\n    mesh = 1\nwith mesh:\n    pass\n",
    "a nonlocal in the same function": _MESH_IMPORT + "def f(d):\n    mesh = Mesh(d, 'x')\n    def h():\n"
                                       "        nonlocal mesh\n        mesh = 1\n    with mesh:\n        pass\n",
    "a nonlocal in the enclosing function": _MESH_IMPORT + "def f(d):\n    mesh = Mesh(d, 'x')\n    def h():\n"
                                            "        nonlocal mesh\n        mesh = 1\n    def g():\n"
                                            "        with mesh:\n            pass\n",
    "a global elsewhere": _MESH_IMPORT + "def g():\n    global mesh\n    mesh = 1\ndef f(d):\n    mesh = Mesh(d, 'x')\n"
                          "    with mesh:\n        pass\n",
    "a mesh annotated as something else": _MESH_IMPORT + "mesh: int = Mesh(d, 'x')\nwith mesh:\n    pass\n",
    "bound in an enclosing function by a with": _MESH_IMPORT + "def f(d):\n    with Mesh(d, 'x') as mesh:\n"
                                                "        def g():\n            with mesh:\n                pass\n",
    "an alias of a name": _MESH_IMPORT + "m = Mesh(d, 'x')\nmesh = m\nwith mesh:\n    pass\n",
    "assigned the first parameter": "def f(self):\n    mesh = self\n    with mesh:\n        pass\n",
    "assigned a name the function assigns a name": _MESH_IMPORT + "def f(d):\n    m = Mesh(d, 'x')\n    n = m\n"
                                                    "    mesh = n\n    with mesh:\n        pass\n",
    "a call of a local function": _MESH_IMPORT + "def make():\n    return Mesh(d, 'x')\nmesh = make()\n"
                                                "with mesh:\n    pass\n",
    "a with target": _MESH_IMPORT + "with Mesh(d, 'x') as mesh:\n    with mesh:\n        pass\n",
    "a walrus in a comprehension": _MESH_IMPORT + "xs = [(mesh := Mesh(d, 'x')) for d in ds]\nwith mesh:\n"
                                                 "    pass\n",
    "in a class body": _MESH_IMPORT + "class A:\n    mesh = Mesh(d, 'x')\n    with mesh:\n        pass\n",
    "an alias bound again in a function": _ALIAS + "def f():\n    Mesh = make\n    with Mesh(d, 'x'):\n"
                                           "        pass\n",
    "an alias and a parameter of that name": _ALIAS + "def g(Mesh):\n    return Mesh\nwith Mesh(d, 'x'):\n"
                                              "    pass\n",
    "an alias made global": _ALIAS + "def g():\n    global Mesh\nwith Mesh(d, 'x'):\n    pass\n",
    "an alias in a class body": "import jax\nclass A:\n    Mesh = jax.sharding.Mesh\n    with Mesh(d, 'x'):\n"
                                "        pass\n",
    "an alias of a builtin": "Mesh = open\nwith Mesh(d, 'x'):\n    pass\n",
    "an alias stored through an unpacking": "import jax\nMesh, n = jax.sharding.Mesh, 1\nwith Mesh(d, 'x'):\n"
                                            "    pass\n",
    "an alias deleted": _ALIAS + "del Mesh\nwith Mesh(d, 'x'):\n    pass\n",
}
JAX401_UNDECIDED = {
    # (a call of the module's own function is decided: ``tests/test_ast_findings_jax401_reach.py``)
    # (a fix in range where ``jax`` is imported: ``tests/test_ast_findings_jax401_fix.py``)
    "a fix in range that adds `import jax`": "from jax import make_mesh\nwith make_mesh((8,), ('x',)):\n    pass\n",
}
JAX103_SETTINGS_DECIDED = {
    # keywords out of positional order (passing them by position would reorder their evaluation): withheld
    "keyword rename above the min version": (OLD_MIN, "import jax.numpy as jnp\ny = jnp.clip(x, a_max=1.0, a_min=0.0)\n"),
    "pjit keywords above the min version": (OLD_MIN, "from jax.experimental.pjit import pjit\n"
                                                     "f = pjit(g, in_axis_resources=P('x'), out_axis_resources=1)\n"),
}


# JAX503 (``FlaxVariablesPop.findings_from_ast``): decided with its fix. The cases named "quirk" mirror what libcst's
# ``flax_values.statements`` does not walk into (a one-line suite, what follows an ``elif``, a ``match``): there the
# visit reports where a full walk would not, and the ast view must report the same.
JAX503 = rule_by_code("JAX503")
_FLAX, _INIT, _POP = "import flax\n", "variables = model.init(rng, x)\n", 's, p = variables.pop("params")\n'
JAX503_DECIDED = {
    "flax rebound": _FLAX + "flax = None\n" + _INIT + _POP,
    "pop on an init result": _FLAX + _INIT + _POP,
    "pop on an init call": _FLAX + 'state, params = model.init(rng, x).pop("params")\n',
    "init_with_output": _FLAX + "out, variables = model.init_with_output(rng, x)\n" + _POP,
    "starred init_with_output": _FLAX + "out, *variables = model.init_with_output(rng, x)\n" + _POP,
    "a nested tuple binds nothing": _FLAX + _INIT + "(out, (variables, y)) = load()\n" + _POP,
    "flax unbound": "import flax.linen as nn\n" + _INIT + _POP,
    "flax unbound, on two lines": "import flax.linen as nn\n" + _INIT + 's, p = variables.pop(\n    "params")\n',
    "list target": _FLAX + _INIT + '[s, p] = variables.pop("params")\n',
    "bytes key": _FLAX + _INIT + 's, p = variables.pop(b"params")\n',
    "a key in parentheses": _FLAX + _INIT + 's, p = variables.pop(("params"))\n',
    "single quotes, keyword arguments": _FLAX + "variables = model.init(rng, x, train=False)\n"
                                        "states, params = variables.pop('params')\n",
    "concatenated key": _FLAX + _INIT + 's, p = variables.pop("par" "ams")\n',
    "f-string key": _FLAX + _INIT + 's, p = variables.pop(f"params")\n',
    "keyword key": _FLAX + _INIT + 's, p = variables.pop(key="params")\n',
    "three targets, starred": _FLAX + _INIT + 's, p, q = variables.pop("params")\n*s, p = variables.pop("params")\n',
    "reassigned": _FLAX + _INIT + "variables = other()\n" + _POP,
    "in a function": _FLAX + "def f():\n    " + _INIT + "    " + _POP,
    "module init, function pop": _FLAX + _INIT + "def f():\n    " + _POP,
    "class body": _FLAX + "class A:\n    " + _INIT + "    " + _POP,
    "class body, pop on the call": _FLAX + "class A:\n    " + 's, p = m.init(x).pop("p")\n',
    "quirk: a one-line suite hides a reassignment": _FLAX + _INIT + "if reset: variables = other()\n" + _POP,
    "quirk: a one-line suite hides the init": _FLAX + "if a: " + _INIT + _POP,
    "quirk: an elif hides the else": _FLAX + "if a:\n    " + _INIT + "elif b:\n    " + _INIT
                                     + "else:\n    variables = load()\n" + _POP,
    "quirk: an elif hides the next elif": _FLAX + "if a:\n    " + _INIT + "elif b:\n    " + _INIT
                                          + "elif c:\n    variables = load()\n" + _POP,
    "an elif's body is walked": _FLAX + "if a:\n    " + _INIT + "elif b:\n    variables = load()\n" + _POP,
    "quirk: an elif's one-line suite": _FLAX + "if a:\n    " + _INIT + "elif b: variables = load()\n" + _POP,
    "an if in an else is walked": _FLAX + "if a:\n    " + _INIT + "else:\n    if c:\n        variables = load()\n"
                                  + _POP,
    "quirk: an else's one-line suite": _FLAX + "if a:\n    " + _INIT + "else: variables = load()\n" + _POP,
    "try blocks are walked": _FLAX + "try:\n    " + _INIT + "except ValueError:\n    variables = load()\n" + _POP,
    "try else and finally are walked": _FLAX + "try:\n    " + _INIT + "except ValueError:\n    pass\nelse:\n"
                                       "    pass\nfinally:\n    variables = load()\n" + _POP,
    "for-else, with, while are walked": _FLAX + _INIT + "for i in r:\n    pass\nelse:\n    with c:\n"
                                        "        while t:\n            variables = load()\n" + _POP,
    "quirk: a match is not walked": _FLAX + _INIT + "match k:\n    case 1:\n        variables = load()\n" + _POP,
    "quirk: a one-line function body": _FLAX + "def f(): " + _INIT.strip() + "; " + _POP,
    "the pop in a one-line suite": _FLAX + "def f():\n    " + _INIT + "    if a: " + _POP,
    "a nested function is another scope": _FLAX + _INIT + "def g():\n    variables = load()\n" + _POP,
    "async blocks are walked": _FLAX + "async def f():\n    " + _INIT + "    async with c:\n"
                               "        variables = load()\n    " + _POP,
    "noqa": _FLAX + _INIT + _POP.strip() + "  # noqa: JAX503\n",
    "a comment after": _FLAX + _INIT + _POP.strip() + "  # split\n",
    "a statement before on the line": _FLAX + _INIT + "x = 1; " + _POP,
    "non-ASCII before": _FLAX + _INIT + "ü = 'é€𝄞'; " + _POP,
    "no flax import": _INIT + _POP,
    "compat try": _FLAX + "try:\n    " + _INIT + "    " + _POP + "except ImportError:\n    pass\n",
    "augmented and annotated assignments do not count": _FLAX + _INIT + "variables: dict = load()\nvariables += 1\n"
                                                        + _POP,
    "a parameter": _FLAX + "def f(variables):\n    " + _POP,
    "a global": _FLAX + _INIT + "def f():\n    global variables\n    " + _POP,
    "two findings": _FLAX + "def f():\n    " + _INIT + "    " + _POP + "def g():\n    " + _INIT + "    " + _POP,
    # a longer rename before lines aligned to a bracket: realigned as ``EditBuilder`` realigns them
    "a longer rename before an aligned continuation": "import jax\nm = jax.experimental.maps.Mesh(d,\n"
                                                      + " " * 31 + "names)\n",
    "a longer rename before a string": "import jax\nm = jax.experimental.maps.Mesh(d, ('x',\n"
                                       "                                  'y'))\n",
    # an edit across lines (``EditBuilder`` realigns nothing for it)
    "a fix on two lines": _FLAX + _INIT + 's, p = variables.pop(\n    "params")\n',
    "an init call on two lines": _FLAX + 's, p = model.init(\n    rng).pop("params")\n',
    # the same in nested blocks: the fix keeps the continuation's indentation (libcst's ``code_for_node`` dropped
    # the blocks' indentation: scenic's 2-space nested function)
    "an init call on two lines in nested blocks": _FLAX + "def g():\n  def f(rng):\n    s, p = model.init(\n"
                                                  '        rng, x).pop("params")\n    return p\n',
    "an init call on two lines in a function": _FLAX + 'def f(rng):\n    s, p = model.init(\n        rng).pop("p")\n',
    # ``flax`` bound in the function only: the fix (``flax_bound_ast`` asks in the receiver's scope)
    "flax imported in the function": "def f():\n    import flax\n    v = model.init(rng, x)\n"
                                     "    a, b = v.pop('params')\n    return b\n",
}
JAX503_UNDECIDED = {
    "receiver in parentheses": _FLAX + _INIT + 's, p = (variables).pop("params")\n',
    "the pop call in parentheses": _FLAX + _INIT + 's, p = (variables.pop("params"))\n',
    "an init call in parentheses": _FLAX + 's, p = (model.init(rng)).pop("params")\n',
    "an isinstance test of a value in parentheses": _FLAX + "from flax.core import FrozenDict\n" + _INIT
                                                    + "if isinstance((variables), FrozenDict):\n    " + _POP,
    "a statement after on the line": _FLAX + _INIT + _POP.strip() + "; x = 1\n",
    "a backslash before a block's first statement": _FLAX + _INIT + "if a: \\\n    variables = load()\n" + _POP,
    "a star import": _FLAX + "from m import *\n" + _INIT + _POP,
    "CRLF": (_FLAX + _INIT + _POP).replace("\n", "\r\n"),
}
_FLAX_PINS = {name: replace(Settings(), pinned=PinnedRange(Path("."), None, None, (
    ("flax", Bound(Version(low), "requirements.txt:1", f"flax>={low}"),
     Bound(Version(high), "requirements.txt:1", f"flax<{high}") if high else None),)))
    for name, (low, high) in {"old": ("0.6.0", None), "new": ("0.7.5", None), "capped": ("0.6.11", "0.7.1")}.items()}
BELOW_KNOWN = replace(Settings(), explicit_min_version=Version("0.1.0"), min_version_source="test")
JAX503_SETTINGS_DECIDED = {
    "flax.core.pop older than the pins": (_FLAX_PINS["old"], _FLAX + _INIT + _POP),
    "flax.core.pop in the pins": (_FLAX_PINS["new"], _FLAX + _INIT + _POP),
    "flax kept below 0.7.1": (_FLAX_PINS["capped"], _FLAX + _INIT + _POP),
    "below the known range": (BELOW_KNOWN, _FLAX + _INIT + _POP),
    "below the known range, on two lines": (BELOW_KNOWN, _FLAX + _INIT + 's, p = variables.pop(\n    "params")\n'),
}


def libcst_findings(source: str, rules=(JAX501,), settings: Settings | None = None) -> list[dict]:
    result = lint_source(source, "t.py", settings or Settings(), rules=list(rules), prefilter=False, whole=True)
    return [asdict(diagnostic) for diagnostic in result.diagnostics]


def ast_decided(source: str, rules=(JAX501,), settings: Settings | None = None) -> list[dict] | None:
    decided = ast_findings.decide(source, "t.py", list(rules), ast.parse(source), settings=settings)
    return None if decided is None else [asdict(diagnostic) for diagnostic in decided]


def rule_examples() -> list[str]:
    return [textwrap.dedent(example.code) for example in (*JAX501.VALID, *JAX501.INVALID)]


# (rules, settings, source) of every case the fast path must answer.
DECIDED_CASES = {
    **{name: ((JAX501,), None, source) for name, source in DECIDED.items()},
    **{f"feature test: {name}": ((JAX501,), None, source) for name, source in FEATURE_TESTS.items()},
    **{f"JAX501 example{index}": ((JAX501,), None, source) for index, source in enumerate(rule_examples())},
    **{name: (CATALOGUE_RULES, None, source) for name, source in CATALOGUE_DECIDED.items()},
    **{name: (CATALOGUE_RULES, None, source) for name, source in CATALOGUE_FIX_DECIDED.items()},
    **{name: (CATALOGUE_RULES, settings, source) for name, (settings, source) in CATALOGUE_SETTINGS_DECIDED.items()},
    **{name: ((JAX103,), None, source) for name, source in JAX103_DECIDED.items()},
    **{name: ((JAX103,), settings, source) for name, (settings, source) in JAX103_SETTINGS_DECIDED.items()},
    **{name: ((JAX201,), None, source) for name, source in JAX201_DECIDED.items()},
    **{name: ((JAX401,), settings, source) for name, (settings, source) in JAX401_SETTINGS_DECIDED.items()},
    **{f"JAX401 {name}": ((JAX401,), LOW_MIN, source) for name, source in JAX401_NAMES_DECIDED.items()},
    **{f"JAX401 {name}": ((JAX401,), LOW_MIN, source) for name, source in JAX401_ATTRIBUTES_DECIDED.items()},
    **{name: ((JAX503,), None, source) for name, source in JAX503_DECIDED.items()},
    **{name: ((JAX503,), settings, source) for name, (settings, source) in JAX503_SETTINGS_DECIDED.items()},
    **{f"JAX501+JAX503 {name}": ((JAX501, JAX503), None, source + "from flax import optim\n")
       for name, source in JAX503_DECIDED.items()},
}
UNDECIDED_CASES = {
    **{name: ((JAX501,), source) for name, source in UNDECIDED.items()},
    **{name: (CATALOGUE_RULES, source) for name, source in CATALOGUE_UNDECIDED.items()},
    **{name: ((JAX103,), source) for name, source in JAX103_UNDECIDED.items()},
    **{name: ((JAX201,), source) for name, source in JAX201_UNDECIDED.items()},
    **{name: ((JAX401,), source) for name, source in JAX401_UNDECIDED.items()},
    **{name: ((JAX503,), source) for name, source in JAX503_UNDECIDED.items()},
}


@pytest.mark.parametrize("rules,settings,source", list(DECIDED_CASES.values()), ids=list(DECIDED_CASES))
def test_decided_from_ast_exactly_as_libcst(rules, settings, source):
    decided = ast_decided(source, rules, settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, rules, settings)


@pytest.mark.parametrize("rules,source", list(UNDECIDED_CASES.values()), ids=list(UNDECIDED_CASES))
def test_undecidable_cases_go_to_libcst(rules, source):
    assert ast_decided(source, rules) is None


@pytest.mark.parametrize("source", [*JAX401_NAMES_UNDECIDED.values(), *JAX401_ATTRIBUTES_UNDECIDED.values()],
                         ids=[*JAX401_NAMES_UNDECIDED, *JAX401_ATTRIBUTES_UNDECIDED])
def test_jax401_names_the_inference_must_follow_go_to_libcst(source):
    assert ast_decided(source, (JAX401,), LOW_MIN) is None


def test_jax401_name_cases_are_not_vacuous():
    # where the min version withholds the fix, some of the names are meshes (a finding) and some are not
    found = {name: libcst_findings(source, [JAX401], LOW_MIN) for name, source in JAX401_NAMES_DECIDED.items()}
    meshes = {name for name, findings in found.items() if findings}
    assert meshes == {"a name assigned a mesh", "assigned None, then a mesh", "chained assignment",
                      "the same name in another function", "an inner function's parameter", "a mesh in an if",
                      "a call through a module alias", "a call through an alias, in a method",
                      "a name assigned through an alias", "an alias of a removed spelling",
                      "bound in the enclosing scope", "bound in the enclosing function",
                      "bound in a class body and the module", "an annotated assignment",
                      "annotated a mesh, no value", "a parameter", "a parameter annotated Optional",
                      "an enclosing function's annotated parameter", "a parameter annotated a mesh, assigned None",
                      "a parameter annotated a mesh, assigned a mesh", "assigned an annotated parameter",
                      "assigned a name assigned a mesh", "a nonlocal elsewhere"}
    assert all(finding["fix_withheld"] for findings in found.values() for finding in findings)
    # the undecided names are meshes to the inference too, or need it to follow a binding
    assert libcst_findings(JAX401_NAMES_UNDECIDED["bound in an enclosing function by a with"], [JAX401], LOW_MIN)
    found = {name: libcst_findings(source, [JAX401], LOW_MIN) for name, source in JAX401_ATTRIBUTES_DECIDED.items()}
    assert {name for name, findings in found.items() if findings} == {
        "stored a mesh", "stored from a local name", "stored None and a mesh", "a store in a nested function",
        "an async method", "a class-level annotation", "an optional annotation", "an annotation | None",
        "in a nested function", "stored through an alias", "stored from a name assigned through an alias",
        "stored from an annotated parameter", "stored from a parameter annotated | None",
        "stored from a keyword-only annotated parameter", "a property's setter", "a staticmethod rebound"}
    # the undecided aliases: some are meshes to the inference, some not (bound twice, a builtin, an unpacking...)
    assert {name for name, source in JAX401_NAMES_UNDECIDED.items()
            if name.startswith("an alias") and libcst_findings(source, [JAX401], LOW_MIN)} == {
        "an alias of a name", "an alias and a parameter of that name",
        "an alias made global", "an alias in a class body", "an alias deleted"}
    assert libcst_findings(JAX401_ATTRIBUTES_UNDECIDED["an annotated store"], [JAX401], LOW_MIN)


EXAMPLES = [(rule, example) for rule in (*CATALOGUE_RULES, JAX103, JAX201, JAX401, JAX503)
            for example in (*rule.VALID, *rule.INVALID)]
FIX_DECIDING = {JAX503.code, "JAX101", "JAX402", "JAX401", "JAX103"}  # the rules whose findings are decided with their fixes (some)


@pytest.mark.parametrize("rule,example", EXAMPLES,
                         ids=[f"{rule.code}-{index}" for index, (rule, _) in enumerate(EXAMPLES)])
def test_rule_examples_both_ways(rule, example):
    """Every example of JAX101/JAX402/JAX103/JAX201/JAX401/JAX503: decided exactly as libcst, or undecided; never
    decided where a fix exists, but by a rule that decides its fixes."""
    settings = example_settings(rule, example)
    expected = libcst_findings(example.code, [rule], settings)
    decided = ast_decided(example.code, [rule], settings)
    if any(finding["fix"] for finding in expected) and rule.code not in FIX_DECIDING:
        assert decided is None, "a finding with a fix needs libcst"
    elif decided is not None:
        assert decided == expected


def test_examples_are_mostly_decided_when_fixless():
    """Not vacuous: the examples without a fix and outside compat code are answered by the fast path (JAX503's
    with their fixes: all of them)."""
    answered = {rule.code: 0 for rule in (*CATALOGUE_RULES, JAX103, JAX201, JAX401, JAX503)}
    for rule, example in EXAMPLES:
        answered[rule.code] += ast_decided(example.code, [rule], example_settings(rule, example)) is not None
    assert answered["JAX101"] >= 20 and answered["JAX402"] >= 6 and answered["JAX103"] >= 20
    assert answered["JAX201"] >= 10 and answered["JAX401"] >= 5
    assert answered["JAX503"] == len(JAX503.VALID) + len(JAX503.INVALID)


def test_feature_tests_both_ways():
    # not vacuous: some tests make compat code (no finding), others do not
    found = {name: bool(libcst_findings(source)) for name, source in FEATURE_TESTS.items()}
    assert {name for name, any_found in found.items() if any_found} == {
        "no feature test", "hasattr of another module", "version() of another package", "a call given another module",
        "a test after the and", "the and's first operand", "type checking", "typing.TYPE_CHECKING",
        "the else of TYPE_CHECKING"}
    unevaluated = {name: [f["unevaluated_annotation"] for f in libcst_findings(FEATURE_TESTS[name])]
                   for name in ("type checking", "typing.TYPE_CHECKING", "the else of TYPE_CHECKING")}
    assert unevaluated == {"type checking": [True], "typing.TYPE_CHECKING": [True],
                           "the else of TYPE_CHECKING": [False]}


def test_the_rename_cases_carry_fixes():
    for name, source in CATALOGUE_FIX_DECIDED.items():
        assert any(finding["fix"] for finding in libcst_findings(source, CATALOGUE_RULES)), name
    # libcst realigns the continuation there: what the fast path must realign the same way
    (aligned,) = libcst_findings(CATALOGUE_FIX_DECIDED["a longer rename before an aligned continuation"],
                                 CATALOGUE_RULES)
    assert len(aligned["fix"]["edits"]) == 2


def test_the_cases_are_not_vacuous():
    findings = {name: libcst_findings(source) for name, source in DECIDED.items()}
    assert sum(map(len, findings.values())) >= 25
    assert any(f["unevaluated_annotation"] for found in findings.values() for f in found)
    assert not findings["try ImportError"] and findings["try other"]
    assert [f["start"] for f in findings["non-ASCII before"]] == [{"row": 2, "column": 18}]  # characters, not bytes
    assert [f["start"]["row"] for f in findings["continuation lines"]] == [3, 6, 8, 10]
    catalogue = {name: libcst_findings(source, CATALOGUE_RULES) for name, source in CATALOGUE_DECIDED.items()}
    assert sum(map(len, catalogue.values())) >= 15
    assert {f["code"] for found in catalogue.values() for f in found} == {"JAX101", "JAX402"}
    assert not catalogue["compat try"] and not catalogue["not jax"] and len(catalogue["noqa"]) == 1
    withheld = {name: libcst_findings(source, CATALOGUE_RULES, settings)
                for name, (settings, source) in CATALOGUE_SETTINGS_DECIDED.items()}
    assert all(len(found) == 1 and found[0]["fix_withheld"] and not found[0]["fix"] for found in withheld.values())
    assert "positional argument" in withheld["call limit at a low min version"][0]["fix_withheld"]["reason"]
    assert "positional argument" in catalogue["renamed call that would fail"][0]["fix_withheld"]["reason"]
    signature = {name: libcst_findings(source, [JAX103]) for name, source in JAX103_DECIDED.items()}
    assert not signature["calls that cannot be flagged"] and not signature["noqa"]
    assert not signature["partial of jax.jit"]
    assert not signature["a local alias called with positional arguments"]
    fixless = ("calls that cannot be flagged", "noqa", "partial of jax.jit",
               "a local alias called with positional arguments")
    assert all(len(found) == 1 for name, found in signature.items() if name not in fixless)
    assert "passed through `partial`" in signature["partial, new keyword passed too"][0]["message"]
    assert "`partial(pjit, ...)`" in signature["partial of pjit, both spellings"][0]["message"]
    assert signature["a multi-line call"][0]["end"]["row"] == 6
    withheld = {name: libcst_findings(source, [JAX103], settings)
                for name, (settings, source) in JAX103_SETTINGS_DECIDED.items()}
    assert all(len(found) == 1 and found[0]["fix_withheld"] and not found[0]["fix"] for found in withheld.values())
    meshes = {name: libcst_findings(source, [JAX401], settings)
              for name, (settings, source) in JAX401_SETTINGS_DECIDED.items()}
    assert all(len(found) == 1 and found[0]["fix_withheld"]["needs_min_version"] for found in meshes.values())
    assert "JAX101's fix" in meshes["a removed spelling, with other items"][0]["message"]


def _engine_without_libcst(monkeypatch):
    from jaxlint.lint import engine

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    monkeypatch.setattr(engine, "parse", no_libcst)


def test_engine_skips_libcst_when_every_rule_decides(monkeypatch):
    source = DECIDED["annotation, evaluated"]
    expected = libcst_findings(source)
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", Settings(), rules=[JAX501])
    assert [asdict(d) for d in result.diagnostics] == expected and len(expected) == 2


def test_engine_skips_libcst_for_the_catalogue_rules(monkeypatch):
    source = CATALOGUE_DECIDED["removed class outside annotations"] + CATALOGUE_DECIDED["deprecated, no replacement"]
    expected = libcst_findings(source, CATALOGUE_RULES)
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", Settings(), rules=CATALOGUE_RULES)
    assert [asdict(d) for d in result.diagnostics] == expected
    assert [d["code"] for d in expected] == ["JAX101", "JAX402"]


def test_engine_passes_the_file_settings(monkeypatch):
    """The min version decides the withheld fix: the engine must give ``decide`` the file's settings."""
    settings, source = CATALOGUE_SETTINGS_DECIDED["rename above the min version: withheld"]
    expected = libcst_findings(source, CATALOGUE_RULES, settings)
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", settings, rules=CATALOGUE_RULES)
    assert [asdict(d) for d in result.diagnostics] == expected and expected[0]["fix_withheld"]


def test_engine_skips_libcst_for_jax103(monkeypatch):
    settings, source = JAX103_SETTINGS_DECIDED["keyword rename above the min version"]
    expected = libcst_findings(source, [JAX103], settings)
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", settings, rules=[JAX103])
    assert [asdict(d) for d in result.diagnostics] == expected and expected[0]["fix_withheld"]


def test_jax201_undecided_cases_are_findings():
    """The undecided JAX201 cases are findings of the libcst visit, but for the loop, the return, an item of an
    item and ``isinstance`` under a star import (the star's, to the resolver): the view refuses more than it must
    there, never less."""
    for name, source in JAX201_UNDECIDED.items():
        if name not in ("a loop", "item of an item assigned", "isinstance under a star import"):
            assert libcst_findings(source, [JAX201]), name


def test_engine_skips_libcst_for_jax201(monkeypatch):
    source = JAX201_DECIDED["passed on and indexed"]
    _engine_without_libcst(monkeypatch)
    assert lint_source(source, "t.py", Settings(), rules=[JAX201]).diagnostics == []


def test_engine_skips_libcst_for_jax401(monkeypatch):
    settings, source = JAX401_SETTINGS_DECIDED["a constructor call"]
    expected = libcst_findings(source, [JAX401], settings)
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", settings, rules=[JAX401])
    assert [asdict(d) for d in result.diagnostics] == expected and len(expected) == 1


def test_jax503_cases_are_not_vacuous():
    """The decided JAX503 cases hold fixes, withheld fixes and no findings; each quirk is a finding that a full walk
    of the scope would not give; each undecided case is a finding of the libcst visit."""
    found = {name: libcst_findings(source, [JAX503]) for name, source in JAX503_DECIDED.items()}
    fixed = [name for name, findings in found.items() if findings and findings[0]["fix"]]
    assert len(fixed) >= 20 and len(found["two findings"]) == 2
    assert found["flax unbound"][0]["fix_withheld"] and not found["flax unbound"][0]["fix"]
    assert found["flax imported in the function"][0]["fix"]
    for name in ("concatenated key", "f-string key", "keyword key", "three targets, starred", "reassigned",
                 "module init, function pop", "class body", "quirk: a one-line suite hides the init",
                 "an elif's body is walked", "an if in an else is walked", "try blocks are walked",
                 "try else and finally are walked", "for-else, with, while are walked",
                 "quirk: a one-line function body", "async blocks are walked",
                 "noqa", "no flax import", "compat try", "a parameter", "a global"):
        assert not found[name], name
    for name in [name for name in JAX503_DECIDED if name.startswith("quirk") and "hides the init" not in name
                 and "function body" not in name] + ["a nested function is another scope"]:
        assert found[name] and found[name][0]["fix"], name
    assert found["a key in parentheses"][0]["fix"]["edits"][0]["content"] == 'flax.core.pop(variables, "params")'
    assert found["pop on an init call"][0]["fix"]["edits"][0]["content"] == \
        'flax.core.pop(model.init(rng, x), "params")'
    assert found["non-ASCII before"][0]["fix"]["edits"][0]["location"] == {"row": 3, "column": 19}  # characters
    for name, source in JAX503_UNDECIDED.items():
        assert libcst_findings(source, [JAX503]), name
    settings = {name: libcst_findings(source, [JAX503], settings)
                for name, (settings, source) in JAX503_SETTINGS_DECIDED.items()}
    assert "0.6.11" in settings["flax.core.pop older than the pins"][0]["fix_withheld"]["reason"]
    assert settings["flax.core.pop in the pins"][0]["fix"] and not settings["flax kept below 0.7.1"]
    for name in ("below the known range", "below the known range, on two lines"):
        assert not settings[name][0]["fix"] and "oldest JAX release" in settings[name][0]["fix_withheld"]["reason"]


def test_engine_skips_libcst_for_jax503_with_its_fix(monkeypatch):
    """The corpus's case: JAX501 and JAX503 left, JAX503's finding with a fix; the gates pass the file."""
    source = JAX503_DECIDED["in a function"] + "import flax.optim\n"
    expected = libcst_findings(source, [JAX501, JAX503])
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", Settings(), rules=[JAX501, JAX503])
    assert [asdict(d) for d in result.diagnostics] == expected
    assert [d["code"] for d in expected] == ["JAX503", "JAX501"] and expected[0]["fix"]


def test_fix_mode_is_the_same_with_the_fix_decided_from_ast(monkeypatch):
    """``--fix`` applies the fix decided from ``ast`` as it applied libcst's: the same text, records and leftovers."""
    from jaxlint.lint.engine import fix_source

    source = JAX503_DECIDED["two findings"] + "import flax.optim\n"
    fast = fix_source(source, "t.py", Settings(), rules=[JAX501, JAX503])
    monkeypatch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
    slow = fix_source(source, "t.py", Settings(), rules=[JAX501, JAX503])
    assert fast.source == slow.source and fast.source.count("flax.core.pop(variables, ") == 2
    assert [asdict(a) for a in fast.applied] == [asdict(a) for a in slow.applied] and len(fast.applied) == 2
    assert [asdict(d) for d in fast.remaining] == [asdict(d) for d in slow.remaining]


def test_every_rule_decides_from_ast():
    # Issue 38: every rule has an ``ast`` path (``findings_from_ast``); libcst is left for what a rule's ``ast`` path
    # declares ``Undecidable``. A new rule without one fails here.
    from jaxlint.rules import all_rules

    missing = [rule.code for rule in all_rules() if not rule.decides_from_ast or not hasattr(rule, "findings_from_ast")]
    assert not missing, f"rules without an ast path: {missing}"
