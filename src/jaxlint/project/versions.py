"""JAX versions: parsing, comparison and the releases jaxlint knows about."""
from __future__ import annotations

import re
from functools import lru_cache

_VERSION_RE = re.compile(r"^\d+(\.\d+){0,3}$")


class Version:
    """A dotted JAX release number such as ``0.11.1`` or ``0.12.0.1`` (missing parts compare as 0)."""

    # ``key``: the parts padded to four, computed once: versions are compared in every file's lint (the rules'
    # ranges, the effective-floor note), and ``functools.total_ordering``'s derived operators with a key built per
    # call were 0.2 of the 3.5 profiled CPU-s of the older dev corpus.
    __slots__ = ("parts", "text", "key")

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
        self.key = parts + (0,) * (4 - len(parts))

    def __eq__(self, other: object) -> bool:
        return self.key == _key_of(other)

    def __lt__(self, other: "Version | str") -> bool:
        key = _key_of(other)
        return NotImplemented if key is None else self.key < key

    def __le__(self, other: "Version | str") -> bool:
        key = _key_of(other)
        return NotImplemented if key is None else self.key <= key

    def __gt__(self, other: "Version | str") -> bool:
        key = _key_of(other)
        return NotImplemented if key is None else self.key > key

    def __ge__(self, other: "Version | str") -> bool:
        key = _key_of(other)
        return NotImplemented if key is None else self.key >= key

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Version({self.text!r})"


def _key_of(other: object) -> tuple[int, ...] | None:
    """The comparison key of a ``Version`` or of a version's text; None for anything else (not comparable)."""
    if isinstance(other, Version):
        return other.key
    return Version(other).key if isinstance(other, str) else None


def parse_version(text: "str | Version") -> Version:
    return text if isinstance(text, Version) else _parsed(text)


@lru_cache(maxsize=1024)
def _parsed(text: str) -> Version:
    """Parsed once per text (rules ask for their ``since`` for every file); a ``Version`` is never changed after it
    is built, so one object can serve every caller."""
    return Version(text)


# The newest release the rule catalogue describes: the default --target-version.
NEWEST_KNOWN = Version("0.12.0.1")
