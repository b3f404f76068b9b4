"""The behaviour changes of JAX APIs that are still there (``rules/behaviour.toml``): a default, a validation or a
result type that changed in a release. JAX601 reports the uses its static patterns recognise; ``jaxlint upgrade``
lists the others (``match = "none"``) as changes to check by hand."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from jaxlint.catalogue import RULES_DIR

DATA = RULES_DIR / "behaviour.toml"
# How a use is recognised: the keyword absent (its default changed), present, or given one of ``values``; the
# positional argument at ``position`` written as one of ``values`` (``number``: a numeric literal); ``none``: no
# static pattern (the change depends on the values' dtype or shape).
MATCHES = ("keyword-absent", "keyword-present", "keyword-value", "argument-value", "none")


@dataclass(frozen=True)
class Change:
    api: str
    changed_in: str
    match: str
    what: str
    keep_old: str
    reason: str
    example: str
    example_old_version: str
    example_new_version: str
    example_old_result: str
    example_new_result: str
    executed: bool
    keyword: str | None = None
    # the keyword must be absent too (``dctn(s=...)`` without ``axes``)
    absent: str | None = None
    position: int | None = None
    values: tuple[str, ...] = ()
    # at least this many positional arguments (``arange(start, stop, step, ...)``: the step is given)
    requires_positional: int | None = None
    # not where the first argument is a literal 1-D array (``jnp.unique(jnp.array([2, 1, 2]), return_inverse=True)``:
    # a flat input has flat inverse indices on both sides of the change)
    unless_flat_argument: bool = False
    example_note: str | None = None

    @property
    def recognisable(self) -> bool:
        return self.match != "none"


@lru_cache(maxsize=1)
def changes() -> tuple[Change, ...]:
    with DATA.open("rb") as handle:
        rows = tomllib.load(handle).get("change", [])
    found = []
    for row in rows:
        if row.get("match") not in MATCHES:
            raise ValueError(f"rules/behaviour.toml: {row.get('api')}: unknown match {row.get('match')!r}")
        found.append(Change(**{**row, "values": tuple(row.get("values", ()))}))
    return tuple(found)


def recognisable() -> dict[str, Change]:
    """The rows JAX601 reports, by API."""
    return {change.api: change for change in changes() if change.recognisable}


def by_hand() -> tuple[Change, ...]:
    """The rows no static pattern recognises."""
    return tuple(change for change in changes() if not change.recognisable)
