"""The first JAX release of what each hand-written fix writes, and the calls a replacement stops accepting.

A safe fix must work at every release of the project's range ``[min, target]``. The catalogue's rows carry their
own ``replacement_since`` (read in every JAX wheel by ``tools/generate_catalogue.py``); the rules' hand-written
rewrites read theirs here, each with the line of JAX's sources or changelog that fixes it (most of these releases
have no wheel that installs on today's Pythons). ``probe`` is Python that runs without error on a release that has
the replacement: ``tests/rules/test_fix_floors_exec.py`` runs every probe at the oldest releases that install here,
with the catalogue's rows, and counts what execution proves.

A rule withholds its fix below the floor (``range_withheld``): the finding stays, ``fix_withheld`` says which
release the fix needs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from jaxlint.project.versions import parse_version

if TYPE_CHECKING:
    from jaxlint.lint.diagnostics import WithheldFix
    from jaxlint.project.settings import Settings


@dataclass(frozen=True)
class Floor:
    """``what`` (as the message shows it) exists from JAX ``since`` on; ``reason`` quotes where that is read."""

    what: str
    since: str
    reason: str
    probe: str


FLOORS: dict[str, Floor] = {floor_key: floor for floor_key, floor in (
    ("pjit.in_shardings", Floor(
        "`pjit(in_shardings=, out_shardings=)`", "0.4.4",
        "jax 0.4.4's jax/_src/pjit.py is the first whose `def pjit(fun, in_shardings=_UNSPECIFIED, "
        "out_shardings=_UNSPECIFIED, in_axis_resources=...)` takes them (0.4.1-0.4.3: only `in_axis_resources`); "
        "changelog 0.4.9: \"The `in_axis_resources` and `out_axis_resources` arguments of pjit have been deprecated. "
        "Please use `in_shardings` and `out_shardings` respectively.\"",
        "import inspect\nfrom jax.experimental.pjit import pjit\n"
        "assert {'in_shardings', 'out_shardings'} <= set(inspect.signature(pjit).parameters)\n")),
    ("array.device-property", Floor(
        "the `x.device` property", "0.4.27",
        "read in the wheels and executed (JAX104): `jax.Array.device` is a property from 0.4.27; the method "
        "`x.device()` warned from 0.4.21",
        "import jax.numpy as jnp\nassert not callable(jnp.zeros(1).device)\n")),
    ("array.devices", Floor(
        "`x.devices()`", "0.4.1",
        "changelog 0.4.1: \"We introduce `jax.Array`\" (with `devices()`, `addressable_shards`, "
        "`addressable_data`); the `DeviceArray` of 0.3.x has none of them",
        "import jax.numpy as jnp\nassert len(jnp.zeros(1).devices()) == 1\n")),
    ("array.addressable_shards", Floor(
        "`x.addressable_shards`", "0.4.1", "as `x.devices()`",
        "import jax.numpy as jnp\nassert [s.data.shape for s in jnp.zeros(2).addressable_shards] == [(2,)]\n")),
    ("array.addressable_data", Floor(
        "`x.addressable_data(0)`", "0.4.1", "as `x.devices()`",
        "import jax.numpy as jnp\nassert jnp.zeros(2).addressable_data(0).shape == (2,)\n")),
    ("array.block_until_ready", Floor(
        "`x.block_until_ready()`", "0.1.36",
        "read in the sdists: `def block_until_ready` first appears in jax 0.1.36 (absent from 0.1.30-0.1.35); "
        "jaxlib 0.4.1's changelog: \"The deprecated method `.block_host_until_ready()` has been removed. Use "
        "`.block_until_ready()` instead.\"",
        "import jax.numpy as jnp\nassert jnp.zeros(1).block_until_ready().shape == (1,)\n")),
    ("take_along_axis.wrap_negative_indices", Floor(
        "`jnp.take_along_axis(wrap_negative_indices=)`", "0.10.2",
        "read in the wheels: the keyword is absent from `take_along_axis`'s signature up to 0.10.1",
        "import inspect, jax.numpy as jnp\n"
        "assert 'wrap_negative_indices' in inspect.signature(jnp.take_along_axis).parameters\n")),
    ("jax.export", Floor(
        "`jax.export`", "0.4.30",
        "changelog 0.4.30: the `jax.export` module is public and `jax.experimental.export` deprecated in its "
        "favour (read in the wheels: no `jax/export` package before 0.4.30)",
        "from jax import export\nassert callable(export.export) and callable(export.deserialize)\n")),
    ("jax.set_mesh", Floor(
        "`jax.set_mesh`", "0.7.1",
        "read in the wheels: 0.7.1's jax/__init__.py has `from jax._src.sharding_impls import set_mesh as set_mesh` "
        "(the context-manager class); 0.7.0's has no `set_mesh` (0.7.2 was dated from the catalogue's sample of "
        "wheels, which skips 0.7.0 and 0.7.1)",
        "import jax\nassert callable(jax.set_mesh)\n")),
    ("stacked-device-put", Floor(
        "`jax.device_put(x, jax.sharding.NamedSharding(jax.sharding.Mesh(devices, ...), ...))`", "0.4.1",
        "read in the jax 0.4.1 sdist (the first 0.4 release in the catalogue's list): jax/__init__.py binds `numpy` and `sharding`; jax/sharding.py exports "
        "`NamedSharding`, `PartitionSpec` and `Mesh`, whose `__init__` takes `Union[np.ndarray, Sequence[Device]]` "
        "(`devices = np.array(devices)`); `device_put(x, device: Union[None, Device, Sharding, Any])`",
        "import jax\nd = jax.devices()[:1]\nx = jax.device_put(jax.numpy.stack([jax.numpy.ones(2)]), "
        "jax.sharding.NamedSharding(jax.sharding.Mesh(d, ('x',)), jax.sharding.PartitionSpec('x')))\n"
        "assert x.shape == (1, 2)\n")),
    ("pallas-ref-index", Floor(
        "indexing a Pallas ref with `pl.ds` slices (`ref[idx]`, `ref[idx] = value`)", "0.4.24",
        "read in the wheels: jax 0.4.24 adds jax/_src/state/indexing.py, whose `NDIndexer` the ref's `__getitem__` "
        "uses, and pallas' `ds`/`dslice` come from it; 0.4.16-0.4.23 refs take only integers and slices "
        "(0.4.20 raises on `x_ref[pl.dslice(0, 4)]`, executed here) while `pl.load` took `pl.dslice`. JAX's "
        "deprecation message: \"pl.load is deprecated, use ``ref[idx]``\"",
        "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
        "def kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n"
        "with jax.disable_jit():\n    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), "
        "jnp.float32), interpret=True)(jnp.zeros(8, jnp.float32))\nassert float(out[0]) == 1.0\n")),
    ("sort.stable", Floor(
        "`stable=`", "0.4.24",
        "read in the wheels: `jnp.sort`/`jnp.argsort` take `stable: bool = True` from 0.4.24 (0.4.23: "
        "`sort(a, axis=-1, kind='quicksort', order=None)`, `kind` ignored with a warning, `lax.sort`'s "
        "`is_stable=True`)",
        "import jax.numpy as jnp\nx = jnp.array([1, 0, 1])\n"
        "assert jnp.argsort(x, stable=True).tolist() == [1, 0, 2]\n"
        "assert jnp.sort(x, stable=True).tolist() == [0, 1, 1]\n")),
    ("shard_map.call", Floor(
        "`jax.shard_map` with the experimental function's arguments", "0.8.0",
        "read in the wheels: from 0.8.0 `jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs, "
        "check_rep=True)` is `jshmap._shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, "
        "axis_names=set(), check_vma=check_rep)`, the call `jax.shard_map(f, mesh=, in_specs=, out_specs=, "
        "check_vma=)` makes (0.6.1-0.7.2 also pass `_skip_mesh_check=True`)",
        "import jax, jax.numpy as jnp\nfrom jax.sharding import Mesh, PartitionSpec as P\n"
        "mesh = Mesh(jax.devices()[:1], ('x',))\n"
        "f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('x'), out_specs=P('x'), check_vma=False)\n"
        "assert f(jnp.arange(2.0)).tolist() == [0.0, 2.0]\n")),
    ("jax.sharding.Mesh", Floor(
        "`jax.sharding.Mesh`", "0.4.1",
        "changelog 0.4.1: \"`PartitionSpec` and `Mesh` are now out of experimental. The new API endpoints are "
        "`jax.sharding.PartitionSpec` and `jax.sharding.Mesh`.\"",
        "import jax, numpy as np\nfrom jax.sharding import Mesh\n"
        "with Mesh(np.array(jax.devices()[:1]), ('x',)):\n    pass\n")),
)}


@dataclass(frozen=True)
class CallLimit:
    """From ``since`` on, ``name`` accepts at most ``max_positional`` positional arguments (``reason``: where read).

    A rename to ``name`` leaves a call with more of them failing at the target: the rename is then no fix."""

    name: str
    max_positional: int
    since: str
    reason: str
    probe: str


CALL_LIMITS: dict[str, CallLimit] = {limit.name: limit for limit in (
    CallLimit("jax.extend.core.Var", 1, "0.6.2",
              "read in the wheels: `Var.__init__(self, suffix, aval)` from 0.4.25 to 0.6.1, "
              "`Var.__init__(self, aval, initial_qdd=None, final_qdd=None)` from 0.6.2 (`jax.core.Var` went in 0.6.0)",
              "import inspect\nfrom jax.extend.core import Var\n"
              "assert list(inspect.signature(Var).parameters)[0] == 'aval'\n"),
)}


@dataclass(frozen=True)
class Positions:
    """``name``'s leading parameters bind the same values by position on every release from ``since``, whatever
    their keywords were called (``slots``: each position's spellings). Where no keyword spelling spans the range,
    keywords passed in positional order are passed by position instead (JAX103)."""

    name: str
    slots: tuple[tuple[str, ...], ...]
    since: str
    reason: str
    probe: str
    # A position the call skips may be passed as ``None``: its default on every release (``jnp.clip(x, None, hi)``).
    none_fills_gaps: bool = False


POSITIONS: dict[str, Positions] = {positions.name: positions for positions in (
    Positions("jax.numpy.clip", (("a", "x", "arr"), ("a_min", "min"), ("a_max", "max")), "0.1.1",
              "read in the sources: `clip(a, a_min=None, a_max=None)` in 0.1.50 (the catalogue's rows: `a`, `a_min`, "
              "`a_max` from 0.1.1), `clip(a, a_min=None, a_max=None, out=None)` in 0.4.26, `clip(x=None, /, "
              "min=None, max=None, *, a=..., a_min=..., a_max=...)` in 0.4.27, `clip(arr=None, /, min=None, "
              "max=None, ...)` in 0.10.0 and 0.12.0.1: the array, the lower and the upper bound are positions 0, 1, 2",
              "import jax.numpy as jnp\nassert float(jnp.clip(jnp.float32(5.0), 0.0, 1.0)) == 1.0\n"
              "assert float(jnp.clip(jnp.float32(5.0), None, 1.0)) == 1.0\n"
              "assert float(jnp.clip(jnp.float32(-5.0), 0.0, None)) == 0.0\n", none_fills_gaps=True),
    Positions("jax.numpy.reshape", (("a",), ("newshape", "shape"), ("order",)), "0.2.0",
              "read in the sources: `reshape(a, newshape, order='C')` in 0.2.0, 0.3.0, 0.3.25, 0.4.1-0.4.20; "
              "`reshape(a, shape=None, order='C', *, newshape=...)` in 0.4.28-0.5.3; `reshape(a, shape, order='C', *, "
              "copy=None, ...)` in 0.6.0-0.12.0.1: the array, the shape and the order are positions 0, 1, 2",
              "import jax.numpy as jnp\nassert jnp.reshape(jnp.arange(6), (2, 3)).shape == (2, 3)\n"
              "assert jnp.reshape(jnp.arange(6), (3, 2), 'F').shape == (3, 2)\n"),
)}


def positional_slots(name: str, keywords: list[str], positional: int, settings: "Settings") -> bool:
    """Whether ``keywords`` (in the call's order, after ``positional`` positional arguments) can all be passed by
    position (``keyword_positions``)."""
    return keyword_positions(name, keywords, positional, settings) is not None


def keyword_positions(name: str, keywords: list[str], positional: int, settings: "Settings") -> list[int] | None:
    """The positions ``keywords`` (in the call's order, after ``positional`` positional arguments) take when passed
    by position, per ``POSITIONS[name]`` (which must hold from the min version); None where they cannot be: a
    keyword out of positional order (the arguments' evaluation order would change), or a position skipped where
    ``None`` does not fill it."""
    positions = POSITIONS.get(name)
    if positions is None or not keywords or settings.min_version < parse_version(positions.since):
        return None
    slot = {keyword: index for index, spellings in enumerate(positions.slots) for keyword in spellings}
    taken = [slot.get(keyword) for keyword in keywords]
    if None in taken or taken != sorted(set(taken)) or taken[0] < positional:
        return None
    if not positions.none_fills_gaps and taken != list(range(positional, positional + len(keywords))):
        return None
    return taken


def range_withheld(what: str, since: str, settings: "Settings") -> "WithheldFix":
    """The reason a fix writing ``what`` (first in JAX ``since``) is withheld at the settings' min version."""
    from jaxlint.lint.diagnostics import WithheldFix

    return WithheldFix(f"{what} exists from JAX {since}; the min version is {settings.min_version} "
                       f"({settings.min_version_source})", since)


def floor_withheld(key: str, settings: "Settings") -> "WithheldFix | None":
    """None when ``FLOORS[key]`` exists at the min version, else why its fix is withheld."""
    floor = FLOORS[key]
    if settings.min_version >= parse_version(floor.since):
        return None
    return range_withheld(floor.what, floor.since, settings)


def library_floor_withheld(library: str, what: str, since: str | None, settings: "Settings") -> "WithheldFix | None":
    """``floor_withheld`` for a flax or optax fix: None when ``what`` (first in ``library`` ``since``; None: in every
    release read) exists at the project's lowest pinned ``library``, else why the fix is withheld. Such a fix is
    not counted in the summary's "more fixes need JAX >= ..." line (``needs_min_version`` is about JAX)."""
    from jaxlint.catalogue.ecosystem import library_min
    from jaxlint.lint.diagnostics import WithheldFix

    if since is None or library_min(settings, library) >= parse_version(since):
        return None
    return WithheldFix(f"{what} exists from {library} {since}; the project's {library} pins allow "
                       f"{library_min(settings, library)}")


def call_limit_problem(name: str, positional: int, target) -> str | None:
    """Why a call of ``name`` with ``positional`` positional arguments fails at ``target``; None: it does not."""
    limit = CALL_LIMITS.get(name)
    if limit is None or positional <= limit.max_positional or target < parse_version(limit.since):
        return None
    return (f"`{name}` takes at most {limit.max_positional} positional argument(s) from JAX {limit.since} "
            f"(`TypeError` with {positional}); the renamed call would still fail at the target")


__all__ = ["CALL_LIMITS", "CallLimit", "FLOORS", "Floor", "call_limit_problem", "floor_withheld", "library_floor_withheld",
           "range_withheld"]
