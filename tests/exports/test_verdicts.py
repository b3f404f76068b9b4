"""Every verdict of the artifacts README, reproduced from the header alone."""
from __future__ import annotations

import pytest

from conftest import KINDS, WRITERS, artifact
from jaxlint.exports.header import decode_artifact
from jaxlint.exports.verdict import CANNOT_LOAD, LOADS, LOADS_WITH_FLAG, UNKNOWN, predict
from jaxlint.project.versions import Version


def readme_verdict(reader: str, writer: str, kind: str) -> str:
    """The README's "who can load what", as a table lookup written independently of the rules in verdict.py."""
    reader_v, writer_v = Version(reader), Version(writer)
    if reader_v >= Version("0.11.1"):
        if writer == "0.8.1":
            return CANNOT_LOAD if kind == "sharded2" else LOADS_WITH_FLAG
        if writer == "0.8.2" and kind == "sharded2":
            return CANNOT_LOAD
        return LOADS
    if reader == "0.11.0":
        return LOADS
    if reader in ("0.9.0", "0.9.2", "0.10.2"):
        return CANNOT_LOAD if kind == "poly" and writer_v >= Version("0.11.2") else LOADS
    raise AssertionError(reader)


READERS = ["0.9.0", "0.9.2", "0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.12.0.1"]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("kind", KINDS)
def test_readme_matrix(reader, writer, kind):
    header = decode_artifact(artifact(writer, kind).read_bytes())
    verdict = predict(header, reader)
    assert verdict.kind == readme_verdict(reader, writer, kind)
    assert verdict.reason.endswith(".") and "\n" not in verdict.reason


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("kind", KINDS)
def test_jax_0_8_1_rejects_version_12(writer, kind):
    verdict = predict(decode_artifact(artifact(writer, kind).read_bytes()), "0.8.1")
    if Version(writer) >= Version("0.11.1"):
        assert verdict.kind == CANNOT_LOAD and "12" in verdict.reason
    else:
        assert verdict.kind == UNKNOWN  # not verified: say so rather than guess


def test_reasons_name_the_cause():
    old_sharded = decode_artifact(artifact("0.8.2", "sharded2").read_bytes())
    assert "HloSharding" in predict(old_sharded, "0.12.0.1").reason
    old_simple = decode_artifact(artifact("0.8.1", "simple").read_bytes())
    assert "legacy device count" in predict(old_simple, "0.11.1").reason
    new_poly = decode_artifact(artifact("0.12.0", "poly").read_bytes())
    assert "custom_call_v2" in predict(new_poly, "0.10.2").reason


def test_future_target_uses_newest_rules_and_says_so():
    verdict = predict(decode_artifact(artifact("0.8.1", "simple").read_bytes()), "0.13.0")
    assert verdict.kind == LOADS_WITH_FLAG and "verified up to JAX 0.12.0.1" in verdict.reason
