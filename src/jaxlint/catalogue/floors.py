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
        "`jax.set_mesh`", "0.7.2", "read in the wheels: `jax.set_mesh` is public from 0.7.2",
        "import jax\nassert callable(jax.set_mesh)\n")),
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
