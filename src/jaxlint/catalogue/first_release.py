"""The first JAX release of each public name (``rules/first_release.toml``, generated from the wheels by
``tools/generate_catalogue.py``): what the effective floor of a project's code is read from.

A name reached as ``a.b.c`` needs the release that added the longest of ``a.b.c``, ``a.b``, ``a`` the file records
(an attribute of ``jax.export`` needs ``jax.export``). A name the file does not know (older than its
``first_version``, private, removed, or not JAX's) needs nothing that can be said.
"""
from __future__ import annotations

from functools import lru_cache

from jaxlint.catalogue import RULES_DIR
from jaxlint.project.toml_parser import toml_parser
from jaxlint.project.versions import Version

DATA = RULES_DIR / "first_release.toml"


@lru_cache(maxsize=1)
def first_releases() -> dict[str, Version]:
    """``name -> the release that added it``; empty when the file is missing (a build without the rule data).
    Every run that checks a file reads it (the effective-floor note), so it is kept as JSON in the user's cache
    folder beside the catalogue's copy, and each release is one ``Version`` (3,000 names, 60 releases: parsing the
    TOML and a ``Version`` per name cost a one-file check 40 ms)."""
    releases = _releases_by_version()
    versions = {text: Version(text) for text in releases}
    return {name: versions[text] for text, names in releases.items() for name in names}


def _releases_by_version() -> dict[str, list[str]]:
    from jaxlint.catalogue import _cache_file, _stamp, read_stamped, write_stamped

    if not DATA.is_file():
        return {}
    cache, stamp = _cache_file((DATA,), "first-release"), _stamp((DATA,))
    cached = read_stamped(cache, stamp)
    releases = cached.get("releases") if cached is not None else None
    if isinstance(releases, dict) and all(isinstance(names, list) for names in releases.values()):
        return releases
    with open(DATA, "rb") as handle:
        data = toml_parser().load(handle)
    releases = {}
    for block in data.get("release", ()):
        releases.setdefault(block["version"], []).extend(block["names"])
    write_stamped(cache, stamp, releases=releases)
    return releases


def first_release(qualified: str) -> tuple[str, Version] | None:
    """(the recorded name ``qualified`` needs, its first release), or None when nothing recorded is needed."""
    table = first_releases()
    parts = qualified.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in table:
            return name, table[name]
    return None
