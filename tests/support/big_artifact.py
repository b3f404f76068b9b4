"""A large artifact made from a real one: the same header, its embedded StableHLO module grown to any size.

The Exported flatbuffer refers to the module by a forward offset from a field of its root table; a copy of the
module, followed by zeros up to the size asked for, is appended at the end of the file and that field pointed at it.
jaxlint reads it as the same artifact (every header field equal, the module larger); the bytes of the original module
stay where they were, unreferenced.

    python -m tests.support.big_artifact SOURCE DEST SIZE_MB
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

from jaxlint.exports.flatbuf import Table
from jaxlint.exports.header import MLIR_MODULE

_ZEROS = bytes(1 << 20)


def grow_module(source: Path, dest: Path, module_size: int) -> Path:
    data = bytearray(source.read_bytes())
    root = Table.root(bytes(data))
    field = root._field(MLIR_MODULE)
    module = root.bytes_(MLIR_MODULE)
    assert field and module_size >= len(module)
    data += bytes(-len(data) % 4)  # the vector's length is a uint32: aligned
    struct.pack_into("<I", data, field, len(data) - field)
    data += struct.pack("<I", module_size) + module
    with dest.open("wb") as out:
        out.write(data)
        left = module_size - len(module)
        while left:
            left -= out.write(_ZEROS[:min(left, len(_ZEROS))])
    return dest


if __name__ == "__main__":
    grow_module(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) << 20)
