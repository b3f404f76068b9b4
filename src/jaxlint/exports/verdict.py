"""Predict whether a given JAX release will deserialize an artifact, from its header alone.

The rules encode the load matrix verified in ``shared/reference/jax-changes.md`` ("jax.export: serialization
versions and the expiry check") and ``exports/README.md``; each rule names the reader code it mirrors.
"""
from __future__ import annotations

from dataclasses import dataclass

from jaxlint.exports.header import ArtifactHeader
from jaxlint.project.versions import NEWEST_KNOWN, Version, parse_version

LOADS, LOADS_WITH_FLAG, CANNOT_LOAD, UNKNOWN = "loads", "loads-with-flag", "cannot-load", "unknown"
VERDICTS = (LOADS, LOADS_WITH_FLAG, CANNOT_LOAD, UNKNOWN)
LABELS = {
    LOADS: "loads",
    LOADS_WITH_FLAG: "loads only with the expired-versions flag (jax_export_deserialize_expired_versions=True, "
                     "a crutch: migrate it)",
    CANNOT_LOAD: "cannot load: re-export from source or reserialize through an older JAX",
    UNKNOWN: "unknown",
}
EXPIRY_CHECK_SINCE = Version("0.11.1")  # first reader with the 6-month window check and the flag
FIRST_VERIFIED_READER = Version("0.9.0")  # oldest reader whose behaviour on every kind of file was verified
MAX_VERSION_READ_BY_OLD_READERS = 3  # JAX 0.8.x raises "deserialize unsupported version 12"


@dataclass(frozen=True)
class Verdict:
    kind: str
    reason: str

    @property
    def label(self) -> str:
        return LABELS[self.kind]


def predict(header: ArtifactHeader, target: Version | str) -> Verdict:
    target = parse_version(target)
    # In the order the reader checks: the flatbuffer version first, the StableHLO module when it is parsed.
    if target < FIRST_VERIFIED_READER and header.serialization_version > MAX_VERSION_READ_BY_OLD_READERS:
        return Verdict(CANNOT_LOAD, f"JAX {target} rejects serialization version "
                                    f"{header.serialization_version} (deserialize unsupported version).")
    for op, since in header.new_vhlo_ops.items():
        if target < parse_version(since):
            return Verdict(CANNOT_LOAD, f"the StableHLO module uses vhlo.{op}, which JAX {target} cannot read "
                                        f"(readable since JAX {since}): re-export it from source with JAX {target}.")
    if target < FIRST_VERIFIED_READER:
        return Verdict(UNKNOWN, f"JAX {target} is older than every reader jaxlint has verified "
                                f"({FIRST_VERIFIED_READER}+).")
    if target < EXPIRY_CHECK_SINCE:
        return Verdict(LOADS, f"JAX {target} has no expiry check and reads every sharding format.")
    caveat = f" (rules verified up to JAX {NEWEST_KNOWN})" if target > NEWEST_KNOWN else ""
    if header.shardings == "hlo-only":
        # serialization.py _deserialize_sharding: ValueError, not covered by the flag.
        return Verdict(CANNOT_LOAD, "its shardings are stored only as HloSharding, which JAX 0.11.1+ refuses even "
                                    f"with jax_export_deserialize_expired_versions{caveat}.")
    if header.nr_devices == 0 and header.nr_devices_short > 0:
        # serialization.py _deserialize_exported: only the legacy int16 device count => written by JAX <= 0.8.1.
        return Verdict(LOADS_WITH_FLAG, "it records only the legacy device count (written by JAX 0.8.1 or older), "
                                        "so it is older than the 6-month backward-compatibility window"
                                        f"{caveat}.")
    return Verdict(LOADS, f"it is inside the backward-compatibility window of JAX {target}{caveat}.")
