"""Keywords of public functions that an older release accepted and the newest rejects (removed, renamed, made
positional-only), found by diffing the signatures in consecutive snapshots."""
from __future__ import annotations

from dataclasses import dataclass

from catalogue_gen.snapshot import run_start
from catalogue_gen.toml_writer import toml_value


@dataclass
class Parameter:
    """A keyword a public function accepted and the newest release rejects."""

    name: str  # the function, as the user spells it (jax.numpy.clip)
    parameter: str
    change: str  # "removed", "renamed" or "positional-only"
    removed_in: str
    last_seen: str
    first_seen: str
    deprecated_in: str | None = None
    replacement: str | None = None  # the keyword that took its place
    replacement_since: str | None = None  # first release from which that keyword is accepted, without a gap

    def toml(self) -> str:
        lines = ["[[parameter]]"]
        for key in ("name", "parameter", "change", "deprecated_in", "removed_in", "first_seen", "last_seen",
                    "replacement",
                    "replacement_since"):
            value = getattr(self, key)
            if value is not None:
                lines.append(f"{key} = {toml_value(value)}")
        return "\n".join(lines)


def keyword_state(sig: list[list[str]] | None, param: str) -> str | None:
    """``ok``/``deprecated`` (accepted by keyword), ``gone`` (rejected), None (unknown: no plain ``def``, or a
    ``**kwargs`` that may take it)."""
    if sig is None:
        return None
    for name, kind, default in sig:
        if name == param and kind in ("pk", "kw"):
            return "deprecated" if default == "deprecated" else "ok"
    if any(kind == "varkw" for _, kind, _ in sig):
        return None
    return "gone"


def renamed_to(before: list[list[str]], after: list[list[str]], param: str) -> str | None:
    """The parameter that took ``param``'s place when it changed: a new name at the same position, or the single new
    name when exactly one keyword left."""
    old_names = [p[0] for p in before]
    new = [p for p in after if p[0] not in old_names and p[1] != "varkw" and not p[0].startswith("_")]
    index = old_names.index(param)
    if index < len(after) and after[index] in new:
        return after[index][0]
    left = [p[0] for p in before if keyword_state(after, p[0]) != "ok" and p[1] in ("pk", "kw")]
    if len(new) == 1 and left == [param]:
        return new[0][0]
    return None


def similar_successor(param: str, first: list[list[str]], last: list[list[str]], newest: list[list[str]]) -> str | None:
    """The keyword that grew up beside ``param`` and replaced it (``a_min`` -> ``min``): accepted by the last release
    that took ``param`` and by the newest, absent when ``param`` appeared, and its name contained in ``param``'s (or
    the other way round) or nearly equal to it; None unless exactly one fits."""
    existing = {p[0] for p in first}
    candidates = [name for name, kind, _ in newest if kind in ("pk", "kw") and name not in existing
                  and keyword_state(last, name) == "ok"]
    fits = [name for name in candidates if similar_names(name, param)]
    return fits[0] if len(fits) == 1 else None


def similar_names(a: str, b: str) -> bool:
    """``a_min``/``min``, ``init_value``/``init_values``, ``maxiter``/``max_iterations``: a rename, not a different
    parameter that happens to sit at the same position (``subscripts``/``preferred_element_type``)."""
    import difflib

    return ((min(len(a), len(b)) >= 3 and (a in b or b in a))
            or difflib.SequenceMatcher(None, a, b).ratio() >= 0.6)


def parameter_diff(versions: list[str], snaps: dict[str, dict]) -> list[Parameter]:
    """Keywords of public functions (still public in the newest release) that the newest release rejects."""
    newest = snaps[versions[-1]]
    rows: list[Parameter] = []
    for mod, m in sorted(newest["modules"].items()):
        for fn, new_sig in sorted(m.get("signatures", {}).items()):
            if any(kind == "varkw" for _, kind, _ in new_sig) or fn in m["deprecations"]:
                continue
            sigs = [snaps[v]["modules"].get(mod, {}).get("signatures", {}).get(fn) for v in versions]
            params = sorted({p[0] for sig in sigs if sig for p in sig if p[1] in ("pk", "kw")} -
                            {p[0] for p in new_sig if p[1] in ("pk", "kw")})
            for param in params:
                if param.startswith("_"):
                    continue
                states = [keyword_state(sig, param) for sig in sigs]
                accepted = [i for i, st in enumerate(states) if st in ("ok", "deprecated")]
                if not accepted:
                    continue
                last = accepted[-1]
                gone = next((i for i in range(last + 1, len(versions)) if states[i] == "gone"), None)
                if gone is None:
                    continue
                # the deprecated run right before the removal (unknown releases do not break it)
                first_dep = None
                for i in range(last, -1, -1):
                    if states[i] == "deprecated":
                        first_dep = i
                    elif states[i] is not None:
                        break
                changed = first_dep if first_dep is not None else gone
                prev = next((i for i in range(changed - 1, -1, -1) if states[i] in ("ok", "deprecated")), None)
                replacement = None
                if prev is not None and sigs[changed] is not None:
                    replacement = renamed_to(sigs[prev], sigs[changed], param)
                    # a different parameter at the same position is not a rename
                    replacement = replacement if replacement and similar_names(replacement, param) else None
                if replacement is None or keyword_state(new_sig, replacement) != "ok":
                    replacement = similar_successor(param, sigs[accepted[0]], sigs[last], new_sig)
                positional_only = any(p[0] == param and p[1] == "po" for p in new_sig)
                row = Parameter(name=f"{mod}.{fn}", parameter=param, removed_in=versions[gone],
                                last_seen=versions[last],
                                first_seen=run_start(versions, [st is not None and st != "gone" for st in states]),
                                change="positional-only" if positional_only else "removed",
                                deprecated_in=versions[first_dep] if first_dep is not None else None)
                if replacement and keyword_state(new_sig, replacement) == "ok":
                    row.change = "renamed"
                    row.replacement = replacement
                    since_i = len(versions) - 1
                    while since_i > 0 and keyword_state(sigs[since_i - 1], replacement) == "ok":
                        since_i -= 1
                    row.replacement_since = versions[since_i]
                rows.append(row)
    return rows
