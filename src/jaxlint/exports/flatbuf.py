"""A minimal, bounds-checked flatbuffer table reader.

jaxlint must read ``jax.export`` artifacts without JAX or the ``flatbuffers`` package, and a hostile or damaged file
must never make it crash or read outside the buffer. Only the parts of the format the ``Exported`` schema uses are
implemented: tables, scalars, strings, vectors of scalars/strings/tables.

Format recap (little endian): the buffer starts with a uint32 offset to the root table. A table starts with an int32
``soffset``; its vtable lives at ``table - soffset`` and holds uint16 ``vtable_size``, ``table_size`` and one uint16
field offset per slot (0 = field absent). Reference fields hold a uint32 offset relative to their own position.
"""
from __future__ import annotations

import struct

_SCALAR_FORMATS = {"u8": "<B", "i8": "<b", "bool": "<?", "u16": "<H", "i16": "<h", "u32": "<I", "i32": "<i",
                   "u64": "<Q", "i64": "<q"}


class FlatbufferError(ValueError):
    """The bytes are not a well-formed flatbuffer (truncated, corrupt or not a flatbuffer at all)."""


class Table:
    """One flatbuffer table at ``pos`` inside ``buf``."""

    __slots__ = ("buf", "pos", "_vtable", "_vtable_size")

    def __init__(self, buf: bytes | memoryview, pos: int) -> None:
        self.buf = buf
        self.pos = pos
        soffset = _unpack(buf, pos, "<i", "table header")
        self._vtable = pos - soffset
        self._vtable_size = _unpack(buf, self._vtable, "<H", "vtable size")
        if self._vtable_size < 4 or self._vtable_size % 2:
            raise FlatbufferError(f"invalid vtable size {self._vtable_size} at byte {self._vtable}")
        _check_range(buf, self._vtable, self._vtable_size, "vtable")

    @classmethod
    def root(cls, buf: bytes | memoryview) -> "Table":
        return cls(buf, _unpack(buf, 0, "<I", "root offset"))

    def _field(self, slot: int) -> int:
        """Absolute position of a field's data, or 0 when the field is absent."""
        entry = 4 + 2 * slot
        if entry >= self._vtable_size:
            return 0  # written by an older schema that had fewer fields
        offset = _unpack(self.buf, self._vtable + entry, "<H", "vtable entry")
        return self.pos + offset if offset else 0

    def has(self, slot: int) -> bool:
        return self._field(slot) != 0

    def scalar(self, slot: int, kind: str, default: int = 0) -> int:
        at = self._field(slot)
        return _unpack(self.buf, at, _SCALAR_FORMATS[kind], f"field {slot}") if at else default

    def _deref(self, at: int) -> int:
        return at + _unpack(self.buf, at, "<I", "reference")

    def table(self, slot: int) -> "Table | None":
        at = self._field(slot)
        return Table(self.buf, self._deref(at)) if at else None

    def string(self, slot: int) -> str | None:
        at = self._field(slot)
        return _string_at(self.buf, self._deref(at)) if at else None

    def _vector(self, slot: int) -> tuple[int, int]:
        """(position of first element, length) of a vector field; (0, 0) when absent."""
        at = self._field(slot)
        if not at:
            return 0, 0
        start = self._deref(at)
        return start + 4, _unpack(self.buf, start, "<I", f"vector length of field {slot}")

    def vector_length(self, slot: int) -> int:
        return self._vector(slot)[1]

    def scalars(self, slot: int, kind: str) -> list[int]:
        fmt = _SCALAR_FORMATS[kind]
        size = struct.calcsize(fmt)
        first, length = self._vector(slot)
        _check_range(self.buf, first, length * size, f"vector of field {slot}")
        return [struct.unpack_from(fmt, self.buf, first + i * size)[0] for i in range(length)]

    def bytes_(self, slot: int) -> bytes:
        first, length = self.byte_span(slot)
        return bytes(self.buf[first:first + length])

    def byte_span(self, slot: int) -> tuple[int, int]:
        """(position, length) of a byte vector field inside the buffer, checked; for one too large to copy."""
        first, length = self._vector(slot)
        _check_range(self.buf, first, length, f"byte vector of field {slot}")
        return first, length

    def strings(self, slot: int) -> list[str]:
        return [_string_at(self.buf, pos) for pos in self._element_targets(slot)]

    def tables(self, slot: int) -> list["Table"]:
        return [Table(self.buf, pos) for pos in self._element_targets(slot)]

    def _element_targets(self, slot: int) -> list[int]:
        first, length = self._vector(slot)
        _check_range(self.buf, first, length * 4, f"vector of field {slot}")
        return [self._deref(first + 4 * i) for i in range(length)]


def _check_range(buf: bytes | memoryview, start: int, size: int, what: str) -> None:
    if start < 0 or size < 0 or start + size > len(buf):
        raise FlatbufferError(f"{what} at byte {start} (+{size}) lies outside the {len(buf)}-byte file")


def _unpack(buf: bytes | memoryview, at: int, fmt: str, what: str) -> int:
    _check_range(buf, at, struct.calcsize(fmt), what)
    return struct.unpack_from(fmt, buf, at)[0]


def _string_at(buf: bytes | memoryview, at: int) -> str:
    length = _unpack(buf, at, "<I", "string length")
    _check_range(buf, at + 4, length, "string")
    try:
        return bytes(buf[at + 4:at + 4 + length]).decode("utf-8")
    except UnicodeDecodeError as err:
        raise FlatbufferError(f"string at byte {at} is not UTF-8") from err
