"""JAX402 deprecated-symbol: a JAX symbol or module deprecated at the target version, still working."""
from __future__ import annotations

from jaxlint.catalogue import Entry, load
from jaxlint.rules.base import Invalid, Valid
from jaxlint.catalogue.symbols import CatalogueSymbolRule


class DeprecatedSymbol(CatalogueSymbolRule):
    code = "JAX402"
    name = "deprecated-symbol"
    summary = "a JAX symbol or module deprecated at the target version (still works, with a warning)"
    since = "0.4.20"
    triggers = ()
    required_words = load().required_words_for(("symbol", "module"))
    explanation = """
## What it does
Finds uses of JAX symbols and modules that the target version deprecates (their access emits a
`DeprecationWarning` and a later release removes them), from the generated catalogue: attribute chains,
`from ... import` forms, `import` of deprecated modules.

## Why
A deprecated name works until JAX's deprecation window (about 3 months) ends; then it raises. Fixing it now keeps
the next upgrade quiet, e.g. `DeprecationWarning: jax.lax.psend is deprecated.` (0.12.0).

## Example
```python
import jax
jax.core.pytype_aval_mappings
```
Use the replacement JAX's message names, where there is one.

## Fix safety
As JAX101: a rename is safe only for the same object (or a documented equivalent) that exists at the min version;
otherwise no fix. `jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs, check_rep=c)` becomes
`jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=c)` from a min version of 0.8.0,
where the old function is a wrapper making exactly that call (0.6.1-0.7.2 also skip a mesh check); `auto=` has no
drop-in. Where a call passes `check_rep`, the message says that `jax.shard_map` takes it as `check_vma=`, fix or
not.

## JAX version
Per entry: `deprecated_in` in the catalogue.
"""

    VALID = [
        Valid("""
            import jax
            jax.tree_util.tree_map(f, x)
        """, note="valid spelling"),
        Valid("""
            import jax
            jax.lax.psend(x, "i", perm)
        """, target_version="0.11.2", note="not yet deprecated at that target"),
        Valid("""
            import jax
            jax.tree_map(f, x)
        """, note="removed at the target: JAX101 reports it, not JAX402"),
        Valid("""
            from jax.experimental import shard_map
            shard_map = make_wrapper(shard_map)
            y = shard_map.shard_map
        """, note="the name is rebound before the attribute is read: unknown, silent"),
        Valid("""
            import jax
            try:
                from jax.core import pytype_aval_mappings
            except (ImportError, AttributeError):
                pytype_aval_mappings = None
        """, note="compat code"),
    ]

    INVALID = [
        Invalid("""
            import jax
            jax.lax.psend(x, "i", perm)
        """, note="deprecated in 0.12.0, no replacement"),
        Invalid("""
            from jax.core import pytype_aval_mappings
        """, note="still only deprecated in 0.12.0.1"),
        Invalid("""
            import jax
            y = jax.tree_map(f, x)
        """, fixed="""
            import jax
            y = jax.tree_util.tree_map(f, x)
        """, target_version="0.5.3", min_version="0.4.20", note="deprecated at that target; portable fix"),
        Invalid("""
            import jax.experimental.pallas.ops.gpu.softmax
        """, note="deprecated module"),
        Invalid("""
            from jax.experimental import shard_map
            shard_map = shard_map.shard_map
        """, note="the right-hand side still reads the import, though the name is bound twice"),
        Invalid("""
            import jax
            f = jax.experimental.shard_map.shard_map(g, mesh, P("x"), P("x"), check_rep=False)
        """, fixed="""
            import jax
            f = jax.shard_map(g, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=False)
        """, min_version="0.8.0", note="from 0.8.0 the old function makes exactly this call: the arguments by "
                                       "keyword, check_rep as check_vma"),
        Invalid("""
            import jax
            from jax.experimental import shard_map as sm
            f = sm.shard_map(g, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_rep=False)
        """, min_version="0.7.0", note="below 0.8.0 the old function also skips a mesh check: no fix, the message "
                                       "names check_vma"),
        Invalid("""
            import jax
            f = jax.experimental.shard_map.shard_map(g, mesh, P("x"), P("x"), auto=frozenset({"y"}))
        """, min_version="0.8.0", note="auto= has no drop-in (axis_names= is its complement): no fix"),
    ]

    def _applies(self, entry: Entry) -> bool:
        return entry.deprecated_at(self.settings.target_version)
