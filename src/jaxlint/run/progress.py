"""A progress bar on stderr for long runs, only when stderr is a terminal (never in machine-read output)."""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterator

# Runs with fewer files to process than this finish before a bar would be worth drawing.
MIN_FILES = 200
drawn = False  # whether this process drew a bar (a check that did is not replayed: ``replay``)


def _wanted(total: int) -> bool:
    if total < MIN_FILES or os.environ.get("JAXLINT_NO_PROGRESS") or os.environ.get("CI"):
        return False
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress_bar(total: int, description: str = "jaxlint") -> Iterator[Callable[[], None]]:
    """Yields ``advance()``; draws a rich bar on stderr when it is a terminal and the run is long, else nothing."""
    if not _wanted(total):
        yield lambda: None
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:  # rich is optional
        yield lambda: None
        return
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeRemainingColumn())
    global drawn
    drawn = True
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda: bar.advance(task)
