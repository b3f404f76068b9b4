"""Decode the ``Exported`` flatbuffer of a serialized ``jax.export`` artifact, without JAX.

Slot numbers and enums follow ``jax/_src/export/serialization_generated.py`` (identical from 0.8.1 to 0.12.0.1: the
schema only gained fields). Nothing here interprets the StableHLO module; we only look at its size and a few strings
in it, so no code from the file can run.
"""
from __future__ import annotations

import mmap
import os
import re
from dataclasses import dataclass, field
from typing import BinaryIO, Callable

from jaxlint.exports.flatbuf import FlatbufferError, Table
from jaxlint.exports.hlo_sharding import describe_hlo_sharding


class CorruptArtifact(ValueError):
    """The file is recognisably an Exported artifact but cannot be decoded (truncated or damaged)."""


# Exported table slots.
SERIALIZATION_VERSION, FUNCTION_NAME, IN_AVALS, OUT_AVALS = 0, 1, 3, 5
NR_DEVICES_SHORT, IN_SHARDINGS, OUT_SHARDINGS, PLATFORMS = 6, 7, 8, 9
ORDERED_EFFECTS, UNORDERED_EFFECTS = 10, 11  # vectors of Effect tables (slot 0: the effect class's str())
MLIR_MODULE, CALLING_CONVENTION_VERSION, NR_DEVICES = 13, 14, 18
UNIQUE_AVALS, UNIQUE_ABSTRACT_MESHES, UNIQUE_NAMED_SHARDINGS = 19, 20, 21
IN_AVALS_IDXS, OUT_AVALS_IDXS, IN_SHARDINGS_IDXS, OUT_SHARDINGS_IDXS, JAX_VERSION = 22, 23, 24, 25, 26

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128", "bfloat16", "int4", "uint4", "float8_e4m3b11fnuz", "float8_e4m3fn",
          "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float0", "float8_e4m3", "float8_e3m4",
          "float8_e8m0fnu", "float4_e2m1fn", "key<fry>", "key<rbg>", "key<unsafe_rbg>"]

MLIR_BYTECODE_MAGIC = b"ML\xefR"
# VHLO ops that older StableHLO readers do not know, with the first JAX release that reads them (verified: JAX
# 0.10.2 fails on vhlo.custom_call_v2 written by 0.11.2+, 0.11.0 reads it).
NEW_VHLO_OPS = {b"custom_call_v2": "0.11.0"}
_STABLEHLO_PRODUCER = re.compile(rb"StableHLO_v(\d+\.\d+\.\d+)")


@dataclass
class Sharding:
    """How one argument or result is sharded, as stored."""

    kind: str  # "named", "hlo", "unspecified"
    text: str
    mesh_axes: tuple[tuple[str, int], ...] = ()  # named shardings only


@dataclass
class ArtifactHeader:
    serialization_version: int
    function_name: str | None
    nr_devices_short: int  # legacy int16 field, written up to 0.9.x
    nr_devices: int  # uint32 field, written since 0.8.2
    calling_convention_version: int
    jax_version: str | None  # written since 0.11.1
    platforms: list[str]
    in_avals: list[str]
    out_avals: list[str]
    in_shardings: list[Sharding]
    out_shardings: list[Sharding]
    mlir_size: int
    stablehlo_producer: str | None
    new_vhlo_ops: dict[str, str] = field(default_factory=dict)  # op name -> first JAX release that reads it
    # Effect type names (``str(effect class)``); a reader must have the class registered (imported) to load it.
    ordered_effects: list[str] = field(default_factory=list)
    unordered_effects: list[str] = field(default_factory=list)

    @property
    def shardings(self) -> str:
        """``hlo-only`` if any sharding is stored only as HloSharding, else ``named`` if any is named, else ``none``."""
        kinds = {s.kind for s in self.in_shardings + self.out_shardings}
        if "hlo" in kinds:
            return "hlo-only"
        return "named" if "named" in kinds else "none"

    @property
    def device_count(self) -> int:
        return self.nr_devices or self.nr_devices_short


# A module is read in pieces of this size: an artifact of gigabytes (large constants) never sits in memory whole.
SCAN_CHUNK = 1 << 20
_SCAN_OVERLAP = 64  # longer than any string searched for, so that one cut by a piece's end is whole in the next

Read = Callable[[int, int], bytes]  # (position, size) -> the bytes there


def decode_artifact(data: bytes) -> ArtifactHeader:
    """Decode every header field; raises CorruptArtifact with a precise message when the bytes do not add up."""
    return _decode_checked(data, lambda at, size: bytes(data[at:at + size]))


def read_artifact(handle: BinaryIO) -> ArtifactHeader:
    """``decode_artifact`` of an open file, in memory flat in its size: the header's tables through ``mmap`` (only
    the pages read are loaded), the embedded module (nearly all of a large artifact) scanned in ``SCAN_CHUNK``
    reads."""
    descriptor = handle.fileno()
    if os.fstat(descriptor).st_size == 0:
        raise CorruptArtifact("truncated artifact: the file is empty")
    try:
        mapped = mmap.mmap(descriptor, 0, access=mmap.ACCESS_READ)
    except OSError:  # a file system that cannot map files: read whole
        handle.seek(0)
        return decode_artifact(handle.read())
    with mapped:
        return _decode_checked(mapped, lambda at, size: os.pread(descriptor, size, at))


def _decode_checked(data, read: Read) -> ArtifactHeader:
    try:
        return _decode(Table.root(data), read)
    except CorruptArtifact:
        raise
    except FlatbufferError as err:
        raise CorruptArtifact(f"truncated or corrupt artifact: {err}") from err
    except (IndexError, ValueError) as err:  # an index or enum out of range
        raise CorruptArtifact(f"corrupt artifact: {err}") from err


def _decode(root: Table, read: Read) -> ArtifactHeader:
    try:
        module_at, module_size = root.byte_span(MLIR_MODULE)
    except FlatbufferError as err:
        # The module is written first, so it sits at the end of the file: the usual victim of a cut-off copy.
        raise CorruptArtifact(f"truncated artifact: the embedded StableHLO module runs past the end of the "
                              f"{len(root.buf)}-byte file") from err
    producer, new_ops = _scan_module(read, module_at, module_size)
    unique_avals = [_aval(t) for t in root.tables(UNIQUE_AVALS)]
    unique_meshes = [_mesh_axes(t) for t in root.tables(UNIQUE_ABSTRACT_MESHES)]
    unique_named = [_named_sharding(t, unique_meshes) for t in root.tables(UNIQUE_NAMED_SHARDINGS)]
    return ArtifactHeader(
        serialization_version=root.scalar(SERIALIZATION_VERSION, "u16"),
        function_name=root.string(FUNCTION_NAME),
        nr_devices_short=root.scalar(NR_DEVICES_SHORT, "i16"),
        nr_devices=root.scalar(NR_DEVICES, "u32"),
        calling_convention_version=root.scalar(CALLING_CONVENTION_VERSION, "u16"),
        jax_version=root.string(JAX_VERSION),
        platforms=root.strings(PLATFORMS),
        in_avals=_avals(root, IN_AVALS_IDXS, IN_AVALS, unique_avals),
        out_avals=_avals(root, OUT_AVALS_IDXS, OUT_AVALS, unique_avals),
        in_shardings=_shardings(root, IN_SHARDINGS_IDXS, IN_SHARDINGS, unique_named, unique_meshes),
        out_shardings=_shardings(root, OUT_SHARDINGS_IDXS, OUT_SHARDINGS, unique_named, unique_meshes),
        mlir_size=module_size,
        stablehlo_producer=producer,
        new_vhlo_ops=new_ops,
        ordered_effects=[t.string(0) or "?" for t in root.tables(ORDERED_EFFECTS)],
        unordered_effects=[t.string(0) or "?" for t in root.tables(UNORDERED_EFFECTS)],
    )


def _scan_module(read: Read, at: int, size: int) -> tuple[str | None, dict[str, str]]:
    """(the StableHLO producer version, the NEW_VHLO_OPS found) of the module at ``at``, read piece by piece; the
    first producer string is the one a search of the whole module finds."""
    if size < len(MLIR_BYTECODE_MAGIC) or read(at, len(MLIR_BYTECODE_MAGIC)) != MLIR_BYTECODE_MAGIC:
        raise CorruptArtifact("corrupt artifact: the embedded StableHLO module is not MLIR bytecode")
    producer, ops = None, set()
    for start in range(0, size, SCAN_CHUNK):
        wanted = min(SCAN_CHUNK + _SCAN_OVERLAP, size - start)
        piece = read(at + start, wanted)
        if len(piece) != wanted:
            raise CorruptArtifact("truncated artifact: the file got shorter while it was read")
        found = _STABLEHLO_PRODUCER.search(piece) if producer is None else None
        if found and found.start() < SCAN_CHUNK:  # one that starts in the overlap is the next piece's
            producer = found.group(1).decode()
        ops.update(op for op in NEW_VHLO_OPS if op in piece)
    return producer, {op.decode(): since for op, since in NEW_VHLO_OPS.items() if op in ops}


def _avals(root: Table, idx_slot: int, direct_slot: int, unique: list[str]) -> list[str]:
    # Since serialization version 10 avals are deduplicated into UniqueAvals and referenced by index.
    if root.vector_length(idx_slot):
        return [unique[i] for i in root.scalars(idx_slot, "u32")]
    return [_aval(t) for t in root.tables(direct_slot)]


def _aval(t: Table) -> str:
    if t.scalar(0, "i8") == 1:
        return "token"
    dtype = t.scalar(2, "i8")
    name = DTYPES[dtype] if 0 <= dtype < len(DTYPES) else f"dtype#{dtype}"
    return f"{name}[{','.join(t.strings(1))}]"


def _mesh_axes(t: Table | None) -> tuple[tuple[str, int], ...]:
    if t is None:
        return ()
    return tuple(zip(t.strings(1), t.scalars(0, "u32")))


def _named_sharding(t: Table, unique_meshes: list[tuple[tuple[str, int], ...]]) -> Sharding:
    if unique_meshes:
        axes = unique_meshes[t.scalar(3, "u32")]
    else:
        axes = _mesh_axes(t.table(0))
    spec = t.table(1)
    partitions = []
    for one_axis in spec.tables(0) if spec else []:
        names = one_axis.strings(0)
        partitions.append("None" if not names else repr(names[0]) if len(names) == 1 else repr(tuple(names)))
    mesh = ", ".join(f"{name}={size}" for name, size in axes)
    return Sharding("named", f"P({', '.join(partitions)}) on mesh({mesh})", axes)


def _shardings(root: Table, idx_slot: int, table_slot: int, unique_named: list[Sharding],
               unique_meshes: list[tuple[tuple[str, int], ...]]) -> list[Sharding]:
    if root.vector_length(idx_slot):
        # Index 0 means "no sharding"; i > 0 is UniqueNamedShardings[i - 1].
        return [unique_named[i - 1] if i else Sharding("unspecified", "None")
                for i in root.scalars(idx_slot, "u32")]
    result = []
    for t in root.tables(table_slot):
        named = t.table(2)
        hlo_proto = t.bytes_(1)
        if named is not None:
            result.append(_named_sharding(named, unique_meshes))
        elif hlo_proto:
            result.append(Sharding("hlo", describe_hlo_sharding(hlo_proto)))
        else:
            result.append(Sharding("unspecified", "None"))
    return result
