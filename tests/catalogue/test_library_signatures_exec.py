"""The flax, optax and jaxlib ``[[signature]]`` rows of ``rules/signatures_generated.toml`` checked by execution:
each callable read with ``inspect.signature`` (``tools/catalogue_gen/library_signature_check.py``) in a venv of a release
before the change and one from it. Every row whose two sides both fall in a pair below is checked; each must show
its old form before and its new form after, where both venvs can import the class."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from jaxlint.catalogue.signatures import DATA
from jaxlint.project.versions import Version
from tests.support.jaxenv import named_env

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from catalogue_gen.library_signature_check import confirmed, observed, predates  # noqa: E402

# library -> (venv of an old release, that release), (venv of a new release, that release)
PAIRS = {
    "flax-0.7": ("flax", ("flax-0.6.11-jax-0.4.20", "0.6.11"), ("flax-0.7.0-jax-0.4.20", "0.7.0")),
    "flax-0.12": ("flax", ("recall-flax-0.10.2-jax-0.4.35", "0.10.2"), ("recall-flax-0.12.12-jax-0.12.0.1", "0.12.12")),
    "optax": ("optax", ("flax-0.10.2-optax-0.2.2-jax-0.4.35", "0.2.2"), ("recall-flax-0.12.12-jax-0.12.0.1", "0.2.8")),
    "jaxlib": ("jaxlib", ("jax-0.4.35", "0.4.35"), ("jax-0.6.2", "0.6.2")),
}
# The rows the ecosystem check makes fire: they must be among the confirmed ones.
FIRING = {("flax.linen.LSTMCell", "__init__", "features", "newly-required")}


def rows_between(library: str, old: str, new: str) -> list[dict]:
    with open(DATA, "rb") as fh:
        rows = tomllib.load(fh)["signature"]
    return [row for row in rows if row.get("library", "jax") == library
            and Version(old) <= Version(row["last_seen"]) and Version(row["changed_in"]) <= Version(new)]


def test_the_sides_confirm_a_change_and_nothing_else():
    row = {"change": "renamed", "parameter": "a", "replacement": "b"}
    assert confirmed(row, {"params": {"a": ["KEYWORD_ONLY", None]}}, {"params": {"b": ["KEYWORD_ONLY", None]}})
    assert not confirmed(row, {"params": {"a": ["KEYWORD_ONLY", None]}},
                         {"params": {"b": ["KEYWORD_ONLY", None], "kw": ["VAR_KEYWORD", None]}})
    row = {"change": "default-changed", "parameter": "a", "old_default": "100", "new_default": "1.0"}
    assert confirmed(row, {"params": {"a": ["KEYWORD_ONLY", "100"]}}, {"params": {"a": ["KEYWORD_ONLY", "1.0"]}})
    assert not confirmed(row, {"params": {"a": ["KEYWORD_ONLY", "100"]}}, {"params": {"a": ["KEYWORD_ONLY", "100"]}})
    assert not confirmed({"change": "member-removed"}, "ImportError()", "absent")


@pytest.mark.slow
@pytest.mark.jax
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_rows_hold_at_run_time(pair):
    library, (old_env, old_version), (new_env, new_version) = PAIRS[pair]
    rows = rows_between(library, old_version, new_version)
    assert rows, pair
    callables = [(row["owner"], row.get("member", "")) for row in rows]
    old, new = observed(named_env(old_env), callables), observed(named_env(new_env), callables)
    readable = [(row, a, b) for row, a, b in zip(rows, old, new)
                if isinstance(a, dict) and (isinstance(b, dict) or b == "absent") and not predates(row, a)]
    wrong = [(row["owner"], row.get("member"), row.get("parameter"), row["change"], a, b) for row, a, b in readable
             if not confirmed(row, a, b)]
    print(f"{pair}: {len(rows)} rows in range, {len(readable)} readable on both sides, {len(wrong)} not confirmed")
    assert not wrong
    keys = {(row["owner"], row.get("member", ""), row.get("parameter", ""), row["change"]) for row, _, _ in readable}
    assert FIRING & keys == {key for key in FIRING if rows_between(library, old_version, new_version) and any(
        (row["owner"], row.get("member", ""), row.get("parameter", ""), row["change"]) == key for row in rows)}


# The jax rows the reader added (constructors written as ``__new__``, ``NamedTuple`` fields), each on the two
# releases around its change.
NEW_JAX_ROWS = [
    ("jax.core.ShapedArray", "named_shape", "removed", "jax-0.4.33", "jax-0.4.34"),
    ("jax.core.ShapedArray", "varying_manual_axes", "removed", "jax-0.5.3", "jax-0.6.0"),
    ("jax.core.ShapedArray", "vma", "removed", "jax-0.9.2", "jax-0.10.0"),
    ("jax.sharding.AbstractMesh", "shape_tuple", "removed", "jax-0.5.2", "jax-0.5.3"),
    ("jax.extend.core.JaxprEqn", "ctx", "newly-required", "jax-0.4.28", "jax-0.4.29"),
]


@pytest.mark.slow
@pytest.mark.jax
@pytest.mark.parametrize("owner,parameter,change,old_env,new_env", NEW_JAX_ROWS)
def test_new_jax_constructor_rows_hold_at_run_time(owner, parameter, change, old_env, new_env):
    with open(DATA, "rb") as fh:
        rows = [row for row in tomllib.load(fh)["signature"] if row["owner"] == owner
                and row.get("member") == "__init__" and row.get("parameter") == parameter and row["change"] == change]
    assert len(rows) == 1
    spelled = owner if old_env >= "jax-0.4.29" or "JaxprEqn" not in owner else "jax.core.JaxprEqn"
    (old,), (new,) = observed(named_env(old_env), [(spelled, "__init__")]), \
        observed(named_env(new_env), [(owner, "__init__")])
    assert confirmed(rows[0], old, new), (old, new)


def test_every_jaxlib_row_is_read_in_the_venvs_of_its_two_releases(tmp_path, monkeypatch):
    import catalogue_gen.library_signature_check as check

    for version in ("0.5.0", "0.6.0"):
        (tmp_path / f"jax-{version}" / "bin").mkdir(parents=True)
        (tmp_path / f"jax-{version}" / "bin" / "python").write_text("")
    answers = {"0.5.0": {"m.A": {"params": {"x": ["KEYWORD_ONLY", "1"]}}, "m.B": {"params": {"y": ["KEYWORD_ONLY", None]}}},
               "0.6.0": {"m.A": {"params": {}}, "m.B": {"params": {"y": ["KEYWORD_ONLY", None]}}}}
    monkeypatch.setattr(check, "observed", lambda python, callables: [
        answers[python.parent.parent.name[4:]][owner] for owner, _ in callables])
    rows = [{"library": "jaxlib", "owner": "m.A", "member": "__init__", "parameter": "x", "change": "removed",
             "last_seen": "0.5.0", "changed_in": "0.6.0"},
            {"library": "jaxlib", "owner": "m.B", "member": "__init__", "parameter": "y", "change": "removed",
             "last_seen": "0.5.0", "changed_in": "0.6.0"},
            {"library": "jaxlib", "owner": "m.A", "member": "__init__", "parameter": "x", "change": "removed",
             "last_seen": "0.4.1", "changed_in": "0.5.0"},
            {"library": "flax", "owner": "m.A", "member": "__init__", "parameter": "x", "change": "removed",
             "last_seen": "0.5.0", "changed_in": "0.6.0"}]
    counts, contradicted = check.check_jaxlib_rows(rows, tmp_path)
    assert counts == {("removed", "confirmed"): 1, ("removed", "contradicted"): 1, ("removed", "no venv"): 1}
    assert [row["owner"] for row in contradicted] == ["m.B"]
