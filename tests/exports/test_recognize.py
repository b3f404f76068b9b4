"""Finding artifacts by content; damaged files give a clear message and never a traceback."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ARTIFACTS, artifact
from jaxlint.exports.header import CorruptArtifact, decode_artifact
from jaxlint.exports.inventory import build_inventory, inspect_file
from jaxlint.exports.recognize import looks_like_exported
from jaxlint.project.versions import NEWEST_KNOWN

SIMPLE = artifact("0.8.1", "simple").read_bytes()


def _others(directory):
    """Files of other kinds a model store holds; none may be taken for an artifact."""
    (directory / "config.json").write_text('{"layers": 12}\n')
    (directory / "notes.txt").write_text("trained on 2026-01-01\n" * 100)
    (directory / "empty.bin").write_bytes(b"")
    (directory / "zeros.bin").write_bytes(bytes(4096))
    (directory / "weights.npy").write_bytes(b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False}" + bytes(64))
    (directory / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    rng = random.Random(0)
    for i in range(20):
        (directory / f"random{i}.dat").write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))))
    return 26


def test_other_files_are_skipped_and_counted(store):
    extra = _others(store)
    inventory = build_inventory([store], NEWEST_KNOWN)
    assert len(inventory.reports) == 30
    assert inventory.files_looked_at == 30 + extra
    assert all(r.header is not None for r in inventory.reports)


def test_recognised_by_content_not_name(tmp_path):
    (tmp_path / "model-v3").write_bytes(SIMPLE)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "serving.bin").write_bytes(artifact("0.8.2", "sharded2").read_bytes())
    inventory = build_inventory([tmp_path], NEWEST_KNOWN)
    assert [r.path.name for r in inventory.reports] == ["model-v3", "serving.bin"]
    assert [r.verdict.kind for r in inventory.reports] == ["loads-with-flag", "cannot-load"]


def _bytes_read_by_this_process() -> int:
    with open("/proc/self/io") as fh:
        return int(next(line for line in fh if line.startswith("rchar:")).split()[1])


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux's /proc/self/io to count bytes read")
def test_sniffing_reads_only_the_start_of_a_non_artifact(tmp_path):
    big = tmp_path / "checkpoint.bin"
    big.write_bytes(b"\x01" * (64 << 20))  # a 64 MiB non-artifact: only its first bytes may be read
    before = _bytes_read_by_this_process()
    inventory = build_inventory([tmp_path], NEWEST_KNOWN)
    assert inventory.reports == [] and inventory.files_looked_at == 1
    assert _bytes_read_by_this_process() - before < (1 << 20)


@pytest.mark.parametrize("path", ARTIFACTS, ids=lambda p: p.name)
def test_every_truncation_is_reported_not_raised(tmp_path, path):
    data = path.read_bytes()
    full = decode_artifact(data)
    target = tmp_path / path.name
    decoded_lengths = []
    # Every length near the end (alignment padding), a sample elsewhere.
    for length in [*range(0, len(data) - 16, 9), *range(len(data) - 16, len(data))]:
        target.write_bytes(data[:length])
        report = inspect_file(target, NEWEST_KNOWN, explicit=False)  # has the .jaxexport suffix: always reported
        assert report is not None, length
        if report.header is not None:
            # Only trailing alignment padding was cut: nothing was lost.
            assert report.header == full, length
            decoded_lengths.append(length)
            continue
        assert report.verdict.kind == "unknown"
        assert "truncated" in report.verdict.reason or "not a jax.export artifact" in report.verdict.reason
    assert all(length >= len(data) - 8 for length in decoded_lengths)


def test_truncated_message_is_precise(tmp_path):
    target = tmp_path / "cut.jaxexport"
    target.write_bytes(SIMPLE[:600])
    reason = inspect_file(target, NEWEST_KNOWN, explicit=True).verdict.reason
    assert reason == "truncated artifact: the embedded StableHLO module runs past the end of the 600-byte file."


def test_truncated_file_without_suffix_is_still_reported(tmp_path):
    # The header survives, so the file is recognisably an artifact and must not be skipped silently.
    (tmp_path / "blob").write_bytes(SIMPLE[:500])
    (report,) = build_inventory([tmp_path], NEWEST_KNOWN).reports
    assert report.verdict.kind == "unknown" and "truncated" in report.verdict.reason


@settings(max_examples=300, deadline=None)
@given(position=st.integers(0, len(SIMPLE) - 1), value=st.integers(0, 255))
def test_corruption_never_raises_anything_but_corrupt_artifact(position, value):
    data = bytearray(SIMPLE)
    data[position] = value
    if not looks_like_exported(bytes(data), len(data)):
        return
    try:
        decode_artifact(bytes(data))
    except CorruptArtifact as err:
        assert str(err)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=2048))
def test_random_bytes(data):
    if looks_like_exported(data, len(data)):
        try:
            decode_artifact(data)
        except CorruptArtifact:
            pass
