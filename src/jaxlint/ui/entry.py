"""The ``jaxlint`` command's first lines. A check whose inputs are all as the last identical check found them
replays its output (``jaxlint.run.replay``) before click, the settings or libcst are imported (about 0.1 s of a
warm run); any other command line runs ``ui.cli``, and a check is recorded for next time."""
from __future__ import annotations

from jaxlint.run import replay


def entry_point() -> None:
    code = replay.replayed()
    if code is not None:
        replay.exit_flushed(code)
    if replay.records():
        replay.RECORDER = replay.Recorder()  # installed by the check itself: no other command is recorded
    from jaxlint.ui.cli import entry_point as run_command

    run_command()
