"""JAX501 flax-removed-module: ``flax.nn``, ``flax.deprecated`` and ``flax.optim``, removed from flax."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_findings import AstFinding, AstView, walk
from jaxlint.rules.base import Invalid, Rule, Valid
from jaxlint.catalogue.ecosystem import dotted_name

LINEN = ("port the model to `flax.linen` (`class M(nn.Module)` dataclasses with `@nn.compact`, "
         "`variables = model.init(rng, x)`, `model.apply(variables, x)`; flax's \"Upgrading my codebase to Linen\" "
         "guide maps each construct)")
OPTAX = ("use an optax optimizer with `flax.training.train_state.TrainState` "
         "(`state = TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(lr))`, "
         "`state = state.apply_gradients(grads=grads)`; `optimizer.target` becomes `state.params`)")
# Each removed module: (removed in, how to port).
REMOVED = {
    "flax.nn": ("0.4.0", "the pre-Linen API (moved to `flax.deprecated.nn` in 0.3.6, so `import flax.nn` fails "
                "from 0.3.6): " + LINEN),
    "flax.deprecated": ("0.4.0", "it held only the pre-Linen `flax.deprecated.nn`: " + LINEN),
    "flax.deprecated.nn": ("0.4.0", "the pre-Linen API: " + LINEN),
    "flax.optim": ("0.6.0", OPTAX),
}
# flax.optim's optimizers and their optax counterparts (flax 0.5.3's ``flax/optim`` against optax's aliases).
OPTAX_EQUIVALENTS = {
    "Adam": "optax.adam(learning_rate, b1, b2, eps)", "AdaBelief": "optax.adabelief(learning_rate)",
    "Adafactor": "optax.adafactor(learning_rate)", "Adagrad": "optax.adagrad(learning_rate)",
    "Adadelta": "optax.adadelta(learning_rate) (optax 0.2.2+)", "GradientDescent": "optax.sgd(learning_rate)",
    "LAMB": "optax.lamb(learning_rate)", "LARS": "optax.lars(learning_rate)",
    "Momentum": "optax.sgd(learning_rate, momentum=beta, nesterov=nesterov)",
    "RMSProp": "optax.rmsprop(learning_rate)", "DynamicScale": "flax.training.dynamic_scale.DynamicScale",
    "WeightNorm": "no optax optimizer: normalize the weights in the model (e.g. `nn.WeightNorm`, flax 0.8+)",
}


class FlaxRemovedModule(Rule):
    code = "JAX501"
    name = "flax-removed-module"
    summary = "flax.nn, flax.deprecated or flax.optim: removed from flax (0.4.0, 0.6.0)"
    since = "0.1.1"  # a flax removal: it does not depend on the JAX target
    library_version = "flax 0.4.0, 0.6.0"
    triggers = ("flax",)
    ast_names = frozenset(REMOVED)
    statement_gated = True
    decides_from_ast = True  # no fix: its findings come from the ast gate's tree (``findings_from_ast``)
    explanation = """
## What it does
Finds imports and uses of the flax modules that flax removed: `flax.nn` and `flax.deprecated` (the pre-Linen API:
removed in flax 0.4.0; 0.3.6 had moved `flax/nn` to `flax/deprecated/nn`), and `flax.optim` (removed in flax 0.6.0):
`import flax.optim`, `from flax import nn`, `from flax.optim import Adam`, `flax.optim.Adam(...)` after
`import flax`. Runs only on files that refer to flax.

## Why
The whole module is gone: the file fails at import (`ModuleNotFoundError: No module named 'flax.optim'`, or
`ImportError: cannot import name 'nn' from 'flax'`) before any JAX change matters.

## Example
```python
from flax import optim
optimizer = optim.Adam(learning_rate=1e-3).create(params)
```
Use instead:
```python
import optax
from flax.training.train_state import TrainState
state = TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
```

## Fix safety
No fix: porting to Linen or to optax changes how the model and the training loop are written. The message says
what to port to; for `flax.optim.<Optimizer>` it names the optax optimizer (`Adam` -> `optax.adam`,
`Momentum` -> `optax.sgd(..., momentum=...)`).

## Library version
flax 0.4.0 (`flax.nn`, `flax.deprecated`) and 0.6.0 (`flax.optim`), read from the wheels: `flax/nn` is in 0.3.5,
`flax/deprecated/nn` in 0.3.6 only, `flax/optim` up to 0.5.3. Reported whatever the project pins: the newest flax
has none of them.
"""

    VALID = [
        Valid("""
            import flax.linen as nn
            import optax
            from flax.training import train_state
        """, note="the replacements"),
        Valid("""
            from mylib import optim
            opt = optim.Adam(1e-3)
        """, note="not flax"),
        Valid("""
            import flax
            x = flax.linen.Dense(3)
        """, note="flax.linen"),
    ]

    INVALID = [
        Invalid("""
            from flax import optim
            opt = optim.Adam(learning_rate=1e-3).create(params)
        """, note="the import is the root of the failure; its uses are not reported again"),
        Invalid("""
            import flax
            opt = flax.optim.Momentum(learning_rate=0.1, beta=0.9)
        """, note="flax.optim through import flax: the optax counterpart is named"),
        Invalid("""
            from flax import nn
            class Net(nn.Module):
                def apply(self, x):
                    return nn.Dense(x, 3)
        """, note="the pre-Linen API"),
        Invalid("""
            import flax.deprecated.nn as old_nn
            from flax.optim import Adam
        """, count=2, note="import forms"),
    ]

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            module = self._removed(dotted_name(alias.name))
            if module:
                self._report(node, module)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        base = dotted_name(node.module)
        module = self._removed(base)
        if module:
            names = [] if isinstance(node.names, cst.ImportStar) else [dotted_name(a.name) for a in node.names]
            self._report(node, module, names[0] if module == "flax.optim" and len(names) == 1 else None)
            return
        if base == "flax" and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                module = self._removed(f"flax.{dotted_name(alias.name)}")
                if module:
                    self._report(node, module)
                    return

    def visit_Attribute(self, node: cst.Attribute) -> None:
        qualified = self.qualified_name(node)
        if qualified not in REMOVED or isinstance(self.context.parent, cst.Attribute) and \
                self.qualified_name(self.context.parent) in REMOVED:
            return
        parent = self.context.parent
        member = parent.attr.value if isinstance(parent, cst.Attribute) and parent.value is node else None
        self._report(node, qualified, member if qualified == "flax.optim" else None)

    @staticmethod
    def _removed(module: str) -> str | None:
        """The longest removed module that ``module`` is or lies in."""
        parts = module.split(".")
        for end in range(len(parts), 1, -1):
            if ".".join(parts[:end]) in REMOVED:
                return ".".join(parts[:end])
        return None

    def _report(self, node: cst.CSTNode, module: str, member: str | None = None) -> None:
        self.report(node, message(module, member))

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) ----------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What the visit above reports, from the ast gate's tree: the import statements, then the attribute
        chains whose qualified name is a removed module (the longest such prefix of each chain)."""
        found = []
        for node in walk(view, (ast.Import, ast.ImportFrom, ast.Attribute)):
            if type(node) is ast.Import:
                found += [AstFinding(cls.code, node, message(module)) for alias in node.names
                          if (module := cls._removed(alias.name))]
            elif type(node) is ast.ImportFrom:
                found += cls._from_import(node)
            elif cls._may_name_removed(view, node):
                qualified = view.qualified_name(node)
                if qualified not in REMOVED:
                    continue
                parent, field = view.parent(node)  # asked of a finding's node only (parents are mapped when asked)
                if type(parent) is ast.Attribute and view.qualified_name(parent) in REMOVED:
                    continue
                member = parent.attr if type(parent) is ast.Attribute and field == "value" else None
                found.append(AstFinding(cls.code, node, message(qualified, member if qualified == "flax.optim"
                                                                  else None)))
        return found

    @classmethod
    def _from_import(cls, node: ast.ImportFrom) -> list[AstFinding]:
        if node.level or node.module is None:
            return []
        star = any(alias.name == "*" for alias in node.names)
        module = cls._removed(node.module)
        if module:
            names = [] if star else [alias.name for alias in node.names]
            member = names[0] if module == "flax.optim" and len(names) == 1 else None
            return [AstFinding(cls.code, node, message(module, member))]
        if node.module == "flax" and not star:
            for alias in node.names:
                module = cls._removed(f"flax.{alias.name}")
                if module:
                    return [AstFinding(cls.code, node, message(module))]
        return []

    @staticmethod
    def _may_name_removed(view: AstView, node: ast.Attribute) -> bool:
        """Cheap first test: the chain's root is something an import binds to flax (or a star import exists)."""
        root = node.value
        while type(root) is ast.Attribute:
            root = root.value
        return type(root) is ast.Name and (view.star_import or any(
            bound == "flax" or bound.startswith("flax.") for bound in view.may_import(root.id)))


def message(module: str, member: str | None = None) -> str:
    removed_in, advice = REMOVED[module]
    equivalent = OPTAX_EQUIVALENTS.get(member or "")
    detail = f" For `flax.optim.{member}`: {equivalent}." if equivalent else ""
    return f"`{module}` was removed in flax {removed_in}: {advice}.{detail}"
