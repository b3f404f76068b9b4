"""Which blocking dependencies the upgraded project still needs. Step 3 found them through the releases installed
now; a dependency that only an old release of another one required (chex, for optax 0.2.1) is gone once that one
moves to its fixed release (optax 0.2.8 requires no chex), and a pin raise for it would be noise. The walk is
``import_graph.reachable``'s through Requires-Dist only (what a resolver installs), from what the project imports
and pins, with each blocking dependency's fixed release in place of the installed one (its Requires-Dist, read from
the wheel step 3 linted)."""
from __future__ import annotations

import re
from typing import Iterable

from jaxlint.upgrade.environment import Distribution, normalize
from jaxlint.upgrade.import_graph import reachable

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _required_names(requires: Iterable[str]) -> set[str]:
    """The distributions a list of Requires-Dist names, less those of an extra (not installed unless asked)."""
    names = set()
    for requirement in requires:
        if "extra" in requirement.partition(";")[2]:
            continue
        found = _NAME.match(requirement)
        if found:
            names.add(normalize(found.group(1)))
    return names


def mark_no_longer_needed(results, distributions: Iterable[Distribution], imported: set[str],
                          declared: Iterable[str]) -> None:
    """Set ``no_longer_needed`` on each blocking result (``DependencyResult``) that nothing reaches once every
    blocking dependency with a fixed release is at that release, with who required it before. Nothing is said
    where a fixed release's Requires-Dist is not known (a release cache of an older jaxlint, ``--no-index``)."""
    blocking = [r for r in results if r.blocking]
    changed = {normalize(r.name): r for r in blocking if r.fixed_in}
    if not changed or any(r.fixed_requires is None for r in changed.values()):
        return
    distributions = list(distributions)
    declared = list(declared)
    upgraded = [Distribution(d.name, changed[d.key].fixed_in, list(changed[d.key].fixed_requires), [], d.top_level)
                if d.key in changed else d for d in distributions]
    # What a resolver installs: Requires-Dist, not the imports read in files (etils imports chex where it is
    # installed, and does not require it). A dependency reached now only through such an import is not judged.
    now = {d.key for d in reachable(distributions, imported, declared, read_files=False)}
    after = {d.key for d in reachable(upgraded, imported, declared, read_files=False)}
    for result in blocking:
        key = normalize(result.name)
        if key not in now or key in after:
            continue  # still needed (or not required now either: nothing to say)
        before = sorted(f"{d.name} {d.version}" for d in distributions
                        if d.key in now and key in _required_names(d.requires))
        dropped = sorted(f"{changed[d.key].name} {changed[d.key].fixed_in}" for d in distributions
                         if d.key in changed and key in _required_names(d.requires))
        result.no_longer_needed = (
            f"no longer needed: {' and '.join(dropped) or 'the upgraded releases'}, the release(s) proposed, "
            f"{'does' if len(dropped) == 1 else 'do'} not require {result.name}"
            + (f" ({', '.join(before)} did)" if before else "")
            + ", and the project neither imports nor pins it")
