"""JAX506 flax-changed-symbol: a flax name that flax removed or deprecated."""
from __future__ import annotations

from jaxlint.lint.diagnostics import Applicability, WithheldFix
from jaxlint.rules.base import Invalid, Valid
from jaxlint.catalogue.changed_symbol import ChangedSymbolRule
from jaxlint.catalogue.ecosystem import FLAX, Change, library_may_reach, library_min
from jaxlint.project.versions import Version

# The flax releases that removed or deprecated a reported name (the version column of the docs).
_RELEASES = sorted({Version(change.since) for change in FLAX.values()})


class FlaxChangedSymbol(ChangedSymbolRule):
    table = FLAX
    library = "flax"
    code = "JAX506"
    name = "flax-changed-symbol"
    summary = "a flax name that flax removed (AttributeError, ImportError) or deprecated (DeprecationWarning)"
    since = "0.1.1"  # a flax change: it does not depend on the JAX target
    library_version = f"flax {_RELEASES[0]}-{_RELEASES[-1]}"
    triggers = ("flax",)
    ast_names = frozenset(FLAX)
    statement_gated = True
    decides_from_ast = True  # fixes included: ``findings_from_ast``
    explanation = """
## What it does
Finds uses of flax names that a flax release removed or deprecated, read from the flax wheels (flax 0.1.0 ...
0.12.12): `flax.linen.ConvLSTM` (removed in 0.6.4), `flax.linen.GeGLU` (0.10.1), `flax.linen.spmd.logical_axis_rules`
(0.10.2; `flax.linen.logical_axis_rules` is the same object), `flax.core.lift.FrozenDict` (0.4.1), the
`flax.nnx`/`flax.experimental.nnx` names that NNX dropped (`nnx.Jit`, ...), and the deprecated names whose use
warns (`flax.jax_utils.pmean`, `flax.training.prefetch_iterator.PrefetchIterator`, `nnx.VariableState`). Attribute
chains from any binding of `flax` (`nn.ConvLSTM` after `from flax import linen as nn`) and `from flax.M import name`.
Runs only on files that refer to flax.

A deprecated name is reported only where using it warns under default settings in the newest flax, checked by
execution (`tools/check_deprecation_warnings.py`, recorded in `rules/ecosystem_warnings.toml`).
`flax.training.checkpoints.save_checkpoint` and `save_checkpoint_multiprocess` warn only when
`flax_use_orbax_checkpointing` is off; it is on by default (flax 0.6.7, and 0.6.11 onwards), so they are not
reported.

Only names users reach: those of flax's API modules (`flax.linen`, `flax.core`, `flax.nnx`, `flax.training.*`,
...), and names of an implementation module (`flax.linen.spmd`) that its package had too. The helpers and
imports of implementation files (`flax.linen.module.freeze`, `flax.nnx.graph.fingerprint`) are left out: nobody
spells those paths (`jaxlint.catalogue.flax_reach` says how).

## Why
A removed name fails at attribute access or import (`AttributeError: module 'flax.linen' has no attribute
'ConvLSTM'`); a deprecated one warns now and fails in a later flax.

## Example
```python
import flax
rules = flax.linen.spmd.logical_axis_rules
```
Use instead:
```python
import flax
rules = flax.linen.logical_axis_rules
```

## Fix safety
A rename is a safe fix when the replacement is the very object the old name was (followed to its definition in
the wheels), is spelled through an API module, and the project's lowest pinned flax (or, unpinned, the newest)
already has both names as one object. Otherwise the finding says what replaces the name and `fix_withheld` says
which flax the fix needs. A from-import is rewritten when it imports that one name (or the replacement is in the
same module).

## Library version
Per name: the flax release that removed or deprecated it, from the wheels. Names removed above the project's flax
upper bound (`flax<0.10`) are not reported.
"""

    VALID = [
        Valid("""
            import flax
            from flax import linen as nn
            rules = nn.logical_axis_rules
            cell = nn.ConvLSTMCell(features=8, kernel_size=(3, 3))
        """, note="names that still exist"),
        Valid("""
            from mylib import flax
            cell = flax.linen.ConvLSTM(features=8, kernel_size=(3, 3))
        """, note="not flax"),
        Valid("""
            from flax.linen.module import freeze
            from flax.nnx.graph import fingerprint
        """, note="an implementation file's import and helper: no API, not reported"),
        Valid("""
            try:
                from flax.linen import GeGLU
            except ImportError:
                GeGLU = None
        """, note="compat code: try/except ImportError"),
    ]

    INVALID = [
        Invalid("""
            import flax
            rules = flax.linen.spmd.logical_axis_rules
        """, fixed="""
            import flax
            rules = flax.linen.logical_axis_rules
        """, note="removed in 0.10.2: the same object under the package's name"),
        Invalid("""
            from flax.linen.spmd import logical_axis_rules
        """, fixed="""
            from flax.linen import logical_axis_rules
        """, note="a from-import of the one name: the module is rewritten"),
        Invalid("""
            from flax import nnx
            state = nnx.VariableState(nnx.Param, 1.0)
        """, fixed="""
            from flax import nnx
            state = nnx.Variable(nnx.Param, 1.0)
        """, note="deprecated in 0.12.1: flax's table makes it an alias of Variable"),
        Invalid("""
            from flax import linen as nn
            cell = nn.ConvLSTM(features=8, kernel_size=(3, 3))
            act = nn.GeGLU(features=8)
        """, count=2, note="removed in 0.6.4 and 0.10.1: no same-object replacement, advice only"),
        Invalid("""
            import flax
            g = flax.jax_utils.pmean(x, "batch")
        """, note="deprecated (flax's warning: use jax.lax.pmean)"),
    ]

    @staticmethod
    def import_edits(module: str, name: str, aliased: bool, change: Change, count: int) -> list[tuple[str, str]] | None:
        """The from-import's edits, as ("name" or "module", new text) (``ecosystem_ast`` places them too)."""
        rep_module, _, rep_name = (change.replacement or "").rpartition(".")
        renamed = rep_name if aliased or rep_name == name else f"{rep_name} as {name}"
        if rep_module == module:  # the same module: rename in place, keeping the local name
            return [("name", renamed)]
        if rep_module and count == 1:  # the one name: import it from its new module
            return [("module", rep_module)] + ([("name", renamed)] if renamed != name else [])
        return None

    def outcome(self, change: Change, has_edits: bool):
        """(message, the fix's applicability or None, withheld fix) of a finding of ``change`` (None: no finding)."""
        if not library_may_reach(self.settings, "flax", change.since):
            return None  # the project's flax stays below the release that removed (or deprecated) it
        verb = "was removed in" if change.status == "removed" else "is deprecated since"
        message = f"`{change.name}` {verb} flax {change.since}"
        floor = change.fix_floor()
        if change.advice:
            message += f": {change.advice}"
        elif floor:
            message += f": use `{change.replacement}` (the same object, flax {floor}+)"
        applicability = withheld = None
        if has_edits and floor:
            if library_min(self.settings, "flax") >= floor:
                applicability = Applicability.SAFE
            else:
                withheld = WithheldFix(f"`{change.replacement}` is the same object from flax {floor}; the project's "
                                       "flax pins allow older releases")
        return message + ".", applicability, withheld
