"""Public successors of removed names that JAX's messages name no replacement for.

Many removed names (``jax.interpreters.ad.float0``, ``jax.interpreters.xla.abstractify``...) were re-exports of an
object defined in ``jax._src`` that the newest release still exports publicly, under another name. Both names are
resolved statically to their defining origin (``jax._src.dtypes:float0``): the removed one in the last release that
had it, the public one in the newest release. A match is the successor; it is "the same object" (what a rename fix
needs) only where one release had both names resolving to that origin, else it is named as advice only.
"""
from __future__ import annotations

from catalogue_gen.releases import vkey
from catalogue_gen.snapshot import exists, origin_of, since, state_of

# Where a successor is looked for last: modules that are themselves internal or on their way out.
_DISFAVOURED = ("jax.interpreters.", "jax.core.", "jax.lib.", "jax.experimental.", "jax.extend.")


def is_defined_in_jax(origin: str | None) -> bool:
    """A class/function/constant defined in a JAX module (not a module, not a stdlib or jaxlib object)."""
    if not origin or origin.startswith("?"):
        return False
    mod, _, name = origin.partition(":")
    return (mod == "jax" or mod.startswith("jax.")) and bool(name)


def public_origins(snap: dict, gone: set[str], exported: set[str] | None) -> dict[str, list[str]]:
    """Origin -> the public dotted names of ``snap`` that work without a warning, resolve to it under its own name
    (``safe_zip`` imported as ``zip`` is a helper) and are exported on purpose (``exports``; None: not known)."""
    index: dict[str, list[str]] = {}
    for mod, m in snap["modules"].items():
        for name, origin in m["names"].items():
            dotted = f"{mod}.{name}"
            if dotted in gone or state_of(snap, mod, name) != "ok" or not is_defined_in_jax(origin):
                continue
            if any(p in gone for p in _parents(mod)):  # a module that warns on import is no destination
                continue
            if origin.rpartition(":")[2] != name or (exported is not None and dotted not in exported):
                continue
            index.setdefault(origin, []).append(dotted)
    return index


def _parents(mod: str) -> list[str]:
    parts = mod.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def rank(dotted: str) -> tuple:
    """Preference among successors: documented namespaces first (``jax.extend`` before internals), then short."""
    disfavour = next((i for i, p in enumerate(_DISFAVOURED) if dotted.startswith(p)), -1)
    order = {-1: 0, 4: 1}.get(disfavour, 2 + disfavour)  # jax.*, then jax.extend.*, then the rest
    return order, dotted.count("."), len(dotted), dotted


def add_successors(entries: list, versions: list[str], snaps: dict[str, dict],
                   exported: set[str] | None = None) -> int:
    """Give each removed symbol without a replacement its public same-origin successor, among the newest release's
    deliberate exports (``exports.load_exports``); the number given."""
    newest = snaps[versions[-1]]
    gone = {e.name for e in entries if e.removed_in or e.deprecated_in}
    index = public_origins(newest, gone, exported)
    found = 0
    for e in entries:
        if e.kind != "symbol" or e.replacement or not e.removed_in or not e.last_seen:
            continue
        origin = origin_of(snaps[e.last_seen], e.name)
        if not is_defined_in_jax(origin):
            continue
        candidates = [n for n in index.get(origin, ()) if n != e.name and not n.startswith(e.name + ".")]
        if not candidates:
            continue
        best = min(candidates, key=rank)
        e.replacement = best
        e.replacement_since = since(versions, snaps, best)
        e.same_object, e.same_object_checked = same_object_at(e.name, best, versions, e.last_seen, snaps)
        e.source = f"{e.source}+origin"
        found += 1
    return found


def same_object_at(old: str, new: str, versions: list[str], last_seen: str,
                   snaps: dict[str, dict]) -> tuple[bool | None, str]:
    """(True, "static:V") where release V, the last to have both names, resolves both to one origin; else
    (None, "origin:<last_seen>"): the successor came later, it is named, not written by a fix."""
    for v in reversed([v for v in versions if vkey(v) <= vkey(last_seen)]):
        snap = snaps[v]
        if exists(snap, new) and exists(snap, old):
            same = origin_of(snap, old) == origin_of(snap, new)
            return (True if same else None), (f"static:{v}" if same else f"origin:{last_seen}")
    return None, f"origin:{last_seen}"
