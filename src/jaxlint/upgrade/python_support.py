"""Which Python each JAX release runs on: the ``Requires-Python`` of jax's releases on PyPI.

Source: the ``data-requires-python`` of every ``jax`` file on PyPI's simple index (PEP 503/592), read through pip's
own index client on 2026-12-05 for 0.0 to 0.12.0.1. Each row is the first release of a new floor; a release has the
floor of the last row at or below it. Releases newer than ``KNOWN_UNTIL`` are not known (no check is made).
"""
from __future__ import annotations

from jaxlint.project.versions import Version

SOURCE = "jax's Requires-Python on PyPI (read 2026-12-05)"
KNOWN_UNTIL = Version("0.12.0.1")

# (first jax release with this floor, the oldest Python it supports)
_FLOORS = (
    ("0.1.57", "3.5"),
    ("0.1.62", "3.6"),
    ("0.2.18", "3.7"),
    ("0.4.0", "3.8"),
    ("0.4.14", "3.9"),
    ("0.4.31", "3.10"),
    ("0.7.0", "3.11"),
    ("0.11.0", "3.12"),
)


def oldest_python(jax: Version) -> Version | None:
    """The oldest Python ``jax`` supports; None when jaxlint does not know (too new, or older than any floor)."""
    if jax > KNOWN_UNTIL:
        return None
    found = None
    for first, python in _FLOORS:
        if jax >= Version(first):
            found = Version(python)
    return found
