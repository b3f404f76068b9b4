"""The key that signs jaxlint's caches (``jaxlint.project.cache_key``): made once, private, kept outside every cache
folder; and what a cache not signed with it may do: nothing. A committed ``.jaxlint_cache/`` made with another key
hides no finding; a key file that is not private, or cannot be read or made, turns caching off, never an error.

Every test points ``JAXLINT_CACHE_KEY`` (or ``XDG_CONFIG_HOME``) at a temporary folder (never the user's own key),
and ``XDG_CACHE_HOME`` too."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.project.cache_key import cache_key, forget_key, key_path, seal, unseal
from jaxlint.run import runner
from jaxlint.run.runner import Mode, run_files
from support.corpus import source_files, summary
from support.signed import shard_file, signed_json, signed_with_another_key, unverified

TAKE = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=None)\n"


@pytest.fixture(autouse=True)
def _own_cache_folder(tmp_path, monkeypatch):
    """The catalogue's copy and any replay manifest in a temporary folder, not the user's ~/.cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def key_file(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "config" / "jaxlint" / "cache-key"
    monkeypatch.setenv("JAXLINT_CACHE_KEY", str(path))
    return path


@pytest.fixture
def counted(monkeypatch):
    """The files actually processed (not answered from the cache)."""
    calls = []
    original = runner.process_file

    def counting(path, *args, **kwargs):
        calls.append(Path(path).name)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(runner, "process_file", counting)
    return calls


def _check(files, cache_dir):
    return run_files(files, Mode.CHECK, False, jobs=1, use_cache=True, cache_dir=cache_dir)


# -- the key -----------------------------------------------------------------------------------------------------
def test_the_key_lives_in_the_user_s_config_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("JAXLINT_CACHE_KEY")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert key_path() == str(tmp_path / "xdg" / "jaxlint" / "cache-key")
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/folder")  # ignored, as the XDG specification says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert key_path() == str(tmp_path / "home" / ".config" / "jaxlint" / "cache-key")


def test_the_key_is_made_once_readable_by_its_owner_only(key_file):
    key = cache_key()
    assert key is not None and len(key) == 32
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert [p.name for p in key_file.parent.iterdir()] == ["cache-key"]  # no temporary file left
    forget_key()
    assert cache_key() == key  # read back, not made again


def test_first_runs_at_once_agree_on_one_key(key_file):
    code = "from jaxlint.project.cache_key import cache_key; print(cache_key().hex())"
    processes = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ)) for _ in range(4)]
    keys = {process.communicate(timeout=60)[0].strip() for process in processes}
    assert keys == {key_file.read_text().strip()}


def test_a_signature_binds_the_bytes_and_their_purpose(key_file):
    sealed = seal("results", "engine-1", b'{"a": 1}')
    assert unseal("results", "engine-1", sealed) == b'{"a": 1}'
    assert unseal("results", "engine-2", sealed) is None  # another jaxlint
    assert unseal("index", "engine-1", sealed) is None  # another kind of cache
    assert unseal("results", "engine-1", sealed.replace(b'"a": 1', b'"a": 2')) is None  # edited
    assert unseal("results", "engine-1", b'{"a": 1}') is None  # unsigned
    assert unseal("results", "engine-1", signed_with_another_key("results", "engine-1", b'{"a": 1}')) is None


def _spoil(key_file: Path, how: str) -> None:
    key_file.parent.mkdir(parents=True)
    if how == "a folder":
        key_file.mkdir()
        return
    if how == "below a file":
        key_file.parent.rmdir()
        key_file.parent.write_text("not a folder")
        return
    text = {"damaged": "abc\n", "not hex": "zz" * 32 + "\n", "empty": ""}.get(how, "ab" * 32 + "\n")
    key_file.write_text(text)
    key_file.chmod(0o600)
    if how == "readable by others":
        key_file.chmod(0o644)
    elif how == "writable by its group":
        key_file.chmod(0o620)
    elif how == "another user's":
        os.chown(key_file, 65534, -1)


SPOILED = ["readable by others", "writable by its group", "a folder", "below a file", "damaged", "not hex", "empty",
           pytest.param("another user's", marks=pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                                                  reason="only root can give a file away"))]


@pytest.mark.parametrize("how", SPOILED)
def test_a_key_that_is_not_private_or_not_a_key_turns_caching_off(key_file, how):
    _spoil(key_file, how)
    assert cache_key() is None
    assert seal("results", "x", b"{}") is None
    assert unseal("results", "x", signed_with_another_key("results", "x", b"{}")) is None


@pytest.mark.parametrize("how", SPOILED)
def test_a_check_with_a_spoiled_key_runs_uncached_and_says_the_same(tmp_path, key_file, how, counted):
    _spoil(key_file, how)
    path = tmp_path / "p" / "a.py"
    path.parent.mkdir()
    path.write_text(TAKE)
    files = source_files([path], tmp_path / "p")
    expected = summary(run_files(files, Mode.CHECK, False, jobs=1, use_cache=False))
    counted.clear()
    for _ in range(2):
        assert summary(_check(files, tmp_path / "c")) == expected
    assert counted == ["a.py", "a.py"]  # no hit: nothing was cached
    assert not (tmp_path / "c").exists()


def test_the_command_with_a_key_readable_by_others_caches_nothing_and_does_not_fail(tmp_path, key_file):
    _spoil(key_file, "readable by others")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "a.py").write_text(TAKE)
    (tmp_path / "p" / "pyproject.toml").write_text("[tool.jaxlint]\n")
    env = dict(os.environ)
    runs = [subprocess.run([sys.executable, "-m", "jaxlint", "check", "."], cwd=tmp_path / "p", env=env,
                           capture_output=True, timeout=120) for _ in range(2)]
    uncached = subprocess.run([sys.executable, "-m", "jaxlint", "check", ".", "--no-cache"], cwd=tmp_path / "p",
                              env=env, capture_output=True, timeout=120)
    for done in runs:
        assert (done.returncode, done.stdout, done.stderr) == (1, uncached.stdout, uncached.stderr)
    assert b"JAX202" in uncached.stdout
    assert not (tmp_path / "p" / ".jaxlint_cache").exists()
    assert not list((tmp_path / "xdg-cache").rglob("*.replay"))


# -- a cache that is not jaxlint's own ---------------------------------------------------------------------------
def test_a_committed_cache_made_with_another_key_hides_no_finding(tmp_path, counted):
    """A ``.jaxlint_cache/`` committed to the repository (or restored from a shared CI cache) at the same absolute
    path, whose entry says the file has no finding: the finding is still reported, and the file is replaced by
    jaxlint's own entries."""
    project = tmp_path / "p"
    project.mkdir()
    path = project / "a.py"
    path.write_text(TAKE)
    files = source_files([path], project)
    cache = project / ".jaxlint_cache"
    expected = summary(_check(files, cache))
    assert "JAX202" in str(expected)
    cache_file = shard_file(cache, "results", str(path))
    forged = json.loads(unverified(cache_file.read_bytes()))
    for entry in forged["entries"].values():
        entry[2] = []  # "no findings", for the same bytes, settings and stamp
    payload = json.dumps(forged).encode()
    from jaxlint.project.fingerprint import engine_fingerprint

    context = f"{engine_fingerprint()}/{cache_file.stem}"  # what jaxlint signs a shard for
    for planted in (payload, signed_with_another_key("results", context, payload)):
        cache_file.write_bytes(planted)
        counted.clear()
        assert summary(_check(files, cache)) == expected
        assert counted == ["a.py"]  # a miss
        (entry,) = signed_json(cache_file, "results")["entries"].values()
        assert [finding["code"] for finding in entry[2]] == ["JAX202"]  # overwritten with jaxlint's own


def test_an_identical_second_run_is_a_hit(tmp_path, key_file, counted):
    path = tmp_path / "a.py"
    path.write_text(TAKE)
    files = source_files([path], tmp_path)
    first = summary(_check(files, tmp_path / "c"))
    counted.clear()
    assert summary(_check(files, tmp_path / "c")) == first and counted == []
    assert key_file.is_file()


def test_a_planted_project_index_changes_no_finding(tmp_path):
    """The project index (``.jaxlint_cache/index-*.json``) says what other modules do; a planted one that says
    ``pkg/model.py`` no longer reads ``thread_resources`` would turn a withheld JAX401 fix into an offered one."""
    from jaxlint.project.fingerprint import engine_fingerprint
    from test_project_index import MAIN, THREAD_RESOURCES_MODEL, findings, run

    files = {"pkg/__init__.py": "", "pkg/model.py": THREAD_RESOURCES_MODEL, "main.py": MAIN}
    (expected,) = findings(run(tmp_path / "uncached", files)["main.py"])
    assert expected.fix is None and expected.fix_withheld is not None
    project = tmp_path / "p"
    run(project, files, use_cache=True)
    model = str(project / "pkg" / "model.py")
    index_file = shard_file(project / ".cache", "index", model)
    forged = json.loads(unverified(index_file.read_bytes()))
    forged["entries"][model][3]["thread_resources"] = False
    payload = json.dumps(forged).encode()
    (project / ".cache" / f"index-{engine_fingerprint()}" / "digest.json").unlink()
    context = f"{engine_fingerprint()}/{index_file.stem}"
    for edit, planted in enumerate((payload, signed_with_another_key("index", context, payload))):
        index_file.write_bytes(planted)
        # main.py edited: its result is computed again (a warm run, with the index), from what model.py does
        edited = {**files, "main.py": MAIN + "#" * (edit + 1) + "\n"}
        (finding,) = findings(run(project, edited, use_cache=True)["main.py"])
        assert (finding.fix, finding.fix_withheld) == (None, expected.fix_withheld)
