"""A warm check replays its output: when nothing the last identical check read has changed, print what it printed.

A warm run should cost a ``stat`` and a lookup per file (ruff's bar). The results cache gives that per file, but a
check also pays for its interpreter's imports, the walk, every folder's settings and pins, and the rendering,
before and after the lookups: twice ruff's time on a warm tree. So the ``jaxlint`` command records each check it
runs (``Recorder``) and, the next time, replays it (``replayed``) without importing click, libcst or the settings:

- **the invocation**: the arguments, the working folder, the environment, whether stdout and stderr are terminals,
  the Python and jaxlint (its engine fingerprint: code, catalogue, libcst); all must be equal;
- **what it read**: every path the check's own process opened, listed, or ``stat``-ed (an audit hook and a
  wrapper of ``os.stat``/``os.lstat``), missing ones included (a config file created since is a change), and
  every file it linted. Each path's stamp (size, modification and change times, inode; ``None`` when missing)
  must be unchanged. A folder's stamp changes when an entry is added, removed or renamed in it;
- **what it printed**: stdout and stderr, in order, and the exit code; of the ``-o`` report, the hash of what it
  wrote. A replay writes no file: it replays only while the report still holds those bytes (writing them again would
  change nothing); a report deleted or changed since runs the check, which writes it.

A manifest is trusted only with a valid signature (``jaxlint.project.cache_key``: a key of the user's, outside any
cache folder): a CI system may restore ``~/.cache`` from a cache that other branches and forks wrote, and a planted
manifest would otherwise print "All checks passed!" for any tree. Its stamps are then trusted as the user's own run
left them (the threat is a forged cache, not a file edited under an unchanged size, times and inode).

Only a plain check records: not ``--fix``/``--diff``, not stdin, not ``--no-cache``, not one that failed (exit 2),
drew a progress bar, or saw any input change while it ran. A stamp is trusted only when the path's times lie
well before the run started (the results cache's racy rule): an edit in the same timestamp tick could keep it.
What the run wrote and the results cache's files are not inputs; but a results cache folder that was deleted (the
way to force a fresh run) ends replaying: each holds a ``replay-id`` file, and the manifest names it. Manifests
live in the user's cache folder (``$XDG_CACHE_HOME/jaxlint/replay``), the newest ``MAX_MANIFESTS`` kept.
Standard library only: imported first by ``ui.entry``.
"""
from __future__ import annotations

import io
import marshal
import os
import stat
import sys
import time
import zlib

FORMAT = 3
MAX_MANIFESTS = 64
# As the results cache's (``project.cache.RACY_NS``): file systems' timestamps can be as coarse as 2 s.
RACY_NS = 2_000_000_000
ID_FILE = "replay-id"  # in each results cache folder: deleting the folder ends the replays that used it
# Environment variables that differ between two runs of the same command in the same shell and decide nothing.
_VOLATILE_ENVIRONMENT = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
def records() -> bool:
    """Whether this Python can record a check (the check installs the recorder, and says whether it qualifies).
    Python 3.10's ``pathlib`` calls the ``os.stat`` it bound at import, which the recorder would not see."""
    return sys.version_info >= (3, 11)


def manifest_folder() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jaxlint", "replay")


def _invocation() -> tuple:
    environment = tuple(sorted((name, value) for name, value in os.environ.items()
                               if name not in _VOLATILE_ENVIRONMENT))
    return (FORMAT, sys.executable, sys.version, os.getcwd(), tuple(sys.argv[1:]), environment,
            _isatty(sys.stdout), _isatty(sys.stderr))


def _isatty(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def _manifest_path(invocation: tuple) -> str:
    # The name only spreads invocations over files: the manifest holds the whole invocation and is compared.
    return os.path.join(manifest_folder(), f"{zlib.crc32(repr(invocation).encode()):08x}.replay")


_stat, _lstat, _scandir, _listdir, _open = os.stat, os.lstat, os.scandir, os.listdir, io.open


def _stamp(path: str, follow: bool = True, listing: bool = False):
    """What must be unchanged: a listed folder's times (an entry added, removed or renamed moves them), a file's size
    and times; of a folder only ``stat``-ed (does it exist, is it a folder or a link), its mode and inode: its times
    move whenever anything is written in it (``/tmp``, a home folder), which says nothing about what was read."""
    try:
        status = _stat(path) if follow else _lstat(path)
    except (OSError, ValueError):
        return None
    return _stamp_of(status, listing)


def _stamp_of(status: os.stat_result, listing: bool):
    if not listing and stat.S_ISDIR(status.st_mode):
        return (status.st_mode, status.st_ino)
    return (status.st_mode, status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


# -- replaying ---------------------------------------------------------------------------------------------------
def replayed() -> int | None:
    """Print what the last identical check printed and return its exit code, when nothing it read has changed;
    None (having printed nothing) otherwise."""
    if not records() or "--no-cache" in sys.argv or "-n" in sys.argv:  # no cache means none, even a signed one
        return None
    try:
        invocation = _invocation()
        with open(_manifest_path(invocation), "rb") as handle:
            data = handle.read()
        from jaxlint.project.cache_key import unseal

        payload = unseal("replay", str(FORMAT), data)  # signed with this user's key, or planted: never trusted
        if payload is None:
            return None
        manifest = marshal.loads(payload)
        if not isinstance(manifest, dict) or manifest.get("invocation") != invocation:
            return None
        for path, follow, listing, stamp in manifest["stamps"]:
            if _stamp(path, follow, listing) != stamp:
                return None
        for folder, identity in manifest["cache_folders"]:
            with open(os.path.join(folder, ID_FILE), "rb") as handle:
                if handle.read() != identity:
                    return None
        from jaxlint.project.fingerprint import engine_fingerprint

        if manifest["engine"] != engine_fingerprint():
            return None
        for path, digest in manifest["reports"]:  # ``-o``: still as the check wrote it, or the check runs again
            with open(path, "rb") as handle:
                if _digest(handle.read()) != digest:
                    return None
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return None
    try:
        for descriptor, data in manifest["output"]:
            stream = sys.stdout if descriptor == 1 else sys.stderr
            stream.flush()
            stream.buffer.write(data)
            stream.buffer.flush()
    except OSError:  # a reader that stopped early (``| head``): the rest goes nowhere, as in a full check
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
    return manifest["code"]


# -- recording ---------------------------------------------------------------------------------------------------
class _Tee(io.RawIOBase):
    """A binary stream that writes through to the real one and keeps what was written, in order with the other
    stream's."""

    def __init__(self, target, descriptor: int, chunks: list) -> None:
        super().__init__()
        self._target, self._descriptor, self._chunks = target, descriptor, chunks

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        data = bytes(data)
        written = self._target.write(data)
        self._target.flush()
        self._chunks.append((self._descriptor, data))
        return len(data) if written is None else written

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:
        return self._target.fileno()


class Recorder:
    """Records one check (see the module's docstring); ``finish`` writes the manifest when the check qualifies."""

    def __init__(self) -> None:
        self.started = time.time_ns()
        self.invocation = _invocation()
        self._originals: list = []
        # (absolute path, follows links, listed) -> its stamp when first read
        self.stamps: dict[tuple[str, bool, bool], object] = {}
        self.written: set[str] = set()
        self.output: list[tuple[int, bytes]] = []
        self.reports: list[tuple[str, bytes]] = []
        self.cache_folders: list[str] = []
        self.replayable = False  # set by the check, once it knows it qualifies

    def install(self) -> None:
        """Wrap what reads the file system (``open``, ``os.stat``/``lstat``/``scandir``/``listdir``) in this
        process, not in its forked workers (their reads are the linted files, which the check names), and tee
        stdout and stderr. Not an audit hook: that would run for every ``id()`` and ``compile`` too."""
        import builtins

        self._originals = [(builtins, "open", builtins.open), (io, "open", io.open), (os, "stat", _stat),
                           (os, "lstat", _lstat), (os, "scandir", os.scandir), (os, "listdir", os.listdir)]
        builtins.open = io.open = self._open
        os.stat, os.lstat, os.scandir, os.listdir = self._stat, self._lstat, self._scandir, self._listdir
        os.register_at_fork(after_in_child=self._restore)
        for name, descriptor in (("stdout", 1), ("stderr", 2)):
            stream = getattr(sys, name)
            try:
                raw = stream.buffer
                tee = io.TextIOWrapper(_Tee(raw, descriptor, self.output), encoding=stream.encoding,
                                       errors=stream.errors, line_buffering=stream.line_buffering,
                                       write_through=True)
            except (AttributeError, ValueError):
                continue
            stream.flush()
            setattr(sys, name, tee)

    def _restore(self) -> None:
        for owner, name, original in self._originals:
            setattr(owner, name, original)
        self._originals = []

    # what the check reads
    def _note(self, path, follow: bool = True, stamp=False, listing: bool = False) -> None:
        if isinstance(path, int):
            return
        try:
            path = os.path.abspath(os.fsdecode(path if path is not None else "."))
        except (TypeError, ValueError):
            return
        key = (path, follow, listing)
        if key not in self.stamps:
            self.stamps[key] = _stamp(path, follow, listing) if stamp is False else stamp

    def _open(self, file, mode="r", *args, **kwargs):
        if not isinstance(file, int):
            if any(letter in mode for letter in "wax+"):
                try:
                    self.written.add(os.path.abspath(os.fsdecode(file)))
                except (TypeError, ValueError):
                    pass
            else:
                self._note(file)
        return _open(file, mode, *args, **kwargs)

    def _scandir(self, path="."):
        self._note(path, listing=True)
        return _scandir(path)

    def _listdir(self, path="."):
        self._note(path, listing=True)
        return _listdir(path)

    def _stat(self, path, *, dir_fd=None, follow_symlinks=True):
        try:
            status = _stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        except OSError:
            if dir_fd is None:
                self._note(path, follow_symlinks, None)
            raise
        if dir_fd is None:
            self._note(path, follow_symlinks, _stamp_of(status, False))
        return status

    def _lstat(self, path, *, dir_fd=None):
        return self._stat(path, dir_fd=dir_fd, follow_symlinks=False)

    # what the check tells the recorder
    def note_files(self, paths) -> None:
        """The files the check will lint, stamped before they are read (workers read them, not this process)."""
        for path in paths:
            self._note(path)

    def note_listings(self, folders) -> None:
        """Folders whose entries the workers may ask about (``stat`` there is not seen here)."""
        for folder in folders:
            self._note(folder, listing=True)

    def uses_cache_folder(self, folder) -> None:
        """A results cache folder of the check: its files are not inputs, but it must still exist."""
        self.cache_folders.append(os.path.abspath(os.fspath(folder)))

    def report_written(self, path) -> None:
        """The ``-o`` report, as written (the hash of its bytes, newlines as the platform wrote them)."""
        path = os.path.abspath(os.fspath(path))
        with open(path, "rb") as handle:
            self.reports.append((path, _digest(handle.read())))

    # the manifest
    def finish(self, code) -> None:
        if not self.replayable or not isinstance(code, int) or code not in (0, 1):
            return
        progress = sys.modules.get("jaxlint.run.progress")
        if progress is not None and getattr(progress, "drawn", False):
            return
        for entry in sys.path:  # installed packages: an upgrade changes these folders' listings
            if entry:
                self._note(entry, listing=True)
        self._restore()
        # jaxlint's own cache folder holds the manifests and the catalogue's copy (the engine fingerprint covers it)
        skipped = tuple(os.path.join(folder, "") for folder in [os.path.dirname(manifest_folder()),
                                                                *self.cache_folders])
        newest_allowed = self.started - int(os.environ.get("JAXLINT_REPLAY_RACY_NS", RACY_NS))  # tests set 0
        stamps = []
        for (path, follow, listing), stamp in self.stamps.items():
            if path in self.written or path.startswith(skipped) or os.path.join(path, "") in skipped:
                continue
            if _stamp(path, follow, listing) != stamp:
                return  # changed while the check ran
            if stamp is not None and len(stamp) > 2 and max(stamp[2], stamp[3]) >= newest_allowed:
                return  # too recent to trust
            stamps.append((path, follow, listing, stamp))
        from jaxlint.project.cache_key import seal
        from jaxlint.project.fingerprint import engine_fingerprint

        try:
            identities = [(folder, _identity(folder)) for folder in self.cache_folders]
            manifest = {"invocation": self.invocation, "engine": engine_fingerprint(), "stamps": stamps,
                        "cache_folders": identities, "output": self.output, "reports": self.reports, "code": code}
            signed = seal("replay", str(FORMAT), marshal.dumps(manifest))
            if signed is None:
                return  # no cache key: caching is off
            folder = manifest_folder()
            os.makedirs(folder, exist_ok=True)
            target = _manifest_path(self.invocation)
            temporary = f"{target}.{os.getpid()}.tmp"
            with open(temporary, "wb") as handle:
                handle.write(signed)
            os.replace(temporary, target)
            _prune(folder)
        except (OSError, ValueError):
            pass  # an optimisation, never an error


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _identity(folder: str) -> bytes:
    """The results cache folder's ``replay-id``, written once when missing."""
    path = os.path.join(folder, ID_FILE)
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        pass
    identity = os.urandom(16).hex().encode()
    with open(path, "xb") as handle:
        handle.write(identity)
    return identity


def _prune(folder: str) -> None:
    try:
        entries = [entry for entry in os.scandir(folder) if entry.name.endswith(".replay")]
    except OSError:
        return
    if len(entries) <= MAX_MANIFESTS:
        return
    entries.sort(key=lambda entry: entry.stat().st_mtime_ns)
    for entry in entries[:-MAX_MANIFESTS]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass


def exit_flushed(code: int, stop: BaseException | None = None) -> None:
    """End the process now, without the interpreter's teardown, once stdout and stderr are flushed; a stream that
    cannot be flushed (a closed pipe) leaves the ordinary exit to report it."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        if stop is not None:
            raise stop from None
        sys.exit(code)
    os._exit(code)


RECORDER: Recorder | None = None  # the check of this process, when ``entry_point`` records one
