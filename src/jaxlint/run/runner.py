"""Lint or fix a list of files: read, decode, lint, fix, write back atomically. No printing here."""
from __future__ import annotations

import ast
import gc
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from jaxlint.project.cache import (CACHE_DIR_NAME, Cache, cache_key, content_hash, diagnostic_to_json, file_stamp,
                                   findings_of, settings_fingerprint, trusted_stamp)
from jaxlint.project.index import (activated, build_index, cache_entry, complete_index, is_module, running_index,
                                  save_facts, set_active)
from jaxlint.project.module_facts import module_facts, spelled
from jaxlint.lint.diagnostics import PARSE_ERROR, Applicability, Diagnostic, Location, io_error
from jaxlint.run.progress import progress_bar
from jaxlint.run.results import FileResult, Mode, unwritten
from jaxlint.project.settings import Settings
from jaxlint.run.sources import DecodeError, SourceText, decode_source, write_atomic

if TYPE_CHECKING:
    from jaxlint.project.config import SettingsResolver
    from jaxlint.project.files import SourceFile
    from jaxlint.project.index import ProjectIndex

__all__ = ["FileResult", "Mode", "process_file", "process_source", "run_files"]


def process_source(source: SourceText, display_path: str, settings: Settings, mode: Mode,
                   unsafe: bool, *, tree: ast.Module | None = None) -> FileResult:
    # Imported here, not at module level: a warm run whose files all hit the cache never needs the engine (its rules
    # and tables; libcst only for a file that goes to it, `lint.lazy_libcst`).
    from jaxlint.lint.engine import fix_source, lint_source

    result = FileResult(display_path, version_floor=version_floor(settings))
    if mode is Mode.CHECK:
        result.diagnostics = lint_source(source.text, display_path, settings, tree=tree).diagnostics
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
              use_cache: bool = True, cache_dir: Path | None = None, resolver: "SettingsResolver | None" = None,
              walked: Sequence[Path] = ()) -> list[FileResult]:
    """Process every file; results in a stable order (by path) whatever the scheduling.

    The project index covers the files and every other module of their projects (``files.project_modules``:
    ``resolver`` gives each folder's settings for that walk, ``walked`` the folders the run's discovery walked
    already), so a file's findings do not depend on which paths the command line named.

    With the cache, a file whose bytes and settings match a cached entry is not processed again (in fix/diff mode,
    when none of its cached findings has a fix to apply): in check mode an unchanged stamp (``stat``) says the bytes
    are the same; otherwise the file is read and hashed here. The rest go to
    ``jobs`` worker processes (default: the number of cores), or run here when there are few of them or one job.
    """
    files = list(files)
    paths = [str(file.path) for file in files]

    def other_modules() -> list[str]:  # walked only when a rule asks about other modules, or the digest is needed
        from jaxlint.project.files import project_modules

        return project_modules(files, resolver, walked)

    if not use_cache or not files or cache_key() is None:  # no key (``project.cache_key``): caching is off
        # facts read lazily, by the workers, for the modules their files reach
        with activated(build_index(paths, others=other_modules)):
            return _run_files(files, mode, unsafe, jobs, None, "")
    caches = _RunCaches(files, cache_dir)
    index_cache = Path(cache_dir) if cache_dir is not None else files[0].settings.root / CACHE_DIR_NAME
    if mode is not Mode.FIX and not any(map(caches.may_need_digest, range(len(files)), files)):
        # A cold run: no entry keyed by the project digest can hit, so the digest (which needs every module's facts)
        # can wait. Each worker computes its own module's facts from the bytes it reads anyway; the digest is
        # computed at the end, and only if a result needs it (its rules asked about other modules). Results that
        # depend on no other module hit as in a warm run.
        # Not for --fix: a fix rewrites modules that other workers may read lazily, while cached results need the
        # facts of the files as they were before the run.
        index = build_index(paths, others=other_modules)
        index.track_reads()
        with activated(index):
            return _run_files(files, mode, unsafe, jobs, caches, None, _ColdFacts(index, index_cache))
    # The serial pass: project-wide facts, read by the rules of every file (``jaxlint.project.index``).
    index = build_index(paths, index_cache, others=other_modules)
    with activated(index):
        # Cached results depend on other modules' facts: their key holds a digest of them (all read now).
        return _run_files(files, mode, unsafe, jobs, caches, index.digest())


class _RunCaches:
    """The results cache of each file (its project's, or the one ``--cache-dir`` names) and its key there."""

    def __init__(self, files: list, cache_dir: Path | None) -> None:
        by_directory: dict[Path, Cache] = {}
        by_root: dict[int, tuple[Path, Cache]] = {}  # each file's settings' root: its cache, found once per root
        self.of: list[Cache] = []
        cwd = os.getcwd()
        given = Path(cache_dir) if cache_dir is not None else None
        for file in files:
            root = file.settings.root
            known = by_root.get(id(root))
            if known is None:
                directory = given if given is not None else root / CACHE_DIR_NAME
                cache = by_directory.get(directory)
                if cache is None:
                    cache = by_directory[directory] = Cache(directory)
                known = by_root[id(root)] = (root, cache)  # the root kept: its id stays its own
            self.of.append(known[1])
        self.keys = [_absolute(str(file.path), cwd) for file in files]
        self.all = list(by_directory.values())

    def may_need_digest(self, index: int, file: "SourceFile") -> bool:
        """Whether the file has an entry for its settings that the project digest keys (whatever the digest and the
        file's bytes): a result whose rules asked about other modules."""
        entry = self.of[index].entry(self.keys[index])
        if entry is None or not isinstance(entry[1], str):
            return False
        settings = _fingerprint(file, "")
        return entry[1].startswith(settings) and entry[1] != settings + INDEPENDENT


class _ColdFacts:
    """What the workers of a cold run learned about the modules: each module's facts from its own bytes (``own``)
    with its index cache entry, and every other module's facts they read lazily (``read``), which their results
    depend on. The results are cached only if all of those equal the facts the digest is computed from."""

    def __init__(self, index: "ProjectIndex", index_cache: Path) -> None:
        self.index = index  # its ``paths`` walked only if the digest is computed
        self.index_cache = index_cache
        self.own: dict[str, dict] = {}
        self.entries: dict[str, list] = {}
        self.read: dict[str, dict] = {}
        self.conflict = False
        self.sources_read = False  # some result read other modules' code (``ProjectIndex.depend_on_sources``)

    def add(self, learned: tuple) -> None:
        path, own, entry, reads, sources_read = learned
        self.sources_read = self.sources_read or sources_read
        if own is not None:
            self.own[path] = own
            if entry is not None:
                self.entries[path] = entry
        for other, facts in reads.items():
            if self.read.setdefault(other, facts) != facts:
                self.conflict = True  # a module changed while the run read it

    def digest(self) -> str | None:
        """The project digest for the results (None when some result may have seen other facts); caches the facts."""
        index = complete_index(self.index.paths, self.own, self.entries, self.index_cache)
        if self.conflict or any(index.facts.get(path) != facts for path, facts in self.read.items()):
            return None
        return index.digest()


def _run_files(files: list, mode: Mode, unsafe: bool, jobs: int | None, caches: _RunCaches | None,
               project_digest: str | None, cold: _ColdFacts | None = None) -> list[FileResult]:
    """``project_digest`` None: a cold run (``cold``), whose results are cached once the digest is known."""
    results: list[FileResult | None] = [None] * len(files)
    todo: list[int] = []
    for index, file in enumerate(files):
        if caches is not None:
            cached = _cached_result(caches.of[index], caches.keys[index], file, mode,
                                    unsafe or file.settings.unsafe_fixes, project_digest)
            if cached is not None:
                results[index] = cached
                continue
        todo.append(index)
    jobs = default_jobs() if jobs is None else max(1, jobs)
    pending: list[tuple[int, list]] = []
    with progress_bar(len(todo)) as advance:
        for index, result, entry, learned in _process_all(files, todo, mode, unsafe, jobs, caches is not None,
                                                          project_digest):
            results[index] = result
            if learned is not None:
                cold.add(learned)
            if entry is not None and caches is not None:
                if cold is not None and entry[1].endswith(":"):  # keyed by the digest, known at the end
                    pending.append((index, entry))
                else:
                    caches.of[index].put_raw(caches.keys[index], entry)
            advance()
    if cold is not None and pending:
        digest = cold.digest()
        if digest is not None:
            for index, entry in pending:
                entry[1] += digest  # the worker's fingerprint ends with ":"
                caches.of[index].put_raw(caches.keys[index], entry)
    elif cold is not None:
        save_facts(cold.entries, cold.index_cache)  # no result needs the digest: no other module is read
    if cold is not None and cold.sources_read:
        _note_modules_read(cold.index)
    for cache in caches.all if caches is not None else ():
        cache.save()
    for file, result in zip(files, results):
        result.version_floor = version_floor(file.settings)
    return sorted(results, key=lambda r: r.path)


def _note_modules_read(index: "ProjectIndex") -> None:
    """A result read other modules' code, maybe in a worker, whose reads a replay's recorder does not see: every
    module of the project is ``stat``-ed here, where it does (``run.replay``), so an edit to any of them ends the
    replay of this check (what the result read is not cached, so only a replay could show it again)."""
    for path in index.paths:
        try:
            os.stat(path)
        except OSError:
            pass


def version_floor(settings: Settings) -> tuple[str, str]:
    return str(settings.min_version), settings.min_version_origin


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# What stands for the project digest in the key of a result whose rules never asked about other modules: it holds
# whatever the other modules say (never a digest: those are hexadecimal).
INDEPENDENT = "-"


def _fingerprint(file: "SourceFile", project_digest: str) -> str:
    """The settings of the file and the project facts its findings may depend on (another module's), or
    ``INDEPENDENT``."""
    return f"{settings_fingerprint(file.settings, file.path)}:{project_digest}"


def _absolute(path: str, cwd: str) -> str:
    """``os.path.abspath`` (the cache's key) with the current directory read once per run, not once per file."""
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def _cached_result(cache: Cache, key: str, file: "SourceFile", mode: Mode, unsafe: bool,
                   project_digest: str | None) -> FileResult | None:
    """``project_digest`` None: a cold run, where only a result that depends on no other module may hit."""
    entry = cache.entry(key)
    if entry is None:
        return None  # a cold run reads and hashes nothing here (the worker does, once)
    settings = _fingerprint(file, "")
    if entry[1] != settings + INDEPENDENT and (project_digest is None or entry[1] != settings + project_digest):
        return None  # other settings or project facts: processed anyway, no need to read the file here
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
            # the same bytes under a new stamp
            cache.put_raw(key, [entry[0], entry[1], entry[2], new_stamp, *entry[4:5]])
    diagnostics = findings_of(entry, str(file.path))
    if diagnostics is None:
        return None
    floor_uses = None
    if len(entry) > 4 and entry[4] is not None:
        floor_uses = _floor_uses_from_json(entry[4], str(file.path))
        if floor_uses is None:
            return None
    if mode is not Mode.CHECK and any(d.fix is not None and (d.fix.applicability is Applicability.SAFE or unsafe)
                                      for d in diagnostics):
        return None  # there is something to fix: do it
    return FileResult(str(file.path), diagnostics, floor_uses=floor_uses)


# -- processing, here or in worker processes --------------------------------------------------------------------
# Fewer files than this per job are processed in this process: starting workers would cost more than it saves.
MIN_FILES_PER_JOB = 8
_WORKER_FILES: list = []  # the files of the current run, inherited by forked workers (so tasks are just indices)


def _process_all(files: list, todo: list[int], mode: Mode, unsafe: bool, jobs: int, use_cache: bool,
                 project_digest: str | None):
    """Yield (index, FileResult, cache entry or None, learned or None) for every index in ``todo``, in completion
    order (``_process_one``)."""
    jobs = min(jobs, len(todo) // MIN_FILES_PER_JOB or 1)
    if jobs <= 1:
        for index in todo:
            yield (index, *_process_one(files[index], mode, unsafe, use_cache, project_digest))
        return
    import multiprocessing

    from jaxlint.run.workers import run_in_workers

    fork = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
    global _WORKER_FILES
    if fork:
        _warm_up(files, todo, mode)
        gc.freeze()  # the warmed engine too (``cli`` froze what was loaded at start): the workers never scan it
        _WORKER_FILES = files
        tasks = [(index, None, mode, unsafe, use_cache, project_digest) for index in todo]
    else:
        tasks = [(index, files[index], mode, unsafe, use_cache, project_digest) for index in todo]
    # Largest files first, a few per task: a big file taken last would leave the other workers idle at the end.
    tasks.sort(key=lambda task: -_size(files[task[0]].path))
    chunksize = max(1, min(4, len(tasks) // (jobs * 8)))
    # A forked worker inherits the active project index; a spawned one receives it (plain data).
    try:
        # This process is one of the jobs: it holds the warmed engine already (a worker would build again what the
        # first files of a run build), and its results need no pipe.
        yield from run_in_workers(tasks, _worker_task, jobs, chunksize=chunksize,
                                  start_method="fork" if fork else "spawn", initializer=_worker_init,
                                  initargs=(None if fork else running_index(),), here=True)
    finally:
        _WORKER_FILES = []


# Reaches every stage of the engine before libcst (words, gates, a rule with a fix) without any project module.
_WARM_UP_SOURCE = "import jax\n\njax.tree_map(f, t)\n"


def _warm_up(files: list, todo: list[int], mode: Mode) -> None:
    """Import the engine and build what it builds on first use (the rules, their prefilters, the catalogue; libcst
    too when fixing) once, before forking: otherwise every worker does it again (~0.6 s of CPU each). Forked workers
    share it, copy-on-write. With no project index: a lint here must read no module's facts."""
    if mode is not Mode.CHECK:
        # Fixes are written with libcst: a run with fixes to write has files that need it. A check decides nearly
        # every file from ``ast`` (2 of the dev corpus's 5,650 files go to libcst): importing it here cost every
        # parallel check ~0.2 CPU-s, and a worker that meets such a file imports it then.
        import libcst  # noqa: F401

    from jaxlint.lint.engine import lint_source

    seen: set[int] = set()
    every: dict[int, Settings] = {}
    with activated(None):
        for index in todo:
            settings = files[index].settings
            every[id(settings)] = settings
            if id(settings) not in seen and len(seen) < 4:
                seen.add(id(settings))
                lint_source(_WARM_UP_SOURCE, str(files[index].path), settings)
    # The effective-floor note's tables, for the floors the files' pins set (``_floor_uses``)
    floors = [floor for floor in map(_pinned_floor, every.values()) if floor is not None]
    if floors:
        from jaxlint.run.effective_floor import warm_up

        warm_up(floors)


def _pinned_floor(settings: Settings) -> "Version | None":
    """``effective_floor.pinned_floor``, with the common answer (no pinned floor) found without importing it."""
    pinned = settings.pinned
    if pinned is None or pinned.lower is None:
        return None
    from jaxlint.run.effective_floor import pinned_floor

    return pinned_floor(settings)


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
                 project_digest: str | None) -> tuple[FileResult, list | None, tuple | None]:
    """Process one file; with the cache, also the entry to store (None when the result must not be cached) and, in
    a cold run (``project_digest`` None), what the process learned about the modules (``_ColdFacts.add``)."""
    file_unsafe = unsafe or file.settings.unsafe_fixes
    if not use_cache:
        return process_file(file.path, file.settings, mode, file_unsafe), None, None
    started = time.time_ns()
    before = _status(file.path)
    data = None
    if before is not None:
        try:
            data = file.path.read_bytes()
        except OSError:
            data = None
    digest = None if data is None else content_hash(data)
    own = tree = None
    path = os.path.abspath(file.path) if project_digest is None else ""
    if project_digest is None and data is not None and is_module(path):
        spells = spelled(data)
        if mode is Mode.CHECK and spells:
            tree = _parsed(data)  # one parse for the facts and the lint's ast gate
        own = module_facts(data, tree, spells)
        running_index().install(path, own)  # this module's rules see the facts of the bytes they lint
    index = running_index()
    if index is not None:
        index.take_source_dependency()
        index.take_consultation()
    result = process_file(file.path, file.settings, mode, file_unsafe, data=data, tree=tree)
    # Findings that read other modules' code beyond the index's facts: no key says when those change.
    volatile = index is not None and index.take_source_dependency()
    consulted = index is not None and index.take_consultation()
    unchanged = _identity(_status(file.path)) == _identity(before)
    learned = None
    if project_digest is None:
        stamp = None if own is None or not unchanged else cache_entry(before, started, digest, own)
        learned = (path, own, stamp, index.take_reads(), volatile)
    if digest is None or result.internal_error or result.applied or result.rejected \
            or result.fixed_source is not None or not unchanged or volatile:
        return result, None, learned
    fingerprint = _fingerprint(file, (project_digest or "") if consulted else INDEPENDENT)
    return result, [digest, fingerprint, [diagnostic_to_json(d) for d in result.diagnostics],
                    trusted_stamp(before, started), _floor_uses_to_json(result.floor_uses)], learned


def _floor_uses_to_json(floor_uses: tuple | None) -> list | None:
    if floor_uses is None:
        return None
    floor, uses = floor_uses
    return [str(floor), [[use.name, str(use.since), use.row, use.column] for use in uses]]


def _floor_uses_from_json(item, path: str) -> tuple | None:
    """``_floor_uses_to_json`` read back; None for an entry without them (or a damaged one)."""
    from jaxlint.project.versions import Version
    from jaxlint.run.effective_floor import FloorUse

    try:
        floor, uses = item
        return Version(floor), [FloorUse(name, Version(since), path, row, column) for name, since, row, column in uses]
    except (TypeError, ValueError):
        return None


def _parsed(data: bytes) -> ast.Module | None:
    """``ast``'s parse of the module's text as ``process_file`` decodes it; None where it cannot be decoded or
    parsed, or where the lint would not parse it whole (a large file is linted in pieces)."""
    # Imported here: a warm run whose files all hit the cache needs neither.
    from jaxlint.lint.ast_gate import parse_module
    from jaxlint.lint.large_files import LARGE_FILE

    try:
        text = decode_source(data).text
    except DecodeError:
        return None
    return parse_module(text) if len(text) < LARGE_FILE else None


def _status(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _identity(status: os.stat_result | None) -> tuple | None:
    """What changes when a file is rewritten: a result is cached only if the file stayed the same throughout."""
    return None if status is None else (status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def process_file(path: Path, settings: Settings, mode: Mode, unsafe: bool, *, data: bytes | None = None,
                 tree: ast.Module | None = None) -> FileResult:
    """Never raises for a bad input file: a file that cannot be read is a JAX002 finding, one that cannot be decoded
    a JAX000 finding, fixes that cannot be written a ``write_error``, bugs an internal error. ``data``: the file's
    bytes when the caller has read them already (a notebook is always read here); ``tree``: the ``ast`` parse of
    their text, when the caller has it (check mode)."""
    if path.suffix == ".ipynb":
        from jaxlint.run.notebooks import process_notebook

        return process_notebook(path, settings, mode, unsafe)
    display = str(path)
    try:
        data = path.read_bytes() if data is None else data
    except OSError as error:
        return FileResult(display, [io_error(display, error)])
    try:
        source = decode_source(data)
    except DecodeError as error:
        location = Location(error.row, error.column)
        return FileResult(display, [Diagnostic(PARSE_ERROR, f"cannot decode: {error}", display, location, location)])
    # ``data.decode("utf-8")``, known without decoding again (the effective-floor note reads the file as UTF-8)
    utf8 = source.text if source.encoding == "utf-8" and not source.bom else None
    try:
        result = process_source(source, display, settings, mode, unsafe, tree=tree)
        if mode is Mode.FIX and result.fixed_source is not None:
            try:
                data = source.encode(result.fixed_source)
                write_atomic(path, data)
            except OSError as error:
                return unwritten(process_source(source, display, settings, Mode.CHECK, unsafe), error)
            tree = utf8 = None
        result.floor_uses = _floor_uses(data, source.text if tree is not None else None, tree, display, settings,
                                        utf8)
    except Exception as error:  # noqa: BLE001 - one broken file or rule must not stop the run
        return FileResult(display, internal_error=f"{type(error).__name__}: {error}")
    return result


def _floor_uses(data: bytes, text: str | None, tree: ast.Module | None, display: str, settings: Settings,
                utf8: str | None = None) -> tuple | None:
    """What the effective-floor note needs of this file (``FileResult.floor_uses``), found here, in the worker,
    from the bytes it holds (as written, after a fix) and the ``ast`` tree of their text when it has one, rather than
    by a serial pass that reads and parses every file again after the lint. ``utf8``: ``data.decode("utf-8")``,
    when the caller has it."""
    if not display.endswith(".py"):
        return None
    floor = _pinned_floor(settings)
    if floor is None:
        return None
    from jaxlint.run.effective_floor import file_uses

    return floor, file_uses(data, display, floor, text, tree, utf8)
