"""'Same object' answers confirmed at run time: both names imported in a venv of the release the static check used."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from catalogue_gen.name_diff import Entry
from catalogue_gen.releases import vkey
from catalogue_gen.resolve import probe
from catalogue_gen.venvs import build_venvs

# Names are reached as user code reaches them (catalogue_gen/resolve.py, shared with the execution test and the
# recall oracle).
RUNTIME_PROBE = probe(r"""
import json, sys, warnings
warnings.simplefilter("ignore")
def safe(dotted):
    try:
        return True, get(dotted)
    except Exception as exc:
        return False, repr(exc)
pairs = json.load(sys.stdin)
# every new name first: importing an old name's deprecated submodule (jax/config.py) may rebind a package attribute
new = [safe(n) for _, n in pairs]
old = [safe(o) for o, _ in pairs]
print(json.dumps([(a[1] is b[1]) if a[0] and b[0] else (a[1] if not a[0] else b[1]) for a, b in zip(old, new)]))
""")


def static_groups(entries: list[Entry]) -> dict[str, list[tuple[Entry, str, str]]]:
    """Version -> the 'same object' questions answered statically in that release."""
    by_version: dict[str, list[tuple[Entry, str, str]]] = {}
    for e in entries:
        if e.same_object_checked and e.same_object_checked.startswith("static:"):
            v = e.same_object_checked.split(":", 1)[1]
            by_version.setdefault(v, []).append((e, "same_object", e.replacement))
            if e.any_version_replacement:
                by_version[v].append((e, "any_version_same_object", e.any_version_replacement))
    return by_version


def previous_runtime_answers(out: Path) -> dict[str, dict]:
    """The symbol rows of the last generated file whose 'same object' answer was confirmed at run time."""
    if not out.exists():
        return {}
    import tomllib

    with open(out, "rb") as fh:
        rows = tomllib.load(fh).get("symbol", [])
    return {r["name"]: r for r in rows if str(r.get("same_object_checked", "")).startswith("runtime:")}


def reuse_runtime_answers(group: list[tuple[Entry, str, str]], version: str, previous: dict[str, dict]) -> int:
    """Without a venv of ``version``, keep the run-time answers an earlier run recorded for the very same question
    (same name, same replacement, same release); returns how many were kept."""
    kept = 0
    for e, attr, target in group:
        row = previous.get(e.name)
        if row is None or row.get("same_object_checked") != f"runtime:{version}":
            continue
        key = "replacement" if attr == "same_object" else "any_version_replacement"
        if row.get(key) != target or attr not in row:
            continue
        setattr(e, attr, row[attr])
        if attr == "same_object":
            e.same_object_checked = f"runtime:{version}"
        kept += 1
    return kept


def runtime_check(entries: list[Entry], jaxenvs: Path | None, build: bool = False,
                  previous: dict[str, dict] | None = None) -> float:
    """Confirm ``same_object`` by importing both names in a venv of the release the static check used.

    With ``build``, the missing venvs of exactly those releases are created first (``build_venvs``); returns the
    seconds that took.
    """
    built = build_venvs(jaxenvs, list(static_groups(entries))) if build and jaxenvs is not None else 0.0
    by_version = static_groups(entries)
    for v, group in sorted(by_version.items(), key=lambda kv: vkey(kv[0])):
        python = jaxenvs / f"jax-{v}" / "bin" / "python" if jaxenvs is not None else None
        if python is None or not (jaxenvs / f"jax-{v}" / ".complete").exists():
            kept = reuse_runtime_answers(group, v, previous or {})
            print(f"  no venv for jax {v}: {len(group) - kept} 'same object' answers stay static"
                  + (f", {kept} kept from the previous run's run-time check" if kept else ""), file=sys.stderr)
            continue
        proc = subprocess.run([str(python), "-c", RUNTIME_PROBE], input=json.dumps([[e.name, t] for e, _, t in group]),
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"runtime check in jax {v} failed: {proc.stderr[-500:]}", file=sys.stderr)
            continue
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        for (e, attr, target), r in zip(group, result):
            if isinstance(r, bool):
                if r != getattr(e, attr):
                    print(f"  {e.name} -> {target}: static {getattr(e, attr)}, runtime {r} (jax {v})", file=sys.stderr)
                setattr(e, attr, r)
                if attr == "same_object":
                    e.same_object_checked = f"runtime:{v}"
            else:
                print(f"  {e.name} -> {target}: {r} (jax {v})", file=sys.stderr)
    return built
