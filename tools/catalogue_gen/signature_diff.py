"""Consecutive-release diff of the signature snapshots (``signature_snapshot.py``): per public class still public in
the newest release, its members removed and the keywords of its methods and constructor removed, renamed, made
positional-only; per method, constructor or function, parameters newly required and literal defaults changed."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from catalogue_gen.parameter_diff import parameter_diff
from catalogue_gen.toml_writer import toml_value

INIT = "__init__"
# Classes whose members JAX attaches after the class statement, where ``ast`` does not see them:
# jax/_src/numpy/array_methods.py sets ``at``, the operators and the reductions on ``Array`` with ``setattr`` in a
# loop at import (``at`` left the class body in 0.4.21 and is still there at run time).
_ATTACHED_MEMBERS = frozenset({"jax._src.basearray:Array"})


@dataclass
class SignatureRow:
    owner: str  # the class (``jax.stages.Lowered``) or, for a function, its module-qualified name
    member: str  # the method, ``__init__`` for the constructor, "" for a function
    change: str  # removed, renamed, positional-only, member-removed, newly-required, default-changed
    changed_in: str  # the first release with the change
    last_seen: str  # the last release before it
    parameter: str = ""
    replacement: str | None = None
    replacement_since: str | None = None
    old_default: str | None = None
    new_default: str | None = None
    member_kind: str | None = None
    # the parameter's index among the positional ones in the newest release (-1: keyword-only); a call that passes
    # more positional arguments than this passes it
    position: int | None = None
    spellings: tuple[str, ...] = ()  # other public names of the same class or function
    # the package whose releases ``changed_in``/``last_seen`` count: jax, jaxlib, flax or optax
    library: str = "jax"

    def toml(self) -> str:
        lines = ["[[signature]]"]
        if self.library != "jax":
            lines.append(f"library = {toml_value(self.library)}")
        for key in ("owner", "member", "parameter", "change", "changed_in", "last_seen", "replacement",
                    "replacement_since", "old_default", "new_default", "member_kind", "position"):
            value = getattr(self, key)
            if isinstance(value, int):
                lines.append(f"{key} = {value}")
            elif value not in (None, ""):
                lines.append(f"{key} = {toml_value(value)}")
        if self.spellings:
            lines.append(f"spellings = {toml_value(list(self.spellings))}")
        return "\n".join(lines)


def signature_diff(versions: list[str], snaps: dict[str, dict]) -> list[SignatureRow]:
    newest = snaps[versions[-1]]
    rows: list[SignatureRow] = []
    for kind in ("classes", "functions"):
        groups = _older_spellings(versions, snaps, kind, _spellings(newest[kind]))
        for name, others in sorted(groups.items()):
            history = [snaps[v][kind].get(name) for v in versions]
            if kind == "classes":
                rows += _class_rows(name, versions, history, others)
            else:
                rows += [_spelled(row, others) for row in _member_rows(name, "", versions, history)
                         if row.change in ("newly-required", "default-changed")]
    return rows


def _spellings(entries: dict[str, dict]) -> dict[str, tuple[str, ...]]:
    """One public name per definition (the shortest, then the first by name), with the other names of it."""
    by_origin: dict[str, list[str]] = {}
    for name, entry in entries.items():
        by_origin.setdefault(entry.get("origin") or name, []).append(name)
    out = {}
    for origin, names in by_origin.items():
        names.sort(key=lambda n: (n.count("."), len(n), n))
        out[names[0]] = tuple(names[1:])
    return out


def _older_spellings(versions: list[str], snaps: dict[str, dict], kind: str,
                     groups: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """``groups`` with the public names an older release gave the same definition (``jax.experimental.maps.Mesh``
    for ``jax.sharding.Mesh``): same origin as one of the group's names in that release."""
    out = {name: list(others) for name, others in groups.items()}
    for v in versions[:-1]:
        entries = snaps[v][kind]
        origins = {}
        for name, others in groups.items():
            for spelled in (name, *others):
                if spelled in entries:
                    origins.setdefault(entries[spelled].get("origin"), name)
        for spelled, entry in entries.items():
            owner = origins.get(entry.get("origin"))
            if owner is not None and spelled != owner and spelled not in out[owner]:
                out[owner].append(spelled)
    return {name: tuple(sorted(others)) for name, others in out.items()}


def _spelled(row: SignatureRow, others: tuple[str, ...]) -> SignatureRow:
    row.spellings = others
    return row


def _class_rows(name: str, versions: list[str], history: list[dict | None], others) -> list[SignatureRow]:
    rows: list[SignatureRow] = []
    newest = history[-1]
    members = sorted({m for entry in history if entry for m in entry["members"]} | {INIT})
    for member in members:
        per_release = [None if entry is None else (entry["init"] if member == INIT else entry["members"].get(member))
                       for entry in history]
        rows += [_spelled(row, others) for row in _member_rows(name, member, versions, per_release)]
        if member != INIT and member not in newest["members"] and not newest["open"] \
                and newest["origin"] not in _ATTACHED_MEMBERS:
            present = [i for i, m in enumerate(per_release) if m is not None]
            last = present[-1]
            gone = next((i for i in range(last + 1, len(versions)) if history[i] is not None), None)
            # an attribute may have become an instance attribute set in ``__init__``: methods and properties only
            if gone is not None and not history[gone]["open"] and per_release[last]["kind"] != "attribute":
                rows.append(_spelled(SignatureRow(name, member, "member-removed", versions[gone], versions[last],
                                                  member_kind=per_release[last]["kind"]), others))
    return rows


def _member_rows(owner: str, member: str, versions: list[str], per_release: list[dict | None]) -> list[SignatureRow]:
    """Rows for one callable whose entry (``{"params", "defaults"}`` or None) is given per release."""
    newest = per_release[-1]
    if newest is None or newest.get("params") is None:
        return []
    sigs = [None if m is None else m.get("params") for m in per_release]
    # parameter_diff reads snapshots of modules of functions: one pseudo-module holding this callable
    fake = {v: {"modules": {"m": {"signatures": {"f": sig} if sig is not None else {}, "deprecations": {}}}}
            for v, sig in zip(versions, sigs)}
    rows = [SignatureRow(owner, member, p.change, p.removed_in, p.last_seen, parameter=p.parameter,
                         replacement=p.replacement, replacement_since=p.replacement_since)
            for p in parameter_diff(versions, fake)]
    for row in rows:
        if row.change == "renamed" and not _plain_rename(row, versions, per_release):
            row.change = "removed"  # the successor stays as a hint; no fix writes it
    new_params = {p[0]: p for p in sigs[-1]}
    positional = [p[0] for p in sigs[-1] if p[1] in ("po", "pk")]

    def position(name: str) -> int:
        return positional.index(name) if name in positional else -1
    known = [i for i, sig in enumerate(sigs) if sig is not None]
    for before, after in zip(known, known[1:]):
        old, new = {p[0]: p for p in sigs[before]}, {p[0]: p for p in sigs[after]}
        old_varkw = any(p[1] == "varkw" for p in sigs[before])
        # a parameter that left in the same release: a new required one beside it is likely its rename (the
        # keyword rows say so), not a parameter every old call lacks
        left = [n for n, p in old.items() if p[1] in ("po", "pk", "kw") and n not in new]
        for name, param in new.items():
            if param[1] not in ("pk", "kw") or param[2] != "" or name.startswith("_"):
                continue
            was = old.get(name)
            newly = (was is not None and was[2] != "") or (was is None and not old_varkw and not left)
            still = new_params.get(name)
            if newly and still is not None and still[2] == "":
                rows.append(SignatureRow(owner, member, "newly-required", versions[after], versions[before],
                                         parameter=name, position=position(name)))
        old_defaults, new_defaults = per_release[before]["defaults"], per_release[after]["defaults"]
        for name, value in new_defaults.items():
            previous = old_defaults.get(name)
            if previous is not None and previous != value and per_release[-1]["defaults"].get(name) == value \
                    and not name.startswith("_") and _meaningful(previous) and _meaningful(value) \
                    and not _same_value(previous, value):
                rows.append(SignatureRow(owner, member, "default-changed", versions[after], versions[before],
                                         parameter=name, old_default=previous, new_default=value,
                                         position=position(name)))
    return rows


def _meaningful(default: str) -> bool:
    """A default whose change changes behaviour: ``None`` and empty containers are how signatures say "not given"
    (``donate_argnums=()`` -> ``None`` in JAX 0.4.14 means the same), so a change from or to one is left out."""
    return default not in ("None", "()", "[]", "{}", "''", '""', "frozenset()")


def _same_value(old: str, new: str) -> bool:
    """``100`` -> ``100.0`` (optax 0.2.7's ``cocob``), ``1.0`` -> ``1``: a spelling, not another value."""
    try:
        a, b = ast.literal_eval(old), ast.literal_eval(new)
    except Exception:
        return False
    return type(a) in (int, float) and type(b) in (int, float) and a == b


def _plain_rename(row: SignatureRow, versions: list[str], per_release: list[dict | None]) -> bool:
    """A rename a fix may write: the new keyword appears in the very release the old one leaves (not a parameter
    that was there beside it: ``BlockSpec(indexing_mode=)`` -> ``pipeline_mode=``), with the same default
    (``strict_checks=True`` -> ``disabled_checks=()`` takes other values), and is no plural of it
    (``platform=`` -> ``platforms=`` takes a sequence)."""
    old, new = row.parameter, row.replacement or ""
    if row.replacement_since != row.changed_in or new in (old + "s", old + "es") or old in (new + "s", new + "es"):
        return False
    before = per_release[versions.index(row.last_seen)]
    after = per_release[versions.index(row.changed_in)]
    if before is None or after is None or before.get("params") is None or after.get("params") is None:
        return False
    flag = {p[0]: p[2] for p in before["params"]}, {p[0]: p[2] for p in after["params"]}
    return flag[0].get(old) == flag[1].get(new) and before["defaults"].get(old) == after["defaults"].get(new)
