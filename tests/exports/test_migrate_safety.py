"""`jaxlint exports migrate` loses nothing: a file already in --out is refused before anything is written (unless
--force), an input named twice is migrated once, and Ctrl-C or SIGTERM ends the JAX processes, removes the scratch
folder, keeps the progress printed so far and exits 130 or 143. JAX is a stand-in (tests/support/fake_jax_python.py):
no environment is built."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from conftest import REPO, artifact
from jaxlint.exports import migrate as migrate_module
from jaxlint.exports.cli import exports_command
from jaxlint.verify.signals import Interrupted
from tests.support import fake_jax_python

OLD, MODERN, USERS_OWN = artifact("0.8.1", "simple"), artifact("0.12.0.1", "simple"), artifact("0.12.0.1", "poly")


@pytest.fixture
def pythons(tmp_path):
    baseline = fake_jax_python.make(tmp_path / "baseline" / "bin", "0.10.2", MODERN)
    target = fake_jax_python.make(tmp_path / "target" / "bin", "0.12.0.1", MODERN)
    return ["--baseline-python", str(baseline), "--target-python", str(target)]


@pytest.fixture
def models(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "m.jaxexport").write_bytes(OLD.read_bytes())
    return folder


def migrate(*args):
    return CliRunner().invoke(exports_command, ["migrate", *map(str, args)], catch_exceptions=False)


def test_a_file_already_in_out_is_refused_untouched_and_only_force_overwrites_it(tmp_path, models, pythons):
    out = tmp_path / "out"
    out.mkdir()
    (out / "m.jaxexport").write_bytes(USERS_OWN.read_bytes())  # the user's own 0.12.0.1 artifact
    (out / "m.jaxexport.migration.json").write_text("notes\n")
    result = migrate(models, "--out", out, *pythons)
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"jaxlint exports: error: --out {out} already holds 2 files that migrating would "
                             "overwrite (nothing was written; pass --force to overwrite them):\n"
                             f"  {out / 'm.jaxexport'}\n  {out / 'm.jaxexport.migration.json'}\n")
    assert (out / "m.jaxexport").read_bytes() == USERS_OWN.read_bytes()
    assert sorted(p.name for p in out.iterdir()) == ["m.jaxexport", "m.jaxexport.migration.json"]
    assert (out / "m.jaxexport.migration.json").read_text() == "notes\n"

    forced = migrate(models, "--out", out, *pythons, "--force")
    assert forced.exit_code == 0, forced.output
    assert "1 migrated, 0 already loading, 0 failed" in forced.output
    assert (out / "m.jaxexport").read_bytes() == MODERN.read_bytes()
    assert json.loads((out / "m.jaxexport.migration.json").read_text())["status"] == "migrated"


def test_a_stale_failure_record_counts_as_in_the_way_and_an_already_loading_artifact_does_not(tmp_path, models,
                                                                                              pythons):
    (models / "new.jaxexport").write_bytes(MODERN.read_bytes())  # loads already: migrate writes nothing for it
    out = tmp_path / "out"
    out.mkdir()
    (out / "new.jaxexport").write_bytes(USERS_OWN.read_bytes())
    (out / "m.jaxexport.migration-failed.json").write_text("{}")
    result = migrate(models, "--out", out, *pythons)
    assert result.exit_code == 2
    assert result.stderr.endswith(f"(nothing was written; pass --force to overwrite them):\n"
                                  f"  {out / 'm.jaxexport.migration-failed.json'}\n")
    assert (out / "new.jaxexport").read_bytes() == USERS_OWN.read_bytes()


def test_a_folder_and_a_file_inside_it_are_one_input(tmp_path, models, pythons):
    out = tmp_path / "out"
    result = migrate(models, models / "m.jaxexport", models, "--out", out, *pythons)
    assert result.exit_code == 0, result.output
    assert "1 migrated, 0 already loading, 0 failed (1 artifact among 1 file;" in result.output
    assert result.output.count("migrated  ") == 1
    # One input folder: its layout is mirrored, as when it is named alone.
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == ["m.jaxexport",
                                                                               "m.jaxexport.migration.json"]


def test_inspect_lists_an_artifact_named_twice_once(models):
    result = CliRunner().invoke(exports_command, [str(models), str(models / "m.jaxexport"), "--output-format",
                                                  "json"])
    assert [row["path"] for row in json.loads(result.stdout)] == [str(models / "m.jaxexport")]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (ended, not yet reaped by its parent, init here) is not running.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("signum,exit_code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_the_jax_processes_removes_the_scratch_and_keeps_the_progress(tmp_path, models, pythons,
                                                                                    signum, exit_code):
    (models / "x-hang.jaxexport").write_bytes(OLD.read_bytes())  # after m.jaxexport: its worker never answers
    scratch, pids = tmp_path / "tmp", tmp_path / "hang.pids"
    scratch.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), TMPDIR=str(scratch), FAKE_JAX_HANG_PIDS=str(pids))
    process = subprocess.Popen([sys.executable, "-m", "jaxlint", "exports", "migrate", str(models), "--out",
                                str(tmp_path / "out"), *pythons], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    deadline = time.monotonic() + 120  # how long to wait for the worker to start, not a measured duration
    while not pids.exists() or not pids.read_text().endswith("\n"):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    worker, grandchild = map(int, pids.read_text().split())
    assert [p.name for p in scratch.iterdir()][0].startswith("jaxlint-migrate-")
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == exit_code, stderr
    assert stdout.startswith(f"migrated  {models / 'm.jaxexport'}\n")  # what was done before, flushed
    assert f"interrupted by {signal.Signals(signum).name}" in stderr and "Traceback" not in stderr
    assert list(scratch.iterdir()) == []
    assert not _alive(worker) and not _alive(grandchild)


def test_an_interrupted_copy_leaves_no_partial_artifact_in_out(tmp_path, models, pythons, monkeypatch):
    def copy_half_then_stop(source, dst):
        dst.write_bytes(source.read_bytes()[:100])
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(migrate_module.shutil, "copyfile", copy_half_then_stop)
    out = tmp_path / "out"
    result = migrate(models, "--out", out, *pythons)
    assert result.exit_code == 143 and "interrupted by SIGTERM" in result.stderr
    assert not out.exists() or list(out.iterdir()) == []


def test_a_folder_where_a_migrated_file_would_go_is_refused_even_with_force(tmp_path, models, pythons):
    """--force overwrites files; a folder of the user's at the output path is never replaced (was: a traceback from
    os.replace after the migration ran)."""
    out = tmp_path / "out"
    (out / "m.jaxexport").mkdir(parents=True)
    (out / "m.jaxexport" / "keep").write_text("the user's\n")
    for force in ((), ("--force",)):
        result = migrate(models, "--out", out, *pythons, *force)
        assert result.exit_code == 2, result.output
        assert result.stderr == (f"jaxlint exports: error: --out {out} holds 1 folder (or special files) where "
                                 "migrated files would go (nothing was written; --force replaces files only):\n"
                                 f"  {out / 'm.jaxexport'}\n")
        assert sorted(p.name for p in out.rglob("*")) == ["keep", "m.jaxexport"]
        assert (out / "m.jaxexport" / "keep").read_text() == "the user's\n"
