"""JAX509 flax-optax-method-signature: a keyword that a flax or optax method stopped accepting, in a call on an
instance whose class the module makes plain (``cell = nn.LSTMCell(...)``; ``cell.initialize_carry(batch_dims=)``)."""
from __future__ import annotations

import ast

import libcst as cst

from jaxlint.catalogue.ecosystem import METHOD_KEYWORDS
from jaxlint.rules.base import Invalid, Rule, Valid
from jaxlint.project.versions import Version
from jaxlint.rules.jax507_flax_optax_changed_signature import KeywordFindings

# method -> the keywords some class's row lists for it (the gates' over-approximation)
_METHODS: dict[str, frozenset[str]] = {}
for _methods in METHOD_KEYWORDS.values():
    for _method, _rows in _methods.items():
        _METHODS[_method] = _METHODS.get(_method, frozenset()) | frozenset(_rows)
# The releases that changed a reported method keyword, per library (the version column of the docs).
_RELEASES = {library: sorted({Version(row.removed_in) for methods in METHOD_KEYWORDS.values()
                              for rows in methods.values() for row in rows.values() if row.library == library})
             for library in ("flax", "optax")}
# Bases that add no method: a class with one of these besides its real base still has that base's methods.
_NEUTRAL_BASES = frozenset({"builtins.object", "typing.Generic", "typing.Protocol", "abc.ABC"})


class FlaxOptaxMethodSignature(KeywordFindings, Rule):
    code = "JAX509"
    name = "flax-optax-method-signature"
    summary = "a keyword that a flax or optax method stopped accepting, called on an instance of a known class"
    since = "0.1.1"  # a flax/optax change: it does not depend on the JAX target
    library_version = ", ".join(f"{library} {releases[0]}" + (f"-{releases[-1]}" if len(releases) > 1 else "")
                                for library, releases in _RELEASES.items())
    triggers = ("flax", "optax")
    ast_names = frozenset(METHOD_KEYWORDS)
    explanation = """
## What it does
JAX507's method rows (the `[[parameter]]` rows with `method_of` in `rules/ecosystem_generated.toml`, read from
every flax and optax wheel) for calls on an **instance**: `cell.initialize_carry(rng, batch_dims=(4,), size=8)`
where `cell = nn.LSTMCell(...)` (flax 0.7.0 made it a method of the cell, `initialize_carry(rng, input_shape)`),
`noise.sample(seed=key, ...)` where `noise = optax.perturbations.Gumbel()` (optax 0.2.5), `self.make_rng(kind=...)`
in a subclass of `nn.Module` (flax 0.3.0).

The receiver's class comes from the value inference (`jaxlint.lint.instance_classes`), where the module makes it
plain: a name whose every binding constructs the same class (`cell = nn.LSTMCell(...)`) or is annotated with it (a
parameter `cell: nn.LSTMCell`), `self.cell` whose every store in the class's methods (`__init__`, flax's `setup`)
or class-level annotation agrees, `self` in a method of a subclass, and a call on the constructor itself
(`nn.LSTMCell(features=8).initialize_carry(...)`). A class of the project counts through its one base when neither
it nor a class between it and the library's class defines the method. Positional arguments and `**kwargs` are
never reported, as in JAX507.

Silent: a name bound to different things (reassigned, unpacked, a loop target), an unknown class, a project class
with several bases or one that defines the method itself (an override of another signature), a look-alike class of
the project with the same method name.

## Why
A call with a keyword the method no longer has fails: `TypeError: initialize_carry() got an unexpected keyword
argument 'batch_dims'`.

## Example
```python
from flax import linen as nn
cell = nn.LSTMCell(features=8)
carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
```
Use instead (flax 0.7.0+):
```python
from flax import linen as nn
cell = nn.LSTMCell(features=8)
carry = cell.initialize_carry(rng, (4, 8))
```

## Fix safety
As JAX507: a rename where the wheels show a plain rename (no method row is one today), otherwise no fix.

## Library version
Per keyword: the flax or optax release that stopped accepting it; not reported above the project's upper bound.
"""

    VALID = [
        Valid("""
            from flax import linen as nn
            cell = nn.LSTMCell(features=8)
            carry = cell.initialize_carry(rng, (4, 8))
        """, note="the new signature, positional"),
        Valid("""
            from flax import linen as nn
            class LSTMCell:
                def initialize_carry(self, rng, batch_dims, size):
                    return rng
            cell = LSTMCell()
            carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="a look-alike class of the project"),
        Valid("""
            from flax import linen as nn
            class MyCell(nn.LSTMCell):
                def initialize_carry(self, rng, batch_dims, size):
                    return rng
            cell = MyCell(features=8)
            carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="a subclass that overrides the method"),
        Valid("""
            from flax import linen as nn
            cell = nn.LSTMCell(features=8)
            cell = make_cell()
            carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="reassigned: the class is not known"),
        Valid("""
            from flax import linen as nn
            def run(cell):
                return cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="an unannotated parameter: the class is not known"),
    ]

    INVALID = [
        Invalid("""
            from flax import linen as nn
            cell = nn.LSTMCell(features=8)
            carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="removed in flax 0.7.0"),
        Invalid("""
            import optax
            def smooth(key, shape):
                noise = optax.perturbations.Gumbel()
                return noise.sample(seed=key, sample_shape=shape)
        """, note="optax 0.2.5: `sample(key, ...)`"),
        Invalid("""
            from flax import linen as nn
            class Seq(nn.Module):
                def setup(self):
                    self.cell = nn.GRUCell(features=8)
                def __call__(self, x):
                    carry = self.cell.initialize_carry(self.make_rng("carry"), batch_dims=x.shape[:1], size=8)
                    return carry
        """, note="an attribute set in setup"),
        Invalid("""
            from flax import linen as nn
            def run(cell: nn.OptimizedLSTMCell, rng):
                return cell.initialize_carry(rng, batch_dims=(2,), size=4)
        """, note="a parameter annotated with the class"),
    ]

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        return super().may_match_text(facts, words) and any(
            method in words and not keywords.isdisjoint(words) for method, keywords in _METHODS.items())

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        if not super().may_match_ast(facts):
            return False
        whole = facts.file or facts
        return any(type(call.func) is ast.Attribute and call.func.attr in _METHODS
                   and any(keyword.arg in _METHODS[call.func.attr] for keyword in call.keywords)
                   for call in whole.calls)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _METHODS \
                or not any(arg.keyword is not None and arg.keyword.value in _METHODS[func.attr.value]
                           for arg in node.args):
            return
        if self.qualified_name(func) is not None:
            return  # a module's function, or the class spelled (``nn.LSTMCell.initialize_carry``: JAX507)
        method = func.attr.value
        owner = self._library_class(self.context.inference.classes.instance_class(func.value), method, 0)
        rows = METHOD_KEYWORDS.get(owner or "", {}).get(method)
        if rows:
            self._keywords(node, rows, self.code_for(func), f" on an instance of `{owner}`")

    def _library_class(self, found: "str | cst.ClassDef | None", method: str, depth: int) -> str | None:
        """The library class whose ``method`` an instance of ``found`` calls: ``found`` itself when the table lists
        it, or, for a project class, its one base's (when neither defines ``method``); None when not known."""
        if isinstance(found, str) or found is None or depth > 8:
            return found if isinstance(found, str) and method in METHOD_KEYWORDS.get(found, {}) else None
        if _defines(found, method):
            return None  # an override: another signature
        bases = [base.value for base in found.bases
                 if self.qualified_name(_unsubscripted(base.value)) not in _NEUTRAL_BASES]
        if len(bases) != 1:
            return None
        base = self.context.inference.classes.annotation_class(bases[0])
        return self._library_class(base, method, depth + 1)


def _unsubscripted(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.value if isinstance(node, cst.Subscript) else node


def _defines(owner: cst.ClassDef, method: str) -> bool:
    """The class body defines or assigns ``method`` (``def initialize_carry``, ``initialize_carry = ...``)."""
    for statement in owner.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == method:
            return True
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                    [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
                if any(isinstance(t, cst.Name) and t.value == method for t in targets):
                    return True
    return False

