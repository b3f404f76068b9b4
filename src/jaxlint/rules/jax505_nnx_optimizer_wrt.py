"""JAX505 nnx-optimizer-wrt: ``nnx.Optimizer(model, tx)`` without ``wrt=``, required since flax 0.11.0."""
from __future__ import annotations
import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.ast_calls import last_argument
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, walk
from jaxlint.lint.diagnostics import Applicability, Edit, WithheldFix
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
    triggers = ()
    # ``Optimizer`` is a word of every PyTorch and Keras training script: with ``flax``, as any reference spells it
    required_words = frozenset({frozenset({"flax", "Optimizer"})})
    ast_names = frozenset({OPTIMIZER})
    statement_gated = True
    decides_from_ast = True  # its findings and its one-edit fix come from the ast gate's tree (``findings_from_ast``)
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
        fix = None
        withheld = version_withheld(self.settings)
        if withheld is None and isinstance(node.func, cst.Attribute) and node.args:
            # after the last argument's value: its comma, if any, stays after the new one
            value = node.args[-1].value
            param = f"{self.code_for(node.func.value)}.Param"
            fix = safe_fix(fix_message(param), Replace(value, f"{self.code_in_place(value)}, wrt={param}"))
        self.report(node, MESSAGE, fix, withheld=withheld)

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) ----------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` reports, fix included. Undecidable where libcst's text or span of the last argument
        or of the callee's module may hold parentheses or comments that ``ast`` leaves out."""
        if not library_may_reach(view.settings, "flax", REQUIRED_IN):
            return []
        found = []
        for node in walk(view, (ast.Call,)):
            if not _calls_optimizer(view, node) or any(type(arg) is ast.Starred for arg in node.args) \
                    or any(keyword.arg in (None, "wrt") for keyword in node.keywords):
                continue
            fix = None
            withheld = version_withheld(view.settings)
            if withheld is None and type(node.func) is ast.Attribute and (node.args or node.keywords):
                fix = _wrt_fix(view, node)
            found.append(AstFinding(cls.code, node, MESSAGE, withheld=withheld, fix=fix))
        return found


MESSAGE = (f"`nnx.Optimizer` requires `wrt=` since flax {REQUIRED_IN}: pass `wrt=nnx.Param` (the old default).")


def fix_message(param: str) -> str:
    return f"Pass `wrt={param}` (the old default)"


def version_withheld(settings) -> WithheldFix | None:
    if library_min(settings, "flax") < WRT_SINCE:
        return WithheldFix(f"`wrt=` needs flax {WRT_SINCE}+ (checked); the project's flax pins allow older")
    return None


def _calls_optimizer(view: AstView, node: ast.Call) -> bool:
    """The callee is ``flax.nnx.Optimizer`` as the resolver names it (only an imported root can be)."""
    return view.imported_name(node.func, OPTIMIZER.__eq__) == OPTIMIZER


def _wrt_fix(view: AstView, node: ast.Call) -> AstFix:
    """libcst's edit: the last argument's value replaced by itself and ``, wrt=<module>.Param``. Its text and span
    are libcst's only without parentheses of its own around it (nor around the callee's module)."""
    module = view.text(node.func.value)
    if "(" in module or "#" in module or "\\" in module:
        raise Undecidable("parentheses or comments in the callee")
    _, start, end = last_argument(view, node)
    param = f"{module}.Param"
    return AstFix(Applicability.SAFE, fix_message(param), (Edit(start, end, f"{view.source[start:end]}, wrt={param}"),))
