"""Whether each deprecated flax/optax name warns under default settings (``rules/ecosystem_warnings.toml``).

``tools/check_deprecation_warnings.py`` runs every name the wheels call deprecated in the newest flax/optax (and at
its ``since`` release where that installs) with ``warnings.simplefilter("default")`` and the library's default
configuration, and writes what it saw. JAX502/JAX506 report a deprecated name only when that run warned on the newest
release: ``flax.training.checkpoints.save_checkpoint`` warns only when ``flax_use_orbax_checkpointing`` is off (the
default is on), so a program that uses it sees no warning and the rules stay silent. A deprecated name with no
record is not reported either: deprecated means "it warns", proven by execution.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path

from jaxlint.catalogue import RULES_DIR, read_toml

WARNINGS = RULES_DIR / "ecosystem_warnings.toml"


@dataclass(frozen=True)
class WarningCheck:
    """One executed deprecated name: ``warns_by_default`` on ``checked_on`` (``flax 0.12.12``), ``checked`` the
    answer per release that ran, ``use`` the code that touched the name; ``condition`` the setting under which the
    release does warn when it does not by default (``warns_under_condition``: proven by a second run)."""

    name: str
    library: str
    warns_by_default: bool
    checked_on: str
    checked: dict = field(default_factory=dict)
    use: str = ""
    message: str | None = None
    condition: str | None = None
    warns_under_condition: bool | None = None

    def note(self) -> str:
        """The provenance a finding's detail carries."""
        return f"warns under default settings on {self.checked_on} (executed: `{self.use}`)"


@lru_cache(maxsize=4)
def checks(path: Path = WARNINGS) -> dict[str, WarningCheck]:
    """Every record by name; none when the file is missing (then no deprecated name is reported)."""
    if not path.is_file():
        return {}
    data = read_toml(path)
    known = {f.name for f in fields(WarningCheck)}
    return {row["name"]: WarningCheck(**{k: v for k, v in row.items() if k in known})
            for row in data.get("deprecation", ())}


def warns_by_default(name: str, path: Path = WARNINGS) -> bool:
    """Whether using ``name`` warns under default settings on the newest release (False: unchecked)."""
    record = checks(path).get(name)
    return bool(record and record.warns_by_default)
