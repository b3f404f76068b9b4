"""Parallel runs (-j N) give exactly the results of one process, in the same (stable) order."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

from jaxlint.run.runner import Mode, run_files
from support.corpus import make_project, source_files, summary


def test_parallel_check_equals_serial(tmp_path):
    paths = make_project(tmp_path / "p", copies=3)
    files = source_files(paths, tmp_path / "p")
    serial = run_files(files, Mode.CHECK, False, jobs=1, use_cache=False)
    parallel = run_files(files, Mode.CHECK, False, jobs=3, use_cache=False)
    assert summary(parallel) == summary(serial)
    assert [r.path for r in parallel] == sorted(r.path for r in parallel)
    assert any(r.diagnostics for r in serial)


def test_parallel_fix_equals_serial(tmp_path):
    one, many = tmp_path / "one", tmp_path / "many"
    make_project(one, copies=2)
    shutil.copytree(one, many)
    paths_one = sorted(one.rglob("*.py"))
    paths_many = sorted(many.rglob("*.py"))
    serial = run_files(source_files(paths_one, one), Mode.FIX, False, jobs=1, use_cache=False)
    parallel = run_files(source_files(paths_many, many), Mode.FIX, False, jobs=2, use_cache=False)
    assert len(serial) == len(parallel)
    for a, b in zip(paths_one, paths_many):
        assert a.read_bytes() == b.read_bytes(), a.name
    def relative(rows, root):
        return [(path.replace(str(root), ""), *rest) for path, *rest in rows]

    assert relative(summary(serial), one) == relative(summary(parallel), many)
    assert any(r.applied for r in serial)


def test_cli_json_identical_with_one_and_two_jobs(tmp_path):
    make_project(tmp_path / "p", copies=3)
    outputs = []
    for jobs in ("1", "2"):
        completed = subprocess.run(
            [sys.executable, "-m", "jaxlint", "p", "--isolated", "--no-cache", "-j", jobs, "--output-format", "json"],
            cwd=tmp_path, capture_output=True, text=True)
        assert completed.returncode == 1, completed.stderr
        assert "Traceback" not in completed.stderr
        outputs.append(completed.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])


def _check_with_two_jobs(folder, files: int, task_report: str, end_report: str) -> tuple[str, list[str], str]:
    """``jaxlint check -j 2 --output-format json`` of ``files`` modules with one finding each, in a process of its own
    whose every task (``runner._worker_task``, in whichever process does it) first writes ``task_report`` to stderr,
    and which writes ``end_report`` once the check is done (``code``: its exit code); both are f-strings, with
    ``os`` and ``sys`` imported. Returns stdout, the tasks' lines, the last line."""
    for index in range(files):
        (folder / f"m{index}.py").write_text("import jax\nx = jax.tree_map(f, t)\n")
    code = ("import os, sys\nfrom jaxlint.ui import cli\nfrom jaxlint.run import runner\n"
            "original = runner._worker_task\n"
            "def task(task):\n"
            f"    os.write(2, (f'{task_report}' + '\\n').encode())\n"
            "    return original(task)\n"
            "runner._worker_task = task\n"
            "try:\n    cli.main(['check', sys.argv[1], '-j', '2', '--no-cache', '--output-format', 'json'])\n"
            "except SystemExit as exit:\n    code = exit.code\n"
            f"print(f'{end_report}', file=sys.stderr)\n")
    run = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, check=True)
    *tasks, last = run.stderr.splitlines()
    return run.stdout, tasks, last


def test_the_main_process_of_a_parallel_check_warms_the_engine_once_for_its_workers(tmp_path):
    """Importing the rules and building their tables costs CPU: done once in the process that forks the workers,
    which share it, not again in every worker (the same wall time, less CPU). A check does not import libcst there:
    its files are decided on ``ast`` (``tests/test_lazy_libcst.py``: a fix does warm it up)."""
    stdout, tasks, last = _check_with_two_jobs(
        tmp_path, 20, '{os.getpid()} {len(sys.modules["jaxlint.lint.prefilter"]._PREFILTERS) > 0}',
        '{code} {"libcst" in sys.modules} {"jaxlint.rules" in sys.modules}')
    assert stdout.count('"JAX101"') == 20  # the workers did lint every file
    assert last.split() == ["1", "False", "True"]
    assert len(tasks) == 20 and all(line.split()[1] == "True" for line in tasks)  # each task found the tables built


def test_the_main_process_of_a_parallel_check_is_one_of_its_jobs(tmp_path):
    """``-j 2`` starts one worker: the main process, which holds the warmed engine, lints files too (a second worker
    would build again what the first files of a run build). The results are those of one process."""
    stdout, tasks, last = _check_with_two_jobs(tmp_path, 24, "{os.getpid()}", "main {os.getpid()}")
    assert stdout.count('"JAX101"') == 24
    main = last.split()[1]
    assert len(tasks) == 24 and main in tasks  # every file once; some of them here
    assert len(set(tasks)) == 2  # this process and one worker
