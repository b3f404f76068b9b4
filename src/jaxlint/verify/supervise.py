"""One run of the user's command, bounded in time: its output read as it comes, the deadline, what it leaves behind.

``--timeout`` bounds the whole run, reading the output included. At the deadline the command's process group gets
SIGTERM, then SIGKILL after ``GRACE_SECONDS``. When the command has exited, what is left in its group is killed. A
process that left the group (``setsid``, a daemon) but still holds the command's stdout or stderr would keep the
pipes open as long as it lives, so they are read for at most ``GRACE_SECONDS`` more; then the processes holding
them are killed (found by the pipe in ``/proc/*/fd``) and the pipes closed. One thread, no blocking read: a write
that fails (a full disk) or a signal (``verify.signals``) ends the command at once instead of leaving it blocked
on a pipe nobody reads.
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import BinaryIO, Callable

GRACE_SECONDS = 2.0
_POLL_SECONDS = 0.05  # how often the command's exit is looked for while it runs
_CHUNK = 65536


@dataclass
class Outcome:
    exit_code: int
    timed_out: bool
    seconds: float  # from the start to the command's exit (or its kill), not counting the drain after it
    escaped: int = 0  # processes outside the command's group that held its output, killed


class OutputStream:
    """One pipe of the command: every byte goes to ``out``; complete lines go to ``echo`` with ``prefix``."""

    def __init__(self, pipe: BinaryIO, out: BinaryIO, prefix: str, echo: Callable[[str], None] | None) -> None:
        self.pipe, self.out, self.prefix, self.echo = pipe, out, prefix, echo
        self.fd = pipe.fileno()
        self._partial = b""

    def feed(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()  # a full disk is found now, not when the run is over
        if self.echo is None:
            return
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for raw in lines:
            self.echo(self.prefix + raw.decode(errors="replace").rstrip("\r"))

    def finish(self) -> None:
        if self.echo is not None and self._partial:
            self.echo(self.prefix + self._partial.decode(errors="replace").rstrip("\r"))
        self._partial = b""


def supervise(process: subprocess.Popen, streams: list[OutputStream], timeout: float | None) -> Outcome:
    """Read ``streams`` until the command has exited and its pipes are closed, within the bounds above."""
    started = time.monotonic()
    deadline = started + timeout if timeout is not None else None
    selector = selectors.DefaultSelector()
    for stream in streams:
        os.set_blocking(stream.fd, False)
        selector.register(stream.fd, selectors.EVENT_READ, stream)
    exit_code: int | None = None
    timed_out, kill_at, ended_at, drain_until = False, None, started, started
    escaped = 0
    try:
        while True:
            now = time.monotonic()
            if exit_code is None:
                exit_code = process.poll()
                if exit_code is not None:
                    ended_at, drain_until = now, now + GRACE_SECONDS
                    _signal_group(process.pid, signal.SIGKILL)  # what it left running in its group
            if exit_code is None:
                if deadline is not None and now >= deadline and not timed_out:
                    timed_out, kill_at = True, now + GRACE_SECONDS
                    _signal_group(process.pid, signal.SIGTERM)
                elif kill_at is not None and now >= kill_at:
                    kill_at = None
                    _signal_group(process.pid, signal.SIGKILL)
            elif not selector.get_map() or now >= drain_until:
                break
            wait = _POLL_SECONDS if exit_code is None else drain_until - now
            for key, _ in selector.select(max(wait, 0)):
                _read(selector, key.data)
        if selector.get_map():
            # Only processes that escaped the group can still hold the pipes: end them, keep what they wrote.
            escaped = kill_pipe_holders([stream.fd for stream in streams])
            for key in list(selector.get_map().values()):
                _read(selector, key.data)
    except BaseException:  # a signal (verify.signals), a failed write: nothing of the command may outlive this
        end_process_group(process)
        kill_pipe_holders([stream.fd for stream in streams])
        raise
    finally:
        selector.close()
        for stream in streams:
            stream.pipe.close()
    for stream in streams:
        stream.finish()
    return Outcome(exit_code, timed_out, ended_at - started, escaped)


def _read(selector: selectors.BaseSelector, stream: OutputStream) -> None:
    """What the pipe holds now; at its end (or when nothing can be read any more) it is no longer watched."""
    while True:
        try:
            data = os.read(stream.fd, _CHUNK)
        except BlockingIOError:
            return
        if not data:
            selector.unregister(stream.fd)
            return
        stream.feed(data)


def kill_pipe_holders(fds: list[int]) -> int:
    """SIGKILL every other process that has the pipes of ``fds`` open (Linux ``/proc``; elsewhere none are found).

    Only the command's processes can hold them: jaxlint made the pipes for this run and gave them to the command
    alone."""
    try:
        pipes = {f"pipe:[{os.fstat(fd).st_ino}]" for fd in fds}
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != os.getpid()]
    except OSError:
        return 0
    killed = 0
    for pid in pids:
        try:
            links = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
        except OSError:
            continue  # gone, or not ours to look at
        if links & pipes:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
    return killed


def end_process_group(process: subprocess.Popen) -> int:
    """End the command's whole process group: SIGTERM, then SIGKILL after a grace period; returns the exit code."""
    _signal_group(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(process.pid, signal.SIGKILL)
    return process.wait()


def _signal_group(group: int, signum: int) -> None:
    try:
        os.killpg(group, signum)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone
