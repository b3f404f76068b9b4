"""The summary line about fixes the version range withholds: how many, the min version they need, and the min
version the project supports with the pin that sets it (``23 more fixes need JAX >= 0.4.25; this project supports
0.4.6 (requirements.txt:1)``). Built from the findings' ``fix_withheld.needs_min_version``."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from jaxlint.project.versions import parse_version
from jaxlint.run.results import FileResult


def withheld_line(results: Sequence[FileResult]) -> str | None:
    """None when no finding's fix waits for a newer min version."""
    needs: Counter[str] = Counter()
    floors: dict[tuple[str, str], None] = {}  # the files' (min version, where it comes from), in order
    for result in results:
        for diagnostic in result.diagnostics:
            withheld = diagnostic.fix_withheld
            if withheld is None or withheld.needs_min_version is None:
                continue
            needs[withheld.needs_min_version] += 1
            if result.version_floor is not None:
                floors[result.version_floor] = None
    if not needs:
        return None
    total = sum(needs.values())
    head = f"{total} more fix{'es' if total != 1 else ''} need{'s' if total == 1 else ''}"
    if len(needs) == 1:
        text = f"{head} JAX >= {next(iter(needs))}"
    else:  # per needed version, oldest first: raising the floor to the first one unlocks those
        versions = sorted(needs, key=parse_version)
        text = f"{head} a newer min version (" + ", ".join(f"{needs[v]} JAX >= {v}" for v in versions) + ")"
    if not floors:
        return text
    supported = ", ".join(f"{version} ({origin})" for version, origin in
                          sorted(floors, key=lambda floor: (parse_version(floor[0]), floor[1])))
    return f"{text}; {'this project supports' if len(floors) == 1 else 'its packages support'} {supported}"
