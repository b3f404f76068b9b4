"""A release as JSON (public names, tables, warnings, signatures, flags per module), cached beside its wheel, and
the questions the diffs ask of snapshots: is a name there, where does it come from, since when."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from catalogue_gen.wheel import Wheel, is_public_module

# Bump when the snapshot format or the analysis changes: cached snapshots are then recomputed.
SNAPSHOT_FORMAT = 4


def snapshot(wheel_file: Path) -> dict:
    w = Wheel(wheel_file)
    return {"format": SNAPSHOT_FORMAT, "modules": public_modules(w), "flags": w.flags()}


def public_modules(w: Wheel, signatures: bool = True) -> dict[str, dict]:
    """Per public module of the wheel's package: its names (resolved to their definition), ``_deprecations`` table,
    module-level warning and function signatures (unless ``signatures`` is false: ``origins_snapshot``). The
    flax/optax generator adds its own keys to each."""
    modules: dict[str, dict] = {}
    for mod in sorted(w.files):
        if not is_public_module(mod):
            continue
        info = w.info(mod)
        if info is None:
            continue
        names = {n: w.resolve(o) for n, o in w.public_names(mod).items()}
        # submodules are attributes of their package only when imported; keep them out of the names
        table = {}
        for n, (msg, origin) in info.deprecations.items():
            table[n] = [msg, None if origin is None else w.resolve(origin)]
        sigs = {}
        for n, origin in names.items() if signatures else ():
            sig = w.signature(origin)
            if sig is not None:
                sigs[n] = sig
        modules[mod] = {"names": names, "deprecations": table, "warning": info.module_warning, "signatures": sigs}
    return modules


def load_snapshot(cache: Path, version: str, wheel_file: Path) -> dict:
    return cached(cache / f"snapshot-{version}-v{SNAPSHOT_FORMAT}.json", lambda: snapshot(wheel_file))


def load_origins_snapshot(cache: Path, version: str, wheel_file: Path) -> dict:
    """The part of a snapshot that ``successors`` reads (names resolved to their origins, ``_deprecations``
    tables), without the signatures and flags that cost most of its time: ``--only-successors`` reads these. The
    full snapshot when one is cached already."""
    full = cache / f"snapshot-{version}-v{SNAPSHOT_FORMAT}.json"
    if full.exists():
        return json.loads(full.read_text())
    return cached(cache / f"origins-{version}-v{SNAPSHOT_FORMAT}.json",
                  lambda: {"format": SNAPSHOT_FORMAT, "modules": public_modules(Wheel(wheel_file), False)})


def cached(snap_file: Path, make: Callable[[], dict]) -> dict:
    """The snapshot stored in ``snap_file``, made (and stored) the first time."""
    if snap_file.exists():
        return json.loads(snap_file.read_text())
    snap = make()
    snap_file.write_text(json.dumps(snap))
    return snap


def state_of(snap: dict, mod: str, name: str) -> str:
    m = snap["modules"].get(mod)
    if m is None:
        return "absent"
    if name in m["deprecations"]:
        return "removed" if m["deprecations"][name][1] is None else "deprecated"
    if name in m["names"]:
        return "ok"
    return "absent"


def exists(snap: dict, dotted: str) -> bool:
    if dotted in snap["modules"]:
        return True
    mod, _, name = dotted.rpartition(".")
    while mod and mod not in snap["modules"]:
        # attribute of a class, e.g. jax.sharding.Mesh.abstract_mesh: accept if the class exists
        mod, _, name = mod.rpartition(".")
    return bool(mod) and state_of(snap, mod, name) == "ok"


def origin_of(snap: dict, dotted: str) -> str | None:
    if dotted in snap["modules"]:
        return dotted + ":"
    mod, _, name = dotted.rpartition(".")
    m = snap["modules"].get(mod)
    if m is None:
        return None
    if name in m["names"]:
        return m["names"][name]
    if name in m["deprecations"]:
        return m["deprecations"][name][1]
    return None


def since(versions: list[str], snaps: dict[str, dict], dotted: str) -> str | None:
    """First release from which ``dotted`` exists continuously up to the newest."""
    first = None
    for v in versions:
        if exists(snaps[v], dotted):
            first = first or v
        else:
            first = None
    return first


def run_start(versions: list[str], worked: list[bool]) -> str | None:
    """First release of the last unbroken run of releases where it worked: [first_seen, last_seen] has no gap."""
    if True not in worked:
        return None
    end = len(worked) - 1 - worked[::-1].index(True)
    start = end
    while start > 0 and worked[start - 1]:
        start -= 1
    return versions[start]
