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
