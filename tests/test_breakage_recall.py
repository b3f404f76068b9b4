"""The breakage recall set (tests/data/breakages/): metadata complete, controls silent, caught cases stay caught.

The recall itself is reported by ``tools/breakage_recall.py`` (the misses are work for the rules), not asserted here;
what is asserted is a floor: every case jaxlint catches today (``expected`` names its rules) is still caught by
them, and every control stays silent (one documented false positive, ``flagged_today``, must keep its code until
someone fixes it, then the field goes).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import breakage_recall as recall  # noqa: E402

CASES = recall.load_cases()
REAL = [c for c in CASES if not c.is_control]
CONTROLS = [c for c in CASES if c.is_control]


@pytest.fixture(scope="module")
def linted():
    recall.lint(CASES)
    return {c.name: c.codes for c in CASES}


def test_the_set_is_large_enough_and_covers_every_kind():
    assert len(REAL) >= 40 and len(CONTROLS) >= 20
    assert {c.kind for c in REAL} == set(recall.KINDS)
    assert len({c.name for c in CASES}) == len(CASES), "case names must be unique (controls included)"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_metadata_is_complete(case):
    meta = case.meta
    assert meta["source"].startswith("https://github.com/") or case.is_control
    assert meta["kind"] in (*recall.KINDS, "control")
    assert meta["summary"]
    for side in ("old", "new"):
        assert meta[side]["env"] and meta[side]["jax"], side
    executed = meta["executed"]
    if case.is_control:
        assert meta["expected"] == "silent"
        assert executed["old"].startswith("ok:") and executed["new"].startswith("ok:"), "a control runs on both sides"
    else:
        assert recall.proves_break(executed["old"], executed["new"]), "old side works, new side fails or differs"
        assert case.breaking_rows(), "mark the lines that break with `# breaks`"
        assert meta["expected"] == "miss" or all(code.startswith("JAX") for code in meta["expected"].split(","))
        assert meta["expected"] != "miss" or meta["needs"], "a miss says what jaxlint would need"


@pytest.mark.parametrize("case", CONTROLS, ids=lambda c: c.name)
def test_controls_stay_silent(case, linted):
    assert linted[case.name] == [c for c in case.meta.get("flagged_today", "").split(",") if c]


@pytest.mark.parametrize("case", [c for c in REAL if c.meta["expected"] != "miss"], ids=lambda c: c.name)
def test_caught_cases_stay_caught(case, linted):
    assert set(case.meta["expected"].split(",")) <= set(linted[case.name])


def test_summary_counts_flags_per_kind():
    cases = [recall.Case("a", Path("."), {"kind": "removed"}, ["JAX101"]),
             recall.Case("b", Path("."), {"kind": "removed", "needs": "x"}, []),
             recall.Case("c", Path("."), {"kind": "control"}, ["JAX601"])]
    summary = recall.summarise(cases)
    assert summary["kinds"]["removed"] == {"flagged": 1, "cases": 2}
    assert summary["total"] == {"flagged": 1, "cases": 2}
    assert summary["controls"] == {"flagged": ["c"], "count": 1}
    assert summary["misses"] == {"x": ["b"]}


def test_outcomes_compare_by_value_or_exception_type():
    assert recall.proves_break("ok: 1", "ok: 2") and recall.proves_break("ok: 1", "error: TypeError: x")
    assert not recall.proves_break("ok: 1", "ok: 1") and not recall.proves_break("error: E: x", "ok: 1")
    assert recall.outcome_matches("error: TypeError: old words", "error: TypeError: new words")
    assert not recall.outcome_matches("error: TypeError: x", "error: ValueError: x")
    assert not recall.outcome_matches("ok: 1", "ok: 2")


# One case per kind and two controls, re-executed on both sides: the recorded outcomes are facts, not hand-written.
SAMPLE = ["clip-a-min", "unique-inverse-shape", "meshgrid-append", "nnx-optimizer-update-grads",
          "optax-additive-weight-decay", "jaxlib-xla-bridge-get-backend", "tree-map", "flax-pop-unpack",
          "guarded-tree-map", "flax-unfreeze-function"]


@pytest.mark.slow
@pytest.mark.jax
@pytest.mark.parametrize("name", SAMPLE)
def test_recorded_outcomes_reproduce(name):
    case = next(c for c in CASES if c.name == name)
    from tests.support.jaxenv import ENVS, named_env

    assert recall.ENVS == ENVS  # the tool runs the environments the helper builds
    for side in ("old", "new"):
        named_env(case.meta[side]["env"])  # built on first use
    for side in ("old", "new"):
        now = recall.execute(case, side)
        assert recall.outcome_matches(case.meta["executed"][side], now), (side, now)
