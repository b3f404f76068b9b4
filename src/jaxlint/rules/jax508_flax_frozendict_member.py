"""JAX508 flax-frozendict-member: a ``FrozenDict`` method on what flax's ``init``/``apply`` return, a dict since 0.7.1.

The members come from ``rules/flax_frozendict.toml`` (``tools/generate_frozendict_members.py``: ``FrozenDict`` read
in the flax wheels, ``dict`` in the interpreter). JAX503 and JAX504 keep their two shapes (``a, b = v.pop(k)`` and
``v.unfreeze()`` on a name or call from ``init``); this rule reports every other one."""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.ast_calls import simple_string
from jaxlint.analysis.flax_dicts import TRAIN_STATE, VariablesTracker, first_name
from jaxlint.analysis.flax_values import INIT_METHODS, after_a_dot, from_init, imports_flax, init_call, on_init_ast, \
    pop_may_be_unpacked, pop_of_one_key
from jaxlint.analysis.flax_dicts_ast import VariablesTrackerAst, first_name_ast
from jaxlint.analysis.frozendict_narrowing import FROZEN_DICT, guards_frozendict_code, guards_frozendict_code_ast, \
    in_frozendict_branch, in_frozendict_branch_ast, isinstance_frozendict, isinstance_frozendict_ast
from jaxlint.catalogue.ecosystem import PLAIN_DICT, library_may_reach
from jaxlint.catalogue.flax_frozendict import Member, members
from jaxlint.catalogue.floors import library_floor_withheld
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, statement_of, walk
from jaxlint.lint.text_gate import a_call, names_by_last
from jaxlint.lint.diagnostics import Applicability, Edit, WithheldFix
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix, unsafe_fix

MEMBERS: dict[str, Member] = members()
_SOURCES = frozenset({"init", "init_with_output", "apply"})
_METHODS = frozenset(MEMBERS)
# ``flax.config.update("flax_return_frozendict", True)`` or ``FLAX_RETURN_FROZENDICT``: init keeps the FrozenDict
_KEEPS_FROZENDICT = re.compile(r"return_frozendict", re.I)
# ``dict`` bound by the file (an assignment, a def, an import): the fix's ``dict`` may not be the builtin. Read in the
# whole file's text, so that a large file linted in pieces decides as the whole module does.
_REBINDS_DICT = re.compile(r"(?m)^[ \t]*dict\s*(?::[^=\n]*)?=(?!=)|\b(?:def|class)\s+dict\b|\bas\s+dict\b|\bimport\s+dict\b"
                           r"|\bfor\s+dict\b")
_TRAIN_STATE_WORD = TRAIN_STATE.rpartition(".")[2]
_TRAIN_STATES = frozenset({TRAIN_STATE})
_TRAIN_STATES_BY_LAST = names_by_last(_TRAIN_STATES)
FLAX_UNBOUND = WithheldFix("`flax` does not name the flax package here: add `import flax`")
_DICT_REBOUND = WithheldFix("`dict` does not name the builtin here")
_ACCEPT_DICT = "Accept the dict too"
_ISINSTANCE_MESSAGE = (f"Since flax {PLAIN_DICT}, flax variables are a plain dict: `isinstance(x, FrozenDict)` is "
                       "False for them and the code takes the other way; use `isinstance(x, (FrozenDict, dict))`.")


class FlaxFrozenDictMember(Rule):
    code = "JAX508"
    name = "flax-frozendict-member"
    summary = ("a `FrozenDict` method (`.unfreeze()`, `.pop`, `.copy(...)`, `.pretty_repr()`...) on flax variables: "
               "a dict since flax 0.7.1")
    since = "0.1.1"  # a flax change: it does not depend on the JAX target
    library_version = "flax 0.7.1"
    triggers = ()
    # a member's name or ``FrozenDict``, in a file that spells ``flax`` (``ast_names``: the gates ask for an import
    # of it): ``copy`` and ``pop`` alone are words of nearly every file
    required_words = frozenset(frozenset({"flax", word}) for word in (*MEMBERS, "FrozenDict"))
    ast_names = frozenset({"flax"})

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        if not super().may_match_text(facts, words):
            return False
        # the ast gate's first question: a member called in a shape ``_may_report`` keeps, not as a function of an
        # imported module (``copy.copy(x)``, ``jax.tree_util.tree_flatten(x)``), or a FrozenDict test
        if not any(facts.may_call_method(member, pop_may_be_unpacked(facts, or_subscripted=True) if member == "pop"
                                         else _MAY_REPORT[member], not_on=facts.bound_by_code_import)
                   for member in MEMBERS if member in words) \
                and not ("isinstance" in words and "FrozenDict" in words):
            return False
        # and its second: a call that makes variables (``.init(...)``, ``.apply(..., mutable=...)``) or flax's
        # TrainState (t5x and paxml name their own ``TrainState``)
        return any(facts.may_call_method(method, a_call) for method in INIT_METHODS & words) \
            or ("mutable" in words and facts.may_call_method("apply", _passes_mutable)) \
            or (_TRAIN_STATE_WORD in words and facts.refers_to_any(_TRAIN_STATES_BY_LAST, words)
                and _may_use_a_state_member(facts, words))

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        if not facts.refers_to_any(frozenset({"flax"})):
            return False
        whole = facts.file or facts
        # a method of a value: not a function of an imported module (``flax.core.unfreeze(x)``, ``copy.copy(x)``,
        # ``jax.tree_util.tree_flatten(x)``)
        members = [call for call in whole.calls if type(call.func) is ast.Attribute and call.func.attr in MEMBERS
                   and not whole.qualified_names(call.func)]
        if not _may_report(members, whole) and not _tests_frozendict(whole):
            return False
        methods = {call.func.attr for call in whole.calls if type(call.func) is ast.Attribute}
        return bool({"init", "init_with_output"} & methods) or any(
            type(call.func) is ast.Attribute and call.func.attr == "apply"
            and any(keyword.arg == "mutable" for keyword in call.keywords) for call in whole.calls) \
            or whole.refers_to_any(_TRAIN_STATES)  # a parameter annotated with it: ``state.params``

    explanation = f"""
## What it does
Finds a method of flax's `FrozenDict` that the plain `dict` lacks, or has with another meaning, called on flax
variables: what `.init(...)` returned, the second value of `.init_with_output(...)` or of `.apply(..., mutable=...)`
(the updated collections), a subscript of any depth of those (`variables["params"]["Dense_0"]`), `state.params` of a
`TrainState.create(..., params=...)` built from them (and any other field so passed, such as a subclass's
`batch_stats`, unless a `.replace(...)` gives it a new value), of its `.replace(...)` and `.apply_gradients(...)`
results, `state.params` of a function parameter annotated
with flax's `TrainState` (or a subclass of it defined in the module: a TrainState holds what `init` returned), and
the names assigned only such values in their scope.
Runs only on files that import flax, when the project's flax pins reach {PLAIN_DICT}.

The members are read, not typed: `rules/flax_frozendict.toml` (`tools/generate_frozendict_members.py`) lists
`FrozenDict`'s methods from the flax wheels and `dict`'s from the interpreter. Reported:

- missing on a dict: `unfreeze()`, `pretty_repr()`, `tree_flatten()`, `tree_flatten_with_keys()`, `tree_unflatten()`;
- another meaning: `copy(add_or_replace)` (a dict's `copy()` takes no argument), and `pop(key)` where the code reads
  the old pair: `rest, value = v.pop(key)` or `v.pop(key)[1]` (a dict's `pop` returns the value alone).

`isinstance(v, FrozenDict)` on such a value is False on a dict: the code silently takes the other way. It is
reported, with the fix `isinstance(v, (FrozenDict, dict))` (true on both sides), unless the test guards FrozenDict
code: its FrozenDict branch calls a FrozenDict method on the value or unfreezes it (compatibility code, right on both
sides). Inside the branch that runs only for a FrozenDict (`if isinstance(v, FrozenDict): ...`), the value is one:
JAX503, JAX504 and this rule report nothing there; the other branch runs for the dict and keeps its findings.

`x.copy()` and `value = x.pop(key)` are right on a dict and not reported. JAX503 (`a, b = variables.pop(k)`) and
JAX504 (`variables.unfreeze()`) keep their shape on a name or call from `init`; this rule reports the others.

## Why
From flax {PLAIN_DICT}, `Module.init` and `apply` return a plain `dict` (`flax_return_frozendict` defaults to
`False`): `AttributeError: 'dict' object has no attribute 'unfreeze'`, `TypeError: copy() takes no arguments (1
given)`, or, for `pop`, the value taken apart by the unpacking, or indexed.

## Example
```python
import flax
variables = model.init(rng, x)
params = variables["params"].unfreeze()
variables = variables.copy({{"params": params}})
```
Use instead:
```python
import flax
variables = model.init(rng, x)
params = flax.core.unfreeze(variables["params"])
variables = flax.core.copy(variables, {{"params": params}})
```

## Fix safety
The `flax.core` functions do on a `FrozenDict` what its method did and the same on a dict: `flax.core.unfreeze(x)`,
`flax.core.copy(x, add_or_replace)`, `flax.core.pop(x, key)` (a pair, without changing `x`),
`flax.core.pretty_repr(x)`. Safe where `flax` names the flax package there and the project's lowest pinned flax has
the function: `copy` and `pop` from flax 0.6.6, `pretty_repr` from 0.6.9 (read in the wheels; below, `fix_withheld`
says so). `x.pretty_repr(num_spaces)` becomes `flax.core.pretty_repr(x, num_spaces)` as an unsafe fix: on a
`FrozenDict` that function ignores `num_spaces`. The `tree_*` methods have no fix: flatten with `jax.tree_util`.

Not reported: a project whose lowest pinned flax is {PLAIN_DICT} or later (its code has only ever seen dicts: the
upgrade changes nothing there), a file that mentions `flax_return_frozendict` (which keeps the `FrozenDict`), and
values the code builds itself (`FrozenDict(...)`, `flax.core.freeze(...)`, a function's parameters other than an
annotated TrainState), a TrainState parameter in a file that builds some `params=` with `freeze(...)` or
`FrozenDict(...)`, and a class of the module that does not derive from flax's `TrainState` (a parameter annotated
with it, or `.create(...)` of it where it defines its own `create`).

## Library version
flax {PLAIN_DICT}+ (`flax/configurations.py`: `return_frozendict` is `True` in 0.7.0, `False` in 0.7.1).
"""

    VALID = [
        Valid("""
            import flax
            variables = model.init(rng, x)
            params = flax.core.unfreeze(variables["params"])
            variables = flax.core.copy(variables, {"params": params})
        """, note="the fix"),
        Valid("""
            import flax
            variables = {"params": 1, "state": 2}
            rest, params = variables.pop("params")
            params = variables["state"].unfreeze()
        """, note="the user's own dict named `variables`"),
        Valid("""
            import flax
            from flax.core import FrozenDict
            variables = FrozenDict(model.init(rng, x))
            params = variables["params"].unfreeze()
            rest, params = variables.pop("params")
        """, note="a FrozenDict the code builds: it still has these methods"),
        Valid("""
            import flax
            variables = flax.core.freeze(model.init(rng, x))
            print(variables.pretty_repr())
        """, note="frozen by the code"),
        Valid("""
            import flax
            variables = model.init(rng, x)
            params = variables["params"].copy()
            params = variables.pop("params")
        """, note="`copy()` and a one-target `pop` are right on a dict"),
        Valid("""
            import flax
            flax.config.update("flax_return_frozendict", True)
            variables = model.init(rng, x)
            params = variables["params"].unfreeze()
        """, note="the project keeps the FrozenDict"),
        Valid("""
            import flax
            import jax
            variables = model.init(rng, x)
            if jax.__version_info__ < (0, 4, 14):
                params = variables["params"].unfreeze()
            else:
                params = flax.core.unfreeze(variables["params"])
        """, note="a version branch that keeps the old spelling on purpose"),
        Valid("""
            import flax
            variables = model.init(rng, x)
            variables = variables.unfreeze()
            rest, params = variables.pop("params")
        """, note="JAX504's and JAX503's shapes: reported by them, not twice"),
        Valid("""
            import flax
            def step(variables):
                return variables["params"].unfreeze()
        """, note="a parameter: not known to come from init"),
        Valid("""
            import flax
            out = model.apply(variables, x)
            params = out[1].unfreeze()
        """, note="`apply` without `mutable`: the module's output, not variables"),
        Valid("""
            variables = model.init(rng, x)
            params = variables["params"].unfreeze()
        """, note="a file that does not use flax"),
        Valid("""
            import flax
            from flax.core import FrozenDict
            variables = model.init(rng, x)
            if isinstance(variables, FrozenDict):
                params = variables["params"].unfreeze()
                text = variables.pretty_repr()
            else:
                params = flax.core.unfreeze(variables["params"])
        """, note="the branch that runs only for a FrozenDict; the test guards a conversion"),
        Valid("""
            import flax
            variables = model.init(rng, x)
            params = variables.unfreeze() if isinstance(variables, flax.core.FrozenDict) else variables
        """, note="a conversion guard: right on both sides"),
        Valid("""
            import flax
            from flax.core import FrozenDict
            variables = model.init(rng, x)
            frozen = isinstance(variables, (FrozenDict, dict))
        """, note="the fix: both types"),
        Valid("""
            import flax
            from flax.core import FrozenDict
            variables = {"params": 1}
            frozen = isinstance(variables, FrozenDict)
        """, note="the user's own dict"),
        Valid("""
            import flax
            from flax.core import freeze
            from flax.training.train_state import TrainState
            def make(model, rng, x, tx):
                return TrainState.create(apply_fn=model.apply, params=freeze(model.init(rng, x)["params"]), tx=tx)
            def step(state: TrainState):
                return state.params.unfreeze()
        """, note="the file freezes a TrainState's params: an annotated state may hold a FrozenDict"),
        Valid("""
            import flax
            from flax import struct
            class TrainState(struct.PyTreeNode):
                params: dict
                @classmethod
                def create(cls, params):
                    return cls(params=flax.core.freeze(params))
            def step(state: TrainState):
                return state.params.unfreeze()
            def make(model, rng, x):
                state = TrainState.create(params=model.init(rng, x)["params"])
                return state.params.unfreeze()
        """, note="the project's own TrainState, not flax's"),
        Valid("""
            import flax
            from flax.training import train_state
            def step(state: train_state.TrainState, states):
                for state in states:
                    print(state.params.unfreeze())
            def other(state: train_state.TrainState):
                state = restore(state)
                return state.params.unfreeze()
        """, note="the parameter's name rebound (a loop, a call of unknown result)"),
        Valid("""
            import flax
            from flax.core import FrozenDict
            from flax.training import train_state
            def step(state: train_state.TrainState):
                if isinstance(state.params, FrozenDict):
                    return state.params.unfreeze()
                return state.params
        """, note="compatibility code: the branch that runs only for a FrozenDict"),
    ]

    INVALID = [
        Invalid("""
            import flax
            variables = model.init(rng, x)
            params = variables["params"].unfreeze()
        """, fixed="""
            import flax
            variables = model.init(rng, x)
            params = flax.core.unfreeze(variables["params"])
        """, note="a subscript of init's result"),
        Invalid("""
            import flax
            variables = model.init(rng, x)
            kernel = variables["params"]["Dense_0"].unfreeze()
        """, fixed="""
            import flax
            variables = model.init(rng, x)
            kernel = flax.core.unfreeze(variables["params"]["Dense_0"])
        """, note="any depth of subscripting"),
        Invalid("""
            import flax
            variables = model.init(rng, x)
            variables = variables.copy({"params": new_params})
        """, fixed="""
            import flax
            variables = model.init(rng, x)
            variables = flax.core.copy(variables, {"params": new_params})
        """, note="copy(add_or_replace): a dict's copy takes no argument"),
        Invalid("""
            import flax
            variables = model.init(rng, x)
            variables = variables.copy(add_or_replace={"params": p})
        """, fixed="""
            import flax
            variables = model.init(rng, x)
            variables = flax.core.copy(variables, add_or_replace={"params": p})
        """, note="copy by keyword"),
        Invalid("""
            import flax
            def train(model, rng, x):
                y, updates = model.apply(variables, x, mutable=["batch_stats"])
                stats = updates["batch_stats"].unfreeze()
                rest, stats = updates.pop("batch_stats")
                return stats
        """, fixed="""
            import flax
            def train(model, rng, x):
                y, updates = model.apply(variables, x, mutable=["batch_stats"])
                stats = flax.core.unfreeze(updates["batch_stats"])
                rest, stats = flax.core.pop(updates, "batch_stats")
                return stats
        """, count=2, note="the updated collections of apply(..., mutable=...)"),
        Invalid("""
            import flax
            params = model.init(rng, x).pop("params")[1]
        """, fixed="""
            import flax
            params = flax.core.pop(model.init(rng, x), "params")[1]
        """, note="the old pair, indexed"),
        Invalid("""
            import flax
            from flax.training import train_state
            variables = model.init(rng, x)
            state = train_state.TrainState.create(apply_fn=model.apply, params=variables["params"], tx=tx)
            state = state.apply_gradients(grads=grads)
            print(state.params.pretty_repr())
        """, fixed="""
            import flax
            from flax.training import train_state
            variables = model.init(rng, x)
            state = train_state.TrainState.create(apply_fn=model.apply, params=variables["params"], tx=tx)
            state = state.apply_gradients(grads=grads)
            print(flax.core.pretty_repr(state.params))
        """, note="TrainState.params of a state created from init"),
        Invalid("""
            import flax
            out, variables = model.init_with_output(rng, x)
            params = variables["params"]
            text = params.pretty_repr(2)
        """, unsafe_fixed="""
            import flax
            out, variables = model.init_with_output(rng, x)
            params = variables["params"]
            text = flax.core.pretty_repr(params, 2)
        """, note="num_spaces: flax.core.pretty_repr ignores it on a FrozenDict: unsafe"),
        Invalid("""
            import flax
            variables = model.init(rng, x)
            leaves, keys = variables["params"].tree_flatten()
        """, note="no fix: flatten with jax.tree_util"),
        Invalid("""
            from flax import linen as nn
            variables = model.init(rng, x)
            params = variables["params"].unfreeze()
        """, note="`flax` is not bound: no fix"),
        Invalid("""
            import flax
            from flax.core import FrozenDict
            variables = model.init(rng, x)
            print(isinstance(variables, FrozenDict))
        """, fixed="""
            import flax
            from flax.core import FrozenDict
            variables = model.init(rng, x)
            print(isinstance(variables, (FrozenDict, dict)))
        """, note="isinstance(v, FrozenDict): False on a dict"),
        Invalid("""
            import flax
            variables = model.init(rng, x)
            if isinstance(variables["params"], flax.core.FrozenDict):
                params = variables["params"]
            else:
                raise TypeError("expected flax variables")
        """, fixed="""
            import flax
            variables = model.init(rng, x)
            if isinstance(variables["params"], (flax.core.FrozenDict, dict)):
                params = variables["params"]
            else:
                raise TypeError("expected flax variables")
        """, note="a branch that only the FrozenDict took"),
        Invalid("""
            import flax
            from flax.core import FrozenDict
            variables = model.init(rng, x)
            if not isinstance(variables, FrozenDict):
                text = variables.pretty_repr()
        """, fixed="""
            import flax
            from flax.core import FrozenDict
            variables = model.init(rng, x)
            if not isinstance(variables, (FrozenDict, dict)):
                text = flax.core.pretty_repr(variables)
        """, count=2, note="the dict's branch keeps its findings"),
        Invalid("""
            from flax.core import FrozenDict
            dict = OrderedDict
            variables = model.init(rng, x)
            print(isinstance(variables, FrozenDict))
        """, note="`dict` is not the builtin: no fix"),
        Invalid("""
            import flax
            from flax.training import train_state
            def step(state: train_state.TrainState):
                return state.params.unfreeze()
        """, fixed="""
            import flax
            from flax.training import train_state
            def step(state: train_state.TrainState):
                return flax.core.unfreeze(state.params)
        """, note="a parameter annotated with flax's TrainState"),
        Invalid("""
            import flax
            from typing import Any
            from flax.training.train_state import TrainState
            class State(TrainState):
                batch_stats: Any
            def step(state: State, grads):
                new_state = state.apply_gradients(grads=grads)
                rest, kernel = new_state.params.pop("Dense_0")
                return kernel
        """, fixed="""
            import flax
            from typing import Any
            from flax.training.train_state import TrainState
            class State(TrainState):
                batch_stats: Any
            def step(state: State, grads):
                new_state = state.apply_gradients(grads=grads)
                rest, kernel = flax.core.pop(new_state.params, "Dense_0")
                return kernel
        """, note="a subclass of the module, through apply_gradients"),
        Invalid("""
            import flax
            from typing import Any
            from flax.training import train_state
            class State(train_state.TrainState):
                batch_stats: Any
            variables = model.init(rng, x)
            state = State.create(apply_fn=model.apply, params=variables["params"], tx=tx,
                                 batch_stats=variables["batch_stats"])
            state = state.replace(step=0)
            stats = state.batch_stats.unfreeze()
        """, fixed="""
            import flax
            from typing import Any
            from flax.training import train_state
            class State(train_state.TrainState):
                batch_stats: Any
            variables = model.init(rng, x)
            state = State.create(apply_fn=model.apply, params=variables["params"], tx=tx,
                                 batch_stats=variables["batch_stats"])
            state = state.replace(step=0)
            stats = flax.core.unfreeze(state.batch_stats)
        """, note="a field passed to create, through replace"),
        Invalid("""
            import flax
            out = model.apply(variables, x, mutable=["batch_stats"])
            stats = out[1].unfreeze()
        """, fixed="""
            import flax
            out = model.apply(variables, x, mutable=["batch_stats"])
            stats = flax.core.unfreeze(out[1])
        """, note="the pair of apply(..., mutable=...) through a name"),
        Invalid("""
            import flax
            from flax.core import FrozenDict
            from flax.training.train_state import TrainState
            def check(state: TrainState):
                assert isinstance(state.params, FrozenDict)
        """, fixed="""
            import flax
            from flax.core import FrozenDict
            from flax.training.train_state import TrainState
            def check(state: TrainState):
                assert isinstance(state.params, (FrozenDict, dict))
        """, note="isinstance on an annotated TrainState's params"),
    ]

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) --------------------------------------------
    decides_from_ast = True

    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` reports, fixes included: ``VariablesTrackerAst`` answers ``holds`` as the libcst
        path's tracker does, asked only of what it may hold (``_may_hold``, ``_may_be_state_params``: cheap, and
        most files stop there). Undecidable where libcst's code of a node may hold parentheses ``ast`` does not
        show: a receiver, an argument or the tested classes in parentheses of their own (the fix copies their
        code), a compared value that may be (``in_frozendict_branch_ast``, ``guards_frozendict_code_ast``), a
        comment or a backslash between a member call's arguments, and where ``AstView.span`` cannot place the call."""
        if not applies(view.settings, view.file_text):
            return []
        fields = _state_fields(view)
        # without a call that makes variables, only an annotated TrainState's ``.params`` may hold them
        from_states = None if _makes_variables(view) else _names_from_state_params(view, fields)
        tracker: VariablesTrackerAst | None = None
        found = []
        for node in walk(view, (ast.Call,)):
            func = node.func
            if type(func) is ast.Name:
                if not isinstance_frozendict_ast(view, node):
                    continue
                value = node.args[0]
            elif type(func) is ast.Attribute and func.attr in MEMBERS and _may_have_shape(view, func.attr, node):
                if _left_to_jax503_or_jax504(view, func.attr, node):
                    continue
                value = func.value
            else:
                continue
            if not (_may_hold(value, fields) if from_states is None else
                    _may_be_state_params(value, from_states, fields)):
                continue
            tracker = tracker or VariablesTrackerAst(view)
            if not tracker.holds(value):
                continue
            ancestors = view.ancestors(node)
            if in_frozendict_branch_ast(view, ancestors, value):
                continue
            if type(func) is ast.Name:
                if not guards_frozendict_code_ast(view, node, ancestors, _METHODS):
                    found.append(cls._isinstance_finding(view, node, ancestors))
            else:
                found.append(cls._member_finding(view, MEMBERS[func.attr], node, ancestors))
        return found

    @classmethod
    def _isinstance_finding(cls, view: AstView, call: ast.Call, ancestors) -> AstFinding:
        """``_isinstance``'s report: the classes (``AstView.span``: not in parentheses of their own) and ``dict``."""
        fix = withheld = None
        if _REBINDS_DICT.search(view.file_text):
            withheld = _DICT_REBOUND
        else:
            classes = call.args[1]
            start, end = view.span(classes, statement_of(ancestors))
            fix = AstFix(Applicability.SAFE, _ACCEPT_DICT, (Edit(start, end, f"({view.text(classes)}, dict)"),))
        return AstFinding(cls.code, call, _ISINSTANCE_MESSAGE, withheld=withheld, fix=fix)

    @classmethod
    def _member_finding(cls, view: AstView, member: Member, call: ast.Call, ancestors) -> AstFinding:
        """``_report``'s finding: the ``flax.core`` function's fix, or why it is withheld."""
        message = _message(member)
        if member.function is None:
            return AstFinding(cls.code, call, message)
        since = None if member.function_since_is_oldest_read else member.function_since
        withheld = library_floor_withheld("flax", f"`{member.function}`", since, view.settings)
        if withheld is None and not _flax_named(view, call.func.value):
            withheld = FLAX_UNBOUND
        fix = None
        if withheld is None:
            receiver = call.func.value
            if view.offset_of(receiver) != view.offset_of(call):
                raise Undecidable("the receiver of a FrozenDict method in parentheses")
            start, end = view.span(call, statement_of(ancestors))
            text = f"{member.function}({view.text(receiver)}{_arguments_code(view, call)})"
            unsafe = member.name == "pretty_repr" and bool(call.args or call.keywords)
            fix = AstFix(Applicability.UNSAFE if unsafe else Applicability.SAFE, f"Use `{member.function}`",
                         (Edit(start, end, text),))
        return AstFinding(cls.code, call, message, withheld=withheld, fix=fix)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._tracker: VariablesTracker | None = None
        self._applies: bool | None = None

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            self._isinstance(node)
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in MEMBERS:
            return
        member = MEMBERS[func.attr.value]
        receiver = func.value
        shape = self._shape(member, node)
        if shape is None or self._reported_by_jax503_or_jax504(member, node, receiver):
            return
        if not self._rule_applies():
            return
        if self._tracker is None:
            self._tracker = VariablesTracker(self.context.resolver, self.context.inference.classes,
                                             self.context.file_text)
        if not self._tracker.holds(receiver) or self._narrowed(receiver):
            return
        self._report(member, node, receiver, shape)

    def _narrowed(self, receiver: cst.BaseExpression) -> bool:
        """In the branch of an ``isinstance(v, FrozenDict)`` test that runs only for a FrozenDict."""
        return in_frozendict_branch(self.context.ancestors, receiver, self.qualified_name, self.code_for)

    # -- isinstance(v, FrozenDict) ---------------------------------------------------------------------------
    def _isinstance(self, call: cst.Call) -> None:
        if not isinstance_frozendict(call, self.qualified_name) or not self._rule_applies():
            return
        value = call.args[0].value
        if self._tracker is None:
            self._tracker = VariablesTracker(self.context.resolver, self.context.inference.classes,
                                             self.context.file_text)
        if not self._tracker.holds(value) or self._narrowed(value) \
                or guards_frozendict_code(call, self.context.ancestors, self.qualified_name, self.code_for, _METHODS):
            return
        classes = call.args[1].value
        fix = withheld = None
        if _REBINDS_DICT.search(self.context.file_text):
            withheld = _DICT_REBOUND
        else:
            fix = safe_fix(_ACCEPT_DICT, Replace(classes, f"({self.code_for(classes)}, dict)"))
        self.report(call, _ISINSTANCE_MESSAGE, fix, withheld=withheld)


    # -- what is reported ------------------------------------------------------------------------------------
    def _shape(self, member: Member, call: cst.Call) -> str | None:
        """How the call uses the member: None where a dict does the same (``x.copy()``, ``v = x.pop(k)``)."""
        args = call.args
        if any(arg.star for arg in args):
            return None
        if member.name == "copy":
            ok = len(args) == 1 and (args[0].keyword is None or args[0].keyword.value == "add_or_replace")
            return "call" if ok else None
        if member.name == "pop":
            if len(args) != 1 or args[0].keyword is not None:
                return None
            parent = self.context.parent
            if isinstance(parent, cst.Subscript) and parent.value is call:
                return "call"
            if isinstance(parent, cst.Assign) and len(parent.targets) == 1 \
                    and isinstance(parent.targets[0].target, (cst.Tuple, cst.List)) \
                    and len(parent.targets[0].target.elements) == 2 \
                    and not any(isinstance(e, cst.StarredElement) for e in parent.targets[0].target.elements):
                return "call"
            return None
        return "call"

    def _reported_by_jax503_or_jax504(self, member: Member, call: cst.Call, receiver: cst.BaseExpression) -> bool:
        on_init = init_call(receiver) or isinstance(receiver, cst.Name) and from_init(self.context.resolver, receiver)
        if not on_init:
            return False
        if member.name == "unfreeze":
            return not call.args
        if member.name == "pop":
            return isinstance(self.context.parent, cst.Assign) and isinstance(call.args[0].value, cst.SimpleString)
        return False

    def _rule_applies(self) -> bool:
        if self._applies is None:
            self._applies = applies(self.settings, self.context.file_text)
        return self._applies

    def _report(self, member: Member, call: cst.Call, receiver: cst.BaseExpression, shape: str) -> None:
        message = _message(member)
        fix = withheld = None
        if member.function is None:
            self.report(call, message)
            return
        since = None if member.function_since_is_oldest_read else member.function_since
        withheld = library_floor_withheld("flax", f"`{member.function}`", since, self.settings)
        name = first_name(receiver)
        scope = self.context.resolver.scope_of(name) if name is not None else None
        if withheld is None and (scope is None or self.context.resolver.qualified_in_scope("flax", scope) != "flax"):
            withheld = FLAX_UNBOUND
        if withheld is None:
            arguments = "".join(", " + self.code_for(arg).rstrip().rstrip(",") for arg in call.args)
            text = f"{member.function}({self.code_for(receiver)}{arguments})"
            unsafe = member.name == "pretty_repr" and bool(call.args)
            fix = (unsafe_fix if unsafe else safe_fix)(f"Use `{member.function}`", Replace(call, text))
        self.report(call, message, fix, withheld=withheld)


def _may_use_a_state_member(facts, words: set[str]) -> bool:
    """The text gate of a file naming ``TrainState`` without ``init``: a member stands after a dot, or
    ``isinstance`` and ``FrozenDict`` are both spelled (``state.params`` of an annotated parameter)."""
    return any(after_a_dot(facts, member) for member in MEMBERS if member in words) \
        or "isinstance" in words and "FrozenDict" in words


def _may_have_shape(view: AstView, member: str, call: ast.Call) -> bool:
    """``_shape`` may answer: not for ``copy`` other than with one argument (positional or ``add_or_replace``), nor
    ``pop`` other than with one positional argument, subscripted or unpacked into two targets (neither starred), nor
    a call with a star argument."""
    if any(type(arg) is ast.Starred for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        return False
    if member == "copy":
        return len(call.args) + len(call.keywords) == 1 and all(kw.arg == "add_or_replace" for kw in call.keywords)
    if member == "pop":
        if len(call.args) != 1 or call.keywords:
            return False
        parent, field = view.parent(call)
        return type(parent) is ast.Subscript and field == "value" or type(parent) is ast.Assign \
            and len(parent.targets) == 1 and type(parent.targets[0]) in (ast.Tuple, ast.List) \
            and len(parent.targets[0].elts) == 2 and not any(type(e) is ast.Starred for e in parent.targets[0].elts)
    return True


def _left_to_jax503_or_jax504(view: AstView, member: str, call: ast.Call) -> bool:
    """``_reported_by_jax503_or_jax504`` of a call ``_may_have_shape`` accepts: ``unfreeze()`` (JAX504's), or a
    ``pop`` whose one argument is a ``SimpleString`` and whose parent is an assignment (JAX503's ``a, b =
    v.pop("k")``), on an init call or a name ``from_init`` finds assigned from one."""
    if member == "unfreeze":
        if call.args or call.keywords:
            return False
    elif member == "pop":
        key = call.args[0]
        if type(view.parent(call)[0]) is not ast.Assign or type(key) is not ast.Constant \
                or type(key.value) not in (str, bytes) or not simple_string(view.text(key)):
            return False
    else:
        return False
    return on_init_ast(view, call, call.func.value)


def _flax_named(view: AstView, receiver: ast.AST) -> bool:
    """``_report``'s test: ``flax``, written in the scope of the receiver's first name, is the flax package (the
    resolver's ``qualified_in_scope``, which ``AstNames`` answers alike wherever the answer may be ``flax``)."""
    name = first_name_ast(receiver)
    names = view.names()
    scope = names.scope_of(name) if name is not None else None
    return scope is not None and names.qualified_in_scope("flax", scope) == "flax"


# libcst's code of a member call's argument (``code_for(arg)``: to the next argument, or to the closing parenthesis),
# where the text around the arguments is whitespace and commas alone
_BEFORE_ARGUMENTS = re.compile(r"\(\s*")
_BETWEEN_ARGUMENTS = re.compile(r"\s*,\s*")
_AFTER_ARGUMENTS = re.compile(r"\s*,?\s*\)")


def _arguments_code(view: AstView, call: ast.Call) -> str:
    """``_report``'s ``"".join(", " + code_for(arg).rstrip().rstrip(",") ...)`` (no argument is starred:
    ``_may_have_shape``, so the positional ones come first). An ``ast`` keyword holds its value's parentheses, a
    positional argument does not: a parenthesis (or a comment, a backslash) around them is ``Undecidable``."""
    arguments = [*call.args, *call.keywords]
    if not arguments:
        return ""
    source = view.source
    starts = [view.offset_of(argument) for argument in arguments]
    ends = [view.offset_of(argument, end=True) for argument in arguments]
    closing = view.offset_of(call, end=True)
    gaps = [(_BEFORE_ARGUMENTS, source[view.offset_of(call.func, end=True):starts[0]]),
            *((_BETWEEN_ARGUMENTS, source[end:start]) for end, start in zip(ends, starts[1:])),
            (_AFTER_ARGUMENTS, source[ends[-1]:closing])]
    if not all(pattern.fullmatch(gap) for pattern, gap in gaps):
        raise Undecidable("a member call's arguments with more than commas and whitespace around them")
    codes = [source[start:following] for start, following in zip(starts, [*starts[1:], closing - 1])]
    return "".join(", " + code.rstrip().rstrip(",") for code in codes)


_STATE_MAKERS = ("create", "replace", "apply_gradients")


class _AnyField:
    """Every (name, field) pair: ``create(batch_stats=other.batch_stats)`` may hold what ``other``'s field holds."""

    def __contains__(self, pair) -> bool:
        return True


_ANY_FIELD = _AnyField()


def _state_fields(view: AstView) -> frozenset[tuple[str, str]]:
    """The TrainState fields other than ``params`` that ``VariablesTracker`` may follow, as (name, field): a name
    some assignment of the file binds to ``X.create(..., FIELD=<what may hold variables>)``, or to a
    ``replace``/``apply_gradients`` of another such name that does not pass FIELD (to a fixed point);
    ``state.model_state`` of any other name holds nothing the tracker follows."""
    created: set[tuple[str, str]] = set()
    kept: list[tuple[str, str, frozenset[str]]] = []  # (name, the state it is made from, the keywords passed)
    for node in walk(view, (ast.Assign, ast.AnnAssign)):
        value = node.value
        if type(value) is not ast.Call or type(value.func) is not ast.Attribute \
                or value.func.attr not in _STATE_MAKERS:
            continue
        targets = node.targets if type(node) is ast.Assign else [node.target]
        for target in targets:
            if type(target) is not ast.Name:
                continue
            if value.func.attr == "create":
                created.update((target.id, keyword.arg) for keyword in value.keywords
                               if keyword.arg not in (None, "params") and _may_hold(keyword.value, _ANY_FIELD))
            elif type(value.func.value) is ast.Name and value.func.value.id != target.id:
                passed = frozenset(keyword.arg for keyword in value.keywords if keyword.arg is not None)
                kept.append((target.id, value.func.value.id, passed))
    while True:
        more = {(name, field) for name, source, passed in kept for held, field in created
                if held == source and field not in passed} - created
        if not more:
            return frozenset(created)
        created |= more


def _followed_field(node: ast.Attribute, fields: frozenset[tuple[str, str]]) -> bool:
    """``<name>.params``, or ``<name>.<field>`` of a pair ``_state_fields`` gives."""
    return type(node.value) is ast.Name and (node.attr == "params" or (node.value.id, node.attr) in fields)


def _makes_variables(view: AstView) -> bool:
    """Some ``.init(...)``/``.init_with_output(...)``, or ``.apply(...)`` with ``mutable``, is called."""
    return any(type(node.func) is ast.Attribute and (
        node.func.attr in ("init", "init_with_output")
        or node.func.attr == "apply" and any(keyword.arg in ("mutable", None) for keyword in node.keywords))
        for node in walk(view, (ast.Call,)))


def _may_be_state_params(node: ast.expr, names: frozenset[str], fields: frozenset[tuple[str, str]]) -> bool:
    """Where nothing makes variables: ``<name>.params`` (or another state field: ``create(batch_stats=s.params)``),
    a subscript or ``copy(...)`` of it, or a name of ``names`` (``_names_from_state_params``)."""
    while True:
        kind = type(node)
        if kind is ast.Name:
            return node.id in names
        if kind is ast.Attribute:
            return _followed_field(node, fields)
        if kind is ast.Subscript:
            node = node.value
            continue
        if kind is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "copy" \
                and (node.args or node.keywords):
            node = node.func.value
            continue
        return False


def _names_from_state_params(view: AstView, fields: frozenset[tuple[str, str]]) -> frozenset[str]:
    """The names some assignment of the file binds to what ``_may_be_state_params`` accepts (to a fixed point:
    ``p = state.params; q = p["Dense_0"]``)."""
    assignments = [(target.id, node.value) for node in walk(view, (ast.Assign, ast.AnnAssign))
                   if node.value is not None
                   for target in (node.targets if type(node) is ast.Assign else [node.target])
                   if type(target) is ast.Name]
    names: set[str] = set()
    while True:
        found = {name for name, value in assignments if _may_be_state_params(value, frozenset(names), fields)}
        if found <= names:
            return frozenset(names)
        names |= found


def _may_hold(node: ast.expr, fields: frozenset[tuple[str, str]]) -> bool:
    """``VariablesTracker.holds`` may answer True: an ``init`` call, a ``copy(...)`` of what it may hold, a subscript
    of a call (a pair of ``init_with_output``/``apply``) or of what it may hold, ``<name>.<field>`` of a TrainState
    field (``_state_fields``), a name. It answers False for any other expression (an attribute, another call, a
    literal)."""
    while True:
        kind = type(node)
        if kind is ast.Name:
            return True
        if kind is ast.Attribute:
            return _followed_field(node, fields)
        if kind is ast.Subscript:
            if type(node.value) is ast.Call:
                return True
            node = node.value
            continue
        if kind is ast.Call and type(node.func) is ast.Attribute:
            if node.func.attr == "init":
                return True
            if node.func.attr == "copy" and (node.args or node.keywords):
                node = node.func.value
                continue
        return False


def _tests_frozendict(facts) -> bool:
    """Some ``isinstance(x, FrozenDict)`` (flax's) exists, and a call that makes flax variables."""
    calls = facts.calls
    return any(type(call.func) is ast.Name and call.func.id == "isinstance" and len(call.args) == 2
               and _qualified(facts, call.args[1]) in FROZEN_DICT for call in calls) \
        and (any(type(call.func) is ast.Attribute and call.func.attr in _SOURCES for call in calls)
             or facts.refers_to_any(_TRAIN_STATES))


def _qualified(facts, node: ast.AST) -> str | None:
    names = facts.qualified_names(node)
    return next(iter(names & FROZEN_DICT), None) if names else None


def _copy_of_one_argument(call) -> bool:
    """``_may_report``'s ``copy`` call, read from the text (``CallText``): one argument, positional or ``**``-passed
    (a ``lambda`` among the arguments: "maybe")."""
    return call.positional >= 0 and (call.lambdas or call.double_star
                                     or call.positional + len(call.keywords) == 1)


# ``_may_report``'s test of each member's call on a call read from the text: any call of the other members
_MAY_REPORT = {member: {"copy": _copy_of_one_argument, "pop": pop_of_one_key}.get(member, a_call) for member in MEMBERS}


def _passes_mutable(call) -> bool:
    """``.apply(..., mutable=...)`` read from the text (``CallText``; a ``lambda`` among the arguments: "maybe")."""
    return call.positional >= 0 and (call.lambdas or "mutable" in call.keywords)


def _may_report(calls: list[ast.Call], whole) -> bool:
    """Whether a member call may have a shape ``_shape`` reports (over-approximated): any ``unfreeze``,
    ``pretty_repr``... call; ``copy`` with one argument; ``pop`` with one positional argument, unpacked into two
    names or subscripted (the nodes the gate's walk recorded of the file, ``whole``, are read only when a ``pop``
    call is all there is)."""
    pops = set()
    for call in calls:
        name = call.func.attr
        if name == "copy" and len(call.args) + len(call.keywords) == 1 or name not in ("copy", "pop"):
            return True
        if name == "pop" and len(call.args) == 1 and not call.keywords:
            pops.add(id(call))
    if not pops or whole.tree is None:
        return bool(pops)
    return any(id(node.value) in pops and (type(node) is ast.Subscript or len(node.targets) == 1
                                           and type(node.targets[0]) in (ast.Tuple, ast.List)
                                           and len(node.targets[0].elts) == 2)
               for node in whole.nodes if type(node) in (ast.Subscript, ast.Assign))


def applies(settings: Settings, file_text: str) -> bool:
    """The project's flax may reach the plain dict and may start below it; the file imports flax and does not keep
    the FrozenDict (``flax_return_frozendict``)."""
    lower, _ = settings.library_range("flax")
    if lower is not None and lower >= Version(PLAIN_DICT):
        return False
    return library_may_reach(settings, "flax", PLAIN_DICT) and imports_flax(file_text) \
        and _KEEPS_FROZENDICT.search(file_text) is None


def _message(member: Member) -> str:
    head = f"Since flax {PLAIN_DICT}, flax variables are a plain dict"
    if member.name == "pop":
        return (f"{head}: `dict.pop(key)` returns the value alone (and removes it in place), not the pair "
                "`(rest, value)` this code reads; use `flax.core.pop(x, key)`.")
    if member.name == "copy":
        return f"{head}: `dict.copy()` takes no argument; use `flax.core.copy(x, add_or_replace)`."
    if member.function is not None:
        return f"{head}, which has no `.{member.name}()`: use `{member.function}(x)` (a FrozenDict or a dict alike)."
    return f"{head}, which has no `.{member.name}()`: flatten with `jax.tree_util` instead."

