"""The members of flax's ``FrozenDict`` that the plain ``dict`` of flax 0.7.1's ``init``/``apply`` results lacks or
means otherwise (``rules/flax_frozendict.toml``, written by ``tools/generate_frozendict_members.py`` from the flax
wheels and the interpreter's ``dict``), read for JAX508."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from jaxlint.catalogue import RULES_DIR, read_toml

DATA = RULES_DIR / "flax_frozendict.toml"


@dataclass(frozen=True)
class Member:
    """One member of ``FrozenDict``: ``missing`` on a dict, or there with another meaning (``differs``)."""

    name: str
    change: str
    signature: str
    first_seen: str
    last_seen: str
    meaning: str | None = None
    # The ``flax.core`` function that does on both types what the method did on a FrozenDict, and the first flax
    # release read that has it (``function_since_is_oldest_read``: no older release was read, so no floor is known).
    function: str | None = None
    function_since: str | None = None
    function_since_is_oldest_read: bool = False


@lru_cache(maxsize=1)
def members() -> dict[str, Member]:
    data = read_toml(DATA)
    return {row["name"]: Member(**row) for row in data.get("member", [])}


@lru_cache(maxsize=1)
def sources() -> dict[str, str]:
    """Where each list was read (shown in the rule's docs)."""
    data = read_toml(DATA)
    return {key: data[key] for key in ("frozendict_source", "dict_source", "functions_source")}
