"""The flax and optax rows generated from their wheels (``rules/ecosystem_generated.toml``, written by
``tools/generate_ecosystem_catalogue.py``), read for the ecosystem rules.

The hand-written table (``OPTAX`` in the ecosystem module) stays on top: it carries advice and the unsafe renames no
wheel can prove. ``changes`` turns the generated rows into that table's ``Change`` objects so the two merge with
``{**generated, **hand_written}``. ``parameters`` are the ``[[parameter]]`` rows: keywords a flax or optax function
stopped accepting (JAX507).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Callable, TypeVar


from jaxlint.catalogue import RULES_DIR, _cache_file, _stamp, read_stamped, restore_rows, write_stamped
from jaxlint.project.toml_parser import toml_parser

GENERATED = RULES_DIR / "ecosystem_generated.toml"
T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    """One generated row: a removed or deprecated flax/optax name (``kind="symbol"``) or module (``"module"``)."""

    name: str
    kind: str
    library: str
    module: str
    status: str
    since: str
    deprecated_since: str | None = None
    replacement: str | None = None
    replacement_since: str | None = None
    same_object: bool | None = None
    same_object_checked: str | None = None
    same_from: str | None = None  # the same object in every release from here up to the last with both names
    rename: str = ""
    first_seen: str | None = None
    last_seen: str | None = None
    import_fails_since: str | None = None
    within: str | None = None
    message: str | None = None
    source: str = "diff"


@dataclass(frozen=True)
class ParameterRow:
    """A keyword of a flax or optax function that a release stopped accepting (``[[parameter]]``): ``change`` is
    ``removed``, ``renamed`` (``replacement`` took its place, accepted from ``replacement_since``) or
    ``positional-only``. Versions are the library's."""

    name: str  # the function, as users spell it: ``optax.projections.projection_box``
    library: str
    parameter: str
    change: str
    removed_in: str
    first_seen: str | None = None
    last_seen: str | None = None
    deprecated_in: str | None = None
    replacement: str | None = None
    replacement_since: str | None = None
    method_of: str | None = None  # a method (``flax.linen.LSTMCell.initialize_carry``): its class (``LSTMCell``)

    @property
    def module(self) -> str:
        """The module the function (or the method's class) is a name of."""
        owner = f".{self.method_of}." if self.method_of else "."
        return self.name.rpartition(owner)[0]

    @property
    def function(self) -> str:
        """``clip``, or ``LSTMCell.initialize_carry`` for a method: the name in ``module``."""
        return self.name[len(self.module) + 1:]


@dataclass(frozen=True)
class MethodChangeRow:
    """A method of a flax or optax class whose calling convention changed (``[[method_change]]``, read from the
    signatures in the wheels): ``instance-method`` (a static method became a method of the instance: called on the
    class, its first argument becomes ``self``), ``now-required`` (a method that requires ``required`` positional
    arguments, ``was_required`` before: ``parameter`` is the first the old count leaves out) or
    ``removed-attribute`` (an attribute ``__init__`` stored that the class now refuses: ``name`` ends with it)."""

    name: str  # ``flax.linen.LSTMCell.initialize_carry``
    library: str
    method_of: str
    change: str
    changed_in: str
    first_seen: str | None = None
    last_seen: str | None = None
    parameter: str | None = None
    required: int | None = None
    was_required: int | None = None
    message: str | None = None  # removed-attribute: the library's AttributeError text

    @property
    def owner(self) -> str:
        """The class, qualified: ``flax.linen.LSTMCell``."""
        return self.name.rpartition(".")[0]

    @property
    def method(self) -> str:
        return self.name.rpartition(".")[2]


def rows(path: Path = GENERATED) -> tuple[Row, ...]:
    """Every symbol and module row of the data file; none when it is missing (an install without it still lints)."""
    return _load(path)[0]


def parameters(path: Path = GENERATED) -> tuple[ParameterRow, ...]:
    """Every ``[[parameter]]`` row of the data file."""
    return _load(path)[1]


def method_changes(path: Path = GENERATED) -> tuple[MethodChangeRow, ...]:
    """Every ``[[method_change]]`` row of the data file."""
    return _load(path)[2]


@lru_cache(maxsize=4)
def _load(path: Path) -> tuple[tuple[Row, ...], tuple[ParameterRow, ...], tuple[MethodChangeRow, ...]]:
    """Read through a JSON copy beside the catalogue's (``catalogue._cache_file``), checked against the file's
    stamp: parsing the 5,000-line TOML took 74 ms, in every worker of every cold run."""
    if not path.is_file():
        return (), (), ()
    cache = _cache_file((path,), "ecosystem")
    stamp = _stamp((path,))
    cached = _read_cache(cache, stamp)
    if cached is not None:
        return cached
    with open(path, "rb") as fh:
        data = toml_parser().load(fh)
    known = {f.name for f in fields(Row)}
    found = tuple(Row(kind=kind, **{k: v for k, v in row.items() if k in known})
                  for kind in ("symbol", "module") for row in data.get(kind, ()))
    known = {f.name for f in fields(ParameterRow)}
    keywords = tuple(ParameterRow(**{k: v for k, v in row.items() if k in known}) for row in data.get("parameter", ()))
    known = {f.name for f in fields(MethodChangeRow)}
    changed = tuple(MethodChangeRow(**{k: v for k, v in row.items() if k in known})
                    for row in data.get("method_change", ()))
    _write_cache(cache, stamp, found, keywords, changed)
    return found, keywords, changed


_FIELDS = [f.name for f in fields(Row)]
_PARAMETER_FIELDS = [f.name for f in fields(ParameterRow)]
_CHANGE_FIELDS = [f.name for f in fields(MethodChangeRow)]


def _read_cache(cache: Path, stamp: list) -> tuple[tuple[Row, ...], tuple[ParameterRow, ...],
                                                  tuple[MethodChangeRow, ...]] | None:
    cached = read_stamped(cache, stamp)
    try:
        if not isinstance(cached, dict) or cached.get("fields") != _FIELDS \
                or cached.get("parameter_fields") != _PARAMETER_FIELDS \
                or cached.get("change_fields") != _CHANGE_FIELDS:
            return None
        # The field lists match the classes' (checked above), which have no ``__post_init__``: the rows are
        # restored without ``__init__`` (``restore_rows``), as the catalogue's are.
        return (restore_rows(Row, _FIELDS, cached["rows"]),
                restore_rows(ParameterRow, _PARAMETER_FIELDS, cached["parameters"]),
                restore_rows(MethodChangeRow, _CHANGE_FIELDS, cached["changes"]))
    except (KeyError, TypeError, ValueError):
        return None  # damaged or not ours: read the TOML again


def _write_cache(cache: Path, stamp: list, found: tuple[Row, ...], keywords: tuple[ParameterRow, ...],
                 changed: tuple[MethodChangeRow, ...]) -> None:
    write_stamped(cache, stamp, fields=_FIELDS, rows=[[getattr(row, name) for name in _FIELDS] for row in found],
                  parameter_fields=_PARAMETER_FIELDS,
                  parameters=[[getattr(row, name) for name in _PARAMETER_FIELDS] for row in keywords],
                  change_fields=_CHANGE_FIELDS,
                  changes=[[getattr(row, name) for name in _CHANGE_FIELDS] for row in changed])


def changes(library: str, make: Callable[..., T], path: Path = GENERATED) -> dict[str, T]:
    """The library's symbol rows as ``make(name=, status=, since=, replacement=, replacement_since=, rename=,
    advice=, reason=, same_from=)`` (the ecosystem table's ``Change``), by name. A replacement that is not the same
    object comes as advice, never as a rename; a same-object rename carries ``same_from``, the release from which
    the wheels show both names are one object (its fix floor)."""
    out: dict[str, T] = {}
    for row in rows(path):
        if row.kind != "symbol" or row.library != library:
            continue
        advice = ""
        if row.replacement and row.rename != "safe":
            advice = (f"`{row.replacement}` ({library} {row.replacement_since}+) replaces it; not the same object: "
                      "check the arguments")
        out[row.name] = make(
            name=row.name, status=row.status, since=row.since, replacement=row.replacement,
            replacement_since=row.replacement_since, rename=row.rename, advice=advice,
            same_from=row.same_from if row.rename == "safe" else None,
            reason=f"generated from the {library} wheels ({row.source}; present up to {library} {row.last_seen})"
                   + (f": {row.message}" if row.message else ""))
    return out


def removed_modules(library: str, path: Path = GENERATED) -> dict[str, Row]:
    """The library's removed modules that are not inside another removed module (``flax.optim``, not
    ``flax.optim.adam``), by name."""
    return {row.name: row for row in rows(path)
            if row.kind == "module" and row.library == library and row.status == "removed" and row.within is None}
