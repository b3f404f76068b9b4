"""JAX503 flax-variables-pop: ``rest, params = variables.pop('params')`` on what ``Module.init`` returned."""
from __future__ import annotations

import libcst as cst

from jaxlint.lint.diagnostics import WithheldFix
from jaxlint.project.versions import Version
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix
from jaxlint.catalogue.ecosystem import PLAIN_DICT, library_may_reach, library_min
from jaxlint.analysis.flax_values import calls_methods_on_init, flax_bound, from_init, imports_flax, init_call, \
    may_call_method_on_init, unpacks_a_pop

CORE_POP = Version("0.6.11")  # flax.core.pop: absent in 0.6.0, present in 0.6.11 (the oldest release checked)


class FlaxVariablesPop(Rule):
    code = "JAX503"
    name = "flax-variables-pop"
    summary = "`rest, params = variables.pop('params')` unpacks the params dict's keys since flax 0.7.1"
    since = "0.1.1"  # a flax change: it does not depend on the JAX target
    library_version = "flax 0.7.1"
    triggers = ("flax",)
    ast_names = frozenset({"flax"})

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        return may_call_method_on_init(words, "pop") and super().may_match_text(facts, words)

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        return calls_methods_on_init(facts, "pop") and unpacks_a_pop(facts)
    explanation = f"""
## What it does
Finds `rest, params = variables.pop("params")` where `variables` was assigned, in the same scope, from a call of a
`.init(...)` method (or is the second value of `.init_with_output(...)`), or where the `.pop` is called on such a call
directly. Runs only on files that import flax, and only when the project's flax pins reach {PLAIN_DICT}.

## Why
Until flax 0.7.0, `Module.init` returned a `FrozenDict`, whose `.pop(key)` returns `(rest, value)`. From flax
{PLAIN_DICT} (`flax_return_frozendict` defaults to `False`) it returns a plain `dict`: `dict.pop` returns the value
alone, removes the key from `variables` in place, and the unpacking takes the params dict apart: a
`ValueError: too many values to unpack`, or, when the model has exactly two top-level submodules, `rest` and
`params` silently become their two *names*.

## Example
```python
import flax
variables = model.init(rng, x)
state, params = variables.pop("params")
```
Use instead:
```python
import flax
variables = model.init(rng, x)
state, params = flax.core.pop(variables, "params")
```

## Fix safety
Safe where `flax` names the flax package in that scope and the project's lowest pinned flax has `flax.core.pop`
(0.6.11 and later; not in 0.6.0): on a `FrozenDict` it is `FrozenDict.pop`, on a dict it returns the pair that the
code expects, so the code does on every flax what it did on the flax it was written for. Otherwise no fix
(`fix_withheld` says why). `params = variables.pop("params")` (one target) is right on the new flax and not reported.

## Library version
flax {PLAIN_DICT}+ (read from `flax/configurations.py`: `return_frozendict` is `True` in 0.7.0, `False` in 0.7.1).
"""

    VALID = [
        Valid("""
            import flax
            variables = model.init(rng, x)
            state, params = flax.core.pop(variables, "params")
        """, note="the fix"),
        Valid("""
            import flax
            variables = model.init(rng, x)
            params = variables.pop("params")
        """, note="one target: right on flax 0.7.1+"),
        Valid("""
            import flax
            def step(batch):
                batch, labels = batch.pop("labels")
        """, note="not known to come from init: not reported (it may be a FrozenDict the code built)"),
        Valid("""
            variables = model.init(rng, x)
            state, params = variables.pop("params")
        """, note="a file that does not use flax"),
    ]

    INVALID = [
        Invalid("""
            import flax
            variables = model.init(rng, x, train=False)
            states, params = variables.pop('params')
        """, fixed="""
            import flax
            variables = model.init(rng, x, train=False)
            states, params = flax.core.pop(variables, 'params')
        """, note="uncertainty-baselines' pattern"),
        Invalid("""
            import flax.linen as nn
            def init(rng):
                out, variables = model.init_with_output(rng, x)
                _, params = variables.pop("params")
                return params
        """, note="`flax` is not bound here: no fix (flax.core.pop needs `import flax`)"),
        Invalid("""
            import flax
            state, params = model.init(rng, x).pop("params")
        """, fixed="""
            import flax
            state, params = flax.core.pop(model.init(rng, x), "params")
        """, note="pop on the init call itself"),
    ]

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, (cst.Tuple, cst.List)):
            return
        elements = node.targets[0].target.elements
        call = node.value
        if len(elements) != 2 or any(isinstance(e, cst.StarredElement) for e in elements) \
                or not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) \
                or call.func.attr.value != "pop" or len(call.args) != 1 or call.args[0].keyword is not None \
                or call.args[0].star or not isinstance(call.args[0].value, cst.SimpleString):
            return
        receiver = call.func.value
        if not (init_call(receiver) or isinstance(receiver, cst.Name) and from_init(self.context.resolver, receiver)):
            return
        if not library_may_reach(self.settings, "flax", PLAIN_DICT) or not imports_flax(self.context.file_text):
            return
        key = call.args[0].value.value
        fix = withheld = None
        if library_min(self.settings, "flax") < CORE_POP:
            withheld = WithheldFix(f"`flax.core.pop` needs flax {CORE_POP}+; the project's flax pins allow older")
        elif not flax_bound(self.context.resolver, call):
            withheld = WithheldFix("`flax` does not name the flax package here: add `import flax`")
        else:
            fix = safe_fix("Use `flax.core.pop`",
                           Replace(call, f"flax.core.pop({self.code_for(receiver)}, {key})"))
        self.report(node, f"Since flax {PLAIN_DICT}, `.init` returns a dict: `dict.pop({key})` returns the params "
                          f"alone and the unpacking takes them apart; use `flax.core.pop(variables, {key})`.",
                    fix, withheld=withheld)

