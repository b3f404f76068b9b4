"""``extend-rules``: folders of a user's own rule files, in the format of ``rules/``, merged into the catalogue.

A team retires the APIs of its own wrappers with the same engine, messages and fixes as JAX's: every ``*.toml`` of
each folder (sorted by name) holds ``[[symbol]]``, ``[[module]]`` and ``[[parameter]]`` rows (see
``docs/catalogue.md``). A row whose name is already in the catalogue overrides the fields it sets. Versions are JAX
versions: a row applies when the target (``target-version``) reaches its ``removed_in``/``deprecated_in``, and a
rename is applied only when the min version reaches ``replacement_since``.

The rules that read the catalogue (JAX101, JAX402, JAX103) get a subclass per set of folders whose class-level gates
(the names a file must mention) include the user's names: ``extended_rules``.
"""
from __future__ import annotations

import hashlib
from dataclasses import fields, replace
from functools import lru_cache
from pathlib import Path

from jaxlint.catalogue import Catalogue, Entry, Parameter, load
from jaxlint.project.toml_parser import toml_parser
from jaxlint.project.versions import parse_version

KINDS = ("symbol", "module", "parameter")
_ENTRY_KEYS = {f.name for f in fields(Entry)} - {"kind", "source"}
_PARAMETER_KEYS = {f.name for f in fields(Parameter)} - {"source"}
_VERSION_KEYS = ("deprecated_in", "removed_in", "replacement_since", "first_seen", "last_seen")
_BOOL_KEYS = ("same_object", "equivalent", "attribute_survives", "any_version_same_object", "none_accepted")
_CHANGES = ("removed", "renamed", "positional-only")


class RulesFileError(ValueError):
    """A problem in a user's rule file; the message names the file, the row and the key."""


def rule_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.toml"))


def read_folder(folder: Path) -> dict[str, list[dict]]:
    """Every row of the folder's ``*.toml`` files, validated (``RulesFileError`` on the first problem)."""
    if not folder.is_dir():
        raise RulesFileError(f"{folder}: not a folder")
    files = rule_files(folder)
    if not files:
        raise RulesFileError(f"{folder}: no *.toml rule file in the folder")
    rows: dict[str, list[dict]] = {kind: [] for kind in KINDS}
    known = _Known(load())
    tomllib = toml_parser()
    for file in files:
        try:
            with open(file, "rb") as fh:
                data = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise RulesFileError(f"{file}: {error}") from None
        for kind, table in data.items():
            if kind not in KINDS:
                raise RulesFileError(f"{file}: unknown table `{kind}` (expected [[symbol]], [[module]] or "
                                     "[[parameter]])")
            if not isinstance(table, list) or not all(isinstance(row, dict) for row in table):
                raise RulesFileError(f"{file}: `{kind}` must be an array of tables ([[{kind}]])")
            for row in table:
                rows[kind].append(_validated(file, kind, row, known.has(kind, row)))
                known.add(kind, row)
    return rows


class _Known:
    """The rows a folder's row may override: the packaged catalogue's and those of the folder read so far."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.seen: set[tuple] = set()

    @staticmethod
    def _key(kind: str, row: dict) -> tuple:
        return (kind, row.get("name"), row.get("parameter") if kind == "parameter" else None)

    def has(self, kind: str, row: dict) -> bool:
        name = row.get("name")
        if self._key(kind, row) in self.seen or not isinstance(name, str):
            return self._key(kind, row) in self.seen
        if kind == "parameter":
            return row.get("parameter") in self.catalogue.parameters_of(name)
        return self.catalogue.get(name, kind) is not None

    def add(self, kind: str, row: dict) -> None:
        self.seen.add(self._key(kind, row))


def _validated(file: Path, kind: str, row: dict, overrides: bool = False) -> dict:
    """The row, checked; ``overrides``: its name is already listed, so it sets only the fields it names (nothing
    else is required)."""
    name = row.get("name")
    if not isinstance(name, str) or not name or any(not part.isidentifier() for part in name.split(".")):
        raise RulesFileError(f"{file}: [[{kind}]] row without a dotted `name` (got {name!r})")
    where = f"{file}: [[{kind}]] {name!r}"
    known = _PARAMETER_KEYS if kind == "parameter" else _ENTRY_KEYS
    unknown = sorted(set(row) - known)
    if unknown:
        raise RulesFileError(f"{where}: unknown key `{unknown[0]}` (known keys: {', '.join(sorted(known))})")
    for key, value in row.items():
        expected = bool if key in _BOOL_KEYS else str
        if not isinstance(value, expected):
            raise RulesFileError(f"{where}: `{key}` must be a {expected.__name__}, got {value!r}")
    for key in _VERSION_KEYS:
        if key in row:
            try:
                parse_version(row[key])
            except ValueError:
                raise RulesFileError(f"{where}: `{key}` is not a version: {row[key]!r}") from None
    if kind == "parameter":
        for key in ("parameter",) if overrides else ("parameter", "removed_in"):
            if key not in row:
                raise RulesFileError(f"{where}: missing `{key}`")
        if row.get("change", "removed") not in _CHANGES:
            raise RulesFileError(f"{where}: `change` must be one of {', '.join(_CHANGES)}, got {row['change']!r}")
        if row.get("change") == "renamed" and not ("replacement" in row and "replacement_since" in row):
            raise RulesFileError(f"{where}: a renamed parameter needs `replacement` and `replacement_since`")
    elif not overrides and "removed_in" not in row and "deprecated_in" not in row:
        raise RulesFileError(f"{where}: needs `removed_in` or `deprecated_in`")
    return row


@lru_cache(maxsize=8)
def fingerprint(folders: tuple[Path, ...]) -> str:
    """What the folders hold (names and bytes): part of the findings cache's settings key."""
    digest = hashlib.blake2b(digest_size=12)
    for folder in folders:
        for file in rule_files(folder):
            digest.update(str(file).encode())
            try:
                digest.update(file.read_bytes())
            except OSError:
                pass
    return digest.hexdigest()


@lru_cache(maxsize=8)
def extended(folders: tuple[Path, ...]) -> Catalogue:
    """The packaged catalogue with the folders' rows merged in (a row of the same name overrides fields)."""
    base = load()
    entries = {(e.kind, e.name): e for e in base.entries}
    parameters = {(p.name, p.parameter): p for p in base.parameters}
    for folder in folders:
        rows = read_folder(folder)
        for kind in ("symbol", "module"):
            for row in rows[kind]:
                key = (kind, row["name"])
                if key in entries:
                    entries[key] = replace(entries[key], **row)
                else:
                    module = row["name"].rpartition(".")[0] if kind == "symbol" else row["name"]
                    entries[key] = Entry(**{"module": module, **row, "kind": kind, "source": "extend-rules"})
        for row in rows["parameter"]:
            key = (row["name"], row["parameter"])
            parameters[key] = (replace(parameters[key], **row) if key in parameters
                               else Parameter(**row, source="extend-rules"))
    return Catalogue(first_version=base.first_version, newest_version=base.newest_version, versions=base.versions,
                     entries=tuple(sorted(entries.values(), key=lambda e: (e.kind, e.name))),
                     behaviours=base.behaviours, arguments=base.arguments,
                     parameters=tuple(sorted(parameters.values(), key=lambda p: (p.name, p.parameter))))


def user_rows(folders: tuple[Path, ...]) -> list[tuple[Path, str, dict]]:
    """Every row of the folders, as (folder, kind, row): what ``--show-settings`` and ``jaxlint rule`` list."""
    return [(folder, kind, row) for folder in folders for kind, rows in read_folder(folder).items() for row in rows]


def describe(folders: tuple[Path, ...], root: Path | None = None) -> str:
    """One line per folder for ``--show-settings``: ``tools/our-rules: ourlib.train.old_step (JAX101, removed from
    JAX 0.10.0), ...``; which rule reports each row is that of a built-in one of the same kind."""
    if not folders:
        return "(none)"
    lines = []
    for folder in folders:
        shown = folder.relative_to(root) if root is not None and folder.is_relative_to(root) else folder
        items = [f"{_label(kind, row)} ({rule_of(kind, row)})" for _, kind, row in user_rows((folder,))]
        lines.append(f"{shown}: {', '.join(items)}")
    return "\n                ".join(lines)


def _label(kind: str, row: dict) -> str:
    return f"{row['name']}({row['parameter']}=)" if kind == "parameter" else row["name"]


def rule_of(kind: str, row: dict) -> str:
    """The rule that reports a row: JAX103 keywords; JAX402 a name while deprecated, JAX101 once removed."""
    if kind == "parameter":
        return "JAX103"
    states = [code for key, code in (("deprecated_in", "JAX402"), ("removed_in", "JAX101")) if key in row]
    return ", then ".join(states) or "JAX101/JAX402"


@lru_cache(maxsize=64)
def _extended_rule(rule: type, folders: tuple[Path, ...]) -> type:
    hook = getattr(rule, "with_catalogue", None)
    return hook(extended(folders)) if hook is not None else rule


def extended_rules(rules: tuple[type, ...], folders: tuple[Path, ...]) -> tuple[type, ...]:
    """``rules`` with the catalogue-driven ones replaced by subclasses reading the extended catalogue."""
    if not folders:
        return rules
    return tuple(_extended_rule(rule, folders) for rule in rules)


__all__ = ["RulesFileError", "describe", "extended", "extended_rules", "fingerprint", "read_folder", "rule_of", "user_rows"]
