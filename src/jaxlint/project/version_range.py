"""The edges of what jaxlint knows: a version range reaching past the releases its catalogue describes.

Below the oldest release the catalogue knows, jaxlint cannot tell whether a replacement existed, nor whether an
argument was spelled the same: every rule withholds its fixes there (the findings stay), so that ``--fix`` behaves
the same in every rule. Past the newest release, the findings are those of the newest: later removals are unknown.
Both are said once, on stderr, and by ``--show-settings``.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import TYPE_CHECKING

import jaxlint
from jaxlint.project.versions import Version

if TYPE_CHECKING:
    from jaxlint.project.settings import Settings


@lru_cache(maxsize=1)
def known_range() -> tuple[Version, Version]:
    """The oldest and the newest release the catalogue describes: read from the first lines of ``generated.toml``
    (where the catalogue itself reads them), so that the warning at the start of every run does not load the whole
    catalogue, which a warm run over cached files never needs (~30 ms); from the catalogue if they are not there."""
    header = _header_range(_generated_file())
    if header is not None:
        return header
    from jaxlint.catalogue import load

    catalogue = load()
    return Version(catalogue.first_version), Version(catalogue.newest_version)


def _generated_file() -> str:
    """``jaxlint.catalogue.GENERATED``, found without importing that module (its dataclasses take ~12 ms): the
    packaged ``jaxlint/_rules``, else the source checkout's ``rules/`` beside ``src/``."""
    package = os.path.dirname(os.path.realpath(jaxlint.__file__))
    packaged = os.path.join(package, "_rules", "generated.toml")
    if os.path.isfile(packaged):
        return packaged
    return os.path.join(os.path.dirname(os.path.dirname(package)), "rules", "generated.toml")


_HEADER_LINE = re.compile(r'(first_version|newest_version)\s*=\s*"([^"\\]+)"\s*$')


def _header_range(path: str) -> tuple[Version, Version] | None:
    """The two top-level keys, when they come before the first table in the file's first 4 KiB."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    found: dict[str, str] = {}
    for line in head.splitlines():
        if line.startswith("["):
            break
        match = _HEADER_LINE.match(line)
        if match:
            found[match.group(1)] = match.group(2)
    if len(found) != 2:
        return None
    return Version(found["first_version"]), Version(found["newest_version"])


def fixes_allowed(settings: "Settings") -> bool:
    """False when the min version is older than every release jaxlint knows."""
    return settings.min_version >= known_range()[0]


def below_known_range(settings: "Settings") -> "WithheldFix":
    """The reason every fix is withheld when the min version lies below what jaxlint knows."""
    from jaxlint.lint.diagnostics import WithheldFix

    oldest = known_range()[0]
    return WithheldFix(f"the min version {settings.min_version} ({settings.min_version_source}) is older than "
                       f"{oldest}, the oldest JAX release jaxlint knows", str(oldest))


def range_warnings(settings: "Settings") -> list[str]:
    """One line per edge the settings cross (empty when the range lies within what jaxlint knows), and one per pin
    file of the package that could not be read (its pins are missing from the range)."""
    oldest, newest = known_range()
    lines = list(settings.pinned.warnings) if settings.pinned is not None else []
    if settings.min_version < oldest:
        lines.append(f"the min version {settings.min_version} is older than the oldest JAX release jaxlint knows "
                     f"({oldest}): no fix is offered (findings are still reported)")
    if settings.target_version > newest:
        lines.append(f"the target version {settings.target_version} is newer than the newest JAX release jaxlint "
                     f"knows ({newest}): findings are those of {newest}")
    return lines


def describe(settings: "Settings") -> str:
    """The ``--show-settings`` line: what the range means for fixes."""
    oldest, newest = known_range()
    if not fixes_allowed(settings):
        return f"none: the min version is older than {oldest}, the oldest JAX release jaxlint knows"
    if settings.target_version > newest:
        return f"as for {newest}, the newest JAX release jaxlint knows (findings are those of {newest})"
    return f"valid on every JAX release from {settings.min_version} to {settings.target_version}"
