"""The ``jaxlint`` process (``python -m jaxlint``, the console script): after a check it ends without the
interpreter's teardown (``os._exit``), so everything it prints or writes must be complete by then."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from jaxlint.ui.cli import main
from tests.cli.test_cli import NONE_ARG


def _process(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    # Buffered output, as in a user's shell (``PYTHONUNBUFFERED`` would hide a missing flush).
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_check_prints_all_of_its_report_through_a_pipe(tmp_path):
    for index in range(40):  # enough output that a lost buffer would show
        (tmp_path / f"m{index:02}.py").write_text(NONE_ARG)
    done = _process(["check", "--no-cache", "."], tmp_path)
    in_process = CliRunner().invoke(main, ["check", "--no-cache", str(tmp_path)])
    assert done.returncode == 1 == in_process.exit_code
    assert done.stdout.count("JAX202") == 40
    assert done.stdout.rstrip().splitlines()[-1] == in_process.output.rstrip().splitlines()[-1]


def test_exit_codes_and_written_files_survive_the_fast_exit(tmp_path):
    (tmp_path / "a.py").write_text(NONE_ARG)
    out = tmp_path / "report.json"
    done = _process(["check", "--no-cache", "--exit-zero", "--output-format", "json", "-o", str(out), "."], tmp_path)
    assert done.returncode == 0
    assert [finding["code"] for finding in json.loads(out.read_text())] == ["JAX202"]
    assert _process(["check", "--no-cache", "--select", "JAX101", "."], tmp_path).returncode == 0
    assert _process(["check", "--no-cache", "--select", "NOPE", "."], tmp_path).returncode == 2


def test_fix_and_cache_are_written_before_the_fast_exit(tmp_path):
    target = tmp_path / "a.py"
    target.write_text(NONE_ARG)
    done = _process(["check", "--fix", "."], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    fixed = target.read_text()
    assert fixed != NONE_ARG
    assert _process(["check", "."], tmp_path).returncode == 0
    assert any((tmp_path / ".jaxlint_cache").iterdir()), "the check's cache was saved"
    assert _process(["check", "--fix", "."], tmp_path).returncode == 0 and target.read_text() == fixed


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    for index in range(300):  # more than a pipe's buffer holds
        (tmp_path / f"m{index:03}.py").write_text(NONE_ARG)
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    process = subprocess.Popen([sys.executable, "-m", "jaxlint", "check", "--no-cache", "."], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdout.read(10)
    process.stdout.close()  # as ``| head -1`` does
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert "Traceback" not in stderr
