"""``tools/catalogue_gen/signature_check.py`` run for real on a sample of ``[[signature]]`` rows: every row that
changed between jax 0.6.2 and 0.7.0 (keywords removed and renamed, members removed, parameters newly required),
read in those two venvs and the renames' fixes bound at 0.7.0 and 0.12.0.1; the outcomes must be the ones
``rules/signatures_confirmed.toml`` records."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jaxlint.catalogue import signatures
from support.jaxenv import ENVS, jax_python

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from catalogue_gen import signature_check as sc  # noqa: E402

pytestmark = [pytest.mark.jax, pytest.mark.slow]


def test_a_sample_of_rows_reads_as_recorded():
    sample = [r for r in sc.load_rows() if (r["last_seen"], r["changed_in"]) == ("0.6.2", "0.7.0")]
    assert {r["change"] for r in sample} >= {"removed", "renamed", "member-removed", "newly-required"}
    for version in ("0.6.2", "0.7.0", sc.NEWEST):
        jax_python(version)  # built once, shared with the other execution tests
    records, _ = sc.check(sample, ENVS)
    recorded = signatures.outcomes()
    got = {signatures.row_key(r): (r["outcome"], r["evidence"], r.get("fix_bound")) for r in records}
    want = {key: (recorded[key]["outcome"], recorded[key]["evidence"], recorded[key].get("fix_bound")) for key in got}
    assert got == want
    # the sample holds confirmed rows and every rename in it has its fix bound at both ends
    assert sum(outcome == "confirmed" for outcome, _, _ in got.values()) >= 20
    assert all(fix == {"0.7.0": "ok", sc.NEWEST: "ok"} for _, _, fix in got.values() if fix is not None)
