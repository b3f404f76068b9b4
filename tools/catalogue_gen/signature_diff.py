"""Consecutive-release diff of the signature snapshots (``signature_snapshot.py``): per public class still public in
the newest release, its members removed and the keywords of its methods and constructor removed, renamed, made
positional-only; per method, constructor or function, parameters newly required and literal defaults changed."""
from __future__ import annotations

from dataclasses import dataclass

from catalogue_gen.parameter_diff import parameter_diff
from catalogue_gen.toml_writer import toml_value

INIT = "__init__"


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

    def toml(self) -> str:
        lines = ["[[signature]]"]
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
        groups = _spellings(newest[kind])
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
        if member != INIT and member not in newest["members"] and not newest["open"]:
            present = [i for i, m in enumerate(per_release) if m is not None]
            last = present[-1]
            gone = next((i for i in range(last + 1, len(versions)) if history[i] is not None), None)
            if gone is not None and not history[gone]["open"]:
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
    new_params = {p[0]: p for p in sigs[-1]}
    positional = [p[0] for p in sigs[-1] if p[1] in ("po", "pk")]

    def position(name: str) -> int:
        return positional.index(name) if name in positional else -1
    known = [i for i, sig in enumerate(sigs) if sig is not None]
    for before, after in zip(known, known[1:]):
        old, new = {p[0]: p for p in sigs[before]}, {p[0]: p for p in sigs[after]}
        old_varkw = any(p[1] == "varkw" for p in sigs[before])
        for name, param in new.items():
            if param[1] not in ("pk", "kw") or param[2] != "" or name.startswith("_"):
                continue
            was = old.get(name)
            newly = (was is not None and was[2] != "") or (was is None and not old_varkw)
            still = new_params.get(name)
            if newly and still is not None and still[2] == "":
                rows.append(SignatureRow(owner, member, "newly-required", versions[after], versions[before],
                                         parameter=name, position=position(name)))
        old_defaults, new_defaults = per_release[before]["defaults"], per_release[after]["defaults"]
        for name, value in new_defaults.items():
            previous = old_defaults.get(name)
            if previous is not None and previous != value and per_release[-1]["defaults"].get(name) == value \
                    and not name.startswith("_"):
                rows.append(SignatureRow(owner, member, "default-changed", versions[after], versions[before],
                                         parameter=name, old_default=previous, new_default=value,
                                         position=position(name)))
    return rows
