"""JAX versions: parsing, comparison and the releases jaxlint knows about."""
from __future__ import annotations

import re
from functools import lru_cache, total_ordering

_VERSION_RE = re.compile(r"^\d+(\.\d+){0,3}$")


@total_ordering
class Version:
    """A dotted JAX release number such as ``0.11.1`` or ``0.12.0.1`` (missing parts compare as 0)."""

    __slots__ = ("parts", "text")

    def __init__(self, text: str) -> None:
        text = str(text).strip()
        if not _VERSION_RE.match(text):
            raise ValueError(f"not a JAX version: {text!r} (expected something like 0.11.1)")
        self.text = text
        parts = tuple(int(p) for p in text.split("."))
        # Normalise trailing zeros so 0.11 == 0.11.0.
        while len(parts) > 1 and parts[-1] == 0:
            parts = parts[:-1]
        self.parts = parts

    def _key(self) -> tuple[int, ...]:
        return self.parts + (0,) * (4 - len(self.parts))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = Version(other)
        return isinstance(other, Version) and self._key() == other._key()

    def __lt__(self, other: "Version | str") -> bool:
        if isinstance(other, str):
            other = Version(other)
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Version({self.text!r})"


def parse_version(text: "str | Version") -> Version:
    return text if isinstance(text, Version) else _parsed(text)


@lru_cache(maxsize=1024)
def _parsed(text: str) -> Version:
    """Parsed once per text (rules ask for their ``since`` for every file); a ``Version`` is never changed after it
    is built, so one object can serve every caller."""
    return Version(text)


# The newest release the rule catalogue describes: the default --target-version.
NEWEST_KNOWN = Version("0.12.0.1")
