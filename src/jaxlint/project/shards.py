"""A cache kept as shards (``<kind>-<engine fingerprint>/<count>-<xx>.json``), read and written shard by shard, so
that a run over a few files reads and writes a few small files, whatever the size of the project.

One file per cache was read whole and written whole by every run: pre-commit's one-file check of a 29,700-module
tree spent about 1.2 of its 1.6 CPU-seconds loading and rewriting the results and index caches (16 and 20 MB of
JSON). Every shard file costs its creation, though (about 0.3 ms of system time each on ext4: a cold run of 5,650
files that wrote 2 x 256 of them was 4% slower), so the number of shards grows with the cache: one file until it
outgrows ``SHARD_BYTES``, then twice as many shards (or more) each time the lower median of the shards' sizes
does, up to ``MAX_SHARDS``. A one-file check then reads and writes about ``SHARD_BYTES`` of each cache, and a cold
run writes one file per ``SHARD_BYTES`` or so. The files of one folder share a shard (a commit's files lie in a few
folders); the median, not the mean, decides (a shard without a file counting as empty), so a folder of thousands of
files neither splits the other shards nor is split again and again.

The shard count is read from the names of the files there (the largest count present). Each shard is signed as the
single file was (``project.cache_key``: for its kind, the engine fingerprint and the shard's name), and a run merges
its entries into a shard by reading it again and replacing it atomically, so concurrent runs never see half a file.
At worst a run's new entries are lost (another run rewrote the shard, or split the cache, meanwhile) and computed
again next time: an entry says what it was computed from, so a lost or stale one is a miss, never a wrong answer.
"""
from __future__ import annotations

import json
import os
import re
import zlib
from pathlib import Path
from typing import Callable

from jaxlint.project.cache_key import read_signed, replace_file, seal

SHARD_BYTES = 256 * 1024  # a shard's size that makes the cache split (about 400 entries of either kind)
MAX_SHARDS = 256
FORMAT = 1  # of a shard file's JSON
_SHARD_FILE = re.compile(r"^(\d+)-([0-9a-f]{2,})\.json$")


def shard_of(key: str, count: int) -> str:
    """The shard file's name for an entry keyed by an absolute path, among ``count`` shards: its folder's (crc32:
    the same in every process, unlike ``hash``; the entries are signed, so the spread needs no secret)."""
    folder = key.rpartition(os.sep)[0]  # ``os.path.dirname`` of a normalized path, without its checks
    return f"{count}-{zlib.crc32(folder.encode('utf-8', 'surrogateescape')) % count:02x}"


class ShardedEntries:
    """The entries of one cache (``kind``: ``"results"``, ``"index"``; ``engine``: the engine fingerprint its
    signatures bind) in ``folder``, keyed by absolute paths: a shard is read when one of its keys is first asked for,
    and ``save`` writes only the shards this run changed (or, when the cache has outgrown its shards, all of them,
    in twice as many or more). ``valid``: whether a stored entry may be used (others are dropped when read)."""

    def __init__(self, folder: Path, kind: str, engine: str, valid: Callable[[object], bool]) -> None:
        self.folder = Path(folder)
        self.kind = kind
        self.engine = engine
        self._valid = valid
        self._count: int | None = None  # the shard count on disk, read from the file names at first use
        self._read: dict[str, dict[str, list]] = {}
        self._new: dict[str, list] = {}

    def get(self, key: str) -> list | None:
        if key in self._new:
            return self._new[key]
        return self._shard(shard_of(key, self._stored_count())).get(key)

    def put(self, key: str, entry: list) -> None:
        self._new[key] = entry

    @property
    def changed(self) -> bool:
        return bool(self._new)

    def every_entry(self) -> dict[str, list]:
        """Every stored entry, with this run's over them (what a split rewrites). Shards of a smaller count (a split
        another run made meanwhile left them) count too, under the current ones."""
        found: dict[str, list] = {}
        for count, shards in sorted(self._files().items()):
            for shard in shards:
                found.update(self._shard(shard) if count == self._stored_count() else self._load(shard))
        found.update(self._new)
        return found

    def save(self) -> None:
        """Merge this run's entries into their shards on disk (each read again now: another run may have written
        it); split the cache into more shards instead once the median shard would outgrow ``SHARD_BYTES``."""
        if not self._new:
            return
        count = self._stored_count()
        by_shard: dict[str, dict[str, list]] = {}
        for key, entry in self._new.items():
            by_shard.setdefault(shard_of(key, count), {})[key] = entry
        merged = {shard: {**self._load(shard), **entries} for shard, entries in by_shard.items()}
        payloads = {shard: self._payload(shard, entries) for shard, entries in merged.items()}
        files = self._files()
        # the lower median of the shards' sizes, an empty shard (no file) counting as 0: a cache whose entries lie in
        # one folder is one shard at any count, and splitting it again gains nothing
        sizes = {shard: _size(self.folder / f"{shard}.json") for shard in files.get(count, ())}
        sizes.update((shard, len(payload or b"")) for shard, payload in payloads.items())
        ordered = sorted([*sizes.values()] + [0] * (count - len(sizes)))
        median, wanted = ordered[(len(ordered) - 1) // 2], count
        while median > SHARD_BYTES and wanted < MAX_SHARDS:
            median, wanted = median // 2, wanted * 2
        self._read.update(merged)
        if wanted > count:
            self._split(wanted)  # every entry, this run's included
        else:
            for shard, payload in payloads.items():
                self._put(shard, payload)
            _remove(self.folder, [shard for other, shards in files.items() if other < count for shard in shards])
        self._new = {}

    def _split(self, count: int) -> None:
        """Rewrite every entry into ``count`` shards, then remove the old ones."""
        entries = self.every_entry()
        old = [shard for shards in self._files().values() for shard in shards]
        by_shard: dict[str, dict[str, list]] = {}
        for key, entry in entries.items():
            by_shard.setdefault(shard_of(key, count), {})[key] = entry
        for shard, shard_entries in by_shard.items():
            self._read[shard] = shard_entries
            self._put(shard, self._payload(shard, shard_entries))
        _remove(self.folder, [shard for shard in old if not shard.startswith(f"{count}-")])
        self._count = count

    def _stored_count(self) -> int:
        if self._count is None:
            self._count = max(self._files(), default=1)
        return self._count

    def _files(self) -> dict[int, list[str]]:
        """The shard files there, by their count (names without ``.json``)."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return {}
        found: dict[int, list[str]] = {}
        for name in sorted(names):
            match = _SHARD_FILE.match(name)
            if match:
                found.setdefault(int(match.group(1)), []).append(name[:-len(".json")])
        return found

    def _shard(self, shard: str) -> dict[str, list]:
        entries = self._read.get(shard)
        if entries is None:
            entries = self._read[shard] = self._load(shard)
        return entries

    def _load(self, shard: str) -> dict[str, list]:
        data = read_signed(self.folder / f"{shard}.json", self.kind, self._context(shard))
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
            return {}
        count = int(shard.partition("-")[0])
        return {key: entry for key, entry in data["entries"].items()
                if shard_of(key, count) == shard and self._valid(entry)}

    def _payload(self, shard: str, entries: dict[str, list]) -> bytes | None:
        """The shard's file, signed; None when caching is off (no key)."""
        return seal(self.kind, self._context(shard),
                    json.dumps({"format": FORMAT, "entries": entries}, separators=(",", ":")).encode())

    def _put(self, shard: str, payload: bytes | None) -> None:
        if payload is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            replace_file(self.folder / f"{shard}.json", payload, prefix=f".{shard}-")

    def _context(self, shard: str) -> str:
        """What a shard's signature binds besides its kind: this engine, and which shard it is (a shard copied over
        another would drop that one's entries)."""
        return f"{self.engine}/{shard}"


def _remove(folder: Path, shards: list[str]) -> None:
    for shard in shards:
        try:
            os.unlink(folder / f"{shard}.json")
        except OSError:
            pass


def _size(file: Path) -> int:
    try:
        return os.stat(file).st_size
    except OSError:
        return 0


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
