"""The first JAX release of each public name (``rules/first_release.toml``, generated from the wheels by
``tools/generate_catalogue.py``): what the effective floor of a project's code is read from.

A name reached as ``a.b.c`` needs the release that added the longest of ``a.b.c``, ``a.b``, ``a`` the file records
(an attribute of ``jax.export`` needs ``jax.export``). A name the file does not know (older than its
``first_version``, private, removed, or not JAX's) needs nothing that can be said.
"""
from __future__ import annotations

import tomllib
from functools import lru_cache

from jaxlint.catalogue import RULES_DIR
from jaxlint.project.versions import Version

DATA = RULES_DIR / "first_release.toml"


@lru_cache(maxsize=1)
def first_releases() -> dict[str, Version]:
    """``name -> the release that added it``; empty when the file is missing (a build without the rule data)."""
    try:
        with open(DATA, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    return {name: Version(block["version"]) for block in data.get("release", ()) for name in block["names"]}


def first_release(qualified: str) -> tuple[str, Version] | None:
    """(the recorded name ``qualified`` needs, its first release), or None when nothing recorded is needed."""
    table = first_releases()
    parts = qualified.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in table:
            return name, table[name]
    return None
