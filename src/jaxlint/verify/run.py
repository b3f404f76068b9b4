"""Running the user's command in one prepared tree with one interpreter, same environment for both runs."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from jaxlint.verify.supervise import OutputStream, supervise

PLATFORM_ENV = {"cpu": "cpu", "gpu": "cuda", "tpu": "tpu"}
# Console scripts that can be run as ``python -m NAME`` when the interpreter's environment has no script for them.
MODULE_SCRIPTS = {"pytest": "pytest", "py.test": "pytest"}
_PYTHON_NAME = re.compile(r"^python(\d(\.\d+)?)?$")
TAIL_LINES = 12


@dataclass
class RunResult:
    label: str  # "BEFORE" / "AFTER"
    python: str
    argv: list[str]
    exit_code: int
    seconds: float
    records: Path
    tree: Path
    stdout_tail: list[str] = field(default_factory=list)
    stderr_tail: list[str] = field(default_factory=list)
    timed_out: bool = False
    timeout: float | None = None  # the --timeout it ran past, when it timed out

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def signal_name(self) -> str | None:
        """The signal that ended the run (a negative exit status), e.g. ``SIGKILL``."""
        if self.exit_code >= 0:
            return None
        try:
            return signal.Signals(-self.exit_code).name
        except ValueError:
            return f"signal {-self.exit_code}"

    def timeout_text(self) -> str:
        """``timed out after 5s (--timeout)``: the limit it ran past, not the seconds its ending took."""
        limit = f"{self.timeout:g}" if self.timeout is not None else f"{self.seconds:.0f}"
        return f"timed out after {limit}s (--timeout)"

    def last_error_line(self) -> str:
        """Why the run ended: a timeout, a signal, else the exception that ended it (not JAX's traceback-filtering
        footer), else the last output line."""
        if self.timed_out:
            return f"{self.timeout_text()}; the command and its processes were ended"
        if self.signal_name is not None:
            return f"killed by {self.signal_name}"
        lines = self.stderr_tail or self.stdout_tail
        for line in reversed(self.stderr_tail + self.stdout_tail):
            exception = _exception_line(line)
            if exception:
                return exception
        for line in reversed(lines):
            text = line.strip()
            if text and not text.startswith(_NOISE) and not set(text) <= {"-", "=", "^", "~"}:
                return text
        return f"exit status {self.exit_code}"


# The last lines of a JAX traceback say how to see more, not what went wrong.
_NOISE = ("warnings.warn", "For simplicity, JAX has removed", "The above exception was the direct cause",
          "During handling of the above exception")
_EXCEPTION = re.compile(r"^(?:E\s+)?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure|Warning)"
                        r"(?::.*)?)$")


def _exception_line(line: str) -> str | None:
    match = _EXCEPTION.match(line.strip())
    return match.group(1) if match else None


def resolve_argv(command: Sequence[str], python: str) -> list[str]:
    """Make the command use ``python``: ``python`` itself is replaced, scripts are taken from its environment.

    An interpreter or script named by path inside a virtual environment (``.venv/bin/python run.py``,
    ``.venv/bin/pytest``) is mapped the same way: run as written it would use that environment's JAX in both runs.
    """
    argv = list(command)
    if not argv:
        raise ValueError("no command given after --")
    head = argv[0]
    if "/" in head or os.sep in head:
        if not in_virtualenv_bin(head):
            return argv
        head = Path(head).name
    if _PYTHON_NAME.match(head):
        return [python, *argv[1:]]
    bindir = str(Path(python).parent)
    found = shutil.which(head, path=bindir)
    if found:
        return [found, *argv[1:]]
    if head in MODULE_SCRIPTS:
        return [python, "-m", MODULE_SCRIPTS[head], *argv[1:]]
    return [head, *argv[1:]]


def in_virtualenv_bin(path: str) -> bool:
    """True for ``<venv>/bin/NAME`` (a ``pyvenv.cfg`` beside ``bin``) and for any path named like an interpreter."""
    candidate = Path(path)
    return _PYTHON_NAME.match(candidate.name) is not None or (candidate.parent.parent / "pyvenv.cfg").exists()


def run_environment(python: str, tree: Path, probe_dir: Path | None, records: Path | None, *, platform: str | None,
                    max_calls: int, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    for name in ("PYTHONHOME", "__PYVENV_LAUNCHER__"):
        env.pop(name, None)
    paths = [str(p) for p in (probe_dir, tree, tree / "src") if p is not None and Path(p).is_dir()]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    bindir = Path(python).parent
    env["PATH"] = os.pathsep.join([str(bindir), env.get("PATH", os.defpath)])
    if (bindir.parent / "pyvenv.cfg").exists():
        env["VIRTUAL_ENV"] = str(bindir.parent)
    else:
        env.pop("VIRTUAL_ENV", None)
    env.setdefault("PYTHONHASHSEED", "0")
    if platform:
        env["JAX_PLATFORMS"] = PLATFORM_ENV[platform]
    if records is not None:
        env["JAXLINT_PROBE_DIR"] = str(records)
        env["JAXLINT_PROBE_MAX_CALLS"] = str(max_calls)
    else:
        env.pop("JAXLINT_PROBE_DIR", None)
    return env


def run_command(label: str, command: Sequence[str], python: str, tree: Path, probe_dir: Path | None,
                records: Path, *, platform: str | None, max_calls: int, timeout: float | None = None,
                echo=None) -> RunResult:
    """Run in ``tree``; output is streamed to ``echo`` (a callable taking a line) and its tail kept.

    ``timeout`` bounds the whole run, reading the output included (``verify.supervise``)."""
    records.mkdir(parents=True, exist_ok=True)
    argv = resolve_argv(command, python)
    env = run_environment(python, tree, probe_dir, records if probe_dir is not None else None,
                          platform=platform, max_calls=max_calls)
    stdout_path, stderr_path = records.parent / f"{label.lower()}.stdout", records.parent / f"{label.lower()}.stderr"
    # Opened before the command starts: a folder that cannot be written stops the run before there is one.
    with open(stdout_path, "wb") as stdout_file, open(stderr_path, "wb") as stderr_file:
        try:
            # A session of its own: a timeout or a signal to jaxlint ends the command and everything it started
            # (pytest workers, data loaders), not only the direct child.
            process = subprocess.Popen(argv, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as error:
            stderr_file.write(f"jaxlint verify: cannot run {argv[0]}: {error}\n".encode())
            return RunResult(label, python, argv, 127, 0.0, records, tree, [], [f"cannot run {argv[0]}: {error}"])
        # Both streams are shown as they come (stderr marked with `!`), and kept whole in files.
        streams = [OutputStream(process.stdout, stdout_file, f"  {label} | ", echo),
                   OutputStream(process.stderr, stderr_file, f"  {label} ! ", echo)]
        outcome = supervise(process, streams, timeout)
    if outcome.escaped and echo is not None:
        echo(f"  {label}: ended {outcome.escaped} process(es) that the command started outside its process group "
             "(setsid, a daemon) and that still held its output after it exited")
    stdout = stdout_path.read_text(errors="replace").splitlines()
    stderr = stderr_path.read_text(errors="replace").splitlines()
    return RunResult(label, python, argv, outcome.exit_code, outcome.seconds, records, tree, stdout[-TAIL_LINES * 4:],
                     stderr[-TAIL_LINES * 4:], outcome.timed_out, timeout if outcome.timed_out else None)


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_PYTEST_FRAME = re.compile(r"^(\S+\.py):(\d+): ")
# ``path.py:12: FutureWarning: ...``: where a warning was issued (Python's and pytest's format), not a frame.
_WARNING_LINE = re.compile(r"^\S+\.py:\d+: (?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*Warning\b")
_TRACEBACK_START = "Traceback (most recent call last):"


def _frame(line: str, tree: str) -> tuple[str, int] | None:
    """(path relative to the tree, line) of a traceback frame in the project's code; None for any other line (a
    warning's location, a frame in an installed library)."""
    text = line.strip()
    if _WARNING_LINE.match(text):
        return None
    match = _FRAME.search(line) or _PYTEST_FRAME.match(text)
    if not match:
        return None
    path, row = match.group(1), int(match.group(2))
    if os.path.isabs(path):
        if not path.startswith(tree + os.sep):
            return None
        path = path[len(tree) + 1:]
    return Path(path).as_posix(), row


def traceback_locations(run: RunResult) -> list[tuple[str, int]]:
    """(path relative to the tree, line) of the frames named in the run's output, innermost last."""
    tree = str(run.tree)
    return [frame for line in run.stdout_tail + run.stderr_tail if (frame := _frame(line, tree)) is not None]


def crash_location(run: RunResult) -> tuple[str, int] | None:
    """Where the run died: the last frame in the project's code of its last traceback (stderr's, where Python
    prints an uncaught exception, else stdout's, where pytest prints its failures); None when no traceback names
    the project's code. Warning lines are never taken for it."""
    if run.ok or run.timed_out or run.exit_code < 0:
        return None
    tree = str(run.tree)
    for lines in (run.stderr_tail, run.stdout_tail):
        starts = [index for index, line in enumerate(lines) if line.strip() == _TRACEBACK_START]
        frames = [frame for line in lines[starts[-1] if starts else 0:] if (frame := _frame(line, tree)) is not None]
        if frames:
            return frames[-1]
    return None


def interpreter_info(python: str, platform: str | None) -> dict:
    """Python and JAX versions of an interpreter, without importing JAX (fast)."""
    code = ("import json, sys\n"
            "from importlib import metadata\n"
            "try:\n    v = metadata.version('jax')\nexcept metadata.PackageNotFoundError:\n    v = None\n"
            "print(json.dumps({'python': sys.version.split()[0], 'jax_version': v, 'executable': sys.executable}))")
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"cannot run {python}: {error}") from None
    if out.returncode != 0:
        raise RuntimeError(f"cannot run {python}: {out.stderr.strip()[-500:]}")
    import json

    return json.loads(out.stdout.strip().splitlines()[-1])


def current_python() -> str:
    return sys.executable
