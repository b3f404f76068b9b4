"""The APIs whose result changed type (``rules/return_types.toml``, written by ``tools/generate_return_types.py``
from runs on both sides of each change), read for JAX207."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from jaxlint.catalogue import RULES_DIR, read_toml

DATA = RULES_DIR / "return_types.toml"
INDEX, KEY = "[index]", "[key]"  # ``r[0]``; a mapping's subscript (``r["flops"]``, ``r[("kernel",)]``)


@dataclass(frozen=True)
class ReturnType:
    api: str  # the call chain whose result changed: ``jax.stages.Compiled.cost_analysis()``
    library: str
    last_old: str
    changed_in: str
    old_env: str
    new_env: str
    old_type: str
    new_type: str
    old_name: str
    new_name: str
    old_iterates: str
    new_iterates: str
    missing: tuple[str, ...]
    differs: tuple[str, ...]
    drop_in: str
    drop_in_executed: str
    advice: str
    source: str
    # a ``Class[key]`` row: the literal keys under which the subscript is the changed result (``nnx.state(m)["kernel"]``
    # is a variable; another key may be a nested ``State``)
    keys: tuple[str, ...] = ()

    @property
    def attributes(self) -> frozenset[str]:
        return frozenset(m for m in self.missing if not m.startswith("["))


@lru_cache(maxsize=1)
def return_types() -> dict[str, ReturnType]:
    """``api`` -> its row."""
    data = read_toml(DATA)
    return {row["api"]: ReturnType(**{**row, "missing": tuple(row["missing"]), "differs": tuple(row["differs"]),
                                      "keys": tuple(row.get("keys", ()))})
            for row in data.get("return_type", [])}
