"""Reading Python source files as text exactly, and writing them back byte-for-byte faithful and atomically."""
from __future__ import annotations

import codecs
import errno
import io
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path


class DecodeError(Exception):
    """The bytes are not text in the encoding the file declares (or UTF-8 when it declares none). ``row`` and
    ``column`` (1-based, the column in characters) locate the first byte that does not decode."""

    def __init__(self, message: str, row: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.row = row
        self.column = column


@dataclass(frozen=True)
class SourceText:
    text: str
    encoding: str = "utf-8"
    bom: bool = False

    def encode(self, text: str) -> bytes:
        data = text.encode(self.encoding)
        return codecs.BOM_UTF8 + data if self.bom else data


def decode_source(data: bytes) -> SourceText:
    """Decode like Python does (BOM, PEP 263 coding cookie), but keep line endings exactly as they are."""
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise DecodeError(str(error)) from None
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    body = data[len(codecs.BOM_UTF8):] if bom else data
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as error:
        bad = body[error.start:error.start + 1]
        line = body.count(b"\n", 0, error.start) + 1
        line_start = body.rfind(b"\n", 0, error.start) + 1
        # The text before the bad byte on its line decodes (the error is the first one): its length is the column.
        column = len(body[line_start:error.start].decode(encoding, errors="replace")) + 1
        raise DecodeError(
            f"line {line}: byte {bad!r} at offset {error.start} is not valid {encoding}"
            " (declare the file's encoding with a coding comment, or save it as UTF-8)", line, column
        ) from None
    except LookupError:
        raise DecodeError(f"unknown encoding declared: {encoding}") from None
    return SourceText(text, encoding, bom)


def read_source(path: Path) -> SourceText:
    return decode_source(path.read_bytes())


class NotWritable(PermissionError):
    """The file is read-only (no write permission for the user, or no write bit at all): jaxlint never replaces it."""


def writable(path: Path) -> bool:
    """Whether the user may write ``path``. A file without any write bit counts as read-only even for root, who
    could write it anyway: someone made it read-only on purpose (a vendored or generated file)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return True
    return bool(mode & 0o222) and os.access(path, os.W_OK)


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file in the same directory and rename: readers see the old or the new file, never half.

    The new file keeps the old one's mode, owner and group; a symlink stays a link and its target is written. A read-only file is never replaced (``NotWritable``).
    Where the rename cannot keep the file as it was (the folder is not writable, or the owner or group cannot be
    given to the new file), the file is rewritten in place instead, as an editor would: not atomic, but its identity
    and permissions stay exactly as they were.

    A process killed (SIGKILL, power loss) between ``mkstemp`` and ``os.replace`` leaves its temporary
    ``.<name>.<random>.jaxlint-tmp`` behind. Discovery never picks such names up (not a source suffix), so later
    runs ignore them; they are not deleted, since one may belong to a run still writing
    (tests/robustness/test_atomic_write.py).
    """
    path = Path(os.path.realpath(path))  # through a symlink: write its target, keep the link
    directory = path.parent
    if not writable(path):
        raise NotWritable(errno.EACCES, "Permission denied: the file is read-only", str(path))
    stat = path.stat() if path.exists() else None
    try:
        import tempfile  # here: a check that writes no file needs none (tempfile and shutil: 3 ms of a start-up)

        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".jaxlint-tmp", dir=directory)
    except PermissionError:
        if stat is None:
            raise
        _write_in_place(path, data)  # a writable file in a folder that is not
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if stat is not None:
            os.chmod(temporary, stat.st_mode & 0o7777)
            if not _same_owner(temporary, stat):
                os.unlink(temporary)
                _write_in_place(path, data)
                return
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def _same_owner(temporary: str, stat: os.stat_result) -> bool:
    """Give the temporary file the original's owner and group; False when that is not allowed."""
    current = os.stat(temporary)
    if (current.st_uid, current.st_gid) == (stat.st_uid, stat.st_gid):
        return True
    try:
        os.chown(temporary, stat.st_uid, stat.st_gid)
    except (OSError, AttributeError):
        return False
    return True


def _write_in_place(path: Path, data: bytes) -> None:
    with open(path, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())
