"""Methods of public flax/optax classes whose calling convention changed, found in the snapshots' signatures (the
keyword diff, ``parameter_diff``, sees neither: no keyword went away).

- ``instance-method``: a static method (no ``self``/``cls``) that became a method of the instance. Called on the
  class as before (``nn.LSTMCell.initialize_carry(rng, batch_dims, size)``), its first argument becomes ``self``.
- ``now-required``: a method that kept its kind but requires more positional arguments than before (flax 0.11.0's
  ``nnx.Optimizer.update(model, grads)``, ``update(grads)`` before): a call with the old count fails.
- ``removed-attribute``: an attribute the old ``__init__`` stored and the newest class's ``__getattr__`` refuses
  with an ``AttributeError`` (flax 0.11.0's ``optimizer.model``): ``message`` is the library's.

A row holds only when the old form ran up to ``last_seen`` and every release from ``changed_in`` to the newest has
the new one (releases whose signature is unknown neither break nor prove it).
"""
from __future__ import annotations

from dataclasses import dataclass

from catalogue_gen.toml_writer import toml_value


@dataclass
class MethodChange:
    name: str  # ``flax.linen.LSTMCell.initialize_carry``: module, class, method
    library: str
    method_of: str
    change: str  # "instance-method" or "now-required"
    changed_in: str
    first_seen: str  # first release of the old form's last run
    last_seen: str
    parameter: str | None = None  # now-required: the first parameter the old count leaves out
    required: int | None = None  # now-required: the positional arguments the newest requires (``self`` aside)
    was_required: int | None = None  # ... and the old form did
    message: str | None = None  # removed-attribute: the AttributeError's text

    def toml(self) -> str:
        lines = ["[[method_change]]"]
        for key in ("name", "library", "method_of", "change", "changed_in", "first_seen", "last_seen", "parameter",
                    "required", "was_required", "message"):
            value = getattr(self, key)
            if value is not None:
                lines.append(f"{key} = {toml_value(value)}")
        return "\n".join(lines)


def required(sig: list[list[str]]) -> list[str] | None:
    """The positional parameters without a default; None when ``*args`` takes any count."""
    if any(kind == "var" for _, kind, _ in sig):
        return None
    return [name for name, kind, default in sig if kind in ("po", "pk") and not default]


def form(sig: list[list[str]] | None, decorated: str | None, change: str) -> object:
    """What ``change`` compares between releases: the method's kind (``decorated``: the snapshot's
    ``method_kinds``, ``static``/``class``; else a method of the instance), or its kind and required parameters."""
    if sig is None:
        return None
    kind = decorated or "instance"
    if change == "instance-method":
        return kind
    if kind != "static":
        sig = sig[1:]  # the receiver, whatever its name
    names = required(sig)
    return None if names is None else (kind, len(names), tuple(names))


def method_changes(library: str, versions: list[str], snaps: dict[str, dict]) -> list[MethodChange]:
    rows: list[MethodChange] = []
    newest = snaps[versions[-1]]
    for mod, m in sorted(newest["modules"].items()):
        for fn, new_sig in sorted(m.get("signatures", {}).items()):
            owner, _, method = fn.partition(".")
            if not method or "." in method or owner.startswith("_") or method.startswith("_"):
                continue
            sigs = [snaps[v]["modules"].get(mod, {}).get("signatures", {}).get(fn) for v in versions]
            kinds = [snaps[v]["modules"].get(mod, {}).get("method_kinds", {}).get(fn) for v in versions]
            for change in ("instance-method", "now-required"):
                row = _row(change, versions, sigs, kinds)
                if row is not None:
                    rows.append(MethodChange(name=f"{mod}.{fn}", library=library, method_of=owner, change=change, **row))
        for owner, (_, refused) in sorted(m.get("attributes", {}).items()):
            for attribute, message in sorted(refused.items()):
                row = _removed_attribute(versions, snaps, mod, owner, attribute)
                if row is not None and not owner.startswith("_"):
                    rows.append(MethodChange(name=f"{mod}.{owner}.{attribute}", library=library, method_of=owner,
                                             change="removed-attribute", message=message, **row))
    return rows


def _removed_attribute(versions: list[str], snaps: dict[str, dict], mod: str, owner: str, attribute: str) -> dict | None:
    """The releases where ``__init__`` stored ``attribute`` (the last run), and the first after them."""
    stored = [attribute in snaps[v]["modules"].get(mod, {}).get("attributes", {}).get(owner, [[], {}])[0]
              for v in versions]
    if True not in stored:
        return None
    last = len(stored) - 1 - stored[::-1].index(True)
    if last == len(versions) - 1:
        return None
    start = last
    while start > 0 and stored[start - 1]:
        start -= 1
    return {"changed_in": versions[last + 1], "first_seen": versions[start], "last_seen": versions[last]}


def _row(change: str, versions: list[str], sigs: list, kinds: list) -> dict | None:
    forms = [form(sig, kind, change) for sig, kind in zip(sigs, kinds)]
    new = forms[-1]
    if new is None:
        return None
    # the last release with another form; every known one after it has the newest's
    old_at = next((i for i in range(len(versions) - 1, -1, -1) if forms[i] is not None and forms[i] != new), None)
    if old_at is None:
        return None
    changed_at = next(i for i in range(old_at + 1, len(versions)) if forms[i] is not None)
    old = forms[old_at]
    start = old_at
    while start > 0 and forms[start - 1] in (old, None) and sigs[start - 1] is not None:
        start -= 1
    found = {"changed_in": versions[changed_at], "first_seen": versions[start], "last_seen": versions[old_at]}
    if change == "instance-method":
        return found if (old, new) == ("static", "instance") else None
    (old_kind, old_count, old_names), (new_kind, new_count, new_names) = old, new
    if old_kind != new_kind or old_kind == "static" or new_count <= old_count:
        return None
    # the first parameter a call with the old count leaves out: where the names part
    missing = next((name for name, was in zip(new_names, old_names) if name != was), new_names[old_count])
    return {**found, "parameter": missing, "required": new_count, "was_required": old_count}
