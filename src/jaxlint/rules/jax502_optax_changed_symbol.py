"""JAX502 optax-changed-symbol: an optax name that optax removed or deprecated."""
from __future__ import annotations

from jaxlint.lint.diagnostics import Applicability, WithheldFix
from jaxlint.rules.base import Invalid, Valid
from jaxlint.catalogue.changed_symbol import ChangedSymbolRule
from jaxlint.catalogue.ecosystem import OPTAX, Change, library_min


class OptaxChangedSymbol(ChangedSymbolRule):
    table = OPTAX
    library = "optax"
    code = "JAX502"
    name = "optax-changed-symbol"
    summary = "an optax name that optax removed (AttributeError) or deprecated (DeprecationWarning)"
    since = "0.1.1"  # an optax change: it does not depend on the JAX target
    library_version = "optax 0.1.8-0.2.7"
    triggers = ("optax",)
    ast_names = frozenset(OPTAX)
    statement_gated = True
    decides_from_ast = True  # fixes included: ``findings_from_ast``
    explanation = """
## What it does
Finds uses of optax names that optax removed or deprecated: `optax.additive_weight_decay` (removed in 0.1.8),
the Monte Carlo and second-order helpers that left the top level in 0.1.8, `optax.maybe_update` (0.2.5),
`optax.monte_carlo` (0.2.7), the names optax's own `_deprecations` tables list (`optax.dpsgd` ->
`optax.contrib.dpsgd`, `optax.tree_utils.tree_l2_norm` -> `optax.tree_utils.tree_norm`), and
`optax.global_norm` (warns from 0.2.7: use `optax.tree.norm`). Attribute chains from any binding of `optax` and
`from optax import name`. Runs only on files that refer to optax. A deprecated name is reported only where using
it warns under default settings in the newest optax, checked by execution (`tools/check_deprecation_warnings.py`,
recorded in `rules/ecosystem_warnings.toml`).

## Why
A removed name fails at attribute access (`AttributeError: module 'optax' has no attribute
'additive_weight_decay'`); a deprecated one warns now and fails in a later optax.

## Example
```python
import optax
tx = optax.additive_weight_decay(1e-4)
```
Use instead:
```python
import optax
tx = optax.add_decayed_weights(1e-4)
```

## Fix safety
A rename is a safe fix when the replacement is the very object the old name was (`additive_weight_decay =
add_decayed_weights` in every optax that had both; the `_deprecations` tables map `dpsgd` to `optax.contrib`'s
object) and exists at the project's lowest pinned optax (or, unpinned, at the newest). `optax.global_norm(x)` ->
`optax.tree.norm(x)` is unsafe: a different function that computes the same norm (optax 0.2.7's `global_norm`
calls it). Everything else has advice and no fix.

## Library version
Per name: the optax release that removed or deprecated it, checked in the wheels of optax 0.0.9 ... 0.2.8. A fix needs
the replacement at the min optax version (`optax>=...` in the project's pins); otherwise `fix_withheld` says which
optax it needs.
"""

    VALID = [
        Valid("""
            import optax
            tx = optax.chain(optax.add_decayed_weights(1e-4), optax.adam(1e-3))
            n = optax.tree.norm(grads)
        """, note="the replacements"),
        Valid("""
            from mylib import optax
            tx = optax.additive_weight_decay(1e-4)
        """, note="not optax"),
        Valid("""
            import optax
            if hasattr(optax, "tree"):
                norm = optax.tree.norm
            else:
                norm = optax.global_norm
        """, note="compat code: a hasattr(optax, ...) test keeps the old spelling for old optax"),
        Valid("""
            try:
                from optax import additive_weight_decay
            except ImportError:
                from optax import add_decayed_weights as additive_weight_decay
        """, note="compat code: try/except ImportError"),
    ]

    INVALID = [
        Invalid("""
            import optax
            tx = optax.additive_weight_decay(1e-4)
        """, fixed="""
            import optax
            tx = optax.add_decayed_weights(1e-4)
        """, note="removed in 0.1.8: the same object under its new name"),
        Invalid("""
            from optax import additive_weight_decay, adam
            tx = additive_weight_decay(1e-4)
        """, fixed="""
            from optax import add_decayed_weights as additive_weight_decay, adam
            tx = additive_weight_decay(1e-4)
        """, note="from-import: the local name is kept"),
        Invalid("""
            import optax as ox
            tx = ox.dpsgd(0.1, 1.0, 1.1, 0)
        """, fixed="""
            import optax as ox
            tx = ox.contrib.dpsgd(0.1, 1.0, 1.1, 0)
        """, note="deprecated in 0.2.4 (optax's _deprecations table)"),
        Invalid("""
            import optax
            n = optax.global_norm(grads)
        """, unsafe_fixed="""
            import optax
            n = optax.tree.norm(grads)
        """, note="deprecated in 0.2.7: a different function with the same result, so unsafe"),
        Invalid("""
            import optax
            n = optax.tree_utils.tree_l2_norm(grads)
            g = optax.hessian_diag(loss, params, inputs, targets)
        """, count=2, note="advice only: tree_norm(..., ord=2); the second-order helpers have no replacement"),
    ]

    @staticmethod
    def import_edits(module: str, name: str, aliased: bool, change: Change, count: int) -> list[tuple[str, str]] | None:
        """The from-import's edits, as ("name" or "module", new text) (``ecosystem_ast`` places them too)."""
        rep_module, _, rep_name = (change.replacement or "").rpartition(".")
        if rep_module == module:  # the same module: rename in place, keeping the local name
            return [("name", rep_name if aliased else f"{rep_name} as {name}")]
        return None

    def outcome(self, change: Change, has_edits: bool):
        """(message, the fix's applicability or None, withheld fix) of a finding of ``change`` (None: no finding)."""
        verb = "was removed in" if change.status == "removed" else "is deprecated since"
        message = f"`{change.name}` {verb} optax {change.since}"
        if change.replacement and not change.advice:
            message += f": use `{change.replacement}` (the same object, optax {change.replacement_since}+)"
        elif change.advice:
            message += f": {change.advice}"
        applicability = withheld = None
        floor = change.fix_floor()
        if has_edits and floor:
            if library_min(self.settings, "optax") >= floor:
                applicability = Applicability.SAFE if change.rename == "safe" else Applicability.UNSAFE
            else:
                withheld = WithheldFix(f"`{change.replacement}` needs optax {floor}+; the project's optax pins allow "
                                       f"older releases")
        return message + ".", applicability, withheld
