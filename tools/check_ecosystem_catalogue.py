"""Check the optax rows of ``jaxlint.catalogue.ecosystem`` against the released wheels (statically: nothing is
imported).

Each wheel is read as the generators read it (``catalogue_gen.ecosystem.snapshot``: imports followed to their
definition, star imports, ``_deprecations`` tables, functions that always warn), so a name resolves here exactly as
it does in ``rules/ecosystem_generated.toml``. For each row: the name works in the release before ``since``; a
removed name no longer works at ``since``; a deprecated one is in a ``_deprecations`` table at ``since`` or warns in
its body; the replacement exists at ``replacement_since``.

Usage: ``python tools/check_ecosystem_catalogue.py [WHEEL_DIR]``: the optax wheels there are the releases (default:
the ecosystem generator's cache, ``tools/.wheels/ecosystem``); a release a row names is downloaded there with pip when
missing. Exit 1 when a row disagrees with a wheel.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalogue_gen import ecosystem  # noqa: E402
from catalogue_gen.releases import vkey  # noqa: E402
from catalogue_gen.snapshot import exists, state_of  # noqa: E402

from jaxlint.catalogue.ecosystem import OPTAX  # noqa: E402


def works(snap: dict, dotted: str) -> bool:
    """Reachable in that release, with or without a deprecation warning."""
    mod, _, name = dotted.rpartition(".")
    return exists(snap, dotted) or state_of(snap, mod, name) == "deprecated"


def warns(snap: dict, dotted: str) -> bool:
    mod, _, name = dotted.rpartition(".")
    return state_of(snap, mod, name) == "deprecated" or name in snap["modules"].get(mod, {}).get("warned", {})


def check(folder: Path) -> list[str]:
    named = {v for change in OPTAX.values() for v in (change.since, change.replacement_since) if v}
    for version in sorted(named, key=vkey):
        if ecosystem.download(sys.executable, folder, "optax", version) is None:
            raise SystemExit(f"no wheel of optax {version}")
    wheels = {p.name.split("-")[1]: p for p in folder.glob("optax-*.whl")}
    releases = sorted(wheels, key=vkey)
    snaps = {v: ecosystem.load_snapshot(folder, "optax", v, wheels[v]) for v in releases}
    problems = []
    for change in OPTAX.values():
        index = releases.index(change.since)
        if index == 0:
            problems.append(f"{change.name}: since {change.since}, the first release on hand")
        elif not works(snaps[releases[index - 1]], change.name):
            problems.append(f"{change.name}: does not work in optax {releases[index - 1]}")
        at_since = snaps[change.since]
        if change.status == "removed" and works(at_since, change.name):
            problems.append(f"{change.name}: still works in optax {change.since}")
        if change.status == "deprecated" and not warns(at_since, change.name):
            problems.append(f"{change.name}: no deprecation in optax {change.since}")
        if change.replacement and change.replacement_since and \
                not exists(snaps[change.replacement_since], change.replacement):
            problems.append(f"{change.name}: {change.replacement} not in optax {change.replacement_since}")
    return problems


if __name__ == "__main__":
    problems = check(Path(sys.argv[1]) if len(sys.argv) > 1 else ecosystem.DEFAULT_CACHE)
    print("\n".join(problems) or f"{len(OPTAX)} optax rows agree with the wheels")
    sys.exit(1 if problems else 0)
