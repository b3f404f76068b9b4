"""The catalogue of removed, renamed and deprecated JAX APIs.

``generated.toml`` is written by ``tools/generate_catalogue.py`` from JAX's own wheels (``_deprecations`` tables,
public names, config flags, diffed release by release); ``overlay.toml`` is hand-written (behaviour changes,
arguments, better replacements), each entry with a ``reason``. This module merges both into typed, frozen
dataclasses with the lookups the rules need.

Loading parses the TOML once and keeps the merged result as JSON next to the user's cache (keyed by the size,
modification time and hash of both files), because the catalogue is read at every lint start: see
``docs/catalogue.md`` for the measured times. It is plain data, never a pickle: CI systems restore ``~/.cache`` from
caches shared across branches, and a pickle planted there would run its code at the next ``jaxlint check``. Nor is
a planted copy believed (its stamp is no secret): the copy is signed with the user's cache key (``project.cache_key``).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from jaxlint.project.toml_parser import toml_parser
from jaxlint.project.versions import Version, parse_version

HERE = Path(__file__).resolve().parent


def _rules_dir() -> Path:
    """The top-level ``rules/`` folder: shipped inside the wheel as ``jaxlint/_rules``; in a source checkout (and an
    editable install) read where it lies, beside ``src/``."""
    packaged = HERE.parent / "_rules"
    if (packaged / "generated.toml").is_file():
        return packaged
    return HERE.parents[2] / "rules"


RULES_DIR = _rules_dir()
GENERATED = RULES_DIR / "generated.toml"
OVERLAY = RULES_DIR / "overlay.toml"
# What the module diff cannot see (``tools/generate_jax_objects.py``): the jax.config object's members, jaxlib.
OBJECTS_NAME = "objects_generated.toml"
OBJECTS = RULES_DIR / OBJECTS_NAME
_FORMAT = 4  # 3: JSON (was a pickle); 4: Entry.advice, Parameter.source

KINDS = ("symbol", "module", "config")


@dataclass(frozen=True)
class Entry:
    """One removed / deprecated symbol (``kind="symbol"``), module (``"module"``) or config flag (``"config"``)."""

    name: str
    kind: str
    module: str
    deprecated_in: str | None = None
    removed_in: str | None = None
    replacement: str | None = None
    replacement_since: str | None = None
    same_object: bool | None = None
    same_object_checked: str | None = None
    any_version_replacement: str | None = None
    any_version_since: str | None = None
    any_version_same_object: bool | None = None
    last_seen: str | None = None
    first_seen: str | None = None
    message: str | None = None
    url: str | None = None
    source: str = "table"
    # overlay-only
    equivalent: bool = False
    portable: str | None = None
    fix: str | None = None
    note: str | None = None
    # What to do where no name replaces it (or the named one is no drop-in): one clause, shown in the headline in
    # place of "use `replacement`" (``catalogue.messages.headline``).
    advice: str | None = None
    attribute_survives: bool = False
    reason: str | None = None

    @property
    def attr(self) -> str:
        """The last component: what a text prefilter looks for."""
        return self.name.rpartition(".")[2]

    def removed_at(self, version: Version | str) -> bool:
        return self.removed_in is not None and _v(version) >= parse_version(self.removed_in)

    def deprecated_at(self, version: Version | str) -> bool:
        """Deprecated (still working, with a warning) at ``version``."""
        return (self.deprecated_in is not None and _v(version) >= parse_version(self.deprecated_in)
                and not self.removed_at(version))

    def safe_replacement(self, min_version: Version | str) -> str | None:
        """A spelling that is the same object (or a documented equivalent) and exists from ``min_version`` on.

        Prefers JAX's named replacement; falls back to a spelling valid across the range (``portable``, or the
        message's "(any JAX version)" one) when the named one is newer than ``min_version``.
        """
        lo = _v(min_version)
        return next((name for name, since in self.fix_candidates() if lo >= parse_version(since)), None)

    def fix_candidates(self) -> list[tuple[str, str]]:
        """Every spelling a rename may write, with the first release it exists from, in order of preference."""
        if self.fix == "manual":
            return []
        candidates = [(self.replacement, self.replacement_since, bool(self.same_object) or self.equivalent)]
        portable = self.portable or self.any_version_replacement
        if portable:
            portable_same = self.any_version_same_object if portable == self.any_version_replacement else None
            portable_since = self.any_version_since if portable == self.any_version_replacement else None
            # an overlay ``portable`` without a release of its own was written for the 0.4.20+ window
            candidates.append((portable, portable_since or "0.4.20", portable_same is not False))
        return [(name, since) for name, since, same in candidates if name and since and same]

    def fix_floor(self) -> tuple[str, str] | None:
        """The spelling a rename writes at the lowest min version, and that version (None: never renamed)."""
        candidates = self.fix_candidates()
        return min(candidates, key=lambda c: parse_version(c[1])) if candidates else None


@dataclass(frozen=True)
class Behaviour:
    """A behaviour change without an API change (overlay)."""

    name: str
    changed_in: str
    replacement: str | None = None
    note: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Argument:
    """An argument removed, renamed or made keyword-only (overlay)."""

    name: str
    argument: str
    position: int | None = None
    deprecated_in: str | None = None
    removed_in: str | None = None
    changed_in: str | None = None
    replacement: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Parameter:
    """A keyword parameter of a public function that a release stopped accepting (``[[parameter]]``).

    ``change``: ``removed``, ``renamed`` (``replacement`` is the keyword that took its place, accepted from
    ``replacement_since`` on) or ``positional-only`` (the parameter still exists but cannot be passed by keyword).
    """

    name: str
    parameter: str
    removed_in: str
    change: str = "removed"
    deprecated_in: str | None = None
    first_seen: str | None = None
    last_seen: str | None = None
    replacement: str | None = None
    replacement_since: str | None = None
    # the keyword is still in the signature but every value except None raises (jnp.sort(kind=))
    none_accepted: bool = False
    note: str | None = None
    reason: str | None = None
    source: str = "table"  # "extend-rules": a team's own rule, worded as the team's decision

    def removed_at(self, version: Version | str) -> bool:
        return _v(version) >= parse_version(self.removed_in)

    def deprecated_at(self, version: Version | str) -> bool:
        return (self.deprecated_in is not None and _v(version) >= parse_version(self.deprecated_in)
                and not self.removed_at(version))

    def safe_replacement(self, min_version: Version | str) -> str | None:
        """The new keyword, when every release from ``min_version`` on accepts it (the old one is then renamed)."""
        if self.change != "renamed" or not self.replacement or not self.replacement_since:
            return None
        return self.replacement if _v(min_version) >= parse_version(self.replacement_since) else None


@dataclass(frozen=True)
class Catalogue:
    first_version: str
    newest_version: str
    versions: tuple[str, ...]
    entries: tuple[Entry, ...]
    behaviours: tuple[Behaviour, ...] = ()
    arguments: tuple[Argument, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    _by_name: dict[tuple[str, str], Entry] = field(default_factory=dict, repr=False, compare=False)
    _by_module: dict[str, tuple[Entry, ...]] = field(default_factory=dict, repr=False, compare=False)
    _words_by_kinds: dict[frozenset[str], frozenset[frozenset[str]]] = field(default_factory=dict, init=False,
                                                                              repr=False, compare=False)
    _last_names: list[frozenset[str]] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_module: dict[str, list[Entry]] = {}
        for e in self.entries:
            self._by_name[(e.kind, e.name)] = e
            if e.kind == "symbol":
                by_module.setdefault(e.module, []).append(e)
        self._by_module.update({k: tuple(v) for k, v in by_module.items()})

    # -- lookups -----------------------------------------------------------------------------------------------
    def get(self, name: str, kind: str | None = None) -> Entry | None:
        """The entry for a qualified name (``jax.tree_map``, ``jax.experimental.maps``, ``jax_enable_memories``)."""
        for k in (kind,) if kind else KINDS:
            e = self._by_name.get((k, name))
            if e is not None:
                return e
        return None

    def symbol(self, qualified: str) -> Entry | None:
        return self._by_name.get(("symbol", qualified))

    def last_names(self) -> frozenset[str]:
        """The last component of every symbol and module entry's name: an attribute chain none of whose attributes
        is one names no entry through any prefix (``symbol``, ``module`` and the config spellings keep the last
        component), whatever its root qualifies to."""
        if not self._last_names:
            self._last_names.append(frozenset(e.name.rpartition(".")[2] for e in self.entries
                                              if e.kind in ("symbol", "module")))
        return self._last_names[0]

    def module(self, name: str) -> Entry | None:
        return self._by_name.get(("module", name))

    def config(self, flag: str) -> Entry | None:
        return self._by_name.get(("config", flag))

    def in_module(self, module: str) -> tuple[Entry, ...]:
        """Every symbol entry of a module (``jax.core`` -> ``jax.core.call``, ...)."""
        return self._by_module.get(module, ())

    def module_of(self, qualified: str) -> Entry | None:
        """The removed/deprecated module entry ``qualified`` is, or lies in (``jax.experimental.maps.xmap``)."""
        parts = qualified.split(".")
        for i in range(len(parts), 0, -1):
            e = self._by_name.get(("module", ".".join(parts[:i])))
            if e is not None:
                return e
        return None

    def of_kind(self, kind: str) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.kind == kind)

    def behaviour(self, name: str) -> Behaviour | None:
        return next((b for b in self.behaviours if b.name == name), None)

    def arguments_of(self, name: str) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.name == name)

    def parameters_of(self, function: str) -> dict[str, Parameter]:
        """The keywords ``function`` (``jax.numpy.clip``) stopped accepting, by keyword."""
        return {p.parameter: p for p in self.parameters if p.name == function}

    def functions_with_parameters(self) -> frozenset[str]:
        return frozenset(p.name for p in self.parameters)

    def required_words_for(self, kinds: Iterable[str]) -> frozenset[frozenset[str]]:
        """Per entry, every component of its dotted name: a reference to ``jax.core.pp`` (``import jax.core``,
        ``from jax import core; core.pp``, ``from jax.core import *; pp``, ``getattr(jax.core, "pp")``) always
        spells each of ``jax``, ``core`` and ``pp`` as a word of the file, so a file lacking one cannot refer to it."""
        kinds = frozenset(kinds)
        # Kept: JAX101 and JAX402 each ask for the same 3,400 sets when imported, and the prefilter then hashes
        # and indexes one copy instead of two.
        words = self._words_by_kinds.get(kinds)
        if words is None:
            words = self._words_by_kinds[kinds] = frozenset(frozenset(e.name.split(".")) for e in self.entries
                                                            if e.kind in kinds)
        return words


def _v(version: Version | str) -> Version:
    return version if isinstance(version, Version) else parse_version(version)


_ENTRY_FIELDS = {f.name for f in fields(Entry)}


def _merge(generated: dict, overlay: dict, objects: dict | None = None) -> Catalogue:
    """The generated rows (``objects``' only where ``generated`` has none of that name), then the overlay's."""
    rows: dict[tuple[str, str], dict] = {}
    for kind in KINDS:
        for row in (objects or {}).get(kind, []):
            rows[(kind, row["name"])] = dict(row, kind=kind)
        for row in generated.get(kind, []):
            rows[(kind, row["name"])] = dict(row, kind=kind)
    for kind in KINDS:
        for row in overlay.get(kind, []):
            if "reason" not in row:
                raise ValueError(f"overlay entry {row.get('name')!r} has no reason")
            key = (kind, row["name"])
            base = rows.get(key, {"kind": kind, "module": row["name"].rpartition(".")[0] if kind == "symbol"
                                  else row["name"], "source": "overlay"})
            rows[key] = {**base, **row, "kind": kind}
    entries = []
    for row in rows.values():
        unknown = set(row) - _ENTRY_FIELDS
        if unknown:
            raise ValueError(f"catalogue entry {row['name']!r}: unknown keys {sorted(unknown)}")
        entries.append(Entry(**row))
    parameters: dict[tuple[str, str], dict] = {(r["name"], r["parameter"]): r for r in generated.get("parameter", [])}
    for row in overlay.get("parameter", []):
        if "reason" not in row:
            raise ValueError(f"overlay parameter {row.get('name')}({row.get('parameter')}=) has no reason")
        key = (row["name"], row["parameter"])
        parameters[key] = {**parameters.get(key, {}), **row}
    behaviours = tuple(Behaviour(**row) for row in overlay.get("behaviour", []))
    arguments = tuple(Argument(**row) for row in overlay.get("argument", []))
    return Catalogue(
        first_version=generated["first_version"], newest_version=generated["newest_version"],
        versions=tuple(generated["versions"]), entries=tuple(sorted(entries, key=lambda e: (e.kind, e.name))),
        behaviours=behaviours, arguments=arguments,
        parameters=tuple(Parameter(**row) for _, row in sorted(parameters.items())),
    )


def _sources(generated: Path = GENERATED, overlay: Path = OVERLAY) -> tuple[Path, ...]:
    """The files a catalogue is read from: the objects file beside ``generated`` where there is one."""
    objects = generated.parent / OBJECTS_NAME
    return (generated, overlay, objects) if objects.is_file() else (generated, overlay)


def _cache_file(sources: Iterable[Path] | None = None, kind: str = "catalogue") -> Path:
    """The JSON copy of ``sources`` in the user's cache folder, one per install: named after where the sources
    lie, so that two installs (a project's virtualenv and pre-commit's, two checkouts) do not overwrite each
    other's copy on every run (each would find the other's stamp and read its TOML again, ~0.25 s)."""
    sources = _sources() if sources is None else sources
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    where = hashlib.blake2b("\0".join(str(path) for path in sources).encode(), digest_size=6).hexdigest()
    return Path(base) / "jaxlint" / f"{kind}-{where}.json"


def _stamp(paths: Iterable[Path]) -> list:
    """What the cache must match: the format, and each source file's path, size, mtime and content hash (the hash
    because an mtime can be restored by a cache or a checkout; 1 ms for both files)."""
    stamp: list = [_FORMAT]
    for path in paths:
        data = path.read_bytes()
        stamp.append([str(path), len(data), path.stat().st_mtime_ns, hashlib.blake2b(data, digest_size=16).hexdigest()])
    return stamp


# The dataclasses of the catalogue, stored as a header of field names and one list of values per row (a third
# smaller and faster to read back than one object per row).
_TABLES = (("entries", Entry), ("behaviours", Behaviour), ("arguments", Argument), ("parameters", Parameter))


def _to_json(catalogue: Catalogue) -> dict:
    data: dict = {"first_version": catalogue.first_version, "newest_version": catalogue.newest_version,
                  "versions": list(catalogue.versions)}
    for name, cls in _TABLES:
        names = [f.name for f in fields(cls)]
        data[name] = {"fields": names, "rows": [[getattr(row, n) for n in names] for row in getattr(catalogue, name)]}
    return data


def _from_json(data: dict) -> Catalogue:
    """The catalogue from its JSON form; raises (KeyError, TypeError, ValueError) on anything that does not fit the
    dataclasses exactly, so that a damaged or foreign file is rebuilt instead of used."""
    tables = {}
    for name, cls in _TABLES:
        names = data[name]["fields"]
        if names != [f.name for f in fields(cls)]:
            raise ValueError(f"cached {name} have other fields")
        # JSON yields only plain values (no code can run, whatever the file says); a row of the wrong length
        # raises TypeError in the constructor. The stamp, checked before, ties the rows to the TOML they came from.
        tables[name] = restore_rows(cls, names, data[name]["rows"])
    versions = data["versions"]
    if not all(isinstance(v, str) for v in versions):
        raise ValueError("cached versions are malformed")
    return Catalogue(first_version=str(data["first_version"]), newest_version=str(data["newest_version"]),
                     versions=tuple(versions), **tables)


def restore_rows(cls: type, names: list[str], rows: Iterable[list]) -> tuple:
    """Frozen dataclasses from their field values (``names``: every field of ``cls``, in a cached table's order)
    without running ``__init__``, as pickle restores one: a frozen ``__init__`` sets each field through
    ``object.__setattr__``, which made reading the cache 2x slower. One loop, not a call per row: 4,000 rows are
    read at every start. A row of another length raises ValueError (a damaged cache is rebuilt)."""
    width, new = len(names), object.__new__
    restored = []
    for row in rows:
        if len(row) != width:
            raise ValueError(f"a cached {cls.__name__} has {len(row)} values for {width} fields")
        obj = new(cls)
        obj.__dict__.update(zip(names, row))
        restored.append(obj)
    return tuple(restored)


def read_stamped(cache: Path, stamp: list) -> dict | None:
    """What ``write_stamped`` stored with this very stamp; None when the file is missing, stale, damaged or not
    ours (the caller then reads its TOML again). Ours means signed with the user's cache key: a copy planted in
    ``~/.cache`` (restored by a CI system from another branch's cache, whose stamp it can know) that dropped a
    removed symbol would hide every finding of it."""
    from jaxlint.project.cache_key import read_signed

    cached = read_signed(cache, "catalogue copy", cache.name)
    if not isinstance(cached, dict) or cached.get("stamp") != stamp:
        return None
    return cached


def write_stamped(cache: Path, stamp: list, **values) -> None:
    """Store ``values`` (plain JSON) with ``stamp``, atomically; a cache that cannot be written is simply not
    written."""
    from jaxlint.project.cache_key import write_signed

    try:
        write_signed(cache, "catalogue copy", cache.name, {"stamp": stamp, **values})
    except OSError:
        pass


def read_toml(path: Path) -> dict:
    """``tomllib.load`` of one packaged data file (``rules/behaviour.toml``, ...), read through a stamped JSON copy
    in the user's cache folder: each such file was parsed again by every run (JAX601's ``behaviour.toml`` took 6 ms
    of a one-file check's 0.3 s; JSON reads it in well under 1). The copy is written only where JSON gives back
    exactly what TOML read (no dates: a TOML date would come back as a string), and used only under the file's
    very stamp (path, size, mtime, content hash): an edited file is parsed again."""
    stamp = _stamp((path,))
    cache = _cache_file((path,), "toml")
    cached = read_stamped(cache, stamp)
    if cached is not None and isinstance(cached.get("data"), dict):
        return cached["data"]
    with open(path, "rb") as fh:
        data = toml_parser().load(fh)
    if _survives_json(data):
        write_stamped(cache, stamp, data=data)
    return data


def _survives_json(data: dict) -> bool:
    try:
        return json.loads(json.dumps(data)) == data
    except (TypeError, ValueError):  # a date or time: not a JSON value
        return False


def _read_cache(cache: Path, stamp: list) -> Catalogue | None:
    try:
        cached = read_stamped(cache, stamp)
        return None if cached is None else _from_json(cached["catalogue"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # damaged or not ours: rebuilt from the TOML


def load_from(generated: Path = GENERATED, overlay: Path = OVERLAY, use_cache: bool = True) -> Catalogue:
    sources = _sources(generated, overlay)
    cache = _cache_file(sources)
    stamp = _stamp(sources) if use_cache else []
    if use_cache:
        catalogue = _read_cache(cache, stamp)
        if catalogue is not None:
            return catalogue
    tomllib = toml_parser()
    with open(generated, "rb") as fh:
        gen = tomllib.load(fh)
    with open(overlay, "rb") as fh:
        over = tomllib.load(fh)
    objects = None
    if len(sources) == 3:
        with open(sources[2], "rb") as fh:
            objects = tomllib.load(fh)
    catalogue = _merge(gen, over, objects)
    if use_cache:
        write_stamped(cache, stamp, catalogue=_to_json(catalogue))
    return catalogue


@lru_cache(maxsize=1)
def load() -> Catalogue:
    """The packaged catalogue (generated + overlay), cached per process and on disk."""
    return load_from()


__all__ = ["Argument", "Behaviour", "Catalogue", "Entry", "Parameter", "load", "load_from"]
