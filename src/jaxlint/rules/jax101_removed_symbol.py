"""JAX101 removed-symbol: a public JAX symbol or module removed at the target version (catalogue-driven)."""
from __future__ import annotations

from jaxlint.catalogue import Entry, load
from jaxlint.rules.base import Invalid, Valid
from jaxlint.catalogue.symbols import CatalogueSymbolRule


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
catalogue (`rules/`, from JAX's own `_deprecations` tables and a diff of the public names of every
release on PyPI since 0.1.1, plus hand-written rows for what no wheel shows): attribute chains from any bound prefix
(`jax.tree_map`, `jnp.X`, `core.X` after `from jax import core`, `jax.experimental.maps.xmap` after `import jax`,
`lib.xla_bridge.get_backend()` after `from jax import lib`), the removed members of the `jax.config` object
(`define_bool_state`, `FLAGS`, ...) through every path to it (`jax.config`, `from jax import config`, and the old
homes `from jax.config import config`, `from jax._src.config import config`), `from jax import tree_map`,
`from jax.experimental.maps import xmap`, and `import` of removed modules. A chain is reported once, for its
longest listed prefix (`@jax.util.cache()` is about `jax.util.cache`, not also `jax.util`).
`jaxlint rule JAX101` ends with the entries (a summary per module; `--all` or `--grep TEXT` for the rows, and
`--grep` adds each row's details: what `--output-format full` prints under a finding).

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
A replacement outside the chain's own root is spelled from `jax` (`from jax import core; core.Primitive` becomes
`jax.extend.core.Primitive`, the import added) when `jax` is the package there or nothing binds it.
Importing `jax.cloud_tpu_init` is deleted (a no-op since 0.8.1).
Hand-written rewrites, each valid on every release of the range:
- `jax.lax.tie_in(x, y)` becomes `y` (a no-op since 0.2.0);
- `jax.ops.index_update(x, jax.ops.index[i], y)` (or any plain index) becomes `x.at[i].set(y)`; `index_add`,
  `index_mul`, `index_min`, `index_max` become `.add`, `.multiply`, `.min`, `.max`. Unsafe: the old functions took
  a NumPy array as `x`, which has no `.at`;
- `jnp.DeviceArray`, `jax.interpreters.xla.DeviceArray` and `jax.interpreters.pxla.ShardedDeviceArray` become
  `jax.Array` (0.4.1+) in annotations and `isinstance`/`issubclass` checks only (elsewhere the class itself is
  used); in a check the fix is unsafe while the range still has the old class (a tracer is a `jax.Array`);
- `jax.random.KeyArray` and `jax.random.PRNGKeyArray` become `jax.Array` (0.4.1+) in annotations only, as JAX's
  message says ("Use jax.Array for annotations"); elsewhere no fix (a runtime check needs
  `jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)`);
- `jax.experimental.optimizers`/`stax` become `jax.example_libraries.optimizers`/`stax` (the same modules);
- `PartitionSpec` from `jax.interpreters.pxla`, `jax.experimental.pjit` or `jax.experimental`, and
  `jax.experimental.maps.Mesh`, become `jax.sharding.PartitionSpec`/`Mesh` (the same objects);
- `from jax.config import config` becomes `from jax import config` (the same object);
- a removed module that a from-import binds and nothing in the file uses any more, once its uses are rewritten
  (`from jax import abstract_arrays`, `from jax.extend import ffi`, `from jax.lib import xla_bridge`), leaves the
  import (the whole statement when it imports nothing else): otherwise the fixed file still fails to import. Any use
  left, a string naming it (`__all__`), another binding of the name, or a package `__init__.py` keeps the import.
- `jax.partial`, `jax.lax.partial` and `jax.util.partial` (removed in 0.2.21/0.2.22, not in the generated
  catalogue because they were functools' object) become `functools.partial` (the same object from 0.2.8 on; the
  import is added) where the min version is 0.2.8 or later.
Below the oldest release the catalogue knows, no rule fixes anything (`--show-settings` says so).
`jax.tree_multimap` / `jax.tree_util.tree_multimap` (removed in 0.3.16; the last releases that had it forwarded every
argument to `tree_map`, documented as a drop-in replacement) become `jax.tree_util.tree_map` only where every use is
a call that passes the function and the trees positionally (`tree_map(f, tree, *rest, is_leaf=None)`; `is_leaf=` may
stay): after `from jax.tree_util import tree_multimap` the import becomes `... import tree_map as tree_multimap` when
every reference of the name in the file is such a call. A keyword `tree=`/`f=`, `**kwargs`, or a use other than a
call (`m = jax.tree_multimap`, `partial(jax.tree_multimap, f)`) is reported without a fix.
Everything else is reported without a fix.
Compatibility code (try/except ImportError/AttributeError, `hasattr(jax, ...)`, version checks) is not reported.
The guard covers the code inside it, not the rest of the module: when `from jax import tree_map` sits in a `try`
whose `except ImportError` binds nothing (only `pass`, a warning or a log call; no fallback import, no flag such as
`HAS_X = False`, no `raise`), each use of the name outside the `try` is reported, without a fix (it raises
`NameError` wherever the import fails).

## JAX version
Per entry: `removed_in` in the catalogue (0.1.1 ... newest). A rename is offered only from the release its
replacement exists in (`replacement_since`); below it the finding says, in `fix_withheld`, which release it needs.
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
        Valid("""
            import jax
            y = jax.tree_util.tree_map(f, a, b)
        """, note="tree_multimap's replacement with several trees"),
        Valid("""
            import jax
            jax.config.update("jax_enable_x64", True)
            from jax import config
        """, note="jax.config the object, through attributes: not the removed submodule"),
        Valid("""
            try:
                from jax.experimental.maps import Mesh
            except ImportError:
                from jax.sharding import Mesh
        """, note="compat code: try/except ImportError around an old home"),
        Valid("""
            import jax
            if hasattr(jax.ops, "index_update"):
                y = jax.ops.index_update(x, 0, 1.0)
            else:
                y = x.at[0].set(1.0)
        """, note="compat code: hasattr branch"),
        Valid("""
            import jax
            if jax.__version_info__ < (0, 4, 14):
                ArrayType = jax.numpy.DeviceArray
            else:
                ArrayType = jax.Array
        """, note="compat code: version branch"),
        Valid("""
            from mylib import ops
            y = ops.index_update(x, ops.index[0], 1.0)
            z = ops.tie_in(x, y)
        """, note="the user's own ops module"),
        Valid("""
            import jax
            from jax.experimental import jax2tf
            f = jax2tf.convert(g, polymorphic_shapes=["b"])
            y = jax.lib.xla_bridge_is_not_a_thing
        """, note="attributes of listed modules that are not themselves listed"),

        Valid("""
            def tree_multimap(f, *trees):
                return [f(*xs) for xs in zip(*trees)]
            y = tree_multimap(f, a, b)
        """, note="a local function named tree_multimap"),
        Valid("""
            try:
                from jax.tree_util import tree_multimap
            except ImportError:
                from jax.tree_util import tree_map as tree_multimap
            y = tree_multimap(f, a, b)
        """, note="compat code: tree_multimap in try/except ImportError"),
        Valid("""
            try:
                from jax.experimental.maps import Mesh
            except ImportError:
                from jax.sharding import Mesh
            mesh = Mesh(devices, ("data",))
        """, note="a use after the guard: the except branch binds the same name to the new home"),
        Valid("""
            try:
                from jax.experimental import host_callback
                from jax.experimental.host_callback import id_tap
                HAS_HCB = True
            except ImportError:
                HAS_HCB = False
            if HAS_HCB:
                id_tap(print, x)
        """, note="the except branch sets a flag that later code tests: the uses may be guarded by it"),
        Valid("""
            try:
                from jax import tree_map
            except ImportError:
                raise ImportError("this module needs jax<0.6")
            y = tree_map(f, x)
        """, note="the except branch raises: the module fails at the import on purpose"),
    ]

    INVALID = [
        Invalid("""
            try:
                from jax import tree_map
            except ImportError:
                pass
            y = tree_map(f, x)
            def loss(params):
                return tree_map(jnp.sum, params)
        """, count=2, note="guarded import whose except binds nothing: every use outside the try is reported, no fix"),
        Invalid("""
            import warnings
            try:
                from jax.experimental.maps import xmap
            except (ImportError, AttributeError):
                warnings.warn("xmap is unavailable")
            f = xmap(g, in_axes=["i", ...], out_axes=["i", ...])
        """, note="an except branch that only warns"),
        Invalid("""
            import jax


            @jax.partial(jax.jit, static_argnums=1)
            def scale(x, n):
                return x * n
        """, fixed="""
            import functools

            import jax


            @functools.partial(jax.jit, static_argnums=1)
            def scale(x, n):
                return x * n
        """, min_version="0.2.8", note="jax.partial (gone in 0.2.21) was functools.partial: `import functools` added"),
        Invalid("""
            import functools
            from jax import partial
            from jax import lax
            add_one = lax.partial(lax.add, 1)
        """, fixed="""
            import functools
            from functools import partial
            from jax import lax
            add_one = functools.partial(lax.add, 1)
        """, count=2, min_version="0.2.8", note="from jax import partial; jax.lax.partial with functools imported"),
        Invalid("""
            import jax
            f = jax.partial(g, 1)
        """, min_version="0.2.5", note="below 0.2.8 jax.partial was a wrapper of its own (update_wrapper): no fix"),
        Invalid("""
            import jax
            def build(functools):
                return jax.partial(functools, 1)
        """, min_version="0.2.8", note="`functools` names something else there: no fix"),
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
            import jax
            import jax.extend.core
            jax.extend.core.DebugInfo
        """, min_version="0.10.2", note="jax.extend is not loaded by import jax: the import is added where isort "
                                         "puts it"),
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
        """, fixed="""
            import jax.numpy as jnp
            import jax
            jax.experimental.pallas.dot
            from jax import config
        """, count=2, note="pallas symbol; the removed jax.config submodule spelling: the object is imported from jax"),
        # -- removed modules and symbols reached through attributes, from any bound prefix: one finding per site
        Invalid("""
            import jax
            f = jax.experimental.maps.xmap(g, in_axes=["i", ...], out_axes=["i", ...])
        """, note="a removed module reached through attributes after import jax"),
        Invalid("""
            import jax.experimental as je
            f = je.maps.xmap(g)
        """, note="through a module alias"),
        Invalid("""
            from jax.experimental import jax2tf
            spec = jax2tf.shape_poly.PolyShape("b")
        """, note="a removed submodule of an imported module"),
        Invalid("""
            from jax import lib
            backend = lib.xla_bridge.get_backend()
            builder = lib.xla_client.XlaBuilder("f")
        """, fixed="""
            import jax.extend.backend
            from jax import lib
            backend = jax.extend.backend.get_backend()
            builder = lib.xla_client.XlaBuilder("f")
        """, count=2, note="from jax import lib: the removed symbols of removed modules, one finding each"),
        Invalid("""
            import jax
            @jax.util.cache()
            def f():
                pass
        """, note="jax.util and jax.util.cache are both listed: one finding, for the longer name"),
        Invalid("""
            import jax
            if jax.interpreters.xla.DeviceArray is None:
                pass
        """, note="a removed class used other than in an annotation or isinstance: no fix"),
        # -- hand-written fixes (catalogue.rewrites) and renames whatever the import style
        Invalid("""
            from jax import core
            p = core.Primitive("p")
        """, fixed="""
            import jax.extend.core
            from jax import core
            p = jax.extend.core.Primitive("p")
        """, min_version="0.10.2", note="from jax import core; core.X gets the fix jax.core.X gets (the import binds jax)"),
        Invalid("""
            from jax.interpreters import pxla
            def spec(jax):
                return pxla.PartitionSpec("x")
        """, min_version="0.10.2", note="a parameter named jax: the replacement cannot be spelled there"),
        Invalid("""
            import jax
            z = jax.lax.tie_in(x, y)
            w = jax.lax.tie_in(x, a + b) * 2
        """, fixed="""
            import jax
            z = y
            w = (a + b) * 2
        """, count=2, note="tie_in(x, y) returned y since JAX 0.2.0"),
        Invalid("""
            import jax
            z = jax.lax.tie_in(x, y=y)
        """, note="tie_in with a keyword: no fix"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            a = jax.ops.index_update(x, jax.ops.index[1:, 0], 0.0)
            b = jax.ops.index_add(p + q, i, jnp.ones(3))
        """, unsafe_fixed="""
            import jax
            import jax.numpy as jnp
            a = x.at[1:, 0].set(0.0)
            b = (p + q).at[i].add(jnp.ones(3))
        """, count=2, note="index_update/index_add -> .at[]; jax.ops.index inside is covered by the call's finding"),
        Invalid("""
            from jax.ops import index_update
            a = index_update(x, 0, 1.0)
        """, note="the from-import form is reported, not rewritten"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            def norm(x: jnp.DeviceArray) -> jax.interpreters.xla.DeviceArray:
                return x
        """, fixed="""
            import jax
            import jax.numpy as jnp
            def norm(x: jax.Array) -> jax.Array:
                return x
        """, count=2, min_version="0.4.20", note="DeviceArray in annotations -> jax.Array"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            ok = isinstance(x, (jnp.DeviceArray, jax.interpreters.pxla.ShardedDeviceArray))
        """, fixed="""
            import jax
            import jax.numpy as jnp
            ok = isinstance(x, (jax.Array, jax.Array))
        """, count=2, min_version="0.4.20", note="isinstance checks: safe where no release of the range has the old class"),
        Invalid("""
            import jax
            from jax import random
            class Sampler:
                key: jax.random.PRNGKeyArray
                def split(self, key: random.KeyArray) -> tuple[jax.random.KeyArray, random.PRNGKeyArray]:
                    k: jax.random.KeyArray = key
                    return k, k
        """, fixed="""
            import jax
            from jax import random
            class Sampler:
                key: jax.Array
                def split(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
                    k: jax.Array = key
                    return k, k
        """, count=5, min_version="0.4.20", note="KeyArray/PRNGKeyArray annotations -> jax.Array (JAX: "
                                                 "'Use jax.Array for annotations')"),
        Invalid("""
            import jax
            ok = isinstance(key, jax.random.KeyArray)
            KeyType = jax.random.PRNGKeyArray
        """, count=2, min_version="0.4.20", note="KeyArray outside an annotation: a runtime check needs "
                                                 "jax.dtypes.issubdtype, no fix"),
        Invalid("""
            import jax
            def split(key: jax.random.KeyArray):
                return key
        """, min_version="0.3.16", target_version="0.4.24",
            note="KeyArray annotation below JAX 0.4.1, where jax.Array may not exist: no fix"),
        Invalid("""
            import jax
            from jax import abstract_arrays

            def spec(x):
                return abstract_arrays.ShapedArray(x.shape, x.dtype)
        """, fixed="""
            import jax

            def spec(x):
                return jax.core.ShapedArray(x.shape, x.dtype)
        """, count=2, min_version="0.4.20",
            note="every use of a removed module rewritten: its from-import goes too (else the file still fails)"),
        Invalid("""
            import jax
            from jax.extend import ffi

            call = ffi.ffi_call
            register = ffi.register_ffi_target
        """, fixed="""
            import jax
            import jax.ffi

            call = jax.ffi.ffi_call
            register = jax.ffi.register_ffi_target
        """, count=3, min_version="0.6.0", note="jax.extend.ffi: the import goes with its uses"),
        Invalid("""
            import jax
            from jax.lib import xla_bridge

            platform = xla_bridge.get_backend().platform
        """, fixed="""
            import jax
            import jax.extend.backend

            platform = jax.extend.backend.get_backend().platform
        """, count=2, min_version="0.4.33", note="jax.lib.xla_bridge: the import goes with its uses"),
        Invalid("""
            import jax
            from jax import numpy as jnp, abstract_arrays; from jax.extend import (
                backend,
                ffi,  # the old module
            )

            a = abstract_arrays.ShapedArray((2,), jnp.float32)
            b = ffi.ffi_call
        """, fixed="""
            import jax
            import jax.ffi
            from jax import numpy as jnp; from jax.extend import (
                backend,
            )

            a = jax.core.ShapedArray((2,), jnp.float32)
            b = jax.ffi.ffi_call
        """, count=4, min_version="0.6.0",
            note="only the removed names leave a from-import, with their commas and comments; the rest stays"),
        Invalid("""
            import jax
            from jax import abstract_arrays
            from jax.lib import xla_bridge

            __all__ = ["xla_bridge"]
            a = abstract_arrays.ShapedArray((2,), jax.numpy.float32)
            shaped = abstract_arrays
            backend = xla_bridge.get_backend()
        """, fixed="""
            import jax
            import jax.extend.backend
            from jax import abstract_arrays
            from jax.lib import xla_bridge

            __all__ = ["xla_bridge"]
            a = jax.core.ShapedArray((2,), jax.numpy.float32)
            shaped = abstract_arrays
            backend = jax.extend.backend.get_backend()
        """, count=4, min_version="0.4.33",
            note="a use left (`shaped = abstract_arrays`, a name in `__all__`): the import stays"),
        Invalid("""
            import jax.numpy as jnp
            class Wrapped(jnp.DeviceArray):
                pass
        """, min_version="0.4.20", note="subclassing: jax.Array is another class, no fix"),
        Invalid("""
            from jax.experimental import optimizers, stax
            import jax.experimental.optimizers as opt
            import jax
            init, update, get = jax.experimental.optimizers.adam(1e-3)
        """, fixed="""
            import jax.example_libraries.optimizers
            from jax.example_libraries import optimizers, stax
            import jax.example_libraries.optimizers as opt
            import jax
            init, update, get = jax.example_libraries.optimizers.adam(1e-3)
        """, count=3, min_version="0.4.20", note="jax.experimental.optimizers/stax moved to jax.example_libraries"),
        Invalid("""
            import jax.experimental.optimizers
            opt = jax.experimental.optimizers.adam(1e-3)
        """, fixed="""
            import jax.example_libraries.optimizers
            opt = jax.example_libraries.optimizers.adam(1e-3)
        """, count=2, min_version="0.4.20", note="the import is rewritten in place: the use adds no second import"),
        Invalid("""
            from jax.experimental import PartitionSpec as P
            from jax.experimental.pjit import PartitionSpec
            from jax.experimental.maps import Mesh
            import jax
            spec = jax.interpreters.pxla.PartitionSpec("x")
        """, fixed="""
            from jax.sharding import PartitionSpec as P
            from jax.sharding import PartitionSpec
            from jax.sharding import Mesh
            import jax
            spec = jax.sharding.PartitionSpec("x")
        """, count=4, min_version="0.4.20", note="the old homes of PartitionSpec and Mesh"),
        Invalid("""
            from jax.experimental.maps import Mesh, thread_resources
        """, min_version="0.4.20", note="per-symbol advice: thread_resources has no replacement, so no fix"),
        Invalid("""
            from jax.config import config
            config.update("jax_enable_x64", True)
        """, fixed="""
            from jax import config
            config.update("jax_enable_x64", True)
        """, min_version="0.4.20", note="the config object is jax.config in every release"),
        # -- tree_multimap: renamed only at calls passing the trees positionally
        Invalid("""
            import jax
            y = jax.tree_multimap(lambda a, b: a + b, x, z)
        """, fixed="""
            import jax
            y = jax.tree_util.tree_map(lambda a, b: a + b, x, z)
        """, note="jax.tree_multimap with two trees"),
        Invalid("""
            import jax
            y = jax.tree_util.tree_multimap(f, a, b, c)
            z = jax.tree_util.tree_multimap(f, *trees)
        """, fixed="""
            import jax
            y = jax.tree_util.tree_map(f, a, b, c)
            z = jax.tree_util.tree_map(f, *trees)
        """, count=2, note="jax.tree_util.tree_multimap; trees from *args bind the same parameters"),
        Invalid("""
            from jax.tree_util import tree_multimap
            def step(f, a, b):
                return tree_multimap(f, a, b)
        """, fixed="""
            from jax.tree_util import tree_map as tree_multimap
            def step(f, a, b):
                return tree_multimap(f, a, b)
        """, note="from-import: every reference is a positional call, the local name is kept"),
        Invalid("""
            from jax import tree_multimap
            y = tree_multimap(f, a, b)
        """, fixed="""
            from jax.tree_util import tree_map as tree_multimap
            y = tree_multimap(f, a, b)
        """, note="from jax import tree_multimap: the module changes too"),
        Invalid("""
            from jax.tree_util import tree_multimap as tmm, tree_leaves
            y = tree_leaves(tmm(f, a, b, is_leaf=is_param))
        """, fixed="""
            from jax.tree_util import tree_map as tmm, tree_leaves
            y = tree_leaves(tmm(f, a, b, is_leaf=is_param))
        """, note="aliased, next to a name that stays; is_leaf= means the same in tree_map"),
        Invalid("""
            import jax.tree_util as jtu
            y = jtu.tree_multimap(f, a, b)
        """, fixed="""
            import jax.tree_util as jtu
            y = jtu.tree_map(f, a, b)
        """, note="module alias kept"),
        Invalid("""
            import jax
            y = jax.tree_multimap(f, tree=a)
            z = jax.tree_multimap(f, a, **options)
        """, count=2, note="tree= by keyword, **kwargs: manual"),
        Invalid("""
            import jax
            from functools import partial
            add_all = partial(jax.tree_multimap, jnp.add)
        """, note="not a call: manual"),
        Invalid("""
            from jax.tree_util import tree_multimap
            y = tree_multimap(f, a, b)
            mapper = tree_multimap
        """, note="from-import with a reference other than a call: the import is not rewritten"),
    ]

    def _applies(self, entry: Entry) -> bool:
        return entry.removed_at(self.settings.target_version)
