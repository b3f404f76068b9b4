"""Symbols, modules and config flags that the newest release deprecates or lacks, found by diffing consecutive
snapshots, with the replacement JAX's own message names."""
from __future__ import annotations

import re
from dataclasses import dataclass

from catalogue_gen.releases import vkey
from catalogue_gen.snapshot import exists, origin_of, run_start, since, state_of
from catalogue_gen.toml_writer import toml_value

CHANGELOG = "https://docs.jax.dev/en/latest/changelog.html"

# Abbreviations JAX's own messages use.
MESSAGE_ALIASES = {
    "jnp": "jax.numpy",
    "lax": "jax.lax",
    "pl": "jax.experimental.pallas",
    "pltpu": "jax.experimental.pallas.tpu",
    "plgpu": "jax.experimental.pallas.mosaic_gpu",
    "jsp": "jax.scipy",
}


NAME_RE = re.compile(r"(?<![\w.])((?:jax|jnp|lax|pl|pltpu|plgpu|jsp)(?:\.[A-Za-z_]\w*)+)")
VERSION_RE = r"v?(\d+\.\d+(?:\.\d+)*)"


def expand(dotted: str) -> str:
    head, _, rest = dotted.partition(".")
    if head in MESSAGE_ALIASES:
        return MESSAGE_ALIASES[head] + "." + rest
    return dotted


def message_versions(msg: str | None) -> tuple[str | None, str | None]:
    if not msg:
        return None, None
    dep = re.search(r"deprecated (?:in|since|as of) (?:JAX )?" + VERSION_RE, msg, re.I)
    rem = re.search(r"removed in (?:JAX )?" + VERSION_RE, msg, re.I)
    return (dep.group(1) if dep else None), (rem.group(1) if rem else None)


def message_urls(msg: str | None) -> list[str]:
    return re.findall(r"https?://[^\s)\"']+[^\s)\"'.,]", msg or "")


@dataclass
class Entry:
    name: str
    kind: str
    module: str
    deprecated_in: str | None = None
    removed_in: str | None = None
    replacement: str | None = None
    replacement_since: str | None = None
    same_object: bool | None = None
    same_object_checked: str | None = None  # "static" / "runtime:<version>"
    any_version_replacement: str | None = None
    any_version_same_object: bool | None = None
    any_version_since: str | None = None
    message: str | None = None
    url: str | None = None
    source: str = "table"
    last_seen: str | None = None  # last release where the name still worked
    first_seen: str | None = None  # first release of the last unbroken run where it worked (no gap up to last_seen)
    attribute_survives: bool | None = None  # a removed module whose name is still an attribute of its parent
    advice: str | None = None  # what to do instead, where no name replaces it (catalogue_gen.module_advice)

    def toml(self) -> str:
        lines = [f"[[{self.kind}]]"]
        for key in ("name", "module", "deprecated_in", "removed_in", "replacement", "replacement_since",
                    "same_object", "same_object_checked", "any_version_replacement", "any_version_since",
                    "any_version_same_object", "first_seen", "last_seen", "attribute_survives", "message",
                    "advice", "url", "source"):
            value = getattr(self, key)
            if value is None:
                continue
            lines.append(f"{key} = {toml_value(value)}")
        return "\n".join(lines)


def is_api_origin(origin: str) -> bool:
    """A name defined in JAX (not a stdlib/typing helper, not a module imported for internal use)."""
    mod, _, name = origin.partition(":")
    return (mod == "jax" or mod.startswith("jax.")) and bool(name)


def diff(versions: list[str], snaps: dict[str, dict]) -> list[Entry]:
    newest = versions[-1]
    entries: list[Entry] = []
    # ------------------------------------------------------------------ symbols
    keys: set[tuple[str, str]] = set()
    for v in versions:
        for mod, m in snaps[v]["modules"].items():
            keys.update((mod, n) for n in m["deprecations"])
            keys.update((mod, n) for n in m["names"])
    for mod, name in sorted(keys):
        states = [state_of(snaps[v], mod, name) for v in versions]
        final = states[-1]
        if final == "ok":
            continue
        if final == "absent" and "deprecated" not in states and "removed" not in states:
            # disappeared without a table: only when its module still exists (else the module entry covers it)
            if mod not in snaps[newest]["modules"]:
                continue
            last_ok = versions[len(states) - 1 - states[::-1].index("ok")]
            origin = snaps[last_ok]["modules"][mod]["names"].get(name, "")
            if not is_api_origin(origin):
                continue  # ``Any`` from typing, ``partial`` from functools, ``np`` (a module): not JAX API
            source = "diff"
        else:
            source = "table"
        # the trailing run of not-ok states
        i = len(states) - 1
        while i > 0 and states[i - 1] != "ok":
            i -= 1
        tail = states[i:]
        if "removed" in tail or "absent" in tail:
            j = next(k for k, s in enumerate(tail) if s in ("removed", "absent"))
            if any(s == "deprecated" for s in tail[j:]):
                # back to a warning after an error: use the latest run
                j = max(k for k, s in enumerate(tail) if s in ("removed", "absent") and
                        (k == 0 or tail[k - 1] == "deprecated"))
            removed_in = versions[i + j]
            dep_idx = [k for k in range(j) if tail[k] == "deprecated"]
            deprecated_in = versions[i + dep_idx[0]] if dep_idx else None
            if removed_in == versions[0] and "ok" not in states and "deprecated" not in states:
                removed_in = None  # removed before the window: decided from the message below
        else:
            removed_in = None
            deprecated_in = versions[i]
        if final == "removed" or final == "deprecated":
            msg = snaps[newest]["modules"][mod]["deprecations"][name][0]
        else:
            msgs = [snaps[v]["modules"].get(mod, {}).get("deprecations", {}).get(name) for v in versions]
            msgs = [m[0] for m in msgs if m]
            msg = msgs[-1] if msgs else None
        m_dep, m_rem = message_versions(msg)
        if deprecated_in == versions[0] and m_dep and vkey(m_dep) < vkey(deprecated_in):
            deprecated_in = m_dep
        if deprecated_in is None and m_dep and (removed_in is None or vkey(m_dep) <= vkey(removed_in)):
            deprecated_in = m_dep if (removed_in is None or vkey(m_dep) < vkey(removed_in)) else None
        if removed_in is None and final in ("removed", "absent"):
            removed_in = m_rem if m_rem and vkey(m_rem) <= vkey(versions[0]) else versions[0]
            if deprecated_in and vkey(deprecated_in) > vkey(removed_in):
                deprecated_in = None
        worked = [v for v, s in zip(versions, states) if s in ("ok", "deprecated")]
        e = Entry(name=f"{mod}.{name}", kind="symbol", module=mod, deprecated_in=deprecated_in,
                  removed_in=removed_in, message=msg, source=source, last_seen=worked[-1] if worked else None,
                  first_seen=run_start(versions, [st in ("ok", "deprecated") for st in states]))
        entries.append(e)
    # ------------------------------------------------------------------ modules
    all_mods = sorted({mod for v in versions for mod in snaps[v]["modules"]})
    for mod in all_mods:
        present = [mod in snaps[v]["modules"] for v in versions]
        warned = [bool(snaps[v]["modules"].get(mod, {}).get("warning")) for v in versions]
        if present[-1] and not warned[-1]:
            continue
        i = len(versions) - 1
        while i > 0 and (not present[i - 1] or warned[i - 1]) == (not present[i] or warned[i]) and \
                present[i - 1] == present[i]:
            i -= 1
        msgs = [snaps[v]["modules"][mod]["warning"] for v in versions
                if snaps[v]["modules"].get(mod, {}).get("warning")]
        if present[-1]:  # deprecated, still importable
            first_warn = len(versions) - 1
            while first_warn > 0 and warned[first_warn - 1]:
                first_warn -= 1
            e = Entry(name=mod, kind="module", module=mod, deprecated_in=versions[first_warn],
                      message=msgs[-1], source="warning", last_seen=newest,
                      first_seen=run_start(versions, present))
        else:
            gone = len(versions) - 1
            while gone > 0 and not present[gone - 1]:
                gone -= 1
            if gone == 0:
                continue
            dep = [k for k in range(gone) if warned[k] and all(warned[k:gone])]
            e = Entry(name=mod, kind="module", module=mod, removed_in=versions[gone],
                      deprecated_in=versions[dep[0]] if dep else None, message=msgs[-1] if msgs else None,
                      source="warning" if msgs else "diff", last_seen=versions[gone - 1],
                      first_seen=run_start(versions, present))
            # a module whose parent package disappeared too is reported once, at the top
            parent = mod.rpartition(".")[0]
            if parent and parent not in snaps[newest]["modules"] and \
                    any(parent in snaps[v]["modules"] for v in versions):
                e.source = "diff-child"
        m_dep, _ = message_versions(e.message)
        if e.deprecated_in == versions[0] and m_dep and vkey(m_dep) < vkey(e.deprecated_in):
            e.deprecated_in = m_dep
        entries.append(e)
    entries = [e for e in entries if e.source != "diff-child"]
    for e in entries:
        # ``jax.numpy.vectorize`` the module went in 0.2.4, ``jnp.vectorize`` the function stays: only imports fail
        parent, _, last = e.name.rpartition(".")
        if e.kind == "module" and e.removed_in and last in snaps[newest]["modules"].get(parent, {}).get("names", {}):
            e.attribute_survives = True
    # symbols of removed modules are covered by the module entry
    gone_mods = {e.name for e in entries if e.kind == "module" and e.removed_in}
    entries = [e for e in entries if not (e.kind == "symbol" and e.module in gone_mods and e.source == "diff")]
    # ------------------------------------------------------------------ config flags
    flags = sorted({f for v in versions for f in snaps[v]["flags"]})
    for f in flags:
        present = [f in snaps[v]["flags"] for v in versions]
        if present[-1]:
            continue
        gone = len(versions) - 1
        while gone > 0 and not present[gone - 1]:
            gone -= 1
        entries.append(Entry(name=f, kind="config", module="jax.config", removed_in=versions[gone],
                             source="diff", last_seen=versions[gone - 1], first_seen=run_start(versions, present)))
    # ------------------------------------------------------------------ replacements
    for e in entries:
        add_replacement(e, versions, snaps)
        # a documentation link from JAX's message; "please file an issue on .../issues" is not one
        urls = [u for u in message_urls(e.message) if not re.search(r"github\.com/[^/]+/[^/]+/issues", u)]
        e.url = urls[0] if urls else CHANGELOG
    return entries


def add_replacement(e: Entry, versions: list[str], snaps: dict[str, dict]) -> None:
    if not e.message:
        return
    newest = snaps[versions[-1]]
    candidates = []
    for m in NAME_RE.finditer(e.message):
        dotted = expand(m.group(1).rstrip("."))
        if dotted == e.name or dotted in candidates:
            continue
        # a trailing "(...)" call in the message: jax.tree.map(...)
        candidates.append(dotted)
    valid = [c for c in candidates if exists(newest, c)]
    if not valid:
        return
    # "use X (jax vA or newer) or Y (any JAX version)"
    any_m = re.search(r"((?:jax|jnp|lax)(?:\.\w+)+)\s*\(any JAX version\)", e.message)
    if any_m and expand(any_m.group(1)) in valid:
        e.any_version_replacement = expand(any_m.group(1))
    e.replacement = valid[0]
    e.replacement_since = since(versions, snaps, e.replacement)
    if e.any_version_replacement:
        e.any_version_since = since(versions, snaps, e.any_version_replacement)
    # same object, statically, in the last release where both exist
    if e.kind != "symbol":
        return
    for attr, target in (("same_object", e.replacement), ("any_version_same_object", e.any_version_replacement)):
        if target is None:
            continue
        for v in reversed(versions):
            snap = snaps[v]
            old = origin_of(snap, e.name)
            if old and exists(snap, target):
                new = origin_of(snap, target)
                if new is not None:
                    setattr(e, attr, old == new and not old.startswith("?") and old != "")
                    if attr == "same_object":
                        e.same_object_checked = f"static:{v}"
                break
