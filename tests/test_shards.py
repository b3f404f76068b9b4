"""A cache in shards (``jaxlint.project.shards``): one file while it is small, more shards as it grows (by the
median shard, so one huge folder does not split the rest), every entry kept through a split, and a run that looks
at one key reads one shard."""
from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.project import shards
from jaxlint.project.shards import ShardedEntries, shard_of

ENTRY = ["0123456789abcdef0123456789abcdef", "settings:-", [], [1, 2, 3, 4], None]


def store(folder: Path) -> ShardedEntries:
    return ShardedEntries(folder, "results", "engine", lambda entry: isinstance(entry, list))


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("*.json"))


def keys(count: int, folders: int = 1, root: str = "/p") -> list[str]:
    return [f"{root}/pkg{index % folders}/m{index}.py" for index in range(count)]


@pytest.fixture
def read(monkeypatch) -> list[str]:
    """The shard files read, by name."""
    seen = []
    original = shards.read_signed

    def recording(file, kind, context):
        seen.append(Path(file).name)
        return original(file, kind, context)

    monkeypatch.setattr(shards, "read_signed", recording)
    return seen


def test_a_small_cache_is_one_file(tmp_path):
    entries = store(tmp_path)
    for key in keys(20, folders=20):
        entries.put(key, ENTRY)
    entries.save()
    assert names(tmp_path) == ["1-00.json"]
    assert store(tmp_path).every_entry() == {key: ENTRY for key in keys(20, folders=20)}


def test_a_growing_cache_splits_by_the_median_shard_and_keeps_every_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(shards, "SHARD_BYTES", 2000)
    written = {}
    for batch in range(8):  # a run at a time, as the project grows
        entries = store(tmp_path)
        for key in keys(40, folders=40, root=f"/p{batch}"):
            entries.put(key, ENTRY)
            written[key] = ENTRY
        entries.save()
        assert store(tmp_path).every_entry() == written
    counts = {int(name.partition("-")[0]) for name in names(tmp_path)}
    (count,) = counts  # the old shards are gone
    assert count > 8 and count & (count - 1) == 0  # a power of two
    sizes = sorted((tmp_path / name).stat().st_size for name in names(tmp_path))
    assert sizes[(len(sizes) - 1) // 2] <= 2000
    for key, entry in written.items():
        assert (tmp_path / f"{shard_of(key, count)}.json").exists() and store(tmp_path).get(key) == entry


def test_one_huge_folder_does_not_split_the_others(tmp_path, monkeypatch):
    monkeypatch.setattr(shards, "SHARD_BYTES", 2000)
    entries = store(tmp_path)
    for key in keys(30, folders=30):  # spread: about 3 KB in all
        entries.put(key, ENTRY)
    entries.save()
    before = names(tmp_path)
    entries = store(tmp_path)
    for key in keys(400, folders=1, root="/huge"):  # one folder of 400 modules: one shard, far over the size
        entries.put(key, ENTRY)
    entries.save()
    assert [name.partition("-")[0] for name in names(tmp_path)] == [name.partition("-")[0] for name in before]


def test_a_run_that_looks_at_one_key_reads_and_writes_one_shard(tmp_path, monkeypatch, read):
    monkeypatch.setattr(shards, "SHARD_BYTES", 2000)
    entries = store(tmp_path)
    for key in keys(200, folders=50):
        entries.put(key, ENTRY)
    entries.save()
    stamps = {name: (tmp_path / name).stat().st_mtime_ns for name in names(tmp_path)}
    assert len(stamps) > 4
    read.clear()
    entries = store(tmp_path)
    key = keys(200, folders=50)[7]
    assert entries.get(key) == ENTRY
    entries.put(key, ENTRY + ["changed"])
    entries.save()
    own = f"{shard_of(key, int(next(iter(stamps)).partition('-')[0]))}.json"
    assert read == [own, own]  # looked up, then read again to merge into
    assert [name for name in names(tmp_path) if (tmp_path / name).stat().st_mtime_ns != stamps[name]] == [own]


def test_shards_a_split_left_behind_are_read_then_removed(tmp_path, monkeypatch):
    """A run that wrote with the old count while another split the cache leaves a shard of the smaller count: its
    entries still count for a project-wide pass, and the next save removes it."""
    monkeypatch.setattr(shards, "SHARD_BYTES", 2000)
    entries = store(tmp_path)
    for key in keys(200, folders=50):
        entries.put(key, ENTRY)
    entries.save()
    count = int(names(tmp_path)[0].partition("-")[0])
    late = store(tmp_path)
    late._count = 1  # as it was when the late run started
    late.put("/late/m.py", ENTRY)
    late._put("1-00", late._payload("1-00", {"/late/m.py": ENTRY}))
    assert "1-00.json" in names(tmp_path)
    assert store(tmp_path).every_entry()["/late/m.py"] == ENTRY
    again = store(tmp_path)
    again.put(keys(200, folders=50)[0], ENTRY)
    again.save()
    assert "1-00.json" not in names(tmp_path) and {name.partition("-")[0] for name in names(tmp_path)} == {str(count)}


def test_a_cache_of_one_folder_is_not_split_again_and_again(tmp_path, monkeypatch):
    """A flat project (every module in one folder) is one shard at any count: once split (by its size, as if it were
    spread), its one file is not split again as it grows."""
    monkeypatch.setattr(shards, "SHARD_BYTES", 2000)
    counts = []
    for batch in range(3):
        entries = store(tmp_path)
        for key in keys(400 * (batch + 1), folders=1):
            entries.put(key, ENTRY)
        entries.save()
        assert len(names(tmp_path)) == 1
        counts.append(names(tmp_path)[0].partition("-")[0])
    assert counts[0] != "1" and counts[1:] == counts[:1] * 2
