"""Reading Python source files as text exactly, and writing them back byte-for-byte faithful and atomically."""
from __future__ import annotations

import codecs
import io
import os
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path


class DecodeError(Exception):
    """The bytes are not text in the encoding the file declares (or UTF-8 when it declares none)."""


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
        raise DecodeError(
            f"line {line}: byte {bad!r} at offset {error.start} is not valid {encoding}"
            " (declare the file's encoding with a coding comment, or save it as UTF-8)"
        ) from None
    except LookupError:
        raise DecodeError(f"unknown encoding declared: {encoding}") from None
    return SourceText(text, encoding, bom)


def read_source(path: Path) -> SourceText:
    return decode_source(path.read_bytes())


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file in the same directory and rename: readers see the old or the new file, never half.

    A process killed (SIGKILL, power loss) between ``mkstemp`` and ``os.replace`` leaves its temporary
    ``.<name>.<random>.jaxlint-tmp`` behind. Discovery never picks such names up (not a source suffix), so later
    runs ignore them; they are not deleted, since one may belong to a run still writing
    (tests/robustness/test_atomic_write.py).
    """
    directory = path.parent
    mode = path.stat().st_mode if path.exists() else None
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".jaxlint-tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
