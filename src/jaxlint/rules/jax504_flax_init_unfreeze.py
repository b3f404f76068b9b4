"""JAX504 flax-init-unfreeze: ``.unfreeze()`` on what ``Module.init`` returned, a plain dict since flax 0.7.1."""
from __future__ import annotations
import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, statement_of, walk
from jaxlint.lint.diagnostics import Applicability, Edit, WithheldFix
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix
from jaxlint.catalogue.ecosystem import PLAIN_DICT
from jaxlint.analysis.frozendict_narrowing import in_frozendict_branch, in_frozendict_branch_ast
from jaxlint.analysis.flax_values import calls_methods_on_init, flax_bound, flax_bound_ast, from_init, init_call, \
    may_call_method_on_init, on_init_ast
from jaxlint.rules.jax503_flax_variables_pop import applies


class FlaxInitUnfreeze(Rule):
    code = "JAX504"
    name = "flax-init-unfreeze"
    summary = "`variables.unfreeze()` on an init result: a dict has no `unfreeze` since flax 0.7.1"
    since = "0.1.1"  # a flax change: it does not depend on the JAX target
    library_version = "flax 0.7.1"
    triggers = ("unfreeze",)
    ast_names = frozenset({"flax"})
    decides_from_ast = True  # its findings and its one-edit fix come from the ast gate's tree (``findings_from_ast``)

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        return may_call_method_on_init(facts, words, "unfreeze") and super().may_match_text(facts, words)

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        return calls_methods_on_init(facts, "unfreeze")
    explanation = f"""
## What it does
Finds `.unfreeze()` called on the result of a `.init(...)` call, directly or through a name assigned from one in the
same scope (the second value of `.init_with_output(...)` too). Runs only on files that import flax, and only when the
project's flax pins reach {PLAIN_DICT}.

## Why
From flax {PLAIN_DICT}, `Module.init` and `apply` return a plain `dict` (`flax_return_frozendict` defaults to
`False`): `AttributeError: 'dict' object has no attribute 'unfreeze'`. Code that checks `isinstance(v, FrozenDict)`
on such a value silently takes the other branch; that is not reported (the check is often deliberate).

## Example
```python
import flax
variables = model.init(rng, x).unfreeze()
```
Use instead:
```python
import flax
variables = flax.core.unfreeze(model.init(rng, x))
```

## Fix safety
Safe where `flax` names the flax package there: `flax.core.unfreeze` returns the same mutable copy for a
`FrozenDict` (what `.unfreeze()` did on the flax the code was written for) and a copy of a dict; it exists in every
flax release (checked from 0.2.2). Otherwise no fix.

## Library version
flax {PLAIN_DICT}+ (`flax/configurations.py`: `return_frozendict` is `True` in 0.7.0, `False` in 0.7.1).
"""

    VALID = [
        Valid("""
            import flax
            from flax.core import FrozenDict
            variables = model.init(rng, x)
            if isinstance(variables, FrozenDict):
                params = variables.unfreeze()
        """, note="the branch that runs only for a FrozenDict"),
        Valid("""
            import flax
            variables = flax.core.unfreeze(model.init(rng, x))
        """, note="the fix"),
        Valid("""
            import flax
            def load(params):
                return params.unfreeze()
        """, note="not known to come from init (it may be a FrozenDict the code built)"),
        Valid("""
            variables = model.init(rng, x).unfreeze()
        """, note="a file that does not use flax"),
    ]

    INVALID = [
        Invalid("""
            import flax
            variables = model.init(rng, x).unfreeze()
        """, fixed="""
            import flax
            variables = flax.core.unfreeze(model.init(rng, x))
        """, note="on the init call"),
        Invalid("""
            import flax
            def setup(rng):
                variables = model.init(rng, x)
                params = variables["params"].unfreeze() if False else variables.unfreeze()
                return params
        """, fixed="""
            import flax
            def setup(rng):
                variables = model.init(rng, x)
                params = variables["params"].unfreeze() if False else flax.core.unfreeze(variables)
                return params
        """, note="through a name assigned from init in the same function; a subscript is not known"),
        Invalid("""
            from flax import linen as nn
            variables = model.init(rng, x)
            mutable = variables.unfreeze()
        """, note="`flax` is not bound: no fix"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "unfreeze" or node.args:
            return
        receiver = func.value
        if not (init_call(receiver) or isinstance(receiver, cst.Name) and from_init(self.context.resolver, receiver)):
            return
        if in_frozendict_branch(self.context.ancestors, receiver, self.qualified_name, self.code_for):
            return  # ``if isinstance(variables, FrozenDict): variables.unfreeze()``: runs on a FrozenDict only
        if not applies(self.settings, self.context.file_text):
            return
        fix = withheld = None
        if flax_bound(self.context.resolver, node):
            fix = safe_fix(FIX_MESSAGE, Replace(node, replacement(self.code_in_place(receiver))))
        else:
            withheld = FLAX_UNBOUND
        self.report(node, MESSAGE, fix, withheld=withheld)

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) ----------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` reports, fix included. The finding's place is the call's (``AstView.span``, which
        raises ``Undecidable`` for a callee with parentheses: ``model.init(rng, x).unfreeze()``); the fix replaces
        that span with the receiver's text, a plain name there."""
        if not applies(view.settings, view.file_text):
            return []
        found = []
        for node in walk(view, (ast.Call,)):
            func = node.func
            if type(func) is not ast.Attribute or func.attr != "unfreeze" or node.args or node.keywords:
                continue
            receiver = func.value
            if not on_init_ast(view, node, receiver):
                continue
            ancestors = view.ancestors(node)
            if in_frozendict_branch_ast(view, ancestors, receiver):
                continue
            fix = withheld = None
            if flax_bound_ast(view, node):
                fix = _unfreeze_fix(view, node, ancestors)
            else:
                withheld = FLAX_UNBOUND
            found.append(AstFinding(cls.code, node, MESSAGE, withheld=withheld, fix=fix))
        return found


MESSAGE = (f"Since flax {PLAIN_DICT}, `.init` returns a plain dict, which has no `.unfreeze()`: use "
           "`flax.core.unfreeze(variables)` (a FrozenDict or a dict alike).")
FIX_MESSAGE = "Use `flax.core.unfreeze`"
FLAX_UNBOUND = WithheldFix("`flax` does not name the flax package here: add `import flax`")


def replacement(receiver: str) -> str:
    return f"flax.core.unfreeze({receiver})"


def _unfreeze_fix(view: AstView, node: ast.Call, ancestors) -> AstFix:
    """libcst's edit: the call's span (the finding's) replaced; the receiver's text is libcst's only where it is a
    name without parentheses of its own (``(variables).unfreeze()``; an init call is left to libcst)."""
    receiver = node.func.value
    if type(receiver) is not ast.Name or view.offset_of(receiver) != view.offset_of(node):
        raise Undecidable("the receiver of `.unfreeze` is a call or in parentheses")
    start, end = view.span(node, statement_of(ancestors))
    return AstFix(Applicability.SAFE, FIX_MESSAGE, (Edit(start, end, replacement(receiver.id)),))
