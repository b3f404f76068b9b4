"""JAX104 (removed ``jax.Array`` attributes) decided from ``ast``, fixes included (``findings_from_ast``, the value
inference ported in ``jaxlint.analysis.ast_value_kinds``): exactly the libcst visit's diagnostics, or not decided.

As ``tests/test_ast_findings.py``: each case is linted through the libcst visit and through ``ast_findings.decide``;
the ``DECIDED`` cases must be answered (else the fast path could silently stop working), the ``UNDECIDED`` ones must
go to libcst.
"""
from __future__ import annotations

from dataclasses import asdict, replace

import pytest

from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings
from test_ast_findings import _engine_without_libcst, ast_decided, libcst_findings

JAX104 = rule_by_code("JAX104")
HIGH_MIN = replace(Settings(), explicit_min_version=Version("0.4.30"), min_version_source="test")
LOW_MIN = replace(Settings(), explicit_min_version=Version("0.4.20"), min_version_source="test")
LOW_TARGET = replace(Settings(), target_version=Version("0.4.26"))
BELOW_KNOWN = replace(Settings(), explicit_min_version=Version("0.1.0"), min_version_source="test")
J = "import jax\nimport jax.numpy as jnp\n"

# The values JAX104's inference follows (``ValueInference.kind_of``), the ways the attributes are spelled and placed,
# and the files it must leave alone.
DECIDED = {
    # known arrays: a safe fix for the names, a finding for ``.device()``
    "an alias of jax.numpy": "import jax.numpy as np_\nx = np_.ones(3)\nx.device()\n",
    "a function imported from jax.numpy": "from jax.numpy import zeros\nx = zeros(3)\nprint(x.device())\n",
    "jax.numpy imported from jax": "from jax import numpy as jn\nx = jn.ones(3)\ny = x.device_buffer\n",
    "jax.random": J + "k = jax.random.PRNGKey(0)\nx = jax.random.normal(k, (3,))\nd = x.device()\n",
    "a capitalized jax.random name": J + "x = jax.random.PRNGKey(0)\nd = x.device()\n",
    "a jnp function that gives no array": J + "x = jnp.shape(y)\nd = x.device()\n",
    "jax.device_put": J + "x = jax.device_put(y)\nd = x.device()\n",
    "jax.jit(f)(...)": J + "x = jax.jit(f)(y)\nx.block_host_until_ready()\n",
    "jax.pmap(f)(...), an argument": J + "x = jax.pmap(f)(y)\nx.block_host_until_ready(1)\n",
    "a parameter annotated jax.Array": J + "def f(x: jax.Array):\n    return x.device()\n",
    "Optional[jax.Array]": J + "from typing import Optional\ndef f(x: Optional[jax.Array]):\n    return x.device()\n",
    "typing.Optional[jax.Array]": J + "import typing\ndef f(x: typing.Optional[jax.Array]):\n    return x.device()\n",
    "jax.Array | None": J + "def f(x: jax.Array | None = None):\n    return x.device()\n",
    "annotated jnp.ndarray": J + "def f(x: jnp.ndarray):\n    return x.device()\n",
    "a string annotation": J + "def f(x: 'jax.Array'):\n    return x.device()\n",
    "a walrus": J + "if (x := jnp.ones(3)) is not None:\n    x.device()\n",
    "a walrus in a comprehension": J + "z = [(w := jnp.ones(3)) for _ in r]\nw.device()\n",
    "an annotated assignment": J + "x: jax.Array = f()\nx.device()\n",
    "an annotated assignment's value": J + "x: Any = jnp.ones(3)\nx.device()\n",
    "None, then an array": J + "x = None\nx = jnp.ones(3)\nx.device()\n",
    "two kinds": J + "x = jnp.ones(3)\nx = torch.ones(3)\nx.device()\n",
    "unpacked": J + "x, y = jnp.ones(3), 1\nx.device()\nx.device_buffers\n",
    "a for loop over device_buffers": J + "def f(a):\n    for b in a.device_buffers:\n        b.device()\n",
    "a for loop over something else": J + "def f(a):\n    for b in a.buffers:\n        b.device()\n",
    "a comprehension over device_buffers": J + "d = [b.device() for b in y.device_buffers]\n",
    "an element of device_buffers": J + "d = y.device_buffers[0].device()\n",
    "a slice of device_buffers": J + "d = y.device_buffers[0:1].device()\n",
    "subscripts of tuples": J + "d = y.device_buffers[:, 0].device()\ne = x[0, 1].device()\nf = x[(0, 1)].device()\n",
    "a name bound to an alias of a factory": J + "ones = jnp.ones\nx = ones(3)\nx.device()\n",
    "a name in an outer function": J + "def f(x: jax.Array):\n    def g():\n        return x.device()\n    return g\n",
    "a global": J + "x = jnp.ones(3)\ndef f():\n    global x\n    x = g()\n    return x.device()\n",
    # ``self`` and ``self.x``
    "self.x stored an array": J + "class R:\n    def __init__(self, k):\n        self.s = jax.random.normal(k, (4,))\n"
                              "    def w(self):\n        return self.s.device()\n",
    "self of the project's class": J + "class R:\n    def __init__(self):\n        self.s = []\n"
                                   "    def w(self):\n        return self.device_buffers\n",
    "self of a subclass of jax.Array": J + "class R(jax.Array):\n    def w(self):\n        return self.device_buffers\n",
    "self of an unknown base": J + "class R(Base):\n    def w(self):\n        return self.device_buffers\n",
    "self of a project base": J + "class B:\n    pass\nclass R(B):\n    def w(self):\n        return self.device_buffers\n",
    "a class-level annotation": J + "class R:\n    s: jax.Array\n    def w(self):\n        return self.s.device()\n",
    "a static method's first parameter": J + "class R:\n    @staticmethod\n    def w(self):\n"
                                         "        return self.device_buffers\n",
    "an instance of the project's class": J + "class P:\n    pass\np = P()\np.device_buffers\n",
    # annotations that say "not JAX's"
    "annotated int": J + "def f(x: int):\n    return x.device_buffers\n",
    "annotated torch.Tensor": J + "import torch\ndef f(x: torch.Tensor):\n    return x.device_buffers\n",
    "annotated with a project class": J + "class P:\n    pass\ndef f(x: P):\n    return x.device_buffers\n",
    "annotated with a relative import": J + "from .types import Pool\ndef f(x: Pool):\n    return x.device_buffers\n",
    "annotated with a relative Array": J + "from .types import Array\ndef f(x: Array):\n    return x.device_buffers\n",
    "*args and **kwargs annotated": J + "def f(*x: jax.Array, **y: jax.Array):\n    return x.device(), y.to_py()\n",
    "a lambda's parameter": J + "f = lambda x: x.device_buffers\n",
    # other kinds of JAX objects: reported by name, unsafe fix
    "jax.config through a name": J + "c = jax.config\nc.device_buffers\n",
    "jax.config imported": "from jax import config\nconfig.device_buffers\n",
    "an import rebound": "from jax import config\nif a:\n    config = 2\nconfig.device_buffers\n",
    "a mesh entered": J + "with jax.sharding.Mesh(d, 'x') as m:\n    m.device_buffers\n",
    "jax.export.export(f)(...)": J + "e = jax.export.export(f)(x)\ne.device_buffers\n",
    # spellings and places
    "stores are no use": J + "x.device_buffers = 1\nx.device_buffer: int = 2\nx.device_buffers += 3\n",
    "an unpacking store is": J + "x.device_buffers, y = 1, 2\n",
    "del": J + "del x.device_buffers\n",
    "to_py not called": J + "f = x.to_py\n",
    "to_py called": J + "y = x.to_py()\n",
    "a parenthesized callee": J + "y = (x.to_py)()\n",
    "a parenthesized callee renamed": J + "(x.block_host_until_ready)()\n(x\n  .block_host_until_ready)()\n",
    "an attribute chain as the receiver": J + "y = a.b.c.device_buffers\n",
    "in a call over lines": J + "y = foo(\n    a,\n    x.device_buffers,\n)\n",
    "before a continuation line": J + "y = foo(x.device_buffers, a,\n        b)\n",
    "blanks around the dot": J + "y = x . device_buffers\n",
    "noqa": J + "y = x.device_buffers  # noqa: JAX104\n",
    "compat code": J + "try:\n    y = x.device_buffers\nexcept AttributeError:\n    pass\n",
    "non-ASCII before": J + "s = 'é'; y = x.device_buffers\n",
    "two calls": J + "x.block_host_until_ready()\ny = jnp.ones(3)\ny.block_host_until_ready()\n",
    "the device property": J + "x = jnp.ones(3)\nd = x.device\n",
    "device() with an argument": J + "x = jnp.ones(3)\nd = x.device(0)\n",
    # files it does not report in
    "no JAX import": "import numpy\ny = x.device_buffers\n",
    "JAX imported in a function": "def f():\n    from jax import numpy\ny = x.device_buffers\n",
    "jaxlib alone": "import jaxlib\ny = x.device_buffers\n",
    "a relative module named jax": "from .jax import x\ny = x.device_buffers\n",
    "a call as the receiver": J + "y = f(x).device_buffer\n",
    # a call of the module's own function: what its own returns agree on (numpyro's examples)
    "a function's returns": J + "def make():\n    return jnp.ones(3)\nx = make()\nx.device()\n",
    "a function's returns, in branches": J + "def make(a):\n    if a:\n        return jnp.ones(3)\n    else:\n"
                                         "        return jnp.zeros(3)\nx = make(1)\nx.device()\n",
    "a function's returns that disagree": J + "def make(a):\n    if a:\n        return jnp.ones(3)\n    return 3\n"
                                          "x = make(1)\nx.device()\n",
    "a function that may fall off its end": J + "def make(a):\n    if a:\n        return jnp.ones(3)\n"
                                            "x = make(1)\nx.device()\n",
    "a generator": J + "def make():\n    yield jnp.ones(3)\n    return jnp.ones(3)\nx = make()\nx.device()\n",
    "a coroutine": J + "async def make():\n    return jnp.ones(3)\nx = make()\nx.device()\n",
    "a nested function's return is not its own": J + "def make():\n    def inner():\n        return 3\n"
                                                   "    return jnp.ones(3)\nx = make()\nx.device()\n",
    "a function returning another's result": J + "def base():\n    return jnp.ones(3)\ndef make():\n"
                                             "    return base()\nx = make()\nx.device()\n",
}
SETTINGS = {"default": None, "min 0.4.30": HIGH_MIN, "min 0.4.20": LOW_MIN, "target 0.4.26": LOW_TARGET, "below the known range": BELOW_KNOWN}

# What only libcst answers: a value the inference reaches through a cycle or a function's returns, a subscript
# ``ast`` cannot tell from a tuple's, parentheses libcst gives the node or the receiver, an f-string.
UNDECIDED = {
    "a cycle": J + "a = b\nb = a\na.device_buffers\n",
    "a function's returns calling itself": J + "def make(n):\n    return make(n - 1)\nx = make(3)\nx.device_buffers\n",
    "a tuple subscript of device_buffers": J + "d = y.device_buffers[0, 1].device()\n",
    "a parenthesized receiver": J + "y = (x).device_buffers\n",
    "a parenthesized attribute": J + "y = (x.device_buffers)\n",
    "a parenthesized receiver of a call": J + "(x).block_host_until_ready()\n",
}

EXAMPLES = [*JAX104.VALID, *JAX104.INVALID]


@pytest.mark.parametrize("settings", list(SETTINGS.values()), ids=list(SETTINGS))
@pytest.mark.parametrize("source", list(DECIDED.values()), ids=list(DECIDED))
def test_decided_from_ast_exactly_as_libcst(source, settings):
    decided = ast_decided(source, [JAX104], settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, [JAX104], settings)


@pytest.mark.parametrize("source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(source):
    assert ast_decided(source, [JAX104]) is None
    assert libcst_findings(source, [JAX104]), "not vacuous: libcst reports here"


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"JAX104-{index}" for index in range(len(EXAMPLES))])
def test_rule_examples_decided_exactly_as_libcst(example):
    """Every example, fixes included."""
    settings = example_settings(JAX104, example)
    decided = ast_decided(example.code, [JAX104], settings)
    assert decided is not None
    assert decided == libcst_findings(example.code, [JAX104], settings)


def test_the_cases_are_not_vacuous():
    """The decided cases hold safe fixes (a known array), unsafe fixes (by the name alone), findings without a fix
    and withheld fixes, and cases the inference clears (the project's own objects, ``.device()`` on unknowns)."""
    found = {name: libcst_findings(source, [JAX104]) for name, source in DECIDED.items()}
    fixes = {name: [finding["fix"]["applicability"].value if finding["fix"] else None for finding in findings]
             for name, findings in found.items()}
    assert fixes["jax.numpy imported from jax"] == ["safe"] and fixes["jax.jit(f)(...)"] == ["safe"]
    assert fixes["jax.pmap(f)(...), an argument"] == [None]
    assert fixes["a comprehension over device_buffers"] == ["safe", "unsafe"]  # ``.device()``, ``.device_buffers``
    assert fixes["jax.config through a name"] == ["unsafe"] and fixes["a mesh entered"] == ["unsafe"]
    assert fixes["an unpacking store is"] == ["unsafe"] and fixes["del"] == ["unsafe"]
    assert fixes["a parenthesized callee renamed"] == ["unsafe", "unsafe"]
    assert fixes["to_py called"] == [None] and fixes["*args and **kwargs annotated"] == [None]
    for name in ("a jnp function that gives no array", "a capitalized jax.random name", "two kinds",
                 "a for loop over something else", "self of the project's class", "self of a project base",
                 "an instance of the project's class", "annotated int", "annotated with a project class",
                 "annotated with a relative import", "a string annotation", "a global", "stores are no use",
                 "to_py not called", "noqa", "compat code", "the device property", "device() with an argument",
                 "no JAX import", "jaxlib alone", "a relative module named jax",
                 "a function's returns that disagree", "a function that may fall off its end", "a generator",
                 "a coroutine"):
        assert not found[name], name
    for name in ("self of a subclass of jax.Array", "self of an unknown base", "a static method's first parameter",
                 "annotated torch.Tensor", "annotated with a relative Array", "JAX imported in a function",
                 "a lambda's parameter", "self.x stored an array", "a class-level annotation",
                 "a function's returns", "a function's returns, in branches",
                 "a nested function's return is not its own", "a function returning another's result"):
        assert found[name], name
    # ``.device()`` below 0.4.27: the property withheld, ``next(iter(x.devices()))`` offered unsafe
    device = [name for name, findings in found.items() if any("x.device()" in f["message"] for f in findings)]
    low = [f for name in device for f in libcst_findings(DECIDED[name], [JAX104], LOW_MIN) if "x.device()" in f["message"]]
    assert len(device) >= 20 and len(low) >= 20
    assert all(f["fix_withheld"] and f["fix"]["edits"][0]["content"].startswith("next(iter(") for f in low)
    # the target before the removals: only ``to_py`` and ``block_host_until_ready`` (removed in 0.4.1) are left
    early = [f for source in DECIDED.values() for f in libcst_findings(source, [JAX104], LOW_TARGET)]
    assert early and all(f["message"].startswith(("`.to_py()`", "`.block_host_until_ready()`")) for f in early)
    # below the oldest known release no fix is given: each is withheld
    below = [f for source in DECIDED.values() for f in libcst_findings(source, [JAX104], BELOW_KNOWN)
             if f["message"].startswith("`.device_buffers`")]
    assert below and all(f["fix_withheld"] and not f["fix"] for f in below)


def test_engine_skips_libcst_for_jax104(monkeypatch):
    """The corpus's shape (objax): ``[b.device() for b in x.device_buffers]``, both findings with fixes."""
    source = "import jax\ndef local_devices(sharded_x):\n    return [b.device() for b in sharded_x.device_buffers]\n"
    expected = libcst_findings(source, [JAX104], HIGH_MIN)
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", HIGH_MIN, rules=[JAX104])
    assert [asdict(d) for d in result.diagnostics] == expected
    assert len(expected) == 2 and all(d["fix"] for d in expected)
