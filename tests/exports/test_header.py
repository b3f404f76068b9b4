"""The header decoder, checked field by field against what jax-changes.md records for each writer (no JAX here)."""
from __future__ import annotations

import sys

import pytest

from conftest import ARTIFACTS, KINDS, WRITERS, artifact
from jaxlint.exports.header import decode_artifact
from jaxlint.project.versions import Version

# Stored serialization version, per writer (jax-changes.md: "0.9-0.11.0 store 3 on purpose").
STORED_VERSION = {"0.8.1": 2, "0.8.2": 3, "0.9.0": 3, "0.9.2": 3, "0.10.2": 3, "0.11.0": 3}
# Whether the legacy int16 device count is set (written up to 0.9.0) and the uint32 one (since 0.8.2).
SHORT_SET = {"0.8.1", "0.8.2", "0.9.0"}
LONG_SET_SINCE = Version("0.8.2")
HLO_ONLY_WRITERS = {"0.8.1", "0.8.2"}  # sharded exports written before 2026-01-15


def test_every_reference_artifact_is_here():
    assert len(ARTIFACTS) == len(WRITERS) * len(KINDS) == 30


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("kind", KINDS)
def test_fields_match_the_writer(writer, kind):
    header = decode_artifact(artifact(writer, kind).read_bytes())
    devices = 2 if kind == "sharded2" else 1
    assert header.serialization_version == STORED_VERSION.get(writer, 12)
    assert header.calling_convention_version == 10
    assert header.nr_devices_short == (devices if writer in SHORT_SET else 0)
    assert header.nr_devices == (devices if Version(writer) >= LONG_SET_SINCE else 0)
    assert header.device_count == devices
    assert header.jax_version == (writer if Version(writer) >= Version("0.11.1") else None)
    assert header.platforms == ["cpu"]
    assert header.function_name == "f"
    dim = "b" if kind == "poly" else "4"
    assert header.in_avals == header.out_avals == [f"float32[{dim}]"]
    expected = "none" if kind != "sharded2" else "hlo-only" if writer in HLO_ONLY_WRITERS else "named"
    assert header.shardings == expected
    assert header.stablehlo_producer and header.stablehlo_producer.startswith("1.")


@pytest.mark.parametrize("writer", WRITERS)
def test_sharding_texts(writer):
    header = decode_artifact(artifact(writer, "sharded2").read_bytes())
    texts = {s.text for s in header.in_shardings + header.out_shardings}
    if writer in HLO_ONLY_WRITERS:
        assert texts == {"HloSharding({devices=[2]<=[2]})"}
    else:
        assert texts == {"P('x') on mesh(x=2)"}
        assert header.in_shardings[0].mesh_axes == (("x", 2),)


def test_new_vhlo_ops_only_in_poly_from_0_11_2():
    for writer in WRITERS:
        for kind in KINDS:
            ops = decode_artifact(artifact(writer, kind).read_bytes()).new_vhlo_ops
            uses_v2 = kind == "poly" and Version(writer) >= Version("0.11.2")
            assert ops == ({"custom_call_v2": "0.11.0"} if uses_v2 else {}), (writer, kind)


def test_decoding_needs_neither_jax_nor_flatbuffers():
    assert "jax" not in sys.modules and "flatbuffers" not in sys.modules
