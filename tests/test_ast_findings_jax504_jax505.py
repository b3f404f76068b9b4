"""JAX504 (``.unfreeze()`` on an init result) and JAX505 (``nnx.Optimizer`` without ``wrt=``) decided from ``ast``
with their fixes (issue 38): each case linted through the libcst visit and through ``ast_findings.decide`` must give
the same diagnostics field by field (message, place, fix edits, withheld fix). The ``DECIDED`` cases must be
answered by ``ast`` (so the fast path cannot quietly stop working); the ``UNDECIDED`` ones must go to libcst. See
``tests/test_ast_findings.py``.
"""
from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path

import pytest

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.version_pins import Bound, PinnedRange
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings
from test_ast_findings import ast_decided, libcst_findings

JAX504, JAX505 = rule_by_code("JAX504"), rule_by_code("JAX505")


def _flax(low: str, high: str | None = None) -> Settings:
    bounds = (("flax", Bound(Version(low), "requirements.txt:1", f"flax>={low}"),
               Bound(Version(high), "requirements.txt:1", f"flax<{high}") if high else None),)
    return replace(Settings(), pinned=PinnedRange(Path("."), None, None, bounds))


_NNX = "from flax import nnx\n"
# JAX505: every case here is answered by ``ast``
JAX505_DECIDED = {
    "positional": _NNX + "o = nnx.Optimizer(model, tx)\n",
    "tx by keyword": _NNX + "o = nnx.Optimizer(model, tx=tx)\n",
    "a spaced keyword": _NNX + "o = nnx.Optimizer(model, tx = tx)\n",
    "a trailing comma": _NNX + "o = nnx.Optimizer(model, tx,)\n",
    "one argument": _NNX + "o = nnx.Optimizer(model)\n",
    "no argument": _NNX + "o = nnx.Optimizer()\n",
    "wrt already passed": _NNX + "o = nnx.Optimizer(model, tx, wrt=nnx.Param)\np = nnx.Optimizer(model, wrt=f)\n",
    "*args and **kwargs": _NNX + "o = nnx.Optimizer(*args)\np = nnx.Optimizer(model, **options)\n",
    "imported by name": "from flax.nnx import Optimizer\no = Optimizer(model, tx)\n",
    "imported by name, aliased": "from flax.nnx import Optimizer as Opt\no = Opt(model, tx)\n",
    "through flax": "import flax\no = flax.nnx.Optimizer(model, tx)\n",
    "a module alias": "import flax.nnx as fnnx\no = fnnx.Optimizer(model, tx)\n",
    "an import in a function": "def make(model, tx):\n    from flax import nnx\n    return nnx.Optimizer(model, tx)\n",
    "not flax": "from mylib import nnx\no = nnx.Optimizer(model, tx)\n",
    "multi-line, trailing comma": _NNX + "o = nnx.Optimizer(\n    model,\n    tx,\n)\n",
    "multi-line, no trailing comma": _NNX + "o = nnx.Optimizer(\n    model,\n    tx\n)\n",
    "multi-line, comments": _NNX + "o = nnx.Optimizer(\n    model,  # the model (\n    tx,  # adam )\n)\n",
    "a comment after the last argument": _NNX + "o = nnx.Optimizer(\n    model,\n    tx  # adam\n)\n",
    "continuation lines aligned": _NNX + "o = nnx.Optimizer(model,\n                  tx)\n",
    "a closing parenthesis on its own line": _NNX + "o = nnx.Optimizer(model, tx,\n                  )\n",
    "a multi-line last argument": _NNX + "o = nnx.Optimizer(model, optax.chain(\n    a,\n    b))\n",
    "a multi-line keyword argument": _NNX + "o = nnx.Optimizer(\n    model,\n    tx=optax.chain(\n        a,\n"
                                            "        b),\n)\n",
    "a string across lines": _NNX + "o = nnx.Optimizer(model, 'a'\n                  'b')\n",
    "a backslash": _NNX + "o = nnx.Optimizer(model, \\\n    tx)\n",
    "a trailing comment": _NNX + "o = nnx.Optimizer(model, tx)  # make it\n",
    "non-ASCII text": _NNX + "o = nnx.Optimizer(模型, tx)  # é\n",
    "nested calls": _NNX + "self.o = nnx.Optimizer(model, wrap(nnx.Optimizer(m, t)))\n",
    "compat code": "try:\n    from flax import nnx\n    o = nnx.Optimizer(m, t)\nexcept ImportError:\n    pass\n",
    "noqa": _NNX + "o = nnx.Optimizer(model, tx)  # noqa: JAX505\n",
}
JAX505_SETTINGS_DECIDED = {
    "wrt older than the pins": (_flax("0.8.0"), JAX505_DECIDED["positional"]),
    "wrt in the pins": (_flax("0.10.0"), JAX505_DECIDED["positional"]),
    "flax kept below 0.11.0": (_flax("0.10.0", "0.11.0"), JAX505_DECIDED["positional"]),
    "below the known range": (replace(Settings(), explicit_min_version=Version("0.1.0"), min_version_source="test"),
                              JAX505_DECIDED["positional"]),
}
JAX505_UNDECIDED = {
    "the last argument in parentheses": _NNX + "o = nnx.Optimizer(model, (tx))\n",
    "the only argument in parentheses": _NNX + "o = nnx.Optimizer((model))\n",
    "a keyword value in parentheses": _NNX + "o = nnx.Optimizer(model, tx=(tx))\n",
    "the previous argument in parentheses": _NNX + "o = nnx.Optimizer((model), tx)\n",
    "a parenthesized module": _NNX + "o = (nnx).Optimizer(model, tx)\n",
    "a generator": _NNX + "o = nnx.Optimizer(m for m in models)\n",
    "a star import": _NNX + "from m import *\no = nnx.Optimizer(model, tx)\n",
}

_FLAX = "import flax\n"
_INIT = "variables = model.init(rng, x)\n"
# JAX504: every case here is answered by ``ast``
JAX504_DECIDED = {
    "flax rebound": _FLAX + "flax = None\n" + _INIT + "params = variables.unfreeze()\n",
    # libcst compares the code of the tested value and of the receiver, parentheses included
    "a name from init": _FLAX + _INIT + "params = variables.unfreeze()\n",
    "in a function": _FLAX + "def f():\n    variables = model.init(rng, x)\n    return variables.unfreeze()\n",
    "in a method": _FLAX + "class A:\n    def f(self):\n        v = self.m.init(r, x)\n        return v.unfreeze()\n",
    "flax imported in the function": "def f():\n    import flax\n    v = model.init(rng, x)\n    return v.unfreeze()\n",
    "flax not bound": "from flax import linen as nn\n" + _INIT + "params = variables.unfreeze()\n",
    "an argument": _FLAX + _INIT + "params = f(variables.unfreeze())\n",
    "before aligned lines": _FLAX + _INIT + "params = f(variables.unfreeze(), a,\n           b)\n",
    "the second value of init_with_output": _FLAX + "y, v = model.init_with_output(rng, x)\np = v.unfreeze()\n",
    "the FrozenDict branch": _FLAX + "from flax.core import FrozenDict\n" + _INIT + "if isinstance(variables, "
                             "FrozenDict):\n    p = variables.unfreeze()\nelse:\n    p = variables.unfreeze()\n",
    "a conditional expression": _FLAX + _INIT + "p = variables['a'].unfreeze() if c else variables.unfreeze()\n",
    "reassigned": _FLAX + _INIT + "variables = other()\np = variables.unfreeze()\n",
    "an argument to unfreeze": _FLAX + _INIT + "p = variables.unfreeze(1)\n",
    "not flax": _INIT + "params = variables.unfreeze()\n",
    "noqa": _FLAX + _INIT + "params = variables.unfreeze()  # noqa: JAX504\n",
    "compat code": _FLAX + _INIT + "try:\n    p = variables.unfreeze()\nexcept AttributeError:\n    p = variables\n",
    "non-ASCII text": _FLAX + _INIT + "p = variables.unfreeze()  # é\nq = 'é' + variables.unfreeze()\n",
    # ``from_init`` reads the statements of the name's scope: a lambda or a comprehension has none
    "a lambda and comprehensions": _FLAX + _INIT + "f = lambda: variables.unfreeze()\n"
                                   "p = [variables.unfreeze() for _ in r]\nq = {k: variables.unfreeze() for k in r}\n",
    "a comprehension's first iterable, a default, a decorator": _FLAX + _INIT + "p = [x for x in variables.unfreeze()]"
                                                                "\n@d(variables.unfreeze())\n"
                                                                "def g(a=variables.unfreeze()):\n    pass\n",
    "FrozenDict branches of if-expressions and an elif": _FLAX + "from flax.core import FrozenDict\n" + _INIT
                                                         + "p = variables.unfreeze() if isinstance(variables, "
                                                           "FrozenDict) else variables\n"
                                                           "if not isinstance(variables, FrozenDict):\n    pass\n"
                                                           "elif c:\n    p = variables.unfreeze()\n",
}
JAX504_SETTINGS_DECIDED = {
    "flax kept below 0.7.1": (_flax("0.6.11", "0.7.1"), JAX504_DECIDED["a name from init"]),
    "below the known range": (replace(Settings(), explicit_min_version=Version("0.1.0"), min_version_source="test"),
                              JAX504_DECIDED["a name from init"]),
}
JAX504_UNDECIDED = {
    "on the init call": _FLAX + "params = model.init(rng, x).unfreeze()\n",
    "a receiver in parentheses": _FLAX + _INIT + "params = (variables).unfreeze()\n",
    "a call in parentheses": _FLAX + _INIT + "params = (variables.unfreeze())\n",
    "an isinstance test of a value in parentheses": _FLAX + "from flax.core import FrozenDict\n" + _INIT
                                                    + "if isinstance((variables), FrozenDict):\n"
                                                      "    p = variables.unfreeze()\n",
    "a receiver in parentheses in the FrozenDict branch": _FLAX + "from flax.core import FrozenDict\n" + _INIT
                                                          + "if isinstance(variables, FrozenDict):\n"
                                                            "    p = (variables).unfreeze()\n",
}

# JAX508 (selected by default) reports FrozenDict members on flax variables but leaves JAX504's shape to it: with
# both rules these files are still decided from ``ast``
JAX508 = rule_by_code("JAX508")
WITH_JAX508 = ("a name from init", "in a function", "in a method", "flax imported in the function",
               "flax not bound", "an argument", "before aligned lines", "the second value of init_with_output",
               "not flax", "noqa", "compat code", "non-ASCII text",
               "a comprehension's first iterable, a default, a decorator")

DECIDED = {
    **{f"JAX505 {name}": ((JAX505,), None, source) for name, source in JAX505_DECIDED.items()},
    **{f"JAX505 {name}": ((JAX505,), settings, source) for name, (settings, source) in JAX505_SETTINGS_DECIDED.items()},
    **{f"JAX504 {name}": ((JAX504,), None, source) for name, source in JAX504_DECIDED.items()},
    **{f"JAX504 {name}": ((JAX504,), settings, source) for name, (settings, source) in JAX504_SETTINGS_DECIDED.items()},
    **{f"JAX504+JAX508 {name}": ((JAX504, JAX508), None, JAX504_DECIDED[name]) for name in WITH_JAX508},
    "JAX504+JAX505 in one file": ((JAX504, JAX505), None, JAX504_DECIDED["a name from init"]
                                  + JAX505_DECIDED["positional"]),
}
UNDECIDED = {
    **{f"JAX505 {name}": ((JAX505,), source) for name, source in JAX505_UNDECIDED.items()},
    **{f"JAX504 {name}": ((JAX504,), source) for name, source in JAX504_UNDECIDED.items()},
}
EXAMPLES = [(rule, example) for rule in (JAX504, JAX505) for example in (*rule.VALID, *rule.INVALID)]
# the examples ``ast`` leaves to libcst (every other one must be decided)
UNDECIDED_EXAMPLES = {"on the init call"}


@pytest.mark.parametrize("rules,settings,source", list(DECIDED.values()), ids=list(DECIDED))
def test_decided_from_ast_exactly_as_libcst(rules, settings, source):
    decided = ast_decided(source, rules, settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, rules, settings)


@pytest.mark.parametrize("rules,source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(rules, source):
    assert ast_decided(source, rules) is None
    assert libcst_findings(source, rules), "an undecided case is a finding libcst gives"


@pytest.mark.parametrize("rule,example", EXAMPLES, ids=[f"{rule.code}-{i}" for i, (rule, _) in enumerate(EXAMPLES)])
def test_rule_examples_decided_exactly(rule, example):
    settings = example_settings(rule, example)
    decided = ast_decided(example.code, [rule], settings)
    if example.note in UNDECIDED_EXAMPLES:
        assert decided is None
    else:
        assert decided is not None, "the fast path must answer this example"
        assert decided == libcst_findings(example.code, [rule], settings)


def test_cases_are_not_vacuous():
    """The decided cases hold fixes (some across lines or before aligned lines), withheld fixes and no findings."""
    def fixes(rule, source, settings=None):
        return [bool(finding["fix"]) for finding in libcst_findings(source, [rule], settings)]
    jax505 = {name: fixes(JAX505, source) for name, source in JAX505_DECIDED.items()}
    assert sum(found == [True] for found in jax505.values()) == 20
    assert jax505["nested calls"] == [True, True]
    assert {name for name, found in jax505.items() if found == [False]} == {
        "no argument", "imported by name", "imported by name, aliased"}
    assert {name for name, found in jax505.items() if not found} == {
        "wrt already passed", "*args and **kwargs", "not flax", "compat code", "noqa"}
    settings, source = JAX505_SETTINGS_DECIDED["wrt older than the pins"]
    (old,) = libcst_findings(source, [JAX505], settings)
    assert old["fix_withheld"] and not old["fix"]
    settings, source = JAX505_SETTINGS_DECIDED["flax kept below 0.11.0"]
    assert not libcst_findings(source, [JAX505], settings)
    jax504 = {name: fixes(JAX504, source) for name, source in JAX504_DECIDED.items()}
    assert {name for name, found in jax504.items() if not found} == {
        "reassigned", "an argument to unfreeze", "not flax", "noqa", "compat code", "a lambda and comprehensions",
        "FrozenDict branches of if-expressions and an elif"}
    assert jax504["flax not bound"] == [False] and jax504["the FrozenDict branch"] == [True]
    assert jax504["flax imported in the function"] == [True] and jax504["non-ASCII text"] == [True, True]
    assert jax504["a comprehension's first iterable, a default, a decorator"] == [True, True, True]


@pytest.mark.parametrize("rules,settings,source", [DECIDED["JAX505 a multi-line keyword argument"],
                                                   DECIDED["JAX505 multi-line, comments"],
                                                   DECIDED["JAX504 before aligned lines"],
                                                   DECIDED["JAX504+JAX508 in a function"]])
def test_check_does_not_parse_with_libcst(monkeypatch, rules, settings, source):
    """``check`` (gates on) answers from ``ast``: libcst's ``parse_module`` is never called."""
    import libcst

    expected = libcst_findings(source, rules, settings)

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    monkeypatch.setattr(libcst, "parse_module", no_libcst)
    result = lint_source(source, "t.py", settings or Settings(), rules=list(rules))
    assert [asdict(diagnostic) for diagnostic in result.diagnostics] == expected


@pytest.mark.parametrize("name", ["JAX505 multi-line, trailing comma", "JAX505 a multi-line last argument",
                                  "JAX504 in a function", "JAX504+JAX505 in one file"])
def test_fix_mode_writes_the_same_either_way(monkeypatch, name):
    rules, settings, source = DECIDED[name]
    settings = settings or Settings()
    fast = fix_source(source, "t.py", settings, rules=list(rules))
    monkeypatch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
    slow = fix_source(source, "t.py", settings, rules=list(rules))
    assert fast.source == slow.source != source
