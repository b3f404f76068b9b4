"""The results cache: reused only for the same bytes and settings, never corrupt, safe under concurrent runs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.project import cache as cache_module
from jaxlint.run import runner
from jaxlint.project.cache import Cache, diagnostic_from_json, diagnostic_to_json
from jaxlint.run.runner import Mode, run_files
from jaxlint.project.versions import Version
from support.corpus import make_project, source_files, summary

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
    assert len(list((tmp_path / "c").glob("results-*.json"))) == 2


@pytest.mark.parametrize("damage", [b"", b"{", b"[]", b'{"format": 1, "entries": {"x": 3}}', b"\x80\x81",
                                    b'{"format": 1, "entries": {"ABS": ["h", "s", [{"code": 1}]]}}'])
def test_damaged_cache_is_ignored_and_replaced(tmp_path, damage):
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    files = source_files([path], tmp_path)
    expected = summary(run_files(files, Mode.CHECK, False, jobs=1, use_cache=False))
    cache_file = Cache(tmp_path / "c").file
    cache_file.parent.mkdir(parents=True)
    cache_file.write_bytes(damage.replace(b"ABS", str(path).encode()))
    assert summary(_run(files, tmp_path / "c")) == expected
    assert summary(_run(files, tmp_path / "c")) == expected
    json.loads(cache_file.read_bytes())


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
        (cache_file,) = (tmp_path / "c").glob("results-*.json")
        data = json.loads(cache_file.read_bytes())
        assert len(data["entries"]) == len(list((tmp_path / "p").rglob("*.py")))
    assert not list((tmp_path / "c").glob(".results-*.tmp"))


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

    monkeypatch.setattr(cache_module, "jaxlint", FakeModule)

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
    """With no entry for a path, the cache lookup needs no hash: the file is read once, by the worker."""
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
    assert sorted(name for name in reads if name.endswith(".py")) == ["a.py", "a.py", "b.py", "b.py"]  # the worker's hash and its lint, not the lookup
