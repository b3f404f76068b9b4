"""verify under faults: a timeout, Ctrl-C and SIGTERM end the user's command with everything it started, remove the
copies, and exit 130 / 143. The fast tests drive ``run_command`` (no JAX needed); the slow one is ``jaxlint verify``
end to end on two JAX releases."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jaxlint.verify.run import run_command

REPO = Path(__file__).resolve().parents[2]

# The command starts a grandchild (as pytest-xdist or a data loader would), records both pids, then waits.
SPAWNER = textwrap.dedent("""
    import os, subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["PIDS_FILE"], "w") as out:
        out.write(f"{os.getpid()} {child.pid}")
    print("started", flush=True)
    time.sleep(120)
""")


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status  # a zombie has ended; only its parent's wait is missing


def _wait_for(path: Path, seconds: float = 30) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


def _assert_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if _alive(pid)], "a process of the command outlived jaxlint"


def test_a_timeout_ends_the_command_and_its_grandchildren(tmp_path, monkeypatch):
    script = tmp_path / "spawn.py"
    script.write_text(SPAWNER)
    pids_file = tmp_path / "pids"
    monkeypatch.setenv("PIDS_FILE", str(pids_file))
    result = run_command("BEFORE", ["python", str(script)], sys.executable, tmp_path, None, tmp_path / "records",
                         platform=None, max_calls=1, timeout=3)
    assert result.timed_out and result.exit_code != 0
    _assert_gone([int(pid) for pid in pids_file.read_text().split()])


def test_what_a_finished_command_left_running_is_ended(tmp_path, monkeypatch):
    pids_file = tmp_path / "pids"
    monkeypatch.setenv("PIDS_FILE", str(pids_file))
    code = ("import os, subprocess, sys\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'],\n"
            "                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            "open(os.environ['PIDS_FILE'], 'w').write(str(child.pid))\n")
    result = run_command("BEFORE", ["python", "-c", code], sys.executable, tmp_path, None, tmp_path / "records",
                         platform=None, max_calls=1, timeout=30)
    assert result.exit_code == 0 and not result.timed_out
    _assert_gone([int(pids_file.read_text())])


DRIVER = textwrap.dedent("""
    import shutil, sys, tempfile
    from pathlib import Path
    from jaxlint.verify.run import run_command
    from jaxlint.verify.signals import Interrupted, signals_interrupt
    workdir = Path(tempfile.mkdtemp(prefix="jaxlint-verify-", dir=sys.argv[2]))
    try:
        with signals_interrupt():
            try:
                run_command("BEFORE", ["python", sys.argv[1]], sys.executable, workdir, None, workdir / "records",
                            platform=None, max_calls=1, timeout=None)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)  # as verifier.verify does
    except Interrupted as stop:
        sys.exit(stop.exit_code)
""")


@pytest.mark.parametrize("signum, exit_code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_the_command_removes_the_copy_and_exits_128_plus_signal(tmp_path, signum, exit_code):
    script = tmp_path / "spawn.py"
    script.write_text(SPAWNER)
    pids_file = tmp_path / "pids"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = dict(os.environ, PIDS_FILE=str(pids_file), PYTHONPATH=str(REPO / "src"))
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(script), str(scratch)], env=env)
    pids = [int(pid) for pid in _wait_for(pids_file).split()]
    driver.send_signal(signum)
    assert driver.wait(timeout=30) == exit_code
    _assert_gone(pids)
    assert list(scratch.iterdir()) == []


@pytest.mark.jax
@pytest.mark.parametrize("signum, exit_code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_jaxlint_verify_interrupted_leaves_nothing_behind(tmp_path, old_python, new_python, signum, exit_code):
    project = tmp_path / "project"
    project.mkdir()
    (project / "m.py").write_text("import jax\nimport jax.numpy as jnp\n\nprint(jax.core.valid_jaxtype(jnp.ones(3)))\n")
    (project / "spawn.py").write_text(SPAWNER)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    pids_file = tmp_path / "pids"
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), TMPDIR=str(scratch), PIDS_FILE=str(pids_file))
    proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "verify", "m.py", "--baseline-python", old_python,
                             "--target-python", new_python, "--platform", "cpu", "--", "python", "spawn.py"],
                            cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pids = [int(pid) for pid in _wait_for(pids_file, 120).split()]
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == exit_code, stderr
    assert "interrupted by SIG" in stderr and "Traceback" not in stderr
    _assert_gone(pids)
    assert [p.name for p in scratch.iterdir() if p.name.startswith("jaxlint-verify-")] == []


# The command exits at once, leaving a child in a session of its own (setsid: outside the command's process group)
# that holds stdout and would sleep for ten minutes.
ESCAPER = ("import os, subprocess, sys\n"
           "child = subprocess.Popen([sys.executable, '-c', 'import time; print(\"child up\", flush=True); "
           "time.sleep(600)'], start_new_session=True)\n"
           "open(os.environ['PIDS_FILE'], 'w').write(str(child.pid))\n"
           "print('command done', flush=True)\n")


@pytest.fixture
def escaper_pid_file(tmp_path, monkeypatch):
    """Where ESCAPER writes its child's pid; the child is killed after the test whatever happened."""
    pids_file = tmp_path / "pids"
    monkeypatch.setenv("PIDS_FILE", str(pids_file))
    yield pids_file
    if pids_file.exists():
        try:
            os.kill(int(pids_file.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _run_in_thread(**kwargs):
    """run_command in a thread, so that a run that never ends fails the test instead of hanging it."""
    import threading

    done = {}
    thread = threading.Thread(target=lambda: done.setdefault("result", run_command(**kwargs)), daemon=True)
    thread.start()
    thread.join(60)  # a hang detector: the run ends about 2 s after the command's exit
    return done.get("result")


@pytest.mark.parametrize("timeout", [None, 5])
def test_a_setsid_child_holding_stdout_does_not_keep_the_run_waiting(tmp_path, escaper_pid_file, timeout):
    seen = []
    result = _run_in_thread(label="BEFORE", command=["python", "-c", ESCAPER], python=sys.executable, tree=tmp_path,
                            probe_dir=None, records=tmp_path / "records", platform=None, max_calls=1,
                            timeout=timeout, echo=seen.append)
    assert result is not None, "the run waited for the setsid child's pipe (its --timeout ignored)"
    assert result.exit_code == 0 and not result.timed_out
    assert result.stdout_tail == ["command done", "child up"]  # what it wrote before its end is kept
    assert any("ended 1 process(es) that the command started outside its process group" in line for line in seen)
    _assert_gone([int(_wait_for(escaper_pid_file))])  # killed: it held the output of a command that had ended


def test_the_timeout_bounds_the_whole_run_when_the_command_outlives_it_and_a_setsid_child_holds_stdout(
        tmp_path, escaper_pid_file):
    script = tmp_path / "slow.py"
    script.write_text(ESCAPER + "import time\ntime.sleep(600)\n")
    result = _run_in_thread(label="BEFORE", command=["python", str(script)], python=sys.executable, tree=tmp_path,
                            probe_dir=None, records=tmp_path / "records", platform=None, max_calls=1, timeout=2)
    assert result is not None, "the run outlived its --timeout"
    assert result.timed_out and result.exit_code == -signal.SIGTERM
    # The limit it ran past, not the seconds the ending took.
    assert result.last_error_line() == "timed out after 2s (--timeout); the command and its processes were ended"
    _assert_gone([int(_wait_for(escaper_pid_file))])


# `jaxlint verify` with a full disk, injected where the copies are made or where the command's output is written.
# The interpreters are faked (no JAX needed): the command never gets as far as importing it.
DISK_FULL_DRIVER = textwrap.dedent("""
    import errno, shutil, sys
    from jaxlint.verify import main, run, verifier
    from jaxlint.verify.cli import verify_command

    def full(path):
        return OSError(errno.ENOSPC, "No space left on device", str(path))

    class FullFile:
        def __init__(self, path, *args, **kwargs):
            self.path = path
        def write(self, data):
            raise full(self.path)
        def flush(self):
            pass
        def close(self):
            pass
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            return False

    def no_room(src, dst, **kwargs):
        raise full(dst)

    main.require_jax = lambda python, label, platform: {"jax_version": "0.4.30" if label == "baseline" else "0.12"}
    verifier.interpreter_info = lambda python, platform: {"jax_version": "0.12.0.1", "python": "3.12.1"}
    if sys.argv[1] == "copy":
        shutil.copyfile = no_room
    else:
        run.open = FullFile
    verify_command(["m.py", "--baseline-python", sys.executable, "--", "python", "run.py"])
""")


@pytest.mark.parametrize("where", ["copy", "output"])
def test_a_full_disk_is_one_line_and_exit_2_not_a_traceback_nor_a_hang(tmp_path, where):
    project = tmp_path / "project"
    project.mkdir()
    (project / "m.py").write_text("import jax\n\nx = jax.tree_map(abs, [1])\n")
    (project / "run.py").write_text("while True:\n    print('x' * 200, flush=True)\n")  # output without end
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), TMPDIR=str(scratch))
    try:
        out = subprocess.run([sys.executable, "-c", DISK_FULL_DRIVER, where], cwd=project, env=env,
                             capture_output=True, text=True, timeout=60)  # a hang detector
    except subprocess.TimeoutExpired:
        pytest.fail("verify hung on a full disk")
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(f"jaxlint verify: error: No space left on device: {scratch.resolve()}/jaxlint-verify-")
    assert "set TMPDIR to a folder with room" in last
    assert list(scratch.iterdir()) == []  # the copies were removed


def test_which_write_failures_are_a_disk_problem():
    import errno
    import shutil

    from jaxlint.verify.scratch import disk_error

    for number in (errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT):
        assert disk_error(OSError(number, "x", "/tmp/f")).errno == number
    assert disk_error(OSError(errno.ENOENT, "x", "/tmp/f")) is None  # not the disk's fault: reported as before
    gathered = shutil.Error([("/p/a.py", "/tmp/c/a.py", "[Errno 30] Read-only file system: '/tmp/c/a.py'")])
    found = disk_error(gathered)  # copytree keeps only the text of each failure
    assert (found.errno, found.strerror, found.filename) == (errno.EROFS, "Read-only file system", "/tmp/c/a.py")
    assert disk_error(shutil.Error([("/p/a", "/tmp/c/a", "[Errno 2] No such file or directory: '/p/a'")])) is None


# A project whose BEFORE run outlives --timeout (and ignores SIGTERM, so its ending takes the 2 s grace) while AFTER
# is quick. A stand-in `jax` package in the project gives the fix site a value without JAX; the records are compared
# by the real comparison script in this process (NumPy stubbed: the values are plain Python).
FAKE_JAX = {"jax/__init__.py": "from jax import core, tree\n\n\ndef tree_map(f, x):\n    return [f(v) for v in x]\n",
            "jax/tree.py": "def map(f, x):\n    return [f(v) for v in x]\n",
            "jax/core.py": "class Tracer:\n    pass\n"}
SLOW_BEFORE = ("import os, signal, time\n"
               "if os.path.basename(os.getcwd()) == 'before':\n"
               "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
               "    time.sleep(600)\n"
               "import m\n"
               "print(m.x)\n")


def test_a_baseline_timeout_is_reported_as_one_with_the_timeout_it_ran_past(tmp_path, monkeypatch):
    import contextlib
    import importlib.util
    import io
    import json
    import types

    from jaxlint.project.config import Overrides, SettingsResolver
    from jaxlint.verify import verifier
    from jaxlint.verify.instrument import RUNTIME_DIR
    from jaxlint.verify.plan import make_plan
    from jaxlint.verify.report import as_json, render_text

    project = tmp_path / "project"
    for name, text in {**FAKE_JAX, "m.py": "import jax\n\nx = jax.tree_map(abs, [-1])\n", "run.py": SLOW_BEFORE}.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    monkeypatch.setitem(sys.modules, "numpy", types.ModuleType("numpy"))
    spec = importlib.util.spec_from_file_location("compare_under_test", RUNTIME_DIR / "_jaxlint_compare.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    def compare_values(python, sites, before, after, **kwargs):  # as compare.compare_values, in this process
        request = tmp_path / "request.json"
        request.write_text(json.dumps({"before": str(before.records), "after": str(after.records),
                                       "sites": [{"id": s.id, "kind": s.kind} for s in sites], "rtol": 1e-6,
                                       "atol": 1e-6, "max_calls": 10}))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            script.main(str(request))
        return json.loads(printed.getvalue())

    monkeypatch.setattr(verifier, "compare_values", compare_values)
    monkeypatch.setattr(verifier, "interpreter_info", lambda python, platform: {"jax_version": "0.12.0.1",
                                                                               "python": "3.12.1"})
    plan = make_plan([project / "m.py"], SettingsResolver(Overrides()), project)
    assert [site.code for site in plan.sites] == ["JAX101"]
    result = verifier.verify(plan, ["python", "run.py"], baseline_python=sys.executable, target_python=sys.executable,
                             timeout=1)
    assert result.target.run.ok and result.baseline.run.timed_out
    [site] = result.sites
    assert site.status == "baseline-timed-out"  # not FAILED: the fix is not what went wrong
    assert site.detail.startswith("the BEFORE (baseline) run timed out after 1s (--timeout) before it recorded this "
                                  "site (a killed process writes no records; executed 0 time(s) in BEFORE, 1 in AFTER)")
    assert result.exit_code == 1  # nothing was proven
    text = render_text(result)
    assert "BASELINE TIMED OUT" in text and "(timed out after 1s (--timeout))" in text
    assert text.splitlines()[-1].startswith("1 site(s): 1 baseline-timed-out; NOT verified: the BEFORE (baseline) "
                                            "run timed out after 1s (--timeout): 1 site(s) have nothing to compare")
    report = as_json(result)
    assert report["sites"][0]["status"] == "baseline-timed-out"
    assert (report["baseline"]["timed_out"], report["baseline"]["timeout"]) == (True, 1)
