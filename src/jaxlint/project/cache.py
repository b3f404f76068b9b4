"""The results cache (``.jaxlint_cache/``): a warm run over an unchanged tree costs a ``stat`` per file.

One entry per file path: the hash of the file's bytes, a fingerprint of the settings that decide its findings
(enabled selectors and ignores, per-file ignores, target and min version), the findings themselves, and the file's
*stamp* (size, modification and change times, inode) when its bytes were hashed. ``jaxlint check`` trusts an
unchanged stamp without reading the file, as ruff trusts an unchanged mtime; a changed stamp (a ``touch``, a
checkout) falls back to the hash, and a hit then records the new stamp. A stamp is recorded only when the file's
times lie well before the moment it was read (git's "racy" rule): an edit in the same timestamp tick as the read
would otherwise keep the stamp of the bytes the cache describes. ``--fix`` and ``--diff`` always compare hashes. The
cache is one folder of shards per *engine fingerprint* (``results-<engine>/``: jaxlint's version, a hash of
jaxlint's own code and rule catalogue, libcst's and Python's versions), so upgrading jaxlint or editing a rule never
reuses old results; a run reads and writes only the shards of the files it looks at (``project.shards``).

JSON, not pickle: a cache directory can arrive with a cloned repository, and loading it must never run code.
Nor may what it says change a finding: each shard is signed with the user's cache key (``project.cache_key``, kept
outside the cache folder), and one not signed with it (committed, restored from a shared CI cache, made by another
user) is ignored and replaced, as a damaged one is. Each entry binds the path's findings to the hash of the bytes
they came from and the settings' fingerprint; the shard, to the engine fingerprint. Concurrent runs are safe: each
run reads a shard, works, then re-reads it, merges its own entries over what it finds and replaces the file
atomically (``os.replace``), so no shard is ever half-written; at worst one run's new entries are lost and recomputed
next time.
"""
from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

from jaxlint.lint.diagnostics import Applicability, Diagnostic, Edit, Fix, Location, WithheldFix
from jaxlint.project.cache_key import cache_key  # noqa: F401 (whether caching is on: for the runner)
from jaxlint.project.fingerprint import FORMAT, _libcst_version, engine_fingerprint  # noqa: F401 (the cache's key)
from jaxlint.project.shards import ShardedEntries, remove_stale_folder

CACHE_DIR_NAME = ".jaxlint_cache"
# Cache files of other engine fingerprints older than this are deleted when a run writes its own.
STALE_SECONDS = 7 * 24 * 3600


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


# A file whose modification or change time is this close to the moment it was read (or after it) gets no stamp: a
# file system's timestamps can be as coarse as 2 s (FAT) and lag the clock by a tick, so a later edit might keep them.
RACY_NS = 2_000_000_000


def file_stamp(status: os.stat_result) -> list[int]:
    """What changes when a file's bytes may have: any write moves the change time, which no tool can set back."""
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]


def trusted_stamp(status: os.stat_result, read_started_ns: int) -> list[int] | None:
    """The stamp to store with the hash of bytes read after ``read_started_ns`` (and after ``status`` was taken),
    or None when an edit after the read could leave the same stamp."""
    newest = max(status.st_mtime_ns, status.st_ctime_ns)
    return file_stamp(status) if newest < read_started_ns - RACY_NS else None


def _rules_fingerprint(folders: tuple[Path, ...]) -> str:
    if not folders:
        return ""
    from jaxlint.catalogue.extend import fingerprint

    return fingerprint(folders)


def settings_fingerprint(settings, path: Path) -> str:
    """The settings that decide one file's findings (not output format, not where the config came from). The min
    version is the file's own (its package's pins); its source is part of the withheld fixes' reasons."""
    if settings.per_file_ignores or settings.extend_rules:
        return _settings_fingerprint(settings, path)
    # The same for every file of these (frozen) settings: computed once per settings object, which is kept with it
    # (its id stays its own).
    known = _FINGERPRINTS.get(id(settings))
    if known is None:
        if len(_FINGERPRINTS) >= 256:
            _FINGERPRINTS.clear()
        known = _FINGERPRINTS[id(settings)] = (settings, _settings_fingerprint(settings, path))
    return known[1]


_FINGERPRINTS: dict[int, tuple[Any, str]] = {}


def _settings_fingerprint(settings, path: Path) -> str:
    parts = (
        settings.select, settings.extend_select, settings.ignore, settings.ignored_codes_for(path),
        str(settings.target_version), str(settings.min_version), settings.min_version_known,
        settings.min_version_source,
        _rules_fingerprint(settings.extend_rules),
    )
    return hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()


# -- (de)serializing findings ----------------------------------------------------------------------------------
def _location(location: Location | None) -> list[int] | None:
    return None if location is None else [location.row, location.column]


def _to_location(value) -> Location | None:
    return None if value is None else Location(int(value[0]), int(value[1]))


def diagnostic_to_json(diagnostic: Diagnostic) -> dict[str, Any]:
    fix = diagnostic.fix
    return {
        "code": diagnostic.code, "message": diagnostic.message,
        "start": _location(diagnostic.start), "end": _location(diagnostic.end),
        "offsets": [diagnostic.start_offset, diagnostic.end_offset],
        "fix": None if fix is None else {
            "applicability": fix.applicability.value, "message": fix.message,
            "edits": [[e.start, e.end, e.content, _location(e.location), _location(e.end_location)] for e in fix.edits],
            "probe": list(fix.probe) if fix.probe is not None else None,
        },
        "noqa_row": diagnostic.noqa_row, "cell": diagnostic.cell, "url": diagnostic.url,
        "detail": diagnostic.detail,
        "fix_withheld": None if diagnostic.fix_withheld is None else [diagnostic.fix_withheld.reason,
                                                                      diagnostic.fix_withheld.needs_min_version],
        "unevaluated_annotation": diagnostic.unevaluated_annotation,
    }


def diagnostic_from_json(data: dict[str, Any], path: str) -> Diagnostic:
    fix = data["fix"]
    return Diagnostic(
        data["code"], data["message"], path, _to_location(data["start"]), _to_location(data["end"]),
        start_offset=data["offsets"][0], end_offset=data["offsets"][1],
        fix=None if fix is None else Fix(
            Applicability(fix["applicability"]), fix["message"],
            tuple(Edit(e[0], e[1], e[2], _to_location(e[3]), _to_location(e[4])) for e in fix["edits"]),
            tuple(fix["probe"]) if fix["probe"] is not None else None,
        ),
        noqa_row=data["noqa_row"], cell=data["cell"], url=data["url"], detail=data.get("detail"),
        fix_withheld=None if not data.get("fix_withheld") else WithheldFix(*data["fix_withheld"]),
        unevaluated_annotation=bool(data.get("unevaluated_annotation", False)),
    )


def findings_of(entry: list, path: str) -> list[Diagnostic] | None:
    """The findings of a raw entry; None when they cannot be read (a damaged or foreign cache)."""
    try:
        return [diagnostic_from_json(item, path) for item in entry[2]]
    except (KeyError, IndexError, TypeError, ValueError):
        return None


# -- the cache ---------------------------------------------------------------------------------------------------
class Cache:
    """Entries of one cache directory, in shards (``project.shards``: a run reads and writes only the shards of the
    files it looks at). ``get``/``put`` in memory; ``save`` merges into the shards on disk atomically."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        engine = engine_fingerprint()
        self.folder = self.directory / f"results-{engine}"
        self._entries = ShardedEntries(self.folder, "results", engine, _valid_entry)

    @staticmethod
    def key_for(path: Path) -> str:
        return os.path.abspath(path)

    def has_entry(self, path: Path) -> bool:
        """Whether some entry (of any content) is stored for this path: without one, ``get`` needs no hash."""
        return self._entries.get(self.key_for(path)) is not None

    def entry(self, key: str) -> list | None:
        """The raw entry stored for ``key`` (``key_for``): [digest, settings fingerprint, findings, stamp or None]."""
        return self._entries.get(key)

    def get(self, path: Path, digest: str, settings_fp: str) -> list[Diagnostic] | None:
        """The cached findings for this file's bytes and settings, or None."""
        entry = self.entry(self.key_for(path))
        if not entry or entry[0] != digest or entry[1] != settings_fp:
            return None
        return findings_of(entry, str(path))

    def put(self, path: Path, digest: str, settings_fp: str, diagnostics: list[Diagnostic]) -> None:
        self.put_raw(self.key_for(path), [digest, settings_fp, [diagnostic_to_json(d) for d in diagnostics]])

    def put_raw(self, key: str, entry: list) -> None:
        self._entries.put(key, entry)

    def save(self) -> None:
        """Merge this run's entries into the shards on disk (each re-read now: another run may have written it)."""
        if not self._entries.changed:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            mark_cache_directory(self.directory)
            self._entries.save()
            remove_stale(self.directory)
        except OSError:
            pass  # a read-only tree or a full disk: the cache is an optimisation, never an error


def _valid_entry(entry: object) -> bool:
    return isinstance(entry, list) and len(entry) >= 3


def mark_cache_directory(directory: Path) -> None:
    """A ``.gitignore`` that ignores the whole cache, and a ``CACHEDIR.TAG`` for backup tools."""
    gitignore = directory / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text("# Created by jaxlint.\n*\n", encoding="utf-8")
    tag = directory / "CACHEDIR.TAG"
    if not tag.exists():
        tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n# This directory is jaxlint's cache.\n",
                       encoding="utf-8")


def remove_stale(directory: Path) -> None:
    """The caches of other engines (another jaxlint, an edited rule) unused for ``STALE_SECONDS``: their shard
    folders, and the single files older jaxlints wrote (``results-<engine>.json``, ``index-<engine>.json``); and the
    temporary files a killed run left, after an hour."""
    now = time.time()
    current = engine_fingerprint()
    for kind in ("results", "index"):
        ours = directory / f"{kind}-{current}"
        for other in directory.glob(f"{kind}-*"):
            if other == ours:
                continue
            try:
                if now - other.stat().st_mtime <= STALE_SECONDS:
                    continue
                if other.is_dir():
                    remove_stale_folder(other)
                elif other.suffix == ".json":
                    other.unlink()
            except OSError:
                pass
        for temporary in [*directory.glob(f".{kind}-*.tmp"), *ours.glob(".*.tmp")]:
            try:
                if now - temporary.stat().st_mtime > 3600:
                    temporary.unlink()
            except OSError:
                pass
