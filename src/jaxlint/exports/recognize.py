"""Recognise serialized ``Exported`` artifacts by their first bytes, whatever the file is called.

A model store holds checkpoints, configs and logs next to the artifacts, so the check must be cheap (one small read)
and strict enough that ordinary files do not pass it: a flatbuffer root table whose vtable has the Exported layout
and a plausible serialization version.
"""
from __future__ import annotations

import struct

from jaxlint.exports.header import MLIR_MODULE, SERIALIZATION_VERSION

SNIFF_BYTES = 64 * 1024
ARTIFACT_SUFFIXES = (".jaxexport", ".exported", ".jax_exported")
_MAX_SERIALIZATION_VERSION = 100  # JAX is at 12; leaves room without accepting random data
_MAX_SLOTS = 64


def looks_like_exported(prefix: bytes, file_size: int) -> bool:
    """True when ``prefix`` (the first bytes of a ``file_size``-byte file) starts an Exported flatbuffer."""
    if len(prefix) < 16:
        return False
    (root,) = struct.unpack_from("<I", prefix, 0)
    if root % 4 or not 4 <= root <= len(prefix) - 4 or root >= file_size:
        return False
    (soffset,) = struct.unpack_from("<i", prefix, root)
    vtable = root - soffset
    if vtable < 4 or vtable + 4 > len(prefix):
        return False
    vtable_size, table_size = struct.unpack_from("<HH", prefix, vtable)
    slots = (vtable_size - 4) // 2
    if vtable_size % 2 or not MLIR_MODULE < slots <= _MAX_SLOTS or vtable + vtable_size > len(prefix):
        return False
    offsets = struct.unpack_from(f"<{slots}H", prefix, vtable + 4)
    if any(offset >= table_size for offset in offsets) or not offsets[MLIR_MODULE]:
        return False
    version_at = offsets[SERIALIZATION_VERSION]
    if not version_at or root + version_at + 2 > len(prefix):
        return False
    (version,) = struct.unpack_from("<H", prefix, root + version_at)
    return 1 <= version <= _MAX_SERIALIZATION_VERSION


def has_artifact_suffix(name: str) -> bool:
    return name.lower().endswith(ARTIFACT_SUFFIXES)


_MAX_ROOT = 256  # every writer so far puts the root table within the first 64 bytes
_MAX_TRUNCATED_SIZE = 4096


def looks_like_truncated_exported(prefix: bytes, file_size: int) -> bool:
    """True when a small file is the start of an Exported flatbuffer cut off inside its header.

    Such a file fails ``looks_like_exported`` only because the bytes run out: its root offset is aligned and small
    but points at or past the end, and what there is of the vtable before it are small field offsets.
    """
    if len(prefix) != file_size or not 8 <= file_size < _MAX_TRUNCATED_SIZE:
        return False
    (root,) = struct.unpack_from("<I", prefix, 0)
    if root % 4 or not 8 <= root <= _MAX_ROOT:
        return False
    if root + 4 <= file_size:
        (soffset,) = struct.unpack_from("<i", prefix, root)
        vtable = root - soffset
        if not 4 <= vtable < root:
            return False
        if vtable + 4 <= file_size:
            vtable_size, table_size = struct.unpack_from("<HH", prefix, vtable)
            if vtable_size % 2 or not 4 < vtable_size <= 4 + 2 * _MAX_SLOTS:
                return False
            if vtable + vtable_size <= file_size and root + table_size <= file_size:
                return False  # the whole header is there: it fails the check for another reason than the cut
            vtable += 4
    else:
        vtable = 4
    entries = [struct.unpack_from("<H", prefix, at)[0] for at in range(vtable, min(root, file_size) - 1, 2)]
    nonzero = [e for e in entries if e]
    # Field offsets inside a small table (a one-byte field may sit at an odd one).
    return len(nonzero) >= 2 and all(e < 1024 for e in nonzero)
