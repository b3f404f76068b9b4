"""Ctrl-C and SIGTERM during ``jaxlint verify``: end the user's command, remove the copies, exit 128 + signal.

The command runs in a session of its own (``verify.run``), so the terminal's Ctrl-C reaches only jaxlint; the handler
turns either signal into an exception, which ends the command's process group (``supervise.end_process_group``) and
unwinds through ``verifier.verify``'s cleanup of the ``jaxlint-verify-*`` folder.
"""
from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Iterator


class Interrupted(Exception):
    """A signal asked jaxlint to stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # the shell's convention: 130 for Ctrl-C, 143 for SIGTERM


@contextmanager
def signals_interrupt() -> Iterator[None]:
    def stop(signum, frame):
        raise Interrupted(signum)

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
