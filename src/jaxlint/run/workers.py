"""Worker processes for one run: each takes chunks of tasks over its own pipe and sends back their results.

Not ``multiprocessing.Pool``: its worker-handler thread waits on the result pipe as well as on the workers, so while
a result sits there unread its wait returns at once and it loops, building a selector each time. Over the 3,358
files of the dev corpus that took 0.4-0.8 s of the main process's CPU during the run, on a 2-core machine the
workers' CPU. Here the main process alone talks to each worker: it gives a worker its next chunk when the worker
returns one (two chunks in flight per worker, so a worker never waits for work) and reads results as they come.
"""
from __future__ import annotations

import multiprocessing
from collections import deque
from multiprocessing.connection import wait
from typing import Callable, Iterator, Sequence

IN_FLIGHT = 2  # chunks given to a worker ahead of its results


class WorkerDied(RuntimeError):
    """A worker process ended without returning its tasks' results (killed, or out of memory)."""


def run_in_workers(tasks: Sequence, function: Callable, jobs: int, *, chunksize: int, start_method: str,
                   initializer: Callable, initargs: tuple = (), here: bool = False) -> Iterator:
    """``function(task)`` for every task, in ``jobs`` processes started by ``start_method``; results in completion
    order. An exception raised by ``function`` is raised here, after the workers are stopped. ``here``: this process
    is one of the ``jobs`` (``jobs - 1`` are started): whenever no result is waiting and every worker has its chunks
    in flight, it does one task of the chunks left, then serves the workers again (a whole chunk of large files
    done here left the workers idle). Otherwise it would only wait, while each worker it starts builds again what the
    first files of a run build (the rules' tables, the patterns of the words it meets)."""
    context = multiprocessing.get_context(start_method)
    chunks = [list(tasks[start:start + chunksize]) for start in range(0, len(tasks), chunksize)]
    workers: list[tuple[multiprocessing.Process, object]] = []
    finished = False
    try:
        for _ in range(jobs - 1 if here else jobs):
            ours, theirs = context.Pipe()
            # A forked worker must not hold the other workers' pipes open (they would never read their end).
            others = [connection for _, connection in workers] if start_method == "fork" else []
            process = context.Process(target=_serve, args=(theirs, others, function, initializer, initargs),
                                      daemon=True)
            process.start()
            theirs.close()
            workers.append((process, ours))
        pending = {connection: 0 for _, connection in workers}
        given = 0
        for _ in range(IN_FLIGHT):
            for connection in pending:
                if given < len(chunks):
                    _give(connection, chunks[given])
                    given += 1
                    pending[connection] += 1
        mine: deque = deque()  # the tasks of the chunk this process took, not done yet
        while any(pending.values()) or mine or (here and given < len(chunks)):
            busy = [connection for connection, count in pending.items() if count]
            works = here and (mine or given < len(chunks))
            ready = wait(busy, timeout=0 if works else None) if busy else []
            if not ready:  # only when this process works too: one task, then the workers are served again
                if not mine:
                    mine.extend(chunks[given])
                    given += 1
                yield function(mine.popleft())
                continue
            for connection in ready:
                try:
                    failed, payload = connection.recv()
                except (EOFError, OSError):  # the end of its pipe, or the pipe reset
                    raise WorkerDied("a worker process stopped before it returned its results") from None
                pending[connection] -= 1
                if failed:
                    raise payload
                if given < len(chunks):
                    _give(connection, chunks[given])
                    given += 1
                    pending[connection] += 1
                yield from payload
        finished = True
    finally:
        for process, connection in workers:
            if finished:
                connection.send(None)  # no more work: the worker returns (all of them have answered)
            else:
                process.terminate()
            connection.close()
        for process, _ in workers:
            process.join()


def _give(connection, chunk: list) -> None:
    try:
        connection.send(chunk)
    except OSError:  # its end of the pipe is closed
        raise WorkerDied("a worker process stopped before it was given all its tasks") from None


def _serve(connection, others: list, function: Callable, initializer: Callable, initargs: tuple) -> None:
    for other in others:
        other.close()
    initializer(*initargs)
    while True:
        try:
            chunk = connection.recv()
        except EOFError:
            return  # the main process is gone
        if chunk is None:
            return
        try:
            reply = (False, [function(task) for task in chunk])
        except Exception as error:  # noqa: BLE001 - raised again in the main process
            reply = (True, error)
        try:
            connection.send(reply)
        except Exception as error:  # noqa: BLE001 - e.g. an exception that cannot be pickled
            connection.send((True, RuntimeError(f"{type(error).__name__}: {error}")))
