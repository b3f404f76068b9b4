"""Summarise a serialized ``xla.OpSharding`` protobuf (the legacy HloSharding field of old exports) without XLA.

Only the fields needed to tell the user how the value was tiled are read; anything unexpected yields a neutral
description instead of an error, since this text is informational.
"""
from __future__ import annotations

_TYPES = {0: "replicated", 1: "maximal", 2: "tuple", 3: "other", 4: "manual", 5: "unknown", 6: "unreduced"}
# OpSharding field numbers (xla/xla_data.proto).
_TYPE, _TILE_DIMS, _TILE_DEVICES, _REPLICATE_LAST, _IOTA_RESHAPE = 1, 3, 4, 6, 9


def describe_hlo_sharding(proto: bytes) -> str:
    try:
        fields = _parse(proto)
    except (IndexError, ValueError):
        return f"HloSharding(<{len(proto)} bytes>)"
    kind = _TYPES.get(fields.get(_TYPE, [0])[0], "unknown")
    if kind != "other":
        return f"HloSharding({{{kind}}})"
    dims = fields.get(_TILE_DIMS, [])
    text = "devices=[" + ",".join(map(str, dims)) + "]"
    if fields.get(_IOTA_RESHAPE):
        text += "<=[" + ",".join(map(str, fields[_IOTA_RESHAPE])) + "]"
    elif fields.get(_TILE_DEVICES):
        text += "(" + ",".join(map(str, fields[_TILE_DEVICES])) + ")"
    if fields.get(_REPLICATE_LAST, [0])[0]:
        text += " last_tile_dim_replicate"
    return f"HloSharding({{{text}}})"


def _parse(data: bytes) -> dict[int, list[int]]:
    """Varint and packed-varint fields by number; length-delimited non-packed fields are skipped."""
    fields: dict[int, list[int]] = {}
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            fields.setdefault(number, []).append(value)
        elif wire == 2:
            size, pos = _varint(data, pos)
            chunk, pos = data[pos:pos + size], pos + size
            if len(chunk) != size:
                raise ValueError("truncated field")
            if number in (_TILE_DIMS, _TILE_DEVICES, _IOTA_RESHAPE):
                inner = 0
                while inner < len(chunk):
                    value, inner = _varint(chunk, inner)
                    fields.setdefault(number, []).append(value)
        elif wire == 5:
            pos += 4
        elif wire == 1:
            pos += 8
        else:
            raise ValueError(f"unsupported wire type {wire}")
    return fields


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")
