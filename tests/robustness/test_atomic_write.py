"""``jaxlint --fix`` killed with SIGKILL at random moments never leaves a file half-written.

Every rewrite goes through ``sources.write_atomic``: a temporary file in the same directory
(``.<name>.<random>.jaxlint-tmp``, from ``mkstemp``), written, fsynced, given the original file's mode, then
``os.replace``d over the original. So whenever the run dies, each file is byte-for-byte either its original or its
fully fixed version, never empty, truncated or a mix, and keeps its mode.

Leftover temporary files are the one trace a kill can leave: SIGKILL between ``mkstemp`` and ``os.replace`` skips
the clean-up. That is correct and unavoidable (nothing runs after SIGKILL), and they are harmless: their names end in
``.jaxlint-tmp``, not ``.py``/``.pyi``/``.ipynb``, so discovery never lints them, and a later run neither reports,
rewrites, deletes nor chokes on them (jaxlint cannot tell a stale temporary from one another jaxlint process is
writing right now, so it does not delete them). The user may delete them. This test plants some besides the ones
the kills leave, and checks that later runs ignore them.

The kill moments are adaptive: a full run is timed first and the delays are picked inside it, then narrowed towards
the window in which files are being written; the test fails unless some round really caught a partially fixed tree
(some files fixed, some not), since a test whose kills all land before or after the writes proves nothing.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.rules import all_rules
from jaxlint.project.settings import Settings

REPO = Path(__file__).resolve().parents[2]
FILES = 200
MODES = (0o644, 0o600, 0o755, 0o664, 0o640)
TMP_SUFFIX = ".jaxlint-tmp"
MIN_ROUNDS = 8          # kill rounds in all, -j 1 and -j 2 alternating
MAX_ROUNDS = 30         # bound on the extra rounds spent waiting for mid-run kills
WANT_PARTIAL = 2        # per -j mode: stop adding rounds once this many caught the tree half fixed
TIME_BUDGET = 35.0      # seconds: no extra rounds after this (the test must stay well under a minute)


def _snippets() -> list[str]:
    """Rule examples fully fixed by the safe fixes under the default settings, the fixed text a fixed point."""
    settings = Settings()
    found = []
    for rule in all_rules():
        for example in rule.INVALID:
            if example.fixed is None or example.min_version or example.target_version:
                continue
            outcome = fix_source(example.code, "example.py", settings)
            fixed = outcome.source
            if fixed != example.code and not outcome.remaining and not outcome.rejected \
                    and fix_source(fixed, "example.py", settings).source == fixed:
                found.append(example.code)
    return found


def _jaxlint(*args: str) -> list[str]:
    return [sys.executable, "-m", "jaxlint", "--isolated", *args]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]))


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Relative path -> (bytes, permission bits) of every regular file under root except planted/leftover temps."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.name.endswith(TMP_SUFFIX):
            out[path.relative_to(root).as_posix()] = (path.read_bytes(), path.stat().st_mode & 0o7777)
    return out


def _temporaries(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*" + TMP_SUFFIX))


def _write_tree(root: Path, files: dict[str, tuple[bytes, int]]) -> None:
    for relative, (data, mode) in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.chmod(path, mode)


def _fix(root: Path, jobs: int, *extra: str) -> None:
    """A complete --fix run, which must fix everything and never mention a temporary file."""
    proc = subprocess.run(_jaxlint("--fix", "-j", str(jobs), *extra, str(root)), check=False, capture_output=True,
                          text=True, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert TMP_SUFFIX not in proc.stdout + proc.stderr


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs (zombies waiting to be reaped by init do not count)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False


def _kill_after(root: Path, jobs: int, delay: float, extra: tuple[str, ...], log: Path) -> int | None:
    """Start a --fix run, SIGKILL its whole process group (the workers too) after delay s.

    None if it was killed while running, else its own exit status (it finished before the kill); output in log."""
    with open(log, "wb") as output:
        proc = subprocess.Popen(_jaxlint("--fix", "-j", str(jobs), *extra, str(root)), stdout=output,
                                stderr=subprocess.STDOUT, env=_env(), start_new_session=True)
    try:
        time.sleep(delay)
        finished = proc.poll()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)
    # The workers were in the group and died with it; make sure none outlives the round and writes on.
    deadline = time.monotonic() + 10
    while _group_alive(proc.pid):
        if time.monotonic() > deadline:
            pytest.fail("a worker of the killed run is still alive")
        time.sleep(0.01)
    return finished


@pytest.mark.slow
def test_sigkill_never_leaves_a_file_half_written(tmp_path):
    started = time.monotonic()
    seed = int(os.environ.get("JAXLINT_ATOMIC_SEED", "0")) or random.randrange(1, 1 << 30)  # to replay a failure
    rng = random.Random(seed)
    snippets = _snippets()
    assert len(snippets) >= 20, "too few fixable rule examples to build the tree from"

    originals: dict[str, tuple[bytes, int]] = {}
    for index in range(FILES):
        code = snippets[index % len(snippets)]
        relative = f"pkg{index % 4}/sub{index % 3}/mod_{index:03d}.py"
        originals[relative] = ((f"# file {index}\n" + code).encode(), MODES[index % len(MODES)])

    # The expected fixed tree: one complete reference run on a copy (nothing is left to fix in it: see the check at
    # the end, and _snippets).
    reference = tmp_path / "reference"
    _write_tree(reference, originals)
    full_started = time.monotonic()
    _fix(reference, 1, "--no-cache")
    full_run = time.monotonic() - full_started
    fixed = _tree(reference)
    assert fixed.keys() == originals.keys()
    assert all(fixed[k][0] != originals[k][0] for k in originals), "a file the reference run did not fix"
    assert all(fixed[k][1] == originals[k][1] for k in originals), "the reference run changed a file mode"
    assert _temporaries(reference) == []

    # Leftover temporaries such as a kill leaves, with contents a run would flag, rewrite or fail to parse if it
    # linted them: the whole original, and the original cut short in the middle of the JAX call.
    work = tmp_path / "work"
    _write_tree(work, originals)
    planted = {}
    for number, relative in enumerate(list(originals)[:6]):
        path = work / relative
        temp = path.with_name(f".{path.name}.plant{number}{TMP_SUFFIX}")
        data = originals[relative][0]
        temp.write_bytes(data if number % 2 else data[: len(data) * 2 // 3])
        planted[temp] = temp.read_bytes()

    rounds = []  # (jobs, delay, alive, fixed count)
    windows = {1: [0.0, full_run * 1.2], 2: [0.0, full_run * 1.2]}  # per -j: [lo, hi] of the kill delay

    def partial(jobs=None):
        return [r for r in rounds if 0 < r[3] < FILES and jobs in (None, r[0])]

    round_index = 0
    while round_index < MIN_ROUNDS or (
            any(len(partial(j)) < WANT_PARTIAL for j in windows)
            and round_index < MAX_ROUNDS and time.monotonic() - started < TIME_BUDGET):
        jobs = 1 + round_index % 2
        extra = ("--no-cache",) if round_index % 3 else ("--cache-dir", str(tmp_path / "cache"))
        window = windows[jobs]
        if round_index < 4:  # spread over the measured run first
            delay = full_run * (0.2 + 0.25 * round_index) * rng.uniform(0.9, 1.1)
        else:
            delay = rng.uniform(*window)
        _write_tree(work, originals)  # each round starts from the original tree (the temporaries stay)
        log = tmp_path / f"round{round_index}.log"
        finished = _kill_after(work, jobs, delay, extra, log)
        now = _tree(work)
        assert now.keys() == originals.keys(), "files appeared or disappeared"
        done = 0
        for relative, (data, mode) in now.items():
            assert data in (originals[relative][0], fixed[relative][0]), (
                f"round {round_index} (seed {seed}, -j {jobs}, killed after {delay:.3f}s): {relative} is neither its original"
                f" nor its fixed version: {data!r}")
            assert mode == originals[relative][1], f"{relative}: mode {mode:o}, was {originals[relative][1]:o}"
            done += data == fixed[relative][0]
        for temp in _temporaries(work):
            if temp in planted:
                assert temp.read_bytes() == planted[temp], "a run touched a leftover temporary"
                continue
            # A kill's own leftover (".<name>.<random>.jaxlint-tmp"): a prefix of the fixed text of <name>.
            name = temp.name[1:].rsplit(".", 2)[0]
            relative = temp.with_name(name).relative_to(work).as_posix()
            assert relative in fixed and fixed[relative][0].startswith(temp.read_bytes()), temp
        if finished is not None:  # the run ended before the kill: then it fixed everything
            assert finished == 0 and done == FILES, (
                f"round {round_index} (seed {seed}, -j {jobs}): the run exited {finished} with {done} of {FILES}"
                f" files fixed:\n{log.read_text(errors='replace')}")
        rounds.append((jobs, delay, finished is None, done))
        # Narrow this mode's window towards the moments at which files are being written.
        if done == 0:
            window[0] = max(window[0], delay)
        elif done == FILES:
            window[1] = min(window[1], delay)
        if window[1] - window[0] < 0.05:
            window[0], window[1] = max(0.0, window[0] - 0.2), window[1] + 0.2
        round_index += 1

    summary = f"seed {seed}; " + ", ".join(f"-j{j} {d:.2f}s:{n}{'' if a else ' (exited)'}" for j, d, a, n in rounds)
    print(f"\nfull run {full_run:.2f}s; {len(rounds)} kill rounds, {len(partial())} caught mid-run"
          f" (fixed files of {FILES} per round): {summary}")
    assert partial(), f"no kill landed while files were being written: {summary}"

    # A complete run after the kills (from whatever state the last kill left) fixes everything, ignores the
    # temporaries, and a check afterwards finds nothing, temporaries included.
    leftovers_before = {p: p.read_bytes() for p in _temporaries(work)}
    _fix(work, 2, "--cache-dir", str(tmp_path / "cache"))
    assert _tree(work) == fixed
    assert {p: p.read_bytes() for p in _temporaries(work)} == leftovers_before
    check = subprocess.run(_jaxlint("--no-cache", str(work)), check=False, capture_output=True, text=True,
                           env=_env(), timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    assert TMP_SUFFIX not in check.stdout + check.stderr
    print(f"{len(leftovers_before) - len(planted)} temporaries left by kills; took {time.monotonic() - started:.1f}s")


def test_leftover_temporaries_are_not_discovered(tmp_path):
    """Discovery skips write_atomic's temporaries, whatever they contain (here: flaggable and unparsable code)."""
    from jaxlint.project.config import Overrides, SettingsResolver
    from jaxlint.project.files import discover

    (tmp_path / "mod.py").write_text("import jax\nx = jax.tree_map(f, t)\n")
    for name in (".mod.py.k2j3h4a_.jaxlint-tmp", ".nb.ipynb.zz81qq0a.jaxlint-tmp", ".mod.py.cut00000.jaxlint-tmp"):
        (tmp_path / name).write_text("import jax\nx = jax.tree_map(f, t" if "cut" in name else
                                     "import jax\nx = jax.tree_map(f, t)\n")
    resolver = SettingsResolver(Overrides(isolated=True), cwd=tmp_path)
    assert [f.path.name for f in discover([tmp_path], resolver)] == ["mod.py"]
