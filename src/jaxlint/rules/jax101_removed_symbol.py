"""JAX101 removed-symbol: a public JAX symbol or module removed at the target version (catalogue-driven)."""
from __future__ import annotations

from jaxlint.catalogue import Entry, load
from jaxlint.rules.base import Invalid, Valid
from jaxlint.rules.catalogue_symbols import CatalogueSymbolRule


class RemovedSymbol(CatalogueSymbolRule):
    code = "JAX101"
    name = "removed-symbol"
    summary = "a JAX symbol or module that the target version no longer has"
    since = "0.4.20"
    triggers = ()
    required_words = load().required_words_for(("symbol", "module"))
    explanation = """
## What it does
Finds uses of every public JAX symbol and module removed at the target version, as listed in the generated
catalogue (`src/jaxlint/catalogue/`, from JAX's own `_deprecations` tables and a diff of the public names of every
release since 0.4.20): attribute chains (`jax.tree_map`, `jnp.X`, `core.X` after `from jax import core`),
`from jax import tree_map`, `from jax.experimental.maps import xmap`, and `import` of removed modules.
`jaxlint rule JAX101` lists the entries in `docs/catalogue.md`.

## Why
Removed names fail at import or attribute access: `AttributeError: jax.tree_map was removed in JAX v0.6.0: use
jax.tree.map (jax v0.4.25 or newer) or jax.tree_util.tree_map (any JAX version).`, or, once JAX drops the table,
a plain `AttributeError: module 'jax.core' has no attribute 'call'`.

## Example
```python
import jax
jax.tree_map(f, tree)
from jax.core import JaxprTypeError
```
Use instead:
```python
import jax
jax.tree_util.tree_map(f, tree)
from jax.errors import JaxprTypeError
```

## Fix safety
Safe only when the replacement is the very same object as the removed name (checked by importing both in the last
release that has both) or a documented equivalent, and exists at the min version. When JAX's replacement is newer
than the min version, the spelling valid across the range is used (`jax.tree_util.tree_map` below 0.4.25,
`jax.tree.map` from there). `import module` is added when `import jax` does not load the replacement's module.
Importing `jax.cloud_tpu_init` is deleted (a no-op since 0.8.1). Everything else is reported without a fix.
Compatibility code (try/except ImportError/AttributeError, `hasattr(jax, ...)`, version checks) is not reported.

## JAX version
Per entry: `removed_in` in the catalogue (0.4.20 ... newest).
"""

    VALID = [
        Valid("""
            import jax
            jax.tree_util.tree_map(f, tree)
        """, note="jax.tree_util.tree_map is valid: the most common call in real code"),
        Valid("""
            import jax
            jax.tree.map(f, tree)
            from jax.tree_util import tree_map
        """, note="the new spellings"),
        Valid("""
            try:
                from jax.core import JaxprTypeError
            except ImportError:
                from jax.errors import JaxprTypeError
        """, note="compat code: try/except ImportError"),
        Valid("""
            import jax
            if hasattr(jax, "tree_map"):
                jax.tree_map(f, x)
        """, note="compat code: hasattr branch"),
        Valid("""
            from mylib.utils import module_version
            if module_version("jax") >= (0, 10):
                from jax.extend.core import concrete_or_error
            else:
                from jax.core import concrete_or_error
        """, note="compat code: the project's own version helper given the string 'jax' (else branch)"),
        Valid("""
            import jax
            from importlib.metadata import version
            def pcast(x, name):
                if version("jax") < "0.8.2":
                    return jax.lax.pvary(x, name)
                return jax.lax.pcast(x, name, to="varying")
        """, note="compat code: importlib.metadata.version('jax') comparison"),
        Valid("""
            import jax
            from mylib.utils import module_version
            if module_version(jax) < (0, 6):
                y = jax.tree_map(f, x)
        """, note="compat code: a version helper given the jax module itself"),
        Valid("""
            import mylib as jax
            jax.tree_map(f, x)
        """, note="not JAX"),
        Valid("""
            import jax
            from jax import config
            config.update("jax_enable_x64", True)
        """, note="jax.config the object survives the removal of the jax.config submodule"),
        Valid("""
            def tree_map(f, x):
                return f(x)
            tree_map(g, y)
        """, note="a local function named like a removed one"),
        Valid("""
            import jax
            jax.tree_map(f, x)
        """, target_version="0.5.3", note="still only deprecated at that target (JAX402's job)"),
    ]

    INVALID = [
        Invalid("""
            import jax
            y = jax.tree_map(f, tree)
        """, fixed="""
            import jax
            y = jax.tree_util.tree_map(f, tree)
        """, min_version="0.4.20", note="below 0.4.25: the portable spelling"),
        Invalid("""
            import jax
            y = jax.tree_map(f, tree)
        """, fixed="""
            import jax
            y = jax.tree.map(f, tree)
        """, min_version="0.4.30", note="jax.tree.map exists at the min version"),
        Invalid("""
            from jax import tree_map, tree_leaves
            y = tree_map(f, tree_leaves(x))
        """, fixed="""
            from jax.tree_util import tree_map as tree_map, tree_leaves as tree_leaves
            y = tree_map(f, tree_leaves(x))
        """.replace(" as tree_map", "").replace(" as tree_leaves", ""), min_version="0.4.20",
            note="from-import, local names kept"),
        Invalid("""
            import jax
            from importlib.metadata import version
            if version("numpy") >= "2":
                y = jax.tree_map(f, tree)
        """, fixed="""
            import jax
            from importlib.metadata import version
            if version("numpy") >= "2":
                y = jax.tree.map(f, tree)
        """, min_version="0.4.30", note="a version test about another package is not JAX compat code"),
        Invalid("""
            from jax.core import JaxprTypeError
        """, fixed="""
            from jax.errors import JaxprTypeError
        """, min_version="0.10.2", note="jax.core name: same object in jax.errors"),
        Invalid("""
            import jax
            jax.core.DebugInfo
        """, fixed="""
            import jax.extend.core
            import jax
            jax.extend.core.DebugInfo
        """, min_version="0.10.2", note="jax.extend is not loaded by import jax: the import is added"),
        Invalid("""
            import jax
            x = jax.core.abstract_token
        """, min_version="0.10.2", note="jax.ffi.abstract_token needs 0.11.0: no fix below"),
        Invalid("""
            from jax.experimental.maps import xmap
        """, note="a removed module: manual port to shard_map"),
        Invalid("""
            import jax
            import jax.cloud_tpu_init
        """, fixed="""
            import jax
        """, note="cloud_tpu_init: delete the import"),
        Invalid("""
            import jax.cloud_tpu_init
            jax.numpy.zeros(3)
        """, fixed="""
            import jax
            jax.numpy.zeros(3)
        """, note="the import was what bound jax: keep import jax"),
        Invalid("""
            from jax import core
            core.call(f)
        """, note="removed without a replacement"),
        Invalid("""
            import jax.numpy as jnp
            import jax
            jax.experimental.pallas.dot
            from jax.config import config
        """, count=2, note="pallas symbol; the removed jax.config submodule spelling"),
    ]

    def _applies(self, entry: Entry) -> bool:
        return entry.removed_at(self.settings.target_version)
