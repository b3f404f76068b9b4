"""The results cache: reused only for the same bytes and settings, never corrupt, safe under concurrent runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from jaxlint.project import cache as cache_module
from jaxlint.run import runner
from jaxlint.project.cache import diagnostic_from_json, diagnostic_to_json
from jaxlint.run.runner import Mode, run_files
from jaxlint.project.versions import Version
from support.corpus import make_project, source_files, summary
from support.signed import cache_entries, shard_file, shard_files, signed_json

TAKE = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=None)\n"
TAKE_FIXED = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=True)\n"


@pytest.fixture
def counted(monkeypatch):
    """Counts the files actually processed (not answered from the cache)."""
    calls = []
    original = runner.process_file

    def counting(path, *args, **kwargs):
        calls.append(Path(path).name)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(runner, "process_file", counting)
    return calls


def _run(files, cache_dir, mode=Mode.CHECK):
    return run_files(files, mode, False, jobs=1, use_cache=True, cache_dir=cache_dir)


def test_warm_run_processes_nothing_and_gives_the_same_results(tmp_path, counted):
    paths = make_project(tmp_path / "p")
    files = source_files(paths, tmp_path / "p")
    cold = _run(files, tmp_path / "c")
    assert len(counted) == len(paths)
    counted.clear()
    warm = _run(files, tmp_path / "c")
    assert counted == []
    assert summary(warm) == summary(cold)
    assert (tmp_path / "c" / ".gitignore").exists() and (tmp_path / "c" / "CACHEDIR.TAG").exists()


def test_changed_file_is_processed_again(tmp_path, counted):
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    files = source_files([path], tmp_path)
    first = _run(files, tmp_path / "c")
    assert first[0].diagnostics
    path.write_text("import jax.numpy as jnp\n")
    counted.clear()
    second = _run(files, tmp_path / "c")
    assert counted == ["a.py"] and second[0].diagnostics == []


@pytest.mark.parametrize("changes", [
    {"ignore": ("JAX202",)},
    {"select": ("JAX1",)},
    {"target_version": Version("0.10.2")},
    {"explicit_min_version": Version("0.12.0")},
    {"per_file_ignores": (("a.py", ("JAX202",)),)},
])
def test_changed_setting_invalidates(tmp_path, counted, changes):
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    _run(source_files([path], tmp_path), tmp_path / "c")
    counted.clear()
    changed = source_files([path], tmp_path, **changes)
    fresh = run_files(changed, Mode.CHECK, False, jobs=1, use_cache=False)
    counted.clear()
    result = _run(changed, tmp_path / "c")
    assert counted == ["a.py"]
    assert summary(result) == summary(fresh)


def test_settings_that_do_not_matter_keep_the_cache(tmp_path, counted):
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    _run(source_files([path], tmp_path), tmp_path / "c")
    counted.clear()
    _run(source_files([path], tmp_path, output_format="json"), tmp_path / "c")
    assert counted == []


def test_other_engine_never_reuses_entries(tmp_path, counted, monkeypatch):
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    _run(source_files([path], tmp_path), tmp_path / "c")
    monkeypatch.setattr(cache_module, "engine_fingerprint", lambda: "another-jaxlint")
    counted.clear()
    _run(source_files([path], tmp_path), tmp_path / "c")
    assert counted == ["a.py"]
    assert len([folder for folder in (tmp_path / "c").glob("results-*") if folder.is_dir()]) == 2


@pytest.mark.parametrize("damage", [b"", b"{", b"[]", b'{"format": 1, "entries": {"x": 3}}', b"\x80\x81",
                                    b'{"format": 1, "entries": {"ABS": ["h", "s", [{"code": 1}]]}}'])
def test_damaged_cache_is_ignored_and_replaced(tmp_path, damage):
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    files = source_files([path], tmp_path)
    expected = summary(run_files(files, Mode.CHECK, False, jobs=1, use_cache=False))
    cache_file = shard_file(tmp_path / "c", "results", str(path))
    cache_file.parent.mkdir(parents=True)
    cache_file.write_bytes(damage.replace(b"ABS", str(path).encode()))
    assert summary(_run(files, tmp_path / "c")) == expected
    assert summary(_run(files, tmp_path / "c")) == expected
    signed_json(cache_file, "results")


def test_fix_uses_cache_only_when_there_is_nothing_to_fix(tmp_path, counted):
    fixable, clean = tmp_path / "a.py", tmp_path / "b.py"
    fixable.write_text(TAKE)
    clean.write_text("import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, 0)\n")
    files = source_files([fixable, clean], tmp_path)
    _run(files, tmp_path / "c")
    counted.clear()
    _run(files, tmp_path / "c", mode=Mode.FIX)
    assert counted == ["a.py"]
    assert fixable.read_text() == TAKE_FIXED
    counted.clear()
    after = _run(files, tmp_path / "c")
    assert counted == ["a.py"]  # the fixed file is new content
    assert all(not r.diagnostics for r in after)


def test_diagnostic_json_round_trip(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    (result,) = run_files(source_files([path], tmp_path), Mode.CHECK, False, jobs=1, use_cache=False)
    for diagnostic in result.diagnostics:
        assert diagnostic.fix is not None
        again = diagnostic_from_json(json.loads(json.dumps(diagnostic_to_json(diagnostic))), diagnostic.path)
        assert again == diagnostic
        assert again.fix.edits[0].location == diagnostic.fix.edits[0].location


def test_concurrent_runs_share_one_cache_safely(tmp_path):
    make_project(tmp_path / "p", copies=2)
    command = [sys.executable, "-m", "jaxlint", "p", "--isolated", "--cache-dir", "c", "-j", "1",
               "--output-format", "json"]
    expected = subprocess.run(command[:-5] + ["--no-cache", "--output-format", "json"], cwd=tmp_path,
                              capture_output=True, text=True).stdout
    for _ in range(2):  # cold, then warm, each with four runs at once
        processes = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True) for _ in range(4)]
        for process in processes:
            out, err = process.communicate(timeout=300)
            assert process.returncode == 1, err
            assert "Traceback" not in err
            assert out == expected
        entries = cache_entries(tmp_path / "c", "results")
        assert len(entries) == len(list((tmp_path / "p").rglob("*.py")))
    assert not list((tmp_path / "c").rglob("*.tmp"))


# -- the engine fingerprint: what decides whether a cache file is this jaxlint's ------------------------------------
@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    """A package folder standing in for jaxlint's own, and a fresh fingerprint for each call."""
    package = tmp_path / "pkg"
    (package / "rules").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "rules" / "rule.py").write_text("X = 1\n")
    (package / "data.json").write_text("{}")

    class FakeModule:
        __file__ = str(package / "__init__.py")

    from jaxlint.project import fingerprint as fingerprint_module

    monkeypatch.setattr(fingerprint_module, "jaxlint", FakeModule)

    def fingerprint():
        cache_module.engine_fingerprint.cache_clear()
        return cache_module.engine_fingerprint()

    yield package, fingerprint
    cache_module.engine_fingerprint.cache_clear()


def test_fingerprint_is_stable_for_an_unchanged_package(fake_package):
    _, fingerprint = fake_package
    assert fingerprint() == fingerprint()


@pytest.mark.parametrize("change", ["edit", "touch", "add", "remove", "rename", "data"])
def test_fingerprint_changes_with_the_package(fake_package, change):
    import os

    package, fingerprint = fake_package
    before = fingerprint()
    rule = package / "rules" / "rule.py"
    if change == "edit":
        rule.write_text("X = 22\n")
    elif change == "touch":  # same size, new time (a checkout of another version of the file)
        status = rule.stat()
        os.utime(rule, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000))
    elif change == "add":
        (package / "rules" / "other.py").write_text("")
    elif change == "remove":
        rule.unlink()
    elif change == "rename":
        rule.rename(package / "rules" / "renamed.py")
    else:
        (package / "data.json").write_text("[]")
    assert fingerprint() != before


def test_fingerprint_ignores_bytecode_and_other_files(fake_package):
    package, fingerprint = fake_package
    before = fingerprint()
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "rule.cpython-312.pyc").write_bytes(b"\0")
    (package / "notes.txt").write_text("x")
    assert fingerprint() == before


def test_fingerprint_reads_libcst_version_without_importing_libcst():
    # in a fresh interpreter: importing the module or computing the fingerprint must not import libcst
    code = ("import sys; from jaxlint.project import cache; cache.engine_fingerprint(); "
            "print('libcst' in sys.modules, 'importlib.metadata' in sys.modules); "
            "from libcst._version import version; print(repr(version) in cache._libcst_version())")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.split() == ["False", "False", "True"]


def test_cold_cache_reads_no_file_before_processing(tmp_path, monkeypatch):
    """With no entry for a path, the cache lookup needs no hash: the file is read once, by the worker (which hashes
    and lints the same bytes)."""
    paths = [tmp_path / "a.py", tmp_path / "b.py"]
    paths[0].write_text(TAKE)
    paths[1].write_text("x = 1\n")
    reads = []
    original = Path.read_bytes

    def counting(self):
        reads.append(self.name)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    _run(source_files(paths, tmp_path), tmp_path / "cache")
    assert sorted(name for name in reads if name.endswith(".py")) == ["a.py", "b.py"]


# -- stamps: a warm check trusts an unchanged stat, never a racy one, and --fix always compares bytes -------------
@pytest.fixture
def hashed(monkeypatch):
    """Counts the files read and hashed by the cache lookup (a stamp hit reads nothing)."""
    calls = []
    original = runner.content_hash

    def counting(data):
        calls.append(data)
        return original(data)

    monkeypatch.setattr(runner, "content_hash", counting)
    return calls


def _fake_times(monkeypatch, *, shift_ns: int = 0, frozen: tuple[int, int] | None = None):
    """The runner sees each file's times moved back by ``shift_ns`` or, with ``frozen`` (size, time), always that
    size and time (a file system whose timestamps did not move, as on one with coarse ticks)."""
    real = runner._status

    def status(path):
        found = real(path)
        if found is None:
            return None
        size, mtime, ctime = found.st_size, found.st_mtime_ns - shift_ns, found.st_ctime_ns - shift_ns
        if frozen is not None:
            size, mtime, ctime = frozen[0], frozen[1], frozen[1]
        return SimpleNamespace(st_size=size, st_ino=found.st_ino, st_mtime_ns=mtime, st_ctime_ns=ctime)

    monkeypatch.setattr(runner, "_status", status)


def test_unchanged_stamp_is_a_hit_without_reading(tmp_path, counted, hashed, monkeypatch):
    _fake_times(monkeypatch, shift_ns=100 * 10**9)
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    files = source_files([path], tmp_path)
    cold = _run(files, tmp_path / "c")
    counted.clear(), hashed.clear()
    warm = _run(files, tmp_path / "c")
    assert counted == [] and hashed == []
    assert summary(warm) == summary(cold)


def test_touched_unchanged_file_is_hashed_once_then_hits_on_its_new_stamp(tmp_path, counted, hashed, monkeypatch):
    _fake_times(monkeypatch, shift_ns=100 * 10**9)
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    files = source_files([path], tmp_path)
    cold = _run(files, tmp_path / "c")
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 5 * 10**9))  # touch: same bytes, new time
    counted.clear(), hashed.clear()
    touched = _run(files, tmp_path / "c")
    assert counted == [] and len(hashed) == 1  # not linted: the hash says the bytes are those cached
    assert summary(touched) == summary(cold)
    hashed.clear()
    _run(files, tmp_path / "c")
    assert counted == [] and hashed == []  # the new stamp was stored


def test_same_size_edit_in_the_same_tick_is_not_trusted(tmp_path, counted, monkeypatch):
    """The racy case: the file's times equal the moment of the run that cached it; an edit in that tick keeps its
    size and times, so only the hash tells. Such an entry keeps no stamp, and the next run hashes."""
    path = tmp_path / "a.py"
    path.write_text("import jax.numpy as jnp\ny = 1\n" + " " * (len(TAKE) - 30) + "\n")
    _fake_times(monkeypatch, frozen=(len(TAKE), time.time_ns()))
    files = source_files([path], tmp_path)
    assert _run(files, tmp_path / "c")[0].diagnostics == []
    status = path.stat()
    path.write_text(TAKE)  # the same size, and (as the file system reports it) the same times
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    counted.clear()
    second = _run(files, tmp_path / "c")
    assert counted == ["a.py"] and [d.code for d in second[0].diagnostics] == ["JAX202"]


def test_an_old_stamp_is_trusted_only_by_check_not_by_fix(tmp_path, counted, monkeypatch):
    """Same size and times after an edit (as a file system that did not move them would report): ``check``
    trusts the stamp, as ruff trusts an mtime; ``--fix`` compares the bytes, so it never fixes from a stale entry."""
    path = tmp_path / "a.py"
    clean = "import jax.numpy as jnp\ny = 1\n"
    path.write_text(clean.ljust(len(TAKE) - 1) + "\n")
    _fake_times(monkeypatch, frozen=(len(TAKE), time.time_ns() - 100 * 10**9))
    files = source_files([path], tmp_path)
    _run(files, tmp_path / "c")
    path.write_text(TAKE)
    counted.clear()
    assert _run(files, tmp_path / "c")[0].diagnostics == []  # the stamp says unchanged
    fixed = _run(files, tmp_path / "c", mode=Mode.FIX)
    assert counted == ["a.py"] and [d.code for d in fixed[0].applied] == ["JAX202"]
    assert path.read_text() == TAKE_FIXED


def test_changed_setting_misses_even_with_an_unchanged_stamp(tmp_path, counted, hashed, monkeypatch):
    _fake_times(monkeypatch, shift_ns=100 * 10**9)
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    _run(source_files([path], tmp_path), tmp_path / "c")
    counted.clear()
    result = _run(source_files([path], tmp_path, ignore=("JAX202",)), tmp_path / "c")
    assert counted == ["a.py"] and result[0].diagnostics == []


def test_a_stamp_is_stored_only_for_a_file_older_than_its_read(tmp_path):
    from jaxlint.project.cache import RACY_NS, trusted_stamp

    now = time.time_ns()
    old = SimpleNamespace(st_size=3, st_ino=7, st_mtime_ns=now - RACY_NS - 1, st_ctime_ns=now - RACY_NS - 1)
    assert trusted_stamp(old, now) == [3, now - RACY_NS - 1, now - RACY_NS - 1, 7]
    assert trusted_stamp(SimpleNamespace(**{**vars(old), "st_mtime_ns": now}), now) is None
    assert trusted_stamp(SimpleNamespace(**{**vars(old), "st_ctime_ns": now - 1}), now) is None  # a recent chmod/write
    assert trusted_stamp(SimpleNamespace(**{**vars(old), "st_mtime_ns": now + 10**9}), now) is None  # in the future


# -- shards: a run reads and writes only the shards of the files it looks at ----------------------------------------
def _shards_read(monkeypatch) -> list[str]:
    from jaxlint.project import shards

    read = []
    original = shards.read_signed

    def recording(file, kind, context):
        read.append(f"{kind}:{Path(file).name}")
        return original(file, kind, context)

    monkeypatch.setattr(shards, "read_signed", recording)
    return read


@pytest.fixture
def small_shards(monkeypatch):
    """Shards of a few entries: what a tree of tens of thousands of modules gets (``project.shards``)."""
    from jaxlint.project import shards

    monkeypatch.setattr(shards, "SHARD_BYTES", 4000)


def test_one_file_of_a_large_tree_reads_and_writes_only_its_own_shard(tmp_path, counted, monkeypatch, small_shards):
    """pre-commit's case in a monorepo: the cache of every other file is neither read nor rewritten (one cache file
    per run cost a 30,000-module project 1.2 CPU-s for each one-file check)."""
    folders = [tmp_path / "p" / f"pkg{i}" for i in range(40)]
    for folder in folders:
        folder.mkdir(parents=True)
        (folder / "a.py").write_text(TAKE)
    everything = source_files([folder / "a.py" for folder in folders], tmp_path / "p")
    _run(everything, tmp_path / "c")
    assert len(cache_entries(tmp_path / "c", "results")) == 40
    before = cache_entries(tmp_path / "c", "results")
    shards = {path: path.stat().st_mtime_ns for path in (tmp_path / "c").rglob("*.json")}
    # split as the cache grew, the files of each folder in one shard
    assert len(shard_files(tmp_path / "c", "results")) >= 4 and len(shard_files(tmp_path / "c", "index")) >= 4
    edited = folders[7] / "a.py"
    edited.write_text(TAKE + "# edited\n")
    time.sleep(0.01)
    read = _shards_read(monkeypatch)
    counted.clear()
    (result,) = _run(source_files([edited], tmp_path / "p"), tmp_path / "c")
    assert counted == ["a.py"] and [d.code for d in result.diagnostics] == ["JAX202"]
    own = shard_file(tmp_path / "c", "results", str(edited))
    facts = shard_file(tmp_path / "c", "index", str(edited))
    # each looked up, then read again and merged into when saved: the module's facts, and its result
    assert sorted(read) == sorted(["results:" + own.name] * 2 + ["index:" + facts.name] * 2)
    rewritten = sorted(path for path, time_ns in shards.items() if path.stat().st_mtime_ns != time_ns)
    assert rewritten == sorted([own, facts])
    after = cache_entries(tmp_path / "c", "results")
    assert after.keys() == before.keys()  # every other entry kept
    assert [key for key in after if after[key] != before[key]] == [str(edited)]


def test_a_shard_copied_over_another_is_not_used(tmp_path, counted, monkeypatch):
    """Each shard's signature names the shard: a valid shard of this user, copied over another one's file, would
    otherwise drop that shard's entries and bring in its own under a wrong name."""
    from jaxlint.project import shards

    monkeypatch.setattr(shards, "SHARD_BYTES", 100)  # one entry a shard
    first, second = tmp_path / "p" / "one" / "a.py", tmp_path / "p" / "two" / "a.py"
    for path in (first, second):
        path.parent.mkdir(parents=True)
        path.write_text(TAKE)
    files = source_files([first, second], tmp_path / "p")
    expected = summary(_run(files, tmp_path / "c"))
    one, two = shard_file(tmp_path / "c", "results", str(first)), shard_file(tmp_path / "c", "results", str(second))
    assert one != two
    one.write_bytes(two.read_bytes())
    counted.clear()
    assert summary(_run(files, tmp_path / "c")) == expected
    assert counted == ["a.py"]  # the first file's shard is a miss; the second's still hits


def test_old_caches_of_other_engines_are_removed_and_nothing_else(tmp_path):
    """Once a week's old, another engine's shard folder goes (only the files jaxlint names there), as does the one
    file an older jaxlint kept; a user's file in the cache folder, and a recent other engine's cache, stay."""
    cache = tmp_path / "c"
    old_folder, recent_folder = cache / "results-0ld", cache / "index-rec3nt"
    for folder in (old_folder, recent_folder):
        folder.mkdir(parents=True)
        (folder / "4-3f.json").write_text("{}")
    (old_folder / "digest.json").write_text("{}")
    (old_folder / "notes.txt").write_text("mine")
    single = cache / "results-0ld.json"
    single.write_text("{}")
    week_ago = time.time() - cache_module.STALE_SECONDS - 60
    for path in (old_folder / "4-3f.json", old_folder / "digest.json", old_folder, single):
        os.utime(path, (week_ago, week_ago))
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    _run(source_files([path], tmp_path), cache)
    assert not single.exists() and not (old_folder / "4-3f.json").exists()
    assert not (old_folder / "digest.json").exists()
    assert (old_folder / "notes.txt").read_text() == "mine"  # not jaxlint's: kept, and its folder with it
    assert (recent_folder / "4-3f.json").exists()
