"""An artifact of gigabytes (large constants in its module) is inventoried, and hashed for a migration record, in
memory flat in its size: the header through mmap, the module in pieces. Measured on a real artifact whose module was
grown (tests/support/big_artifact.py): Python's allocations while reading it stay far below its size, and what is
read is what reading it whole gave."""
from __future__ import annotations

import dataclasses
import hashlib
import tracemalloc

import pytest

from conftest import artifact
from jaxlint.exports import header as header_module
from jaxlint.exports.header import MLIR_BYTECODE_MAGIC, decode_artifact
from jaxlint.exports.inventory import build_inventory
from jaxlint.exports.migrate import _file_facts
from jaxlint.project.versions import Version
from tests.support.big_artifact import grow_module

MODULE_SIZE = 24 << 20


def _peak_allocated(function, *args):
    tracemalloc.start()
    try:
        result = function(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("writer,kind", [("0.12.0.1", "simple"), ("0.8.1", "sharded2"), ("0.11.2", "poly")])
def test_a_large_artifact_is_read_in_pieces_with_the_header_of_its_original(tmp_path, writer, kind):
    source = artifact(writer, kind)
    big = grow_module(source, tmp_path / "big.jaxexport", MODULE_SIZE)
    assert big.stat().st_size > MODULE_SIZE
    inventory, peak = _peak_allocated(build_inventory, [big], Version("0.12.0.1"))
    (report,) = inventory.reports
    assert peak < MODULE_SIZE // 8, f"{peak} bytes allocated to read a {MODULE_SIZE}-byte module"
    original = decode_artifact(source.read_bytes())
    assert report.header == dataclasses.replace(original, mlir_size=MODULE_SIZE)
    (small,) = build_inventory([source], Version("0.12.0.1")).reports
    assert report.verdict == small.verdict

    facts, peak = _peak_allocated(_file_facts, big, report.header)
    assert peak < MODULE_SIZE // 8
    assert facts["sha256"] == hashlib.sha256(big.read_bytes()).hexdigest() and facts["size"] == big.stat().st_size


@pytest.mark.parametrize("shift", range(-24, 2))
def test_strings_cut_by_a_piece_boundary_are_found_as_in_the_whole_module(monkeypatch, shift):
    monkeypatch.setattr(header_module, "SCAN_CHUNK", 256)
    module = bytearray(MLIR_BYTECODE_MAGIC + bytes(1200))
    module[256 + shift:256 + shift + 17] = b"StableHLO_v1.12.3"
    module[768 + shift:768 + shift + 14] = b"custom_call_v2"
    module[1000:1016] = b"StableHLO_v9.9.9"  # a later one: the first is the producer
    data = bytes(module)
    found = header_module._scan_module(lambda at, size: data[at:at + size], 0, len(data))
    assert found == ("1.12.3", {"custom_call_v2": "0.11.0"})


def test_a_file_system_that_cannot_map_files_is_read_whole(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(19, "No such device")

    monkeypatch.setattr(header_module.mmap, "mmap", refuse)
    source = artifact("0.8.1", "sharded2")
    (report,) = build_inventory([source], Version("0.12.0.1")).reports
    assert report.header == decode_artifact(source.read_bytes())


def test_a_module_shorter_than_the_magic_is_corrupt_even_when_the_bytes_after_it_spell_it():
    data = bytes(4) + MLIR_BYTECODE_MAGIC  # a 2-byte module at 0, then bytes that would pass for the magic
    with pytest.raises(header_module.CorruptArtifact, match="not MLIR bytecode"):
        header_module._scan_module(lambda at, size: data[at:at + size], 2, 2)
