"""JAX206 (a key from a literal seed) and JAX203 (``jnp.empty``, with its rename fix) decided from ``ast``, in the style
of ``tests/test_ast_findings.py``: each case is linted through the libcst visit and through ``ast_findings.decide``;
the ``DECIDED`` cases must be answered, and equal the libcst diagnostics field by field (message, place, fix edits,
probe, withheld fix); the ``UNDECIDED`` ones must go to libcst (a buffer whose reads only ``UnreadBuffers`` can
follow, a name that may be ``empty`` itself, a span libcst would widen).
"""
from __future__ import annotations

from dataclasses import asdict, replace

import pytest

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings
from test_ast_findings import ast_decided, libcst_findings

JAX203 = rule_by_code("JAX203")
JAX206 = rule_by_code("JAX206")
CROSSING = replace(Settings(), explicit_min_version=Version("0.4.20"), min_version_source="test")  # JAX206 applies
BELOW_KNOWN = replace(Settings(), explicit_min_version=Version("0.1.0"), min_version_source="test")

_JAX = "import jax\n"
JAX206_DECIDED = {
    "jax bound otherwise": _JAX + "jax = load()\nk = jax.random.PRNGKey(0)\n",
    "a literal seed": _JAX + "key = jax.random.PRNGKey(0)\n",
    "the first in source order, not ast's": _JAX + "k = jax.random.PRNGKey(s) if jax.random.key(1) else "
                                            "jax.random.PRNGKey(0)\n",
    "a decorator comes first": _JAX + "@dec(jax.random.PRNGKey(1))\ndef f(k=jax.random.PRNGKey(2)):\n    pass\n",
    "a keyword before a starred argument": _JAX + "f(a=jax.random.PRNGKey(1), *[jax.random.PRNGKey(2)])\n",
    "three keys, seed= and negative": _JAX + "a = jax.random.PRNGKey(0)\nb = jax.random.key(1)\n"
                                      "c = jax.random.key(seed=-3)\n",
    "literal spellings": _JAX + "a = jax.random.PRNGKey(0x1F)\nb = jax.random.PRNGKey((0))\n"
                         "c = jax.random.PRNGKey(*rest, 0)\nd = jax.random.PRNGKey(x, seed=0)\n",
    "not literal seeds": _JAX + "a = jax.random.PRNGKey(True)\nb = jax.random.PRNGKey(+1)\n"
                         "c = jax.random.PRNGKey(--1)\nd = jax.random.PRNGKey(0.0)\ne = jax.random.PRNGKey(*s)\n"
                         "f = jax.random.PRNGKey(**kw)\ng = jax.random.key(seed)\n",
    "on lines, a comment, spaces": _JAX + "k = jax.random.PRNGKey(\n    0,  # seed\n)\nj = jax.random.key( 1 )\n",
    "imported by name, or in a function": "from jax.random import PRNGKey as K\nk = K(0)\n"
                                          "def f():\n    from jax import random\n    return random.key(3)\n",
    "the flag mentioned": _JAX + "k = jax.random.PRNGKey(0)\n# see JAX_THREEFRY_PARTITIONABLE\n",
    "the first under noqa": _JAX + "k = jax.random.PRNGKey(0)  # noqa: JAX206\nj = jax.random.PRNGKey(1)\n",
    "the first in compat code": _JAX + "try:\n    k = jax.random.PRNGKey(0)\nexcept ImportError:\n    pass\n"
                                "j = jax.random.PRNGKey(1)\n",
    "non-ASCII": _JAX + "s = 'é'; k = jax.random.PRNGKey(0, impl='é€')\n",
    "in a method, an annotation, a lambda": _JAX + "class A:\n    def f(self, k: jax.random.PRNGKey(0)):\n"
                                            "        self.k = jax.random.PRNGKey(42)\ng = lambda: jax.random.key(7)\n",
    "other libraries' seeds": "import numpy as np\nimport jax\nr = np.random.default_rng(0)\n",
}
JAX206_UNDECIDED = {
    # JAX206's own port leaves an f-string to libcst (its keys' places); the others: ``test_ast_findings_fstrings.py``
    "the first key in an f-string": _JAX + "s = f'{jax.random.PRNGKey(0)}'\n",
    "a later key in an f-string": _JAX + "k = jax.random.PRNGKey(0)\ns = f'{jax.random.PRNGKey(1)}'\n",
    "the first key in parentheses": _JAX + "k = (jax.random.PRNGKey(0))\n",
    "a star import": "from jax.random import *\nk = PRNGKey(0)\n",
}

_JNP = "import jax\nimport jax.numpy as jnp\n"
JAX203_DECIDED = {
    "jnp bound otherwise": _JNP + "def f(jnp):\n    return jnp.empty(3)\n",
    "a call": _JNP + "a = jnp.empty((3, 4), jnp.float32)\n",
    "spelled from jax": _JNP + "a = jax.numpy.empty_like(x)\n",
    "prototype= renamed": _JNP + "a = jnp.empty_like(prototype=x, dtype=d)\n",
    "prototype= renamed, on lines": _JNP + "a = f(jnp.empty_like(prototype = x,\n                      dtype=d), y)\n",
    "prototype= renamed, aligned below": _JNP + "a = jnp.empty_like(prototype=x, dtype=y,\n"
                                         "                   shape=s)\n",
    "prototype= renamed, after non-ASCII": _JNP + "s = 'é'; a = jnp.empty_like(prototype=x)\n",
    "prototype= renamed in a one-line suite": _JNP + "if c: a = jnp.empty_like(prototype=x, dtype=d,\n"
                                              "                               shape=s)\n",
    "**kwargs: no fix for empty_like": _JNP + "a = jnp.empty_like(x, **kw)\nb = jnp.empty(s, **kw)\n",
    "*args": _JNP + "a = jnp.empty_like(*xs)\nb = jnp.empty(*s)\n",
    "passed as a function": _JNP + "f = jnp.empty\ng(jnp.empty_like)\n",
    "an attribute of the function": _JNP + "d = jnp.empty.__doc__\n",
    "zero-size": _JNP + "a = jnp.empty(0)\nb = jnp.empty((n, 0))\nc = jnp.empty([0] + s)\n"
                 "d = jnp.empty(shape=(0,))\ne = jnp.empty_like(x, None, (0, 1))\n",
    "not zero-size": _JNP + "a = jnp.empty(False)\nb = jnp.empty((0.0, 1))\nc = jnp.empty((-0,))\n"
                     "d = jnp.empty_like(x, (0,))\n",
    "templates": _JNP + "y = jax.pure_callback(f, jnp.empty_like(x), x)\nz = jnp.zeros_like(a=jnp.empty(3))\n"
                 "s = jnp.empty(3).shape\n",
    "not templates": _JNP + "y = jax.pure_callback(jnp.empty_like(x), f, x)\nz = jnp.zeros_like(x, jnp.empty(3))\n"
                     "w = jax.eval_shape(*fs, jnp.empty(3))\nt = jnp.empty(3).T\nf(*jnp.empty(3))\n"
                     "g(**jnp.empty(3))\nclass A(B, metaclass=jnp.empty(3)):\n    pass\n",
    "a name read": _JNP + "t = jnp.empty(3)\ns = t + 1\nu = jnp.empty(4)\nf(u)\nv = jnp.empty(5)\n",
    "a name, then another name overwritten": _JNP + "t = jnp.empty(3)\nu = t.at[:].set(v)\n",
    "pad": _JNP + "y = jnp.pad(x, 1, mode='empty')\nz = jnp.pad(x, 1, 'em' 'pty')\nw = jnp.pad(x, 1, mode='edge')\n"
           "v = jnp.pad(x, 1, *m)\n",
    "numpy's empty": "import numpy as np\nimport jax\na = np.empty(3)\n",
    "the callee in parentheses": _JNP + "a = (jnp.empty)(3)\n",
    "a comment in the call": _JNP + "a = jnp.empty(  # why\n    3)\n",
    "noqa, compat code": _JNP + "a = jnp.empty(3)  # noqa: JAX203\ntry:\n    b = jnp.empty(3)\n"
                         "except ImportError:\n    pass\n",
    "an annotation, a decorator": _JNP + "def f(x: jnp.empty) -> None: pass\n@jnp.empty\ndef g(): pass\n",
    "an import in a function": "def f():\n    import jax.numpy as np\n    return np.empty(3)\n",
}
JAX203_SETTINGS_DECIDED = {
    "below the known range: the fix withheld": (BELOW_KNOWN, _JNP + "a = jnp.empty(3)\n"),
    "the min version past the change": (replace(Settings(), explicit_min_version=Version("0.11.0"),
                                                min_version_source="test"), _JNP + "a = jnp.empty(3)\n"),
}
JAX203_UNDECIDED = {
    "a name used as a template": _JNP + "t = jnp.empty(3)\ns = t.shape\n",
    "a name passed as a template": _JNP + "a = jnp.empty(3); b = jnp.zeros_like(a)\n",
    "overwritten by the next statement": _JNP + "t = jnp.empty(3)\nt = t.at[:].set(v)\n",
    "a scan carry": _JNP + "c, ys = jax.lax.scan(f, (jnp.empty(3), 0), xs)\n",
    "imported by name": "from jax.numpy import empty\na = empty(3)\n",
    "imported by name, aliased": "from jax.numpy import empty_like as el\na = el(x)\n",
    "imported by name, made global": "from jax.numpy import empty\ndef f():\n    global empty\n",
    "a star import": "from jax.numpy import *\na = empty(3)\n",
    "the call in parentheses": _JNP + "a = (jnp.empty(3))\n",
    "an f-string mode": _JNP + "y = jnp.pad(x, 1, mode=f'empty')\n",
}


def _decided(rule, source, settings):
    decided = ast_decided(source, [rule], settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, [rule], settings)
    return decided


@pytest.mark.parametrize("source", list(JAX206_DECIDED.values()), ids=list(JAX206_DECIDED))
def test_jax206_decided_from_ast_exactly_as_libcst(source):
    _decided(JAX206, source, CROSSING)


@pytest.mark.parametrize("rule,settings,source", [
    *((JAX203, None, source) for source in JAX203_DECIDED.values()),
    *((JAX203, settings, source) for settings, source in JAX203_SETTINGS_DECIDED.values())],
    ids=[*JAX203_DECIDED, *JAX203_SETTINGS_DECIDED])
def test_jax203_decided_from_ast_exactly_as_libcst(rule, settings, source):
    _decided(rule, source, settings)


@pytest.mark.parametrize("rule,settings,source", [
    *((JAX206, CROSSING, source) for source in JAX206_UNDECIDED.values()),
    *((JAX203, None, source) for source in JAX203_UNDECIDED.values())],
    ids=[*JAX206_UNDECIDED, *JAX203_UNDECIDED])
def test_undecidable_cases_go_to_libcst(rule, settings, source):
    assert ast_decided(source, [rule], settings) is None


EXAMPLES = [(rule, example) for rule in (JAX203, JAX206) for example in (*rule.VALID, *rule.INVALID)]


@pytest.mark.parametrize("rule,example", EXAMPLES,
                         ids=[f"{rule.code}-{index}" for index, (rule, _) in enumerate(EXAMPLES)])
def test_rule_examples_both_ways(rule, example):
    """Every example: decided exactly as libcst (fix included), or undecided."""
    settings = example_settings(rule, example)
    decided = ast_decided(example.code, [rule], settings)
    if decided is not None:
        assert decided == libcst_findings(example.code, [rule], settings)


def test_the_examples_are_mostly_decided():
    """Not vacuous: every JAX206 example is answered, and JAX203's but those whose buffer only ``UnreadBuffers``
    can follow (a template name, an overwrite, a scan carry) or whose ``empty`` is imported by name."""
    undecided = [f"{rule.code}-{index}" for index, (rule, example) in enumerate(EXAMPLES)
                 if ast_decided(example.code, [rule], example_settings(rule, example)) is None]
    assert undecided == ["JAX203-1", "JAX203-3", "JAX203-4", "JAX203-12", "JAX203-13", "JAX203-14", "JAX203-20",
                         "JAX203-21", "JAX203-22"]


def test_the_cases_are_not_vacuous():
    """The decided cases hold findings with fixes (probes, ``prototype=`` renamed), without, and none; the undecided
    JAX203 cases are findings of the libcst visit but for the buffers ``UnreadBuffers`` shows unread."""
    jax206 = {name: libcst_findings(source, [JAX206], CROSSING) for name, source in JAX206_DECIDED.items()}
    assert {name for name, found in jax206.items() if not found} == {
        "not literal seeds", "the flag mentioned", "jax bound otherwise", "the first under noqa",
        "the first in compat code",
        "other libraries' seeds"}
    assert "(and 2 more keys with a literal seed" in jax206["three keys, seed= and negative"][0]["message"]
    assert jax206["the first in source order, not ast's"][0]["message"].startswith("`jax.random.key(1)` (and 1 ")
    assert jax206["a decorator comes first"][0]["message"].startswith("`jax.random.PRNGKey(1)`")
    jax203 = {name: libcst_findings(source, [JAX203]) for name, source in JAX203_DECIDED.items()}
    assert {name for name, found in jax203.items() if not found} == {
        "an attribute of the function", "zero-size", "templates", "numpy's empty", "noqa, compat code",
        "jnp bound otherwise"}
    assert len(jax203["not zero-size"]) == 4 and len(jax203["not templates"]) == 7
    assert len(jax203["a name read"]) == 3
    renamed = jax203["prototype= renamed, aligned below"][0]["fix"]
    assert [edit["content"] for edit in renamed["edits"]] == ["zeros_like", "a"] and renamed["probe"]
    unseen = jax203["**kwargs: no fix for empty_like"]
    assert not unseen[0]["fix"] and "could be passed unseen" in unseen[0]["message"] and unseen[1]["fix"]
    assert jax203["passed as a function"][0]["fix"]["probe"] is None
    assert len(jax203["pad"]) == 2 and not any(finding["fix"] for finding in jax203["pad"])
    settings, source = JAX203_SETTINGS_DECIDED["below the known range: the fix withheld"]
    withheld = libcst_findings(source, [JAX203], settings)
    assert not withheld[0]["fix"] and withheld[0]["fix_withheld"]
    assert {name for name, source in JAX203_UNDECIDED.items() if not libcst_findings(source, [JAX203])} == {
        "a name used as a template", "a name passed as a template", "overwritten by the next statement",
        "an f-string mode"}


def _engine_without_libcst(monkeypatch):
    from jaxlint.lint import engine

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    monkeypatch.setattr(engine, "parse", no_libcst)


@pytest.mark.parametrize("rule,settings,source", [
    (JAX206, CROSSING, JAX206_DECIDED["three keys, seed= and negative"]),
    (JAX203, Settings(), JAX203_DECIDED["prototype= renamed, on lines"] + JAX203_DECIDED["pad"])],
    ids=["JAX206", "JAX203"])
def test_engine_skips_libcst(monkeypatch, rule, settings, source):
    expected = libcst_findings(source, [rule], settings)
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", settings, rules=[rule])
    assert [asdict(d) for d in result.diagnostics] == expected and expected


def test_fix_mode_is_the_same_with_the_fix_decided_from_ast(monkeypatch):
    """``--fix`` applies JAX203's fixes decided from ``ast`` as it applied libcst's: the same text and records."""
    source = JAX203_DECIDED["prototype= renamed, on lines"] + JAX203_DECIDED["a name read"]
    assert ast_decided(source, [JAX203]) is not None
    fast = fix_source(source, "t.py", Settings(), rules=[JAX203])
    monkeypatch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
    slow = fix_source(source, "t.py", Settings(), rules=[JAX203])
    assert fast.source == slow.source and fast.source.count("zeros") == 4 and "zeros_like(a = x" in fast.source
    assert [asdict(a) for a in fast.applied] == [asdict(a) for a in slow.applied] and len(fast.applied) == 4


def test_imported_name_asks_only_about_imported_roots():
    """``AstView.imported_name``: the resolver's name where an import may bind the root, None for a local, a builtin
    or an expression (no question asked), ``Undecidable`` where a star import may bind it."""
    import ast

    source = "import jax.numpy as jnp\nx = 1\njnp.empty\nx.empty\nlen.empty\nf().empty\n"
    view = ast_findings.AstView(source, ast.parse(source))
    chains = [node.value for node in view.tree.body[2:]]
    assert [view.imported_name(chain, lambda name: True) for chain in chains] == ["jax.numpy.empty", None, None, None]
    starred = "from jax.numpy import *\nempty\n"
    view = ast_findings.AstView(starred, ast.parse(starred))
    with pytest.raises(ast_findings.Undecidable):
        view.imported_name(view.tree.body[1].value, lambda name: True)
