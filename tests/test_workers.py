"""The worker processes of a run (``jaxlint.run.workers``): every result comes back once, an error in a task is
raised in the main process, a worker that dies is reported (never a hang), and no worker outlives the run."""
from __future__ import annotations

import os
import signal

import pytest

from jaxlint.run.workers import WorkerDied, run_in_workers


def _square(task):
    return task * task, os.getpid()


def _fail_on_seven(task):
    if task == 7:
        raise ValueError("seven")
    return task


def _die_on_five(task):
    if task == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return task


def _nothing():
    pass


@pytest.mark.parametrize("chunksize", [1, 3, 50])
def test_every_task_comes_back_once_from_the_workers(chunksize):
    results = list(run_in_workers(list(range(40)), _square, 2, chunksize=chunksize, start_method="fork",
                                  initializer=_nothing))
    assert sorted(value for value, _ in results) == [n * n for n in range(40)]
    assert os.getpid() not in {pid for _, pid in results}  # done in the workers, not here
    assert len({pid for _, pid in results}) <= 2


def test_more_workers_than_chunks():
    assert sorted(run_in_workers([1, 2], _fail_on_seven, 4, chunksize=1, start_method="fork",
                                 initializer=_nothing)) == [1, 2]


def test_an_error_in_a_task_is_raised_here_and_the_workers_stop():
    with pytest.raises(ValueError, match="seven"):
        list(run_in_workers(list(range(20)), _fail_on_seven, 2, chunksize=2, start_method="fork",
                            initializer=_nothing))
    assert _children() == []


def test_a_worker_that_dies_is_reported_not_waited_for():
    with pytest.raises(WorkerDied):
        list(run_in_workers(list(range(20)), _die_on_five, 2, chunksize=1, start_method="fork",
                            initializer=_nothing))
    assert _children() == []


def test_no_worker_outlives_a_run_that_ends_normally():
    list(run_in_workers(list(range(10)), _square, 2, chunksize=1, start_method="fork", initializer=_nothing))
    assert _children() == []


def test_a_run_stopped_early_stops_its_workers():
    results = run_in_workers(list(range(100)), _square, 2, chunksize=1, start_method="fork", initializer=_nothing)
    next(results)
    results.close()
    assert _children() == []


def _children() -> list[int]:
    """This process's child processes that are still running (zombies are reaped by ``join``)."""
    path = f"/proc/{os.getpid()}/task/{os.getpid()}/children"
    with open(path) as handle:
        return [int(pid) for pid in handle.read().split()]


# -- this process as one of the jobs (``here``) -------------------------------------------------------------------
def _slow_square(task):
    import time

    time.sleep(0.002)  # long enough that both processes take chunks
    return task * task, os.getpid()


@pytest.mark.parametrize("chunksize", [1, 3, 50])
def test_this_process_works_too_and_every_task_comes_back_once(chunksize):
    started = []
    results = list(run_in_workers(list(range(60)), _slow_square, 2, chunksize=chunksize, start_method="fork",
                                  initializer=lambda: started.append(os.getpid()), here=True))
    assert sorted(value for value, _ in results) == [n * n for n in range(60)]
    pids = {pid for _, pid in results}
    assert len(pids - {os.getpid()}) <= 1  # one worker started for two jobs
    if chunksize == 1:
        assert os.getpid() in pids  # this process took chunks while the worker had its own in flight
    assert started == []  # the workers' initializer ran in the worker, not here
    assert _children() == []


def test_one_job_here_starts_no_worker():
    results = list(run_in_workers(list(range(10)), _square, 1, chunksize=2, start_method="fork",
                                  initializer=_nothing, here=True))
    assert sorted(value for value, _ in results) == [n * n for n in range(10)]
    assert {pid for _, pid in results} == {os.getpid()}


def test_an_error_in_a_task_done_here_is_raised_and_the_workers_stop():
    def fail_here(task):
        if os.getpid() == here and task >= 3:
            raise ValueError("here")
        return _slow_square(task)

    here = os.getpid()
    with pytest.raises(ValueError, match="here"):
        list(run_in_workers(list(range(40)), fail_here, 2, chunksize=1, start_method="fork", initializer=_nothing,
                            here=True))
    assert _children() == []


def test_a_worker_that_dies_while_this_process_works_is_reported():
    here = os.getpid()

    def die_in_the_worker(task):
        if os.getpid() != here and task >= 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return _slow_square(task)

    with pytest.raises(WorkerDied):
        list(run_in_workers(list(range(30)), die_in_the_worker, 2, chunksize=1, start_method="fork",
                            initializer=_nothing, here=True))
    assert _children() == []
