"""JAX508 (a ``FrozenDict`` method, or ``isinstance(x, FrozenDict)``, on flax variables) decided from ``ast`` with its
fixes and withheld fixes (issue 38): ``VariablesTrackerAst`` follows names and TrainStates as the libcst path's
``VariablesTracker`` does. Each case linted through the libcst visit and through ``ast_findings.decide`` must give the
same diagnostics field by field; the ``DECIDED`` cases and every rule example must be answered by ``ast``; the
``UNDECIDED`` ones (parentheses whose code ``ast`` does not show, a call ``AstView.span`` cannot place) go to libcst.
See ``tests/test_ast_findings.py``.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from jaxlint.project.settings import Settings
from jaxlint.project.version_pins import Bound, PinnedRange
from jaxlint.project.versions import Version
from jaxlint.rules import jax508_flax_frozendict_member as jax508
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings
from test_ast_findings import ast_decided, libcst_findings

JAX508 = rule_by_code("JAX508")
_FLAX = "import flax\nfrom flax.core import FrozenDict\n"
_INIT = "variables = model.init(rng, x)\n"
_STATE = "from flax.training import train_state\n"


def _flax(low: str) -> Settings:
    bounds = (("flax", Bound(Version(low), "requirements.txt:1", f"flax>={low}"), None),)
    return replace(Settings(), pinned=PinnedRange(Path("."), None, None, bounds))


# (settings, source): each decided from ``ast``, as libcst decides it
DECIDED = {
    "copy, spaces and a trailing comma": (None, _FLAX + _INIT + "w = variables.copy( {'a': 1} , )\n"),
    "copy by keyword across lines": (None, _FLAX + _INIT + "w = variables.copy(\n    add_or_replace={'a': 1},\n)\n"),
    "a keyword's value in parentheses": (None, _FLAX + _INIT + "w = variables.copy(add_or_replace=({'a': 1}) )\n"),
    "isinstance in both branches of an if-expression": (None, _FLAX + _INIT + "p = variables.pretty_repr() if "
                                                        "isinstance(variables, FrozenDict) else isinstance(variables, "
                                                        "FrozenDict)\n"),
    "pretty_repr with num_spaces by keyword": (None, _FLAX + _INIT + "t = variables.pretty_repr(num_spaces=4)\n"),
    "a pop subscripted, a space before the parenthesis": (None, _FLAX + _INIT + "p = variables.pop('params' )[1]\n"),
    "the functions older than the pinned flax": (_flax("0.6.0"), _FLAX + _INIT + "w = variables.copy({})\n"
                                                 "t = variables.pretty_repr()\np = variables['params'].unfreeze()\n"),
    "isinstance, dotted and negated": (None, _FLAX + _INIT + "if not isinstance(variables, flax.core.FrozenDict):\n"
                                       "    raise TypeError('variables')\n"),
    "isinstance in an if-expression": (None, _FLAX + _INIT + "p = variables if isinstance(variables, FrozenDict) "
                                       "else dict(variables)\n"),
    "isinstance guarding flax.core.unfreeze of a subscript": (None, _FLAX + "from flax.core import unfreeze\n"
        + _INIT + "if isinstance(variables['params'], FrozenDict):\n    p = unfreeze(variables['params'])\n"
        "if isinstance(variables, FrozenDict):\n    q = variables['params'].pretty_repr()\nelse:\n"
        "    q = variables['params']\n"),
    "isinstance beside dict rebound": (None, _FLAX + "dict = OrderedDict\n" + _INIT
                                       + "ok = isinstance(variables['params'], FrozenDict)\n"),
    "flax imported in the function only": (None, "from flax import linen as nn\ndef f(rng, x):\n    import flax\n"
                                           "    v = model.init(rng, x)\n    return v['params'].pretty_repr()\n"
                                           "def g(rng, x):\n    v = model.init(rng, x)\n"
                                           "    return v['params'].pretty_repr()\n"),
    "a name through try, except and else": (None, _FLAX + "def f():\n    try:\n        v = model.init(rng, x)\n"
                                            "    except ValueError:\n        v = model.init(rng, y)\n    else:\n"
                                            "        w = v['params']\n    return v.pretty_repr(), w.pretty_repr()\n"),
    "a name also assigned something else": (None, _FLAX + "def f():\n    try:\n        v = model.init(rng, x)\n"
                                            "    except ValueError:\n        v = None\n    return v.pretty_repr()\n"),
    "names read in each other's assignments": (None, _FLAX + _STATE + _INIT
        + "state = train_state.TrainState.create(apply_fn=f, params=variables['params'], tx=t)\n"
          "params = state.params\nstate = state.replace(params=params)\nprint(params.pretty_repr())\n"
          "print(state.params.pretty_repr())\n"),
    "two statements on a line": (None, _FLAX + "a = model.init(r, x); b = a['params']\nprint(b.pretty_repr())\n"),
    "an async function, an annotated assignment": (None, _FLAX + _STATE + "async def f(state: train_state.TrainState):"
                                                   "\n    p: dict = state.params\n    return p.unfreeze()\n"),
    "Optional and union annotations": (None, _FLAX + _STATE + "from typing import Optional\n"
                                       "def f(s: Optional[train_state.TrainState], t: train_state.TrainState | None):"
                                       "\n    return s.params.unfreeze(), t.params.pretty_repr()\n"),
    "a subclass of a subclass": (None, _FLAX + _STATE + "class A(train_state.TrainState):\n    pass\n"
                                 "class B(A):\n    pass\ndef f(state: B):\n    return state.params.unfreeze()\n"),
    "a comprehension and a lambda": (None, _FLAX + _INIT + "ps = [v.pretty_repr() for v in [variables]]\n"
                                     "f = lambda: variables.pretty_repr()\n"),
    "non-ASCII text before": (None, _FLAX + _INIT + "s = 'é'\nt = variables['params'].pretty_repr()\n"),
    "apply's pair, mutable False or None": (None, _FLAX + "y, a = model.apply(v, x, mutable=False)\n"
                                            "z, b = model.apply(v, x, mutable=None)\nc = model.apply(v, x, mutable=0)"
                                            "[1]\nprint(a.pretty_repr(), b.pretty_repr(), c.pretty_repr())\n"),
    "subscripts by 1 spelled otherwise": (None, _FLAX + "out = model.init_with_output(r, x)\n"
                                          "print(out[0x1].pretty_repr())\nprint(out[1].pretty_repr())\n"),
    # the shape of dalle-mini's tools/train/train.py: members and tests of values that are not flax variables
    "dalle-mini's train.py": (None, "import flax\nfrom flax import struct, core\n"
        "from flax.core.frozen_dict import FrozenDict, freeze, unfreeze\n"
        "def main(model, optimizer):\n    def spec(x):\n        if isinstance(x, FrozenDict):\n"
        "            return freeze(x)\n        return x\n"
        "    class TrainState(struct.PyTreeNode):\n        params: core.FrozenDict\n"
        "        @classmethod\n        def create(cls, *, apply_fn, params, tx, **kwargs):\n"
        "            return cls(params=params, **kwargs)\n"
        "    params = model.init_weights(model.key, model.input_shape)\n"
        "    state = TrainState.create(apply_fn=model.__call__, tx=optimizer, params=params)\n"
        "    def train_step(state, batch):\n        minibatch, labels = batch.pop('labels')\n"
        "        return state, labels\n    def eval_step(state, batch):\n"
        "        batch, labels = batch.pop('labels')\n        return state.params.pretty_repr()\n"
        "    variables = model.init(model.key, x)\n    return state, variables\n"),
    "an init call as the receiver": (None, _FLAX + "print(model.init(rng, x).pretty_repr())\n"),
}
# (source): left to libcst, each a finding there
UNDECIDED = {
    "a receiver in parentheses": _FLAX + _INIT + "p = (variables['params']).unfreeze()\n",
    "an argument in parentheses": _FLAX + _INIT + "w = variables.copy(({'a': 1}))\n",
    "a comment between the arguments": _FLAX + _INIT + "t = variables.copy(  # more\n    {'a': 1})\n",
    "the classes in parentheses": _FLAX + _INIT + "ok = isinstance(variables, (FrozenDict))\n",
    "a tested value in parentheses": _FLAX + _INIT + "if isinstance((variables), FrozenDict):\n"
                                     "    print(variables.pretty_repr())\n",
}
EXAMPLES = [*JAX508.VALID, *JAX508.INVALID]
# the examples ``ast`` leaves to libcst
UNDECIDED_EXAMPLES: set[str] = set()


_UNDECIDED_SOURCES = {example.code for example in EXAMPLES if example.note in UNDECIDED_EXAMPLES}


@pytest.mark.parametrize("settings,source", list(DECIDED.values()), ids=list(DECIDED))
def test_decided_from_ast_exactly_as_libcst(settings, source):
    decided = ast_decided(source, [JAX508], settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, [JAX508], settings)


@pytest.mark.parametrize("source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(source):
    assert ast_decided(source, [JAX508]) is None
    assert libcst_findings(source, [JAX508]), "an undecided case is a finding libcst gives"


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"JAX508-{index}" for index in range(len(EXAMPLES))])
def test_rule_examples_decided_exactly(example):
    settings = example_settings(JAX508, example)
    decided = ast_decided(example.code, [JAX508], settings)
    if example.note in UNDECIDED_EXAMPLES:
        assert decided is None
    else:
        assert decided is not None, "the fast path must answer this example"
        assert decided == libcst_findings(example.code, [JAX508], settings)


@pytest.mark.parametrize("settings,source", [*DECIDED.values(), *((example_settings(JAX508, example), example.code)
                                                                  for example in EXAMPLES)],
                         ids=[*DECIDED, *(f"JAX508-{index}" for index in range(len(EXAMPLES)))])
def test_the_tracker_agrees_without_the_cheap_test(monkeypatch, settings, source):
    """``_may_hold``/``_may_be_state_params`` only spare the tracker: asked of every candidate, ``VariablesTrackerAst``
    answers as libcst's tracker does."""
    monkeypatch.setattr(jax508, "_may_hold", lambda *args: True)
    monkeypatch.setattr(jax508, "_may_be_state_params", lambda *args: True)
    decided = ast_decided(source, [JAX508], settings)
    assert decided == (None if source in _UNDECIDED_SOURCES else libcst_findings(source, [JAX508], settings))


def test_cases_are_not_vacuous():
    """The decided cases hold safe and unsafe fixes, fixes across lines, withheld fixes and files without a finding."""
    found = {name: libcst_findings(source, [JAX508], settings) for name, (settings, source) in DECIDED.items()}
    counts = {name: len(findings) for name, findings in found.items()}
    assert {name for name, count in counts.items() if not count} == {
        "isinstance guarding flax.core.unfreeze of a subscript", "a name also assigned something else",
        "a comprehension and a lambda", "dalle-mini's train.py", "isinstance in both branches of an if-expression"}
    assert counts["apply's pair, mutable False or None"] == 1
    assert counts["a name through try, except and else"] == 2 and counts["names read in each other's assignments"] == 1
    assert counts["subscripts by 1 spelled otherwise"] == 1 and counts["Optional and union annotations"] == 2
    (unsafe,) = found["pretty_repr with num_spaces by keyword"]
    assert unsafe["fix"]["applicability"] == "unsafe"
    (parenthesized,) = found["a keyword's value in parentheses"]
    assert parenthesized["fix"]["edits"][0]["content"] == "flax.core.copy(variables, add_or_replace=({'a': 1}))"
    (across,) = found["copy by keyword across lines"]
    assert across["fix"]["edits"][0]["content"] == "flax.core.copy(variables, add_or_replace={'a': 1})"
    assert [finding["fix_withheld"] is not None for finding in found["the functions older than the pinned flax"]] \
        == [True, True, False]
    (rebound,) = found["isinstance beside dict rebound"]
    assert rebound["fix"] is None and "`dict`" in rebound["fix_withheld"]["reason"]
    bound, unbound = found["flax imported in the function only"]
    assert bound["fix"] and unbound["fix"] is None and unbound["fix_withheld"]


# -- generated programs: names, pairs and TrainStates assigned in blocks and functions, read in each other's
# assignments (where the order the tracker reads them in may change an answer), tested and called ----------------
_HEAD = ("import flax\nfrom typing import Optional\nfrom flax.core import FrozenDict\n"
         "from flax.training.train_state import TrainState\nclass State(TrainState):\n    stats: int\n")
_NAMES = ("v", "s", "out")


def _expression(rng, depth=0) -> str:
    if rng.random() < 0.3:
        return "model.init(rng, x)"
    name = rng.choice(_NAMES)
    inner = _expression(rng, depth + 1) if depth < 2 else name
    return rng.choice([
        "model.init(rng, x)", "model.init_with_output(rng, x)", "model.apply(v, x, mutable=['bs'])",
        f"{name}['params']", f"{name}[1]", f"{name}.params", f"{name}.stats", f"{name}.copy({{}})",
        f"S.create(params={inner}, stats={name})", f"TrainState.create(apply_fn=f, params={inner}, tx=t)",
        f"{name}.replace(step=0)", f"{name}.apply_gradients(grads=g)", f"{name}.replace(params={name})",
        name, name])


def _statement(rng, indent: int, depth: int) -> list[str]:
    name, other, pad = rng.choice(_NAMES), rng.choice(_NAMES), "    " * indent
    kind = rng.randrange(9 if depth > 2 else 13)  # a compound statement (9 and up) down to a depth of 3
    if kind < 2:
        return [f"{pad}{name} = {_expression(rng)}"]
    if kind == 2:
        return [f"{pad}{other}, {name} = {_expression(rng)}"]
    if kind == 3:
        return [f"{pad}{name} = {_expression(rng)}; {other} = {name}"]
    if kind == 4:
        return [f"{pad}y = {rng.choice(_NAMES)}.pretty_repr()"]
    if kind == 5:
        return [f"{pad}y = {_expression(rng)}.unfreeze()"]
    if kind == 6:
        return [f"{pad}a, b = {_expression(rng)}.pop('k')"]
    if kind == 7:
        return [f"{pad}{name} += 1"]
    if kind == 8:
        return [f"{pad}ok = isinstance({rng.choice([name, name + '[0]', name + '.params'])}, FrozenDict)"]
    if kind == 9:
        return [f"{pad}if isinstance({name}, FrozenDict):", *_block(rng, indent + 1, depth), f"{pad}else:",
                *_block(rng, indent + 1, depth)]
    if kind == 10:
        return [f"{pad}try:", *_block(rng, indent + 1, depth), f"{pad}except E:", *_block(rng, indent + 1, depth),
                f"{pad}else:", *_block(rng, indent + 1, depth)]
    if kind == 11:
        annotation = rng.choice(["", ": TrainState", ": State", ": Optional[TrainState]"])
        return [f"{pad}def f({name}{annotation}, {other}):", *_block(rng, indent + 1, depth)]
    return [f"{pad}for {name} in xs:", *_block(rng, indent + 1, depth)]


def _block(rng, indent: int, depth: int) -> list[str]:
    return [line for _ in range(rng.randint(1, 4)) for line in _statement(rng, indent, depth + 1)]


def test_generated_programs_decided_exactly(monkeypatch):
    """300 generated programs, the tracker asked of every candidate: each decided as libcst decides it (a call on
    an init call, which ``AstView.span`` does not place, goes to libcst)."""
    import random

    monkeypatch.setattr(jax508, "_may_hold", lambda *args: True)
    monkeypatch.setattr(jax508, "_may_be_state_params", lambda *args: True)
    findings = decided_count = 0
    for seed in range(300):
        rng = random.Random(seed)
        source = _HEAD + "\n".join(line for _ in range(rng.randint(2, 10)) for line in _statement(rng, 0, 0)) + "\n"
        expected = libcst_findings(source, [JAX508])
        decided = ast_decided(source, [JAX508])
        findings += len(expected)
        if decided is not None:
            decided_count += 1
            assert decided == expected, source
    assert decided_count >= 290 and findings >= 50
