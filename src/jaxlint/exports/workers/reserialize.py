"""Load an artifact in this (baseline) JAX and serialize it again, in the format this JAX writes.

Request: {"src", "dst", "mesh": [[axis, size], ...] | null}.
Result: {"ok", "error", "jax_version", "used_flag", "rebuilt_shardings": [text, ...]}.
HLO-only shardings (exports written before 2026-01-15) cannot be serialized any more; with a mesh they are rebuilt
as NamedShardings on it, and each rebuilt sharding must reproduce the stored HloSharding exactly.
"""
import dataclasses

import _common

import jax


def hlo_only(exported):
    named = tuple(getattr(exported, "_in_named_shardings", ())) + tuple(getattr(exported, "_out_named_shardings", ()))
    hlo = tuple(exported.in_shardings_hlo or ()) + tuple(exported.out_shardings_hlo or ())
    return any(s is not None for s in hlo) and all(s is None for s in named)


def rebuild_named_shardings(exported, axes):
    sizes = [int(size) for _, size in axes]
    if _common.math.prod(sizes) != exported.nr_devices:
        raise ValueError(f"the artifact was exported for {exported.nr_devices} devices but the mesh {dict(axes)} "
                         f"has {_common.math.prod(sizes)}")
    mesh = _common.make_mesh(jax, axes)
    rebuilt = {}
    for side, avals in (("in", exported.in_avals), ("out", exported.out_avals)):
        try:
            named = getattr(exported, f"{side}_shardings_jax")(mesh)
        except Exception as err:  # noqa: BLE001 - JAX's own message is terse (e.g. a KeyError)
            raise ValueError(f"the stored {side}put shardings cannot be expressed on the mesh {dict(axes)}: "
                             f"{_common.first_line(err)}") from err
        stored = getattr(exported, f"{side}_shardings_hlo")
        for new, old, aval in zip(named, stored, avals):
            if old is None:
                continue
            # The rebuilt NamedSharding must describe exactly the tiling that was stored.
            again = new._to_xla_hlo_sharding(aval.ndim)
            if again != old:
                raise ValueError(f"the mesh {dict(axes)} does not reproduce the stored sharding {old} (got {again})")
        rebuilt[side] = tuple(named)
    fields = {f.name for f in dataclasses.fields(exported)}
    changes = {"_in_named_shardings": rebuilt["in"], "_out_named_shardings": rebuilt["out"],
               "in_shardings_hlo": (None,) * len(exported.in_avals),
               "out_shardings_hlo": (None,) * len(exported.out_avals),
               "_has_named_shardings": True}
    return dataclasses.replace(exported, **{k: v for k, v in changes.items() if k in fields}), rebuilt


def main():
    request = _common.read_request()
    result = {"ok": False, "error": None, "jax_version": jax.__version__, "used_flag": False, "rebuilt_shardings": []}
    try:
        with open(request["src"], "rb") as handle:
            exported, result["used_flag"] = _common.deserialize(jax, handle.read(), allow_flag=True)
        if hlo_only(exported):
            if not request.get("mesh"):
                raise ValueError("its shardings are stored only as HloSharding and nothing in the artifact records "
                                 "mesh axis names: name the mesh with --mesh (e.g. --mesh x=2)")
            exported, rebuilt = rebuild_named_shardings(exported, request["mesh"])
            result["rebuilt_shardings"] = [str(s) for s in rebuilt["in"] + rebuilt["out"]]
        data = exported.serialize()
        with open(request["dst"], "wb") as handle:
            handle.write(bytes(data))
        result["ok"] = True
    except Exception as err:  # noqa: BLE001 - reported to the user as the reason the migration failed
        result["error"] = _common.first_line(err)
    _common.respond(result)


if __name__ == "__main__":
    main()
