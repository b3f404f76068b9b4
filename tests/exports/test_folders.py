"""Folder scans that must not hang, skip or drop anything: FIFOs, folders that cannot be listed, small truncated
artifacts; and the effects an artifact declares."""
from __future__ import annotations

import csv
import io
import os
import threading

import pytest
from click.testing import CliRunner

from conftest import ARTIFACTS, artifact
from jaxlint.exports import inventory as inventory_module
from jaxlint.exports.cli import exports_command
from jaxlint.exports.header import decode_artifact
from jaxlint.exports.recognize import looks_like_exported, looks_like_truncated_exported


def run(*args):
    return CliRunner().invoke(exports_command, [str(a) for a in args], catch_exceptions=False)


def test_a_fifo_in_a_folder_is_not_opened(tmp_path):
    (tmp_path / "model.jaxexport").write_bytes(artifact("0.12.0.1", "simple").read_bytes())
    os.mkfifo(tmp_path / "pipe")
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("r", run(tmp_path)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the scan blocked on the FIFO"
    assert result["r"].exit_code == 0 and "1 artifact (1 loads) among 2 files looked at" in result["r"].stdout
    named = run(tmp_path / "pipe")  # named explicitly: reported, still not opened
    assert named.exit_code == 1 and "not a regular file" in named.stdout


def test_a_folder_that_cannot_be_listed_is_reported_and_fails(tmp_path, monkeypatch):
    (tmp_path / "model.jaxexport").write_bytes(artifact("0.12.0.1", "simple").read_bytes())
    real_walk = os.walk

    def walk(top, onerror=None, **kwargs):  # as os.walk reports a PermissionError (root reads everything)
        onerror(PermissionError(13, "Permission denied", str(tmp_path / "locked")))
        yield from real_walk(top, onerror=onerror, **kwargs)

    monkeypatch.setattr(inventory_module.os, "walk", walk)
    text = run(tmp_path)
    assert text.exit_code == 1
    assert f"{tmp_path / 'locked'}\n  could not be read: Permission denied" in text.stdout
    assert "1 file(s) or folder(s) could not be read" in text.stdout
    as_json = run(tmp_path, "--output-format", "json")
    assert as_json.exit_code == 1 and f"{tmp_path / 'locked'}: could not be read: Permission denied" in as_json.stderr


@pytest.mark.parametrize("path", ARTIFACTS, ids=lambda p: p.stem)
def test_small_truncated_artifacts_are_recognised(path):
    data = path.read_bytes()
    for cut in (12, 24, 40, 50, 64, 80, 100, 150):
        prefix = data[:cut]
        assert looks_like_exported(prefix, cut) or looks_like_truncated_exported(prefix, cut), cut
    assert not looks_like_truncated_exported(data, len(data))  # a whole artifact is not "truncated"


def test_ordinary_small_files_are_not_taken_for_truncated_artifacts():
    for data in (b"", b"hello world\n", b'{"a": 1}', b"\x00" * 64, b"PK\x03\x04" + b"\x00" * 60,
                 bytes(range(256)), b"\x08\x00\x00\x00" + b"\xff" * 40):
        assert not looks_like_truncated_exported(data, len(data)), data


def test_a_truncated_artifact_in_a_folder_is_listed(tmp_path):
    (tmp_path / "upload.bin").write_bytes(artifact("0.12.0", "poly").read_bytes()[:60])
    (tmp_path / "notes.txt").write_text("hello\n")
    result = run(tmp_path)
    assert result.exit_code == 1
    assert "upload.bin\n  verdict for JAX 0.12.0.1: unknown\n    why: truncated artifact: the file ends after 60 " \
           "bytes" in result.stdout
    assert "1 artifact (1 unknown) among 2 files looked at" in result.stdout


def test_effects_are_decoded_and_shown(tmp_path):
    header = decode_artifact(artifact("0.12.0.1", "simple").read_bytes())
    assert header.ordered_effects == [] and header.unordered_effects == []
    result = run(artifact("0.12.0.1", "simple"))
    assert "  effects: none\n" in result.stdout
    rows = list(csv.DictReader(io.StringIO(run(artifact("0.12.0.1", "simple"), "--output-format", "csv").stdout)))
    assert rows[0]["effects"] == ""


def test_import_needs_check_load(tmp_path):
    result = CliRunner().invoke(exports_command, [str(artifact("0.12.0.1", "simple")), "--import", "mymodule"])
    assert result.exit_code == 2 and "--import is only used with --check-load" in result.output
