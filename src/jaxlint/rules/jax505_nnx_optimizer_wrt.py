"""JAX505 nnx-optimizer-wrt: ``nnx.Optimizer(model, tx)`` without ``wrt=``, required since flax 0.11.0."""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.diagnostics import WithheldFix
from jaxlint.project.versions import Version
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix
from jaxlint.catalogue.ecosystem import library_may_reach, library_min

OPTIMIZER = "flax.nnx.Optimizer"
REQUIRED_IN = "0.11.0"  # ``*, wrt: filterlib.Filter`` (0.10.0: ``wrt: filterlib.Filter = nnx.Param``)
WRT_SINCE = Version("0.8.5")  # the oldest release checked whose nnx.Optimizer takes ``wrt`` (default nnx.Param)


class NnxOptimizerWrt(Rule):
    code = "JAX505"
    name = "nnx-optimizer-wrt"
    summary = "`nnx.Optimizer(model, tx)` without `wrt=`: a TypeError since flax 0.11.0"
    since = "0.1.1"  # a flax change: it does not depend on the JAX target
    library_version = "flax 0.11.0"
    triggers = ("Optimizer",)
    ast_names = frozenset({OPTIMIZER})
    statement_gated = True
    explanation = f"""
## What it does
Finds calls of `flax.nnx.Optimizer` (`nnx.Optimizer(model, tx)`) that do not pass `wrt`. Only when the project's
flax pins reach {REQUIRED_IN}.

## Why
flax {REQUIRED_IN} made `wrt` a required keyword-only argument (`TypeError: Optimizer.__init__() missing 1 required
keyword-only argument: 'wrt'`). Before, it defaulted to `nnx.Param`.

## Example
```python
from flax import nnx
optimizer = nnx.Optimizer(model, optax.adam(1e-3))
```
Use instead:
```python
from flax import nnx
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
```

## Fix safety
Safe: `wrt=nnx.Param` is the old default (flax 0.8.5 and 0.10.0: `wrt: filterlib.Filter = nnx.Param`), spelled
through the callee's own module (`nnx.Param` for `nnx.Optimizer`), where the lowest pinned flax is 0.8.5 or later.
A call with `*args`/`**kwargs`, or `Optimizer` imported by name, gets no fix.

## Library version
flax {REQUIRED_IN} (`flax/nnx/training/optimizer.py` of 0.10.0 and 0.11.0).
"""

    VALID = [
        Valid("""
            from flax import nnx
            optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)
        """, note="the fix"),
        Valid("""
            from mylib import nnx
            optimizer = nnx.Optimizer(model, tx)
        """, note="not flax"),
        Valid("""
            from flax import nnx
            optimizer = nnx.Optimizer(*args, **kwargs)
        """, note="wrt may be in **kwargs"),
    ]

    INVALID = [
        Invalid("""
            from flax import nnx
            import optax
            optimizer = nnx.Optimizer(model, optax.adam(1e-3))
        """, fixed="""
            from flax import nnx
            import optax
            optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
        """, note="the old default, spelled through the callee's module"),
        Invalid("""
            import flax
            opt = flax.nnx.Optimizer(model, tx=tx,)
        """, fixed="""
            import flax
            opt = flax.nnx.Optimizer(model, tx=tx, wrt=flax.nnx.Param,)
        """, note="keyword tx and a trailing comma"),
        Invalid("""
            from flax.nnx import Optimizer
            opt = Optimizer(model, tx)
        """, note="Optimizer imported by name: no fix (Param may not be imported)"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) != OPTIMIZER or any(arg.star for arg in node.args) \
                or any(arg.keyword is not None and arg.keyword.value == "wrt" for arg in node.args):
            return
        if not library_may_reach(self.settings, "flax", REQUIRED_IN):
            return
        fix = withheld = None
        if library_min(self.settings, "flax") < WRT_SINCE:
            withheld = WithheldFix(f"`wrt=` needs flax {WRT_SINCE}+ (checked); the project's flax pins allow older")
        elif isinstance(node.func, cst.Attribute) and node.args:
            # after the last argument's value: its comma, if any, stays after the new one
            value = node.args[-1].value
            param = f"{self.code_for(node.func.value)}.Param"
            fix = safe_fix(f"Pass `wrt={param}` (the old default)",
                           Replace(value, f"{self.code_for(value)}, wrt={param}"))
        self.report(node, f"`nnx.Optimizer` requires `wrt=` since flax {REQUIRED_IN}: pass `wrt=nnx.Param` (the old "
                          "default).", fix, withheld=withheld)
