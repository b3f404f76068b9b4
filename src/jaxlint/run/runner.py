"""Lint or fix a list of files: read, decode, lint, fix, write back atomically. No printing here."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from jaxlint.project.cache import (CACHE_DIR_NAME, Cache, content_hash, diagnostic_to_json, file_stamp, findings_of,
                                   settings_fingerprint, trusted_stamp)
from jaxlint.project.index import activated, build_index, set_active
from jaxlint.lint.diagnostics import PARSE_ERROR, Applicability, Diagnostic, Location, io_error
from jaxlint.run.progress import progress_bar
from jaxlint.run.results import FileResult, Mode, unwritten
from jaxlint.project.settings import Settings
from jaxlint.run.sources import DecodeError, SourceText, decode_source, write_atomic

if TYPE_CHECKING:
    from jaxlint.project.files import SourceFile

__all__ = ["FileResult", "Mode", "process_file", "process_source", "run_files"]


def process_source(source: SourceText, display_path: str, settings: Settings, mode: Mode,
                   unsafe: bool) -> FileResult:
    # Imported here, not at module level: a warm run whose files all hit the cache never needs libcst (~0.25 s).
    from jaxlint.lint.engine import fix_source, lint_source

    result = FileResult(display_path, version_floor=version_floor(settings))
    if mode is Mode.CHECK:
        result.diagnostics = lint_source(source.text, display_path, settings).diagnostics
        return result
    outcome = fix_source(source.text, display_path, settings, unsafe=unsafe)
    result.diagnostics = outcome.remaining
    result.applied = outcome.applied
    result.rejected = outcome.rejected
    if outcome.source != source.text:
        result.fixed_source = outcome.source
        if mode is Mode.DIFF:
            import difflib

            result.diff = "".join(difflib.unified_diff(
                source.text.splitlines(keepends=True), outcome.source.splitlines(keepends=True),
                fromfile=display_path, tofile=display_path,
            ))
    return result


def run_files(files: Sequence["SourceFile"], mode: Mode, unsafe: bool, *, jobs: int | None = None,
              use_cache: bool = True, cache_dir: Path | None = None) -> list[FileResult]:
    """Process every file; results in a stable order (by path) whatever the scheduling.

    With the cache, a file whose bytes and settings match a cached entry is not processed again (in fix/diff mode,
    when none of its cached findings has a fix to apply): in check mode an unchanged stamp (``stat``) says the bytes
    are the same; otherwise the file is read and hashed here. The rest go to
    ``jobs`` worker processes (default: the number of cores), or run here when there are few of them or one job.
    """
    files = list(files)
    # The serial pass: project-wide facts, read by the rules of every file (``jaxlint.project.index``).
    index_cache = None
    if use_cache and files:
        index_cache = Path(cache_dir) if cache_dir is not None else files[0].settings.root / CACHE_DIR_NAME
    index = build_index((file.path for file in files), index_cache)
    with activated(index):
        # Cached results depend on other modules' facts: their key holds a digest of them (all read now).
        return _run_files(files, mode, unsafe, jobs, use_cache, cache_dir, index.digest() if use_cache else "")


def _run_files(files: list, mode: Mode, unsafe: bool, jobs: int | None, use_cache: bool, cache_dir: Path | None,
               project_digest: str) -> list[FileResult]:
    results: list[FileResult | None] = [None] * len(files)
    caches: dict[Path, Cache] = {}
    file_caches: list[Cache | None] = [None] * len(files)
    keys: list[str] = [""] * len(files)
    todo: list[int] = []
    cwd = os.getcwd() if use_cache else ""
    for index, file in enumerate(files):
        file_unsafe = unsafe or file.settings.unsafe_fixes
        if use_cache:
            directory = Path(cache_dir) if cache_dir is not None else file.settings.root / CACHE_DIR_NAME
            cache = caches.get(directory)
            if cache is None:
                cache = caches[directory] = Cache(directory)
            file_caches[index] = cache
            keys[index] = key = _absolute(str(file.path), cwd)
            cached = _cached_result(cache, key, file, mode, file_unsafe, project_digest)
            if cached is not None:
                results[index] = cached
                continue
        todo.append(index)
    jobs = default_jobs() if jobs is None else max(1, jobs)
    with progress_bar(len(todo)) as advance:
        for index, result, entry in _process_all(files, todo, mode, unsafe, jobs, use_cache, project_digest):
            results[index] = result
            if entry is not None and file_caches[index] is not None:
                file_caches[index].put_raw(keys[index], entry)
            advance()
    for cache in caches.values():
        cache.save()
    for file, result in zip(files, results):
        result.version_floor = version_floor(file.settings)
    return sorted(results, key=lambda r: r.path)


def version_floor(settings: Settings) -> tuple[str, str]:
    return str(settings.min_version), settings.min_version_origin


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _fingerprint(file: "SourceFile", project_digest: str) -> str:
    """The settings of the file and the project facts its findings may depend on (another module's)."""
    return f"{settings_fingerprint(file.settings, file.path)}:{project_digest}"


def _absolute(path: str, cwd: str) -> str:
    """``os.path.abspath`` (the cache's key) with the current directory read once per run, not once per file."""
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def _cached_result(cache: Cache, key: str, file: "SourceFile", mode: Mode, unsafe: bool,
                   project_digest: str) -> FileResult | None:
    entry = cache.entry(key)
    if entry is None:
        return None  # a cold run reads and hashes nothing here (the worker does, once)
    fingerprint = _fingerprint(file, project_digest)
    if entry[1] != fingerprint:
        return None  # other settings: processed anyway, no need to read the file here
    started = time.time_ns()  # before the stat: an edit after it leaves later times than a trusted stamp's
    status = _status(file.path)
    if status is None:
        return None
    stamp = file_stamp(status)
    # check mode trusts an unchanged stamp; fix and diff modes, which write, compare the bytes themselves
    if mode is not Mode.CHECK or len(entry) < 4 or entry[3] != stamp:
        try:
            with open(file.path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        if content_hash(data) != entry[0]:
            return None
        new_stamp = trusted_stamp(status, started)
        if len(entry) < 4 or entry[3] != new_stamp:
            cache.put_raw(key, [entry[0], entry[1], entry[2], new_stamp])  # the same bytes under a new stamp
    diagnostics = findings_of(entry, str(file.path))
    if diagnostics is None:
        return None
    if mode is not Mode.CHECK and any(d.fix is not None and (d.fix.applicability is Applicability.SAFE or unsafe)
                                      for d in diagnostics):
        return None  # there is something to fix: do it
    return FileResult(str(file.path), diagnostics)


# -- processing, here or in worker processes --------------------------------------------------------------------
# Fewer files than this per job are processed in this process: starting workers would cost more than it saves.
MIN_FILES_PER_JOB = 8
_WORKER_FILES: list = []  # the files of the current run, inherited by forked workers (so tasks are just indices)


def _process_all(files: list, todo: list[int], mode: Mode, unsafe: bool, jobs: int, use_cache: bool,
                 project_digest: str):
    """Yield (index, FileResult, cache entry or None) for every index in ``todo``, in completion order."""
    jobs = min(jobs, len(todo) // MIN_FILES_PER_JOB or 1)
    if jobs <= 1:
        for index in todo:
            yield (index, *_process_one(files[index], mode, unsafe, use_cache, project_digest))
        return
    import multiprocessing

    fork = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else "spawn")
    global _WORKER_FILES
    if fork:
        _WORKER_FILES = files
        tasks = [(index, None, mode, unsafe, use_cache, project_digest) for index in todo]
    else:
        tasks = [(index, files[index], mode, unsafe, use_cache, project_digest) for index in todo]
    # Largest files first, a few per task: a big file taken last would leave the other workers idle at the end.
    tasks.sort(key=lambda task: -_size(files[task[0]].path))
    chunksize = max(1, min(4, len(tasks) // (jobs * 8)))
    from jaxlint.project.index import active_index

    # A forked worker inherits the active project index; a spawned one receives it (plain data).
    pool = context.Pool(jobs, initializer=_worker_init, initargs=(None if fork else active_index(),))
    try:
        yield from pool.imap_unordered(_worker_task, tasks, chunksize=chunksize)
        pool.close()
    finally:
        pool.terminate()
        pool.join()
        _WORKER_FILES = []


def _size(path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _worker_init(index=None) -> None:
    import signal

    if index is not None:
        set_active(index)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
    if sys.platform.startswith("linux"):
        try:  # die with the parent, rather than keep rewriting files after it was killed
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _worker_task(task) -> tuple:
    index, file, mode, unsafe, use_cache, project_digest = task
    if file is None:
        file = _WORKER_FILES[index]
    return (index, *_process_one(file, mode, unsafe, use_cache, project_digest))


def _process_one(file: "SourceFile", mode: Mode, unsafe: bool, use_cache: bool,
                 project_digest: str) -> tuple[FileResult, list | None]:
    """Process one file; with the cache, also the entry to store (None when the result must not be cached)."""
    file_unsafe = unsafe or file.settings.unsafe_fixes
    if not use_cache:
        return process_file(file.path, file.settings, mode, file_unsafe), None
    started = time.time_ns()
    before = _status(file.path)
    digest = None
    if before is not None:
        try:
            digest = content_hash(file.path.read_bytes())
        except OSError:
            digest = None
    result = process_file(file.path, file.settings, mode, file_unsafe)
    if digest is None or result.internal_error or result.applied or result.rejected \
            or result.fixed_source is not None or _identity(_status(file.path)) != _identity(before):
        return result, None
    fingerprint = _fingerprint(file, project_digest)
    return result, [digest, fingerprint, [diagnostic_to_json(d) for d in result.diagnostics],
                    trusted_stamp(before, started)]


def _status(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _identity(status: os.stat_result | None) -> tuple | None:
    """What changes when a file is rewritten: a result is cached only if the file stayed the same throughout."""
    return None if status is None else (status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def process_file(path: Path, settings: Settings, mode: Mode, unsafe: bool) -> FileResult:
    """Never raises for a bad input file: a file that cannot be read is a JAX002 finding, one that cannot be decoded
    a JAX000 finding, fixes that cannot be written a ``write_error``, bugs an internal error."""
    if path.suffix == ".ipynb":
        from jaxlint.run.notebooks import process_notebook

        return process_notebook(path, settings, mode, unsafe)
    display = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileResult(display, [io_error(display, error)])
    try:
        source = decode_source(data)
    except DecodeError as error:
        location = Location(error.row, error.column)
        return FileResult(display, [Diagnostic(PARSE_ERROR, f"cannot decode: {error}", display, location, location)])
    try:
        result = process_source(source, display, settings, mode, unsafe)
        if mode is Mode.FIX and result.fixed_source is not None:
            try:
                write_atomic(path, source.encode(result.fixed_source))
            except OSError as error:
                return unwritten(process_source(source, display, settings, Mode.CHECK, unsafe), error)
    except Exception as error:  # noqa: BLE001 - one broken file or rule must not stop the run
        return FileResult(display, internal_error=f"{type(error).__name__}: {error}")
    return result
