"""JAX503 flax-variables-pop: ``rest, params = variables.pop('params')`` on what ``Module.init`` returned."""
from __future__ import annotations

import ast
import io
import tokenize
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, walk
from jaxlint.lint.diagnostics import Applicability, Edit, WithheldFix
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix
from jaxlint.catalogue.ecosystem import PLAIN_DICT, library_may_reach, library_min
from jaxlint.analysis.frozendict_narrowing import in_frozendict_branch, in_frozendict_branch_ast
from jaxlint.analysis.flax_values import calls_methods_on_init, flax_bound, flax_bound_ast, from_init, \
    from_init_ast, imports_flax, init_call, init_call_ast, may_call_method_on_init, pop_may_be_unpacked, unpacks_a_pop

CORE_POP = Version("0.6.11")  # flax.core.pop: absent in 0.6.0, present in 0.6.11 (the oldest release checked)


class FlaxVariablesPop(Rule):
    code = "JAX503"
    name = "flax-variables-pop"
    summary = "`rest, params = variables.pop('params')` unpacks the params dict's keys since flax 0.7.1"
    since = "0.1.1"  # a flax change: it does not depend on the JAX target
    library_version = "flax 0.7.1"
    triggers = ("flax",)
    ast_names = frozenset({"flax"})
    decides_from_ast = True  # its findings and its one-edit fix come from the ast gate's tree (``findings_from_ast``)

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        return may_call_method_on_init(facts, words, "pop", pop_may_be_unpacked(facts)) \
            and super().may_match_text(facts, words)

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
            from flax.core import FrozenDict
            variables = model.init(rng, x)
            if isinstance(variables, FrozenDict):
                rest, params = variables.pop("params")
        """, note="the branch that runs only for a FrozenDict"),
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
        if in_frozendict_branch(self.context.ancestors, receiver, self.qualified_name, self.code_for):
            return  # ``if isinstance(variables, FrozenDict): ...``: runs on a FrozenDict only
        if not applies(self.settings, self.context.file_text):
            return
        key = call.args[0].value.value
        fix = None
        withheld = version_withheld(self.settings)
        if withheld is None and not flax_bound(self.context.resolver, call):
            withheld = FLAX_UNBOUND
        elif withheld is None:
            fix = safe_fix(FIX_MESSAGE, Replace(call, replacement(self.code_in_place(receiver), key)))
        self.report(node, message(key), fix, withheld=withheld)

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) ----------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Assign`` reports, fix included. Undecidable where the fix's text or place needs libcst's
        view of parentheses: the ``.pop`` call or its receiver in parentheses of its own (libcst's span and
        ``code_for`` hold them), or a key that is not one plain string token."""
        if not applies(view.settings, view.file_text):
            return []
        found = []
        for node in walk(view, (ast.Assign,)):
            if len(node.targets) != 1 or type(node.targets[0]) not in (ast.Tuple, ast.List):
                continue
            elements = node.targets[0].elts
            call = node.value
            if len(elements) != 2 or any(type(e) is ast.Starred for e in elements) or type(call) is not ast.Call \
                    or type(call.func) is not ast.Attribute or call.func.attr != "pop" or len(call.args) != 1 \
                    or call.keywords or type(call.args[0]) is not ast.Constant \
                    or not isinstance(call.args[0].value, (str, bytes)):
                continue
            receiver = call.func.value
            if not (init_call_ast(receiver) or type(receiver) is ast.Name and from_init_ast(view, node, receiver.id)):
                continue
            if in_frozendict_branch_ast(view, view.ancestors(node), receiver):
                continue
            key = _plain_string(view, call.args[0])
            if key is None:
                continue
            fix = None
            withheld = version_withheld(view.settings)
            if withheld is None and not flax_bound_ast(view, call):
                withheld = FLAX_UNBOUND
            elif withheld is None:
                start, end = _unparenthesized(view, node, call)
                fix = AstFix(Applicability.SAFE, FIX_MESSAGE,
                             (Edit(start, end, replacement(view.text(receiver), key)),))
            found.append(AstFinding(cls.code, node, message(key), withheld=withheld, fix=fix))
        return found


FIX_MESSAGE = "Use `flax.core.pop`"
FLAX_UNBOUND = WithheldFix("`flax` does not name the flax package here: add `import flax`")


def applies(settings: Settings, file_text: str) -> bool:
    """The project's flax may reach the plain dict, and the file imports flax."""
    return library_may_reach(settings, "flax", PLAIN_DICT) and imports_flax(file_text)


def version_withheld(settings: Settings) -> WithheldFix | None:
    if library_min(settings, "flax") < CORE_POP:
        return WithheldFix(f"`flax.core.pop` needs flax {CORE_POP}+; the project's flax pins allow older")
    return None


def replacement(receiver: str, key: str) -> str:
    return f"flax.core.pop({receiver}, {key})"


def message(key: str) -> str:
    return (f"Since flax {PLAIN_DICT}, `.init` returns a dict: `dict.pop({key})` returns the params alone and the "
            f"unpacking takes them apart; use `flax.core.pop(variables, {key})`.")


def _plain_string(view: AstView, node: ast.Constant) -> str | None:
    """libcst's ``SimpleString.value`` of a string argument: its one token as written; None for an implicit
    concatenation (libcst's ``ConcatenatedString``, not reported); undecidable for anything else (parentheses)."""
    text = view.text(node)
    try:
        tokens = [token for token in tokenize.generate_tokens(io.StringIO(text).readline)
                  if token.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER)]
    except (tokenize.TokenError, SyntaxError):
        raise Undecidable("a string argument that does not tokenize alone") from None
    if not tokens or any(token.type != tokenize.STRING for token in tokens):
        raise Undecidable("a string argument with more than strings in its text")
    if len(tokens) > 1:
        return None
    if tokens[0].string != text:
        raise Undecidable("a string argument with more than its token in its text")
    return text


def _unparenthesized(view: AstView, statement: ast.Assign, call: ast.Call) -> tuple[int, int]:
    """The span of the ``.pop`` call, which the fix replaces, where neither it nor its receiver has parentheses of
    its own: libcst's span of the call and ``code_for`` of the receiver would hold them."""
    start, end = view.offset_of(call), view.offset_of(call, end=True)
    if view.offset_of(call.func.value) != start:
        raise Undecidable("the receiver of `.pop` in parentheses")
    if view.offset_of(statement, end=True) != end or not view.source[:start].rstrip(" \t").endswith("="):
        raise Undecidable("the `.pop` call in parentheses")
    return start, end
