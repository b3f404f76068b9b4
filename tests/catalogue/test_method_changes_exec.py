"""The ``[[method_change]]`` rows of ``rules/ecosystem_generated.toml`` checked by execution: each method read with
``inspect`` (``tools/catalogue_gen/method_check.py``) in a venv of a release with the old form and one with the new.
flax 0.6.10 -> 0.7.0 for the recurrent cells' ``initialize_carry``, 0.10.2 -> 0.12.12 for the now-required rows."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jaxlint.catalogue import ecosystem_generated
from jaxlint.project.versions import Version
from tests.support.jaxenv import named_env

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from catalogue_gen.method_check import confirmed, observed  # noqa: E402

# change -> (venv of an old release, its flax), (venv of a new release, its flax)
SIDES = {"instance-method": (("flax-0.6.10-jax-0.4.20", "0.6.10"), ("flax-0.7.0-jax-0.4.20", "0.7.0")),
         "now-required": (("recall-flax-0.10.2-jax-0.4.35", "0.10.2"), ("recall-flax-0.12.12-jax-0.12.0.1", "0.12.12"))}


def test_the_sides_confirm_a_change_and_nothing_else():
    assert confirmed("instance-method", ["static", 3], ["instance", 2])
    assert not confirmed("instance-method", ["instance", 3], ["instance", 2])
    assert confirmed("now-required", ["instance", 1], ["instance", 2], required=2, was_required=1)
    assert not confirmed("now-required", ["instance", 1], ["instance", 1], required=2, was_required=1)
    assert not confirmed("now-required", "AttributeError('x')", ["instance", 2], required=2, was_required=1)


@pytest.mark.slow
@pytest.mark.jax
@pytest.mark.parametrize("change", sorted(SIDES))
def test_rows_hold_at_run_time(change):
    (old_env, old_flax), (new_env, new_flax) = SIDES[change]
    rows = [row for row in ecosystem_generated.method_changes() if row.change == change and row.library == "flax"
            and Version(row.first_seen) <= Version(old_flax) <= Version(row.last_seen)
            and Version(row.changed_in) <= Version(new_flax)]
    # every row of the data file is checked by this pair (a new row outside it needs another pair here)
    assert len(rows) == sum(row.change == change for row in ecosystem_generated.method_changes()), change
    names = [row.name for row in rows]
    old, new = observed(named_env(old_env), names), observed(named_env(new_env), names)
    wrong = [(row.name, a, b) for row, a, b in zip(rows, old, new)
             if not confirmed(change, a, b, row.required, row.was_required)]
    assert not wrong
