"""A warm check replays the last identical check's output (``jaxlint.run.replay``), and only when nothing it read
has changed: each test records a check in a real ``jaxlint`` process, changes one input, and asks the replay.

``JAXLINT_REPLAY_RACY_NS=0`` lets a check record files written a moment ago (the default trusts only stamps older
than 2 s: ``test_files_written_just_before_the_check_are_not_trusted`` checks that)."""
from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.run import replay
from support.signed import signed_with_another_key, unverified
from tests.cli.test_cli import NONE_ARG

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="replay records on Python 3.11 and later")
CLEAN = "import jax.numpy as jnp\nx = jnp.zeros(3)\n"
USER_RULE = '''[[symbol]]
name = "ourlib.old_thing"
removed_in = "0.10.0"
message = "gone."
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text(NONE_ARG)
    (root / "pkg" / "b.py").write_text(CLEAN)
    # A project file: the search for pins stops here instead of listing /tmp, which other processes keep changing
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("JAXLINT_REPLAY_RACY_NS", "0")
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
    monkeypatch.chdir(root)
    return root


def _check(*args: str) -> subprocess.CompletedProcess:
    """A real ``jaxlint`` process, with this process's environment and folder (what the replay key compares)."""
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], capture_output=True, timeout=120,
                          env=dict(os.environ))


def _record(*args: str) -> subprocess.CompletedProcess:
    """The check until it has recorded (at most three times): the first creates the results cache folder in the
    project, which changes a folder the check listed, so only the second can record; a check declines to record
    whenever it cannot trust a stamp, which a busy machine may cause once more."""
    done = _check(*args)
    for _ in range(2):
        if _manifests() and done.returncode in (0, 1):
            break
        done = _check(*args)
    return done


def _replay(args: tuple[str, ...], capfdbinary) -> tuple[int | None, bytes, bytes]:
    """``replay.replayed()`` here, for the same command line."""
    saved = sys.argv
    sys.argv = ["jaxlint", *args]
    try:
        code = replay.replayed()
    finally:
        sys.argv = saved
    captured = capfdbinary.readouterr()
    return code, captured.out, captured.err


def _manifests() -> list[Path]:
    return sorted((Path(os.environ["XDG_CACHE_HOME"]) / "jaxlint" / "replay").glob("*.replay"))


def test_an_unchanged_tree_replays_the_check_exactly(project, capfdbinary):
    args = ("check", "pkg")
    first = _record(*args)
    assert first.returncode == 1 and b"JAX202" in first.stdout
    assert len(_manifests()) == 1
    code, out, err = _replay(args, capfdbinary)
    assert (code, out, err) == (first.returncode, first.stdout, first.stderr)
    second = _check(*args)  # the console process replays the same
    assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)


def test_the_report_file_is_replayed_only_while_it_holds_what_the_check_wrote(project, capfdbinary):
    args = ("check", "pkg", "--exit-zero", "--output-format", "json", "-o", "out/report.json")
    report = project / "out" / "report.json"
    assert _record(*args).returncode == 0
    written = report.read_bytes()
    assert [finding["code"] for finding in json.loads(written)] == ["JAX202"]
    os.utime(report, (1_000_000, 1_000_000))
    code, out, _ = _replay(args, capfdbinary)
    assert code == 0 and out == b""
    assert report.read_bytes() == written and report.stat().st_mtime == 1_000_000  # replayed, not written
    report.write_text("stale")
    assert _replay(args, capfdbinary)[0] is None  # a replay writes no file: the check runs, and writes it
    assert report.read_bytes() == b"stale"
    assert _check(*args).returncode == 0
    assert report.read_bytes() == written


@pytest.mark.parametrize("change", [
    "edit a linted file", "add a file", "remove a file", "add a config file", "edit the config file",
    "add a pin file", "add a .gitignore", "delete the results cache", "another environment", "another folder",
    "edit a user rule", "add a first-party module",
    # A folder below the walk's root is read by its listing alone: its config and pin files, and its .git, are
    # found among its names (no stat of their own), and its listing changes when one is added.
    "add a config file in a walked subfolder", "add a pin file in a walked subfolder",
    "add a .git in a walked subfolder", "edit a pin file in a walked subfolder",
])
def test_a_changed_input_runs_the_check_again(project, capfdbinary, monkeypatch, change):
    (project / "rules").mkdir()
    (project / "rules" / "mine.toml").write_text(USER_RULE)
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nextend-rules = ["rules"]\n')
    args = ("check", "pkg")
    if change == "edit a user rule":  # read by the workers only
        for index in range(20):
            (project / "pkg" / f"m{index}.py").write_text("import ourlib\nourlib.old_thing()\n")
        args = ("check", "pkg", "-j", "2", "--cache-dir", str(project.parent / "cache"))
    elif change == "add a first-party module":  # a folder the check does not list
        args = ("check", "pkg/a.py", "--cache-dir", str(project.parent / "cache"))
    if "walked subfolder" in change:  # pkg/sub holds no linted file: only the walk lists it
        (project / "pkg" / "sub" / "deeper").mkdir(parents=True)
        (project / "pkg" / "sub" / "deeper" / "c.py").write_text(NONE_ARG)
        if change.startswith("edit"):
            (project / "pkg" / "sub" / "requirements.txt").write_text("jax>=0.4.30\n")
    if "--cache-dir" in args:  # recorded by a cold check (its cache folder exists, and is empty)
        _check(*args)
        for path in (project.parent / "cache").iterdir():
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        _check(*args)
    else:
        _record(*args)
    assert _replay(args, capfdbinary)[0] == 1, "recorded"
    if change == "edit a linted file":
        (project / "pkg" / "a.py").write_text(CLEAN)
    elif change == "add a file":
        (project / "pkg" / "c.py").write_text(NONE_ARG)
    elif change == "remove a file":
        (project / "pkg" / "b.py").unlink()
    elif change == "add a config file":
        (project / "pkg" / "pyproject.toml").write_text("[tool.jaxlint]\nignore = ['JAX202']\n")
    elif change == "edit the config file":
        (project / "pyproject.toml").write_text("[tool.jaxlint]\nignore = ['JAX202']\n")
    elif change == "add a config file in a walked subfolder":
        (project / "pkg" / "sub" / "jaxlint.toml").write_text("ignore = ['JAX202']\n")
    elif change == "add a pin file in a walked subfolder":
        (project / "pkg" / "sub" / "requirements.txt").write_text("jax>=0.4.30\n")
    elif change == "add a .git in a walked subfolder":
        (project / "pkg" / "sub" / ".git").mkdir()
    elif change == "edit a pin file in a walked subfolder":
        (project / "pkg" / "sub" / "requirements.txt").write_text("jax>=0.4.35\n")
    elif change == "add a pin file":
        (project / "requirements.txt").write_text("jax>=0.4.30\n")
    elif change == "add a .gitignore":
        (project / "pkg" / ".gitignore").write_text("a.py\n")
    elif change == "delete the results cache":
        shutil.rmtree(project / ".jaxlint_cache")
    elif change == "another environment":
        monkeypatch.setenv("JAXLINT_SOMETHING", "1")
    elif change == "another folder":
        monkeypatch.chdir(project / "pkg")
    elif change == "edit a user rule":
        (project / "rules" / "mine.toml").write_text(USER_RULE.replace("old_thing", "older_thing"))
    elif change == "add a first-party module":  # where a fix would put an added import
        (project / "pkg" / "jax.py").write_text("")
    assert _replay(args, capfdbinary)[0] is None


def test_an_edit_shows_in_the_next_check(project):
    args = ("check", "pkg")
    assert _check(*args).returncode == 1
    (project / "pkg" / "a.py").write_text(CLEAN)
    assert _check(*args).returncode == 0
    (project / "pkg" / "a.py").write_text(NONE_ARG + "\n")
    again = _check(*args)
    assert again.returncode == 1 and b"JAX202" in again.stdout


@pytest.mark.parametrize("args", [("check", "pkg", "--no-cache"), ("check", "pkg", "--diff"), ("rules",)])
def test_only_a_cached_check_records(project, args):
    _record(*args)
    assert _manifests() == []


def test_a_fix_is_never_replayed_and_the_check_after_it_sees_the_fix(project, capfdbinary):
    _record("check", "pkg")
    fixed = _check("check", "pkg", "--fix")
    assert fixed.returncode == 0 and (project / "pkg" / "a.py").read_text() != NONE_ARG
    assert _replay(("check", "pkg"), capfdbinary)[0] is None
    assert _check("check", "pkg").returncode == 0


@pytest.mark.parametrize("racy_ns, records", [(None, False), ("0", True)])
def test_files_written_just_before_the_check_are_not_trusted(project, monkeypatch, racy_ns, records):
    """One check, right after a file was written (a results cache folder outside the project, so that the first
    check may record): by default it does not record; with no racy window (the other tests' setting) it does."""
    cache = project.parent / "cache"
    cache.mkdir()
    if racy_ns is None:
        monkeypatch.delenv("JAXLINT_REPLAY_RACY_NS")
    (project / "pkg" / "a.py").write_text(NONE_ARG + "\n")
    assert _check("check", "pkg", "--cache-dir", str(cache)).returncode == 1
    assert bool(_manifests()) is records


def test_a_damaged_manifest_is_ignored(project, capfdbinary):
    _record("check", "pkg")
    assert _manifests()
    for manifest in _manifests():
        manifest.write_bytes(b"\x00garbage")
    assert _replay(("check", "pkg"), capfdbinary)[0] is None
    assert _check("check", "pkg").returncode == 1


TWO_FINDINGS = NONE_ARG + "z = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=None)\n"


def test_a_planted_manifest_changes_nothing(project, capfdbinary):
    """A manifest edited or planted in ``~/.cache`` (a CI cache restored from another branch) says the tree is
    clean and the report is whatever it likes: the check still reports both findings, exits 1, writes nothing."""
    _record("check", "pkg")
    (manifest,) = _manifests()
    genuine = marshal.loads(unverified(manifest.read_bytes()))
    victim = project.parent / "victim.txt"
    victim.write_text("mine")
    forged = {**genuine, "stamps": [], "output": [(1, b"All checks passed!\n")], "code": 0,
              "reports": [(str(victim), b"pwned")]}
    (project / "pkg" / "a.py").write_text(TWO_FINDINGS)
    payload = marshal.dumps(forged)
    for planted in (payload, signed_with_another_key("replay", str(replay.FORMAT), payload)):
        manifest.write_bytes(planted)
        assert _replay(("check", "pkg"), capfdbinary)[0] is None
        done = _check("check", "pkg")
        assert done.returncode == 1 and done.stdout.count(b"JAX202") == 2
        assert b"All checks passed" not in done.stdout
        assert victim.read_text() == "mine"
        _record("check", "pkg")  # a manifest of its own again (the next plant replaces it)


@pytest.mark.parametrize("flag", ["--no-cache", "-n"])
def test_no_cache_replays_nothing_even_a_signed_manifest(project, capfdbinary, flag):
    from jaxlint.project.cache_key import seal

    _record("check", "pkg")
    (manifest,) = _manifests()
    genuine = marshal.loads(unverified(manifest.read_bytes()))
    saved = sys.argv
    sys.argv = ["jaxlint", "check", "pkg", flag]
    try:
        invocation = replay._invocation()
        target = Path(replay._manifest_path(invocation))
    finally:
        sys.argv = saved
    target.write_bytes(seal("replay", str(replay.FORMAT), marshal.dumps({**genuine, "invocation": invocation})))
    assert _replay(("check", "pkg", flag), capfdbinary)[0] is None


def test_a_reader_that_stops_early_gets_no_traceback(project):
    for index in range(150):  # more output than a pipe's buffer holds
        (project / "pkg" / f"m{index:03}.py").write_text(NONE_ARG)
    args = ("check", "pkg", "--output-format", "full")
    assert len(_record(*args).stdout) > 70_000 and _manifests()
    process = subprocess.Popen([sys.executable, "-m", "jaxlint", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ))
    assert process.stdout.read(10)
    process.stdout.close()  # as ``| head -1`` does
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "Error" not in stderr


def test_an_edit_of_a_module_the_check_did_not_lint_runs_a_one_file_check_again(project, capfdbinary):
    # ``check pkg/worker.py`` reads the facts of every module of the project (the index covers the root), so an
    # edit that makes ``pkg/model.py`` run a pjit with PartitionSpecs must not be answered by the replay.
    model = "class Model:\n    def train(self, batch):\n        return batch\n"
    worker = ("import jax\nfrom pkg.model import Model\n\nmodel = Model()\nwith jax.make_mesh((2,), ('x',)):\n"
              "    model.train(1)\n")
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "model.py").write_text(model)
    (project / "pkg" / "worker.py").write_text(worker)
    args = ("check", "--select", "JAX401", "--unsafe-fixes", "pkg/worker.py")
    assert b"[*]" in _record(*args).stdout
    assert _replay(args, capfdbinary)[0] == 1, "recorded"
    (project / "pkg" / "model.py").write_text(
        "from jax.experimental.pjit import pjit\n\n\nclass Model:\n    def train(self, batch):\n"
        "        return pjit(lambda a: a, in_shardings=spec)(batch)\n")
    assert _replay(args, capfdbinary)[0] is None
    expected = b"(no automatic fix: the block calls `Model` from `pkg/model.py`, which runs a `pjit`"
    assert expected in _check(*args).stdout
