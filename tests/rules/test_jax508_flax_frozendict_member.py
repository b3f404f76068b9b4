"""JAX508 flax-frozendict-member: FrozenDict methods on flax variables, by the project's flax range; its member list
(``rules/flax_frozendict.toml``) and the tool that writes it; no finding twice with JAX503/JAX504."""
from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from jaxlint.catalogue.flax_frozendict import members
from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from tests.cli.test_cli import run

REPO = Path(__file__).resolve().parents[2]
USES = """\
import flax
variables = model.init(rng, x)
a = variables["params"].unfreeze()
b = variables.copy({"params": a})
c = variables["params"].pretty_repr()
d = variables["params"].pop("Dense_0")[1]
"""


def project(root: Path, requirements: str, source: str) -> Path:
    (root / "requirements.txt").write_text("jax>=0.4.30\n" + requirements)
    (root / "a.py").write_text(source)
    return root / "a.py"


def findings(root: Path, *args: str) -> list[dict]:
    return json.loads(run(["--output-format", "json", "--no-cache", "--select", "JAX508", *args], root).output)


def codes(source: str, select: tuple[str, ...] = ("JAX508",)) -> list[tuple[int, str]]:
    result = lint_source(source, "a.py", Settings(select=select))
    return [(d.start.row, d.code) for d in result.diagnostics]


# -- the flax range ---------------------------------------------------------------------------------------------
def test_fixes_follow_the_first_flax_release_of_each_function(tmp_path):
    """flax.core.unfreeze: every release read; copy and pop: 0.6.6; pretty_repr: 0.6.9 (read in the wheels)."""
    project(tmp_path, "flax>=0.6.6\n", USES)
    found = {d["location"]["row"]: d for d in findings(tmp_path)}
    assert sorted(found) == [3, 4, 5, 6]
    assert [row for row, d in sorted(found.items()) if d["fix"]] == [3, 4, 6]
    assert "`flax.core.pretty_repr` exists from flax 0.6.9" in found[5]["fix_withheld"]["reason"]


def test_below_flax_core_copy_only_unfreeze_is_fixed(tmp_path):
    path = project(tmp_path, "flax>=0.6.0\n", USES)
    run(["--fix", "--no-cache", "--select", "JAX508"], tmp_path)
    assert path.read_text() == USES.replace('variables["params"].unfreeze()', 'flax.core.unfreeze(variables["params"])')


def test_flax_pinned_at_the_plain_dict_is_silent(tmp_path):
    """Its code has only ever seen dicts: the upgrade changes nothing there."""
    project(tmp_path, "flax>=0.7.1\n", USES)
    assert findings(tmp_path) == []


def test_flax_capped_below_the_plain_dict_is_silent(tmp_path):
    project(tmp_path, "flax>=0.6.11,<0.7.1\n", USES)
    assert findings(tmp_path) == []


def test_unpinned_flax_is_reported_with_every_fix(tmp_path):
    (tmp_path / "a.py").write_text(USES)
    run(["--fix", "--no-cache", "--select", "JAX508"], tmp_path)
    assert (tmp_path / "a.py").read_text() == """\
import flax
variables = model.init(rng, x)
a = flax.core.unfreeze(variables["params"])
b = flax.core.copy(variables, {"params": a})
c = flax.core.pretty_repr(variables["params"])
d = flax.core.pop(variables["params"], "Dense_0")[1]
"""


# -- what holds flax variables, and what does not ---------------------------------------------------------------
@pytest.mark.parametrize("source, rows", [
    ("import flax\nv = model.init(r, x)\nv = v['params']\nv.unfreeze()\n", [4]),  # reassigned from itself
    ("import flax\nv = model.init(r, x)\nv = load()\nv['params'].unfreeze()\n", []),  # and from something else
    ("import flax\nv = model.init(r, x)\nv = v.unfreeze()\nv['params'].unfreeze()\n", []),  # a real dict now
    ("import flax\nmodel.apply(v, x, mutable=True)[1]['batch_stats'].unfreeze()\n", [2]),
    ("import flax\nmodel.apply(v, x, mutable=False)[1].unfreeze()\n", []),
    ("import flax\nmodel.apply(v, x, mutable=['stats'])[0].unfreeze()\n", []),  # the output, not the state
    ("import flax\n_, v = model.init_with_output(r, x)\nv['params'].unfreeze()\n", [3]),
    ("import flax\nv, _ = model.init_with_output(r, x)\nv['params'].unfreeze()\n", []),
    ("import flax\ns = TrainState.create(params=model.init(r, x)['params'])\ns.params.unfreeze()\n", [3]),
    ("import flax\ns = TrainState.create(params=model.init(r, x)['params'])\ns = s.replace(params=p)\n"
     "s.params.unfreeze()\n", []),
    ("import flax\ns = TrainState.create(params=p)\ns.params.unfreeze()\n", []),  # params of unknown origin
    ("import flax\nv = model.init(r, x)\nrest, p = v['params'].pop('Dense_0')\n", [3]),
    ("import flax\nv = model.init(r, x)\nv['params'].pop('Dense_0')\n", []),  # dict.pop is what is meant
    ("import flax\nv = model.init(r, x)\nv.tree_flatten_with_keys()\n", [3]),
    ("import flax\ndef f(v):\n    return v['params'].copy({'a': 1})\n", []),
    ("import flax\nfrom flax.core import unfreeze\nv = model.init(r, x)\np = unfreeze(v['params'])\n", []),
])
def test_what_holds_flax_variables(source, rows):
    assert [row for row, _ in codes(source)] == rows


_TS = "import flax\nfrom flax.training.train_state import TrainState\n"


# -- TrainStates and apply pairs (issue 35): each case but the last of a group is silent on main ------------------
@pytest.mark.parametrize("source, rows", [
    # ``replace``/``apply_gradients`` into another name keep the params; a replaced field holds what it is given
    (_TS + "s = TrainState.create(params=model.init(r, x)['params'])\nt = s.replace(step=1)\nt.params.unfreeze()\n",
     [5]),
    (_TS + "s = TrainState.create(params=model.init(r, x)['params'])\nt = s.apply_gradients(grads=g)\n"
     "u = t.replace(step=2)\nu.params.pretty_repr()\n", [6]),
    (_TS + "v = model.init(r, x)\ns = TrainState.create(params=p)\nt = s.replace(params=v['params'])\n"
     "t.params.unfreeze()\ns.params.unfreeze()\n", [6]),
    (_TS + "s = TrainState.create(params=model.init(r, x)['params'])\ns = s.replace(params=flax.core.freeze(p))\n"
     "s.params.unfreeze()\n", []),
    # a parameter annotated with flax's TrainState (any spelling of it), or a class of the module deriving from it
    (_TS + "def f(s: TrainState):\n    return s.params['Dense_0'].unfreeze()\n", [4]),
    ("import flax\nimport flax.training.train_state as ts\ndef f(s: 'ts.TrainState'):\n    s.params.unfreeze()\n", []),
    ("import flax\nfrom flax.training import train_state\nfrom typing import Optional\n"
     "def f(s: Optional[train_state.TrainState]):\n    s.params.unfreeze()\n", [5]),
    (_TS + "class A(TrainState):\n    pass\nclass B(A):\n    pass\ndef f(s: B):\n    p = s.params\n"
     "    return p.copy({'a': 1})\n", [9]),
    (_TS + "def f(s: TrainState):\n    return s.opt_state.unfreeze()\n", []),  # only params came from init
    (_TS + "v = model.init(r, x)\ns = TrainState.create(params=p, stats=v['stats'])\nt = s.replace(step=1)\n"
     "t.stats.unfreeze()\nu = t.replace(stats=v['stats'])\nu.stats.unfreeze()\n", [6]),  # a replaced field: not followed
    (_TS + "def f(*s: TrainState):\n    return s.params.unfreeze()\n", []),
    (_TS + "def f(s: TrainState):\n    with g() as s:\n        return s.params.unfreeze()\n", []),
    (_TS + "def f(s: TrainState):\n    def g():\n        return s.params.unfreeze()\n", []),  # a closure
    ("import flax\nfrom mylib import TrainState\ndef f(s: TrainState):\n    s.params.unfreeze()\n", []),
    (_TS + "TrainState = dict\ndef f(s: TrainState):\n    s.params.unfreeze()\n", []),  # rebound: not certain
    (_TS + "s = TrainState(step=0, params=flax.core.FrozenDict(p))\ndef f(s: TrainState):\n    s.params.unfreeze()\n",
     []),
    # ``create`` on a class of the module that does not derive from flax's TrainState; on an imported one: as before
    ("import flax\nclass TrainState:\n    @classmethod\n    def create(cls, params):\n        return freeze(params)\n"
     "s = TrainState.create(params=model.init(r, x)['params'])\ns.params.unfreeze()\n", []),
    ("import flax\nclass Own:\n    @classmethod\n    def create(cls, params):\n        return freeze(params)\n"
     "class Sub(Own):\n    pass\ns = Sub.create(params=model.init(r, x)['params'])\ns.params.unfreeze()\n", []),
    ("import flax\nfrom .base import Base\nclass State(Base):\n    pass\n"
     "s = State.create(params=model.init(r, x)['params'])\ns.params.unfreeze()\n", [6]),  # create from elsewhere
    ("import flax\nfrom mylib import State\ns = State.create(params=model.init(r, x)['params'])\ns.params.unfreeze()\n",
     [4]),
    # a pair of ``apply(..., mutable=...)`` through a name
    ("import flax\nout = model.apply(v, x, mutable=True)\nout[1]['stats'].unfreeze()\n", [3]),
    ("import flax\nout = model.apply(v, x, mutable=True)\nout[0].unfreeze()\n", []),
    ("import flax\nout = model.apply(v, x)\nout[1].unfreeze()\n", []),
    ("import flax\nout = model.apply(v, x, mutable=True)\nout = other()\nout[1].unfreeze()\n", []),
])
def test_train_states_and_apply_pairs(source, rows):
    assert [row for row, _ in codes(source)] == rows


def test_the_environment_variable_that_keeps_frozendict_silences_the_file():
    source = "import os\nimport flax\nos.environ['FLAX_RETURN_FROZENDICT'] = '1'\nv = model.init(r, x)\n" \
             "v['params'].unfreeze()\n"
    assert codes(source) == []
    assert codes(source.replace("FLAX_RETURN_FROZENDICT", "OTHER")) == [(5, "JAX508")]


def test_no_use_is_reported_twice_with_jax503_and_jax504():
    source = """\
import flax
variables = model.init(rng, x)
a = variables.unfreeze()
rest, params = variables.pop("params")
b = variables["params"].unfreeze()
rest, c = variables["params"].pop("Dense_0")
"""
    assert codes(source, ("JAX503", "JAX504", "JAX508")) == [(3, "JAX504"), (4, "JAX503"), (5, "JAX508"),
                                                              (6, "JAX508")]


def test_noqa_of_the_old_codes_still_holds():
    source = ("import flax\nv = model.init(r, x)\na = v.unfreeze()  # noqa: JAX504\n"
              "rest, p = v.pop('p')  # noqa: JAX503\n")
    assert codes(source, ("JAX503", "JAX504", "JAX508")) == []


@pytest.mark.parametrize("source, kept", [
    ("import flax\nv = model.init(r, x)\nv['params'].copy({})\n", True),
    ("import flax\ny, s = model.apply(v, x, mutable=['a'])\ns['a'].unfreeze()\n", True),
    ("import flax\ny = model.apply(v, x)\ny.unfreeze()\n", False),  # no init, no mutable
    ("import flax\nv = model.init(r, x)\nprint(v)\n", False),  # no member
    ("v = model.init(r, x)\nv['params'].unfreeze()\n", False),  # no flax
    # functions of imported modules, not methods of a value (netket, praxis: they went on to libcst for nothing)
    ("import copy\nimport flax\nv = model.init(r, x)\nw = copy.copy(v)\n", False),
    ("import jax\nimport flax\nv = model.init(r, x)\nleaves = jax.tree_util.tree_flatten(v)\n", False),
    ("import flax\nv = model.init(r, x)\nitems.pop()\nw = v.copy()\n", False),  # shapes a dict does the same
    ("import flax\nv = model.init(r, x)\nstack.pop(0)\nrest, p = v['params'].pop('a')\n", True),
    # no init: a file naming flax's TrainState may hold one in an annotated parameter
    (_TS + "def f(s: TrainState):\n    return s.params.unfreeze()\n", True),
    (_TS + "from flax.core import FrozenDict\ndef f(s: TrainState):\n    return isinstance(s.params, FrozenDict)\n",
     True),
    (_TS + "def f(s: TrainState):\n    return s.params\n", False),  # no member
    ("import flax\ndef f(s: TrainState):\n    return s.params.unfreeze()\n", False),  # not flax's TrainState
])
def test_text_and_ast_gates(source, kept):
    from jaxlint.lint.ast_gate import collect_facts
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    rule = rule_by_code("JAX508")
    words = set(re.findall(r"\w+", source))
    text_kept = rule.may_match_text(TextFacts(source), words)
    assert (text_kept and rule.may_match_ast(collect_facts(source))) is kept


# -- the member list --------------------------------------------------------------------------------------------
def test_member_list_agrees_with_this_interpreters_dict():
    rows = members()
    assert {name for name, row in rows.items() if row.change == "missing"} == \
        {"unfreeze", "pretty_repr", "tree_flatten", "tree_flatten_with_keys", "tree_unflatten"}
    assert {name for name, row in rows.items() if row.change == "differs"} == {"pop", "copy"}
    for row in rows.values():
        assert (row.name in dir(dict)) is (row.change == "differs")
    assert {name: row.function_since for name, row in rows.items() if row.function} == \
        {"unfreeze": "0.3.0", "copy": "0.6.6", "pop": "0.6.6", "pretty_repr": "0.6.9"}


def _wheel(folder: Path, version: str, methods: str, functions: str) -> Path:
    path = folder / f"flax-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("flax/core/frozen_dict.py", "from collections.abc import Mapping\n"
                         f"class FrozenDict(Mapping):\n    __slots__ = ('_d',)\n{methods}")
        archive.writestr("flax/core/__init__.py", f"from .frozen_dict import ({functions})\n")
    return path


def test_the_tool_reads_the_members_and_the_functions_from_the_wheels(tmp_path):
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from generate_frozendict_members import generate
    finally:
        sys.path.remove(str(REPO / "tools"))
    old = _wheel(tmp_path, "0.6.0", "    def unfreeze(self): pass\n    def pop(self, key): pass\n"
                 "    def keys(self): pass\n", "FrozenDict, unfreeze")
    new = _wheel(tmp_path, "0.7.0", "    def unfreeze(self): pass\n    def pop(self, key): pass\n"
                 "    def copy(self, add_or_replace): pass\n    def pretty_repr(self, num_spaces=4): pass\n",
                 "FrozenDict, unfreeze, pop as pop")
    text = generate({"0.6.0": old, "0.7.0": new})
    rows = {row["name"]: row for row in tomllib.loads(text)["member"]}
    assert set(rows) == {"unfreeze", "pop", "copy", "pretty_repr"}  # keys: on dict too; __slots__: private
    assert (rows["pop"]["change"], rows["pop"]["function_since"]) == ("differs", "0.7.0")
    assert (rows["unfreeze"]["function_since"], rows["unfreeze"]["function_since_is_oldest_read"]) == ("0.6.0", True)
    assert rows["copy"]["first_seen"] == "0.7.0" and "function" not in rows["copy"]
    assert rows["pretty_repr"]["signature"] == "(self, num_spaces=4)"


@pytest.mark.parametrize("source", [
    "import flax\nfrom t5x import train_state as train_state_lib\n"
    "def f(s: train_state_lib.TrainState):\n    return s.params.unfreeze()\n",
    "import flax\nTrainState = train_states.TrainState\ndef f(s: TrainState, d):\n    return d.pop('path')\n",
])
def test_the_text_gate_asks_that_a_train_state_be_flaxs(source):
    """Without ``init``, the text gate keeps a file naming ``TrainState`` only where it may be flax's, as the ast
    gate asks (t5x and paxml name their own: 11 files of code nobody tuned on were parsed for nothing)."""
    from jaxlint.lint.ast_gate import collect_facts
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    rule = rule_by_code("JAX508")
    assert not rule.may_match_text(TextFacts(source), set(re.findall(r"\w+", source)))
    assert not rule.may_match_ast(collect_facts(source))
