"""A cache kept as shards (``<kind>-<engine fingerprint>/<xx>.json``), read and written shard by shard, so that a run
over a few files reads and writes a few small files, whatever the size of the project.

One file per cache was read whole and written whole by every run: pre-commit's one-file check of a 30,000-module
monorepo spent about 1.2 of its 1.7 CPU-seconds loading and rewriting the results and index caches (16 and 20 MB of
JSON). The files of one folder share a shard (a commit's files lie in a few folders); 256 shards keep each one near
a 256th of the project.

Each shard is signed as the single file was (``project.cache_key``: for its kind, the engine fingerprint and the
shard's name), and a run merges its entries into a shard by reading it again and replacing it atomically, so
concurrent runs never see half a file (at worst one run's new entries are lost and computed again next time).
"""
from __future__ import annotations

import json
import os
import re
import zlib
from pathlib import Path
from typing import Callable

from jaxlint.project.cache_key import seal, unseal

SHARDS = 256
FORMAT = 1  # of a shard file's JSON
_SHARD_FILE = re.compile(r"^[0-9a-f]{2}\.json$")


def shard_of(key: str) -> str:
    """The shard of an entry keyed by an absolute path: its folder's (crc32: the same in every process, unlike
    ``hash``; the entries are signed, so the spread needs no secret)."""
    folder = os.path.dirname(key)
    return f"{zlib.crc32(folder.encode('utf-8', 'surrogateescape')) % SHARDS:02x}"


def replace_file(file: Path, payload: bytes, *, prefix: str) -> None:
    """Write ``payload`` to a temporary file beside ``file`` and rename it over ``file``: a reader sees the old
    cache or the new one, never half (a cache needs none of ``run.sources.write_atomic``'s care for owners)."""
    import tempfile  # here: a warm run that changes nothing writes nothing (and tempfile costs ~5 ms to import)

    fd, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=file.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(temporary, file)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def read_signed(file: Path, kind: str, context: str) -> object:
    """The JSON value of a file ``write_signed`` wrote for ``kind``/``context`` with this user's key; None when it is
    missing, damaged or not ours (a miss)."""
    try:
        payload = unseal(kind, context, file.read_bytes())
        return None if payload is None else json.loads(payload)
    except (OSError, ValueError):
        return None


def write_signed(file: Path, kind: str, context: str, value: object) -> None:
    """``value`` as JSON, signed, replacing ``file`` atomically; nothing when caching is off (no key)."""
    payload = seal(kind, context, json.dumps(value, separators=(",", ":")).encode())
    if payload is None:
        return
    file.parent.mkdir(parents=True, exist_ok=True)
    replace_file(file, payload, prefix=f".{file.stem}-")


class ShardedEntries:
    """The entries of one cache (``kind``: ``"results"``, ``"index"``; ``engine``: the engine fingerprint its
    signatures bind) in ``folder``, keyed by absolute paths: a
    shard is read when one of its keys is first asked for, and ``save`` writes only the shards this run changed.
    ``valid``: whether a stored entry may be used (others are dropped when read)."""

    def __init__(self, folder: Path, kind: str, engine: str, valid: Callable[[object], bool]) -> None:
        self.folder = Path(folder)
        self.kind = kind
        self.engine = engine
        self._valid = valid
        self._read: dict[str, dict[str, list]] = {}
        self._new: dict[str, dict[str, list]] = {}

    def get(self, key: str) -> list | None:
        shard = shard_of(key)
        new = self._new.get(shard)
        if new is not None and key in new:
            return new[key]
        return self._shard(shard).get(key)

    def put(self, key: str, entry: list) -> None:
        self._new.setdefault(shard_of(key), {})[key] = entry

    def every_entry(self) -> dict[str, list]:
        """Every stored entry, with this run's over them (a project-wide pass: the project digest)."""
        found: dict[str, list] = {}
        for shard in self._stored_shards():
            found.update(self._shard(shard))
        for entries in self._new.values():
            found.update(entries)
        return found

    def save(self) -> None:
        """Merge this run's entries into their shards on disk (each read again now: another run may have written
        it)."""
        for shard, entries in self._new.items():
            merged = {**self._load(shard), **entries}
            write_signed(self.folder / f"{shard}.json", self.kind, self._context(shard),
                         {"format": FORMAT, "entries": merged})
            self._read[shard] = merged
        self._new = {}

    @property
    def changed(self) -> bool:
        return bool(self._new)

    def _shard(self, shard: str) -> dict[str, list]:
        entries = self._read.get(shard)
        if entries is None:
            entries = self._read[shard] = self._load(shard)
        return entries

    def _load(self, shard: str) -> dict[str, list]:
        data = read_signed(self.folder / f"{shard}.json", self.kind, self._context(shard))
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
            return {}
        return {key: entry for key, entry in data["entries"].items()
                if shard_of(key) == shard and self._valid(entry)}

    def _stored_shards(self) -> list[str]:
        try:
            names = os.listdir(self.folder)
        except OSError:
            return []
        return sorted(name[:2] for name in names if _SHARD_FILE.match(name))

    def _context(self, shard: str) -> str:
        """What a shard's signature binds besides its kind: this engine, and which shard it is (a shard copied over
        another would drop that one's entries)."""
        return f"{self.engine}/{shard}"


def remove_stale_folder(folder: Path) -> None:
    """Delete a sharded cache folder of another engine: only the files jaxlint names there (its shards, its
    ``digest.json``, temporary files a killed run left), then the folder if nothing else is in it."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if _SHARD_FILE.match(name) or name == "digest.json" or (name.startswith(".") and name.endswith(".tmp")):
            try:
                os.unlink(folder / name)
            except OSError:
                pass
    try:
        os.rmdir(folder)
    except OSError:
        pass  # something else is there: left alone
