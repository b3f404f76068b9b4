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
    monkeypatch.setattr(check, "jaxlib_answers", lambda envs, version, callables: None)  # no wheel of 0.4.1
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


# -- every flax and optax row, in overlays of its two releases on base venvs of their era -----------------------------
def test_a_release_is_tried_on_its_eras_base_first_then_the_nearest():
    from catalogue_gen.overlays import bases_for

    assert bases_for("flax", "0.6.0")[0] == "libbase-jax-0.4.13"
    assert bases_for("flax", "0.10.7") == ["libbase-jax-0.4.35", "libbase-jax-0.6.2", "libbase-jax-0.4.20",
                                           "libbase-jax-0.8.1", "libbase-jax-0.4.13", "libbase-jax-0.11.0",
                                           "libbase-jax-0.11.1", "libbase-jax-0.12.0.1"]
    assert bases_for("flax", "0.12.8")[0] == "libbase-jax-0.11.0"  # nnx subclasses hijax.MutableHiType (jax <= 0.11.0)
    assert bases_for("flax", "0.12.9")[0] == "libbase-jax-0.11.1"  # and hijax.HiPrimitive (jax <= 0.11.1)
    assert bases_for("flax", "0.12.10")[0] == "libbase-jax-0.12.0.1"
    assert bases_for("optax", "0.2.6") == ["libbase-jax-0.4.35"]


def test_every_flax_row_is_read_in_the_overlays_of_its_two_releases(tmp_path, monkeypatch):
    import catalogue_gen.library_signature_check as check
    import catalogue_gen.overlays as overlays

    monkeypatch.setattr(overlays, "base_python", lambda envs, base: envs / base / "bin" / "python")
    monkeypatch.setattr(overlays, "overlay", lambda envs, library, version, python: envs / f"overlay-{library}-{version}")
    answers = {"0.9.0": {"m.A": {"params": {"x": ["KEYWORD_ONLY", "1"]}}, "m.B": {"params": {"y": ["KEYWORD_ONLY", None]}}},
               "0.10.0": {"m.A": {"params": {}}, "m.B": {"params": {"y": ["KEYWORD_ONLY", None]}}},
               "0.6.0": {"m.A": {"params": {"x": ["KEYWORD_ONLY", "1"]}}}}
    calls = []

    def fake(python, callables, library=None, path=None):
        version = path.name.rpartition("-")[2]
        calls.append((python.parent.parent.name, path.name))
        # 0.6.0's overlay does not import on any base: the base's own flax answers instead
        got = "0.7.5" if version == "0.6.0" else version
        return {"version": got, "file": f"{path}/flax/__init__.py", "answers": [
            answers[version][owner] for owner, _ in callables]}

    monkeypatch.setattr(check, "observed", fake)
    row = {"library": "flax", "member": "__init__", "change": "removed", "last_seen": "0.9.0", "changed_in": "0.10.0"}
    rows = [{**row, "owner": "m.A", "parameter": "x"}, {**row, "owner": "m.B", "parameter": "y"},
            {**row, "owner": "m.A", "parameter": "x", "last_seen": "0.6.0", "changed_in": "0.9.0"},
            {**row, "library": "optax", "owner": "m.A", "parameter": "x"}]
    counts, contradicted = check.check_library_rows(rows, tmp_path, "flax")
    assert counts == {("removed", "confirmed"): 1, ("removed", "contradicted"): 1, ("removed", "no venv"): 1}
    assert [r["owner"] for r in contradicted] == ["m.B"]
    # one probe per release, each on its era's base and its own overlay; 0.6.0 tried on every base
    assert ("libbase-jax-0.4.35", "overlay-flax-0.9.0") in calls and ("libbase-jax-0.4.35", "overlay-flax-0.10.0") in calls
    assert len([c for c in calls if c[1] == "overlay-flax-0.6.0"]) == 8 and len(calls) == 10


def test_a_release_goes_first_to_the_bases_whose_jax_meets_its_own_floor():
    from catalogue_gen.overlays import bases_for

    # flax 0.10.7 asks for jax>=0.6.0: its era's base (jax 0.4.35) imports flax but not flax.nnx
    assert bases_for("flax", "0.10.7", jax_floor="0.6.0") == [
        "libbase-jax-0.6.2", "libbase-jax-0.8.1", "libbase-jax-0.11.0", "libbase-jax-0.11.1", "libbase-jax-0.12.0.1",
        "libbase-jax-0.4.35", "libbase-jax-0.4.20", "libbase-jax-0.4.13"]
    assert bases_for("flax", "0.12.9", jax_floor="0.11.1")[:2] == ["libbase-jax-0.11.1", "libbase-jax-0.12.0.1"]
    assert bases_for("flax", "0.10.2", jax_floor="0.4.27")[0] == "libbase-jax-0.4.35"  # its era's base meets it
    assert bases_for("flax", "0.6.0", jax_floor="0.3.16") == bases_for("flax", "0.6.0")


def test_the_jax_floor_is_read_from_the_overlays_own_metadata(tmp_path):
    from catalogue_gen.overlays import jax_floor

    def metadata(name, *lines):
        (tmp_path / name / f"{name.split('-')[0]}-1.0.dist-info").mkdir(parents=True)
        (tmp_path / name / f"{name.split('-')[0]}-1.0.dist-info" / "METADATA").write_text(
            "Metadata-Version: 2.1\n" + "".join(f"{line}\n" for line in lines))
        return tmp_path / name

    assert jax_floor(metadata("flax-new", "Requires-Dist: numpy>=1.23.2", "Requires-Dist: jaxlib>=0.9",
                              "Requires-Dist: jax[testing]>=0.9; extra == 'testing'", "Requires-Dist: jax>=0.6.0"),
                     "flax") == "0.6.0"
    assert jax_floor(metadata("flax-old", "Requires-Dist: jax (>=0.4.2)"), "flax") == "0.4.2"
    assert jax_floor(metadata("flax-any", "Requires-Dist: jax"), "flax") is None
    assert jax_floor(metadata("optax-x", "Requires-Dist: jax>=0.1.55"), "flax") is None  # another library's metadata


def test_a_base_that_leaves_callables_unreadable_gives_way_to_one_that_reads_them(tmp_path, monkeypatch):
    import catalogue_gen.library_signature_check as check
    import catalogue_gen.overlays as overlays

    target = tmp_path / "overlay-flax-0.10.7"
    (target / "flax-0.10.7.dist-info").mkdir(parents=True)
    (target / "flax-0.10.7.dist-info" / "METADATA").write_text("Requires-Dist: jax>=0.5.1\n")
    monkeypatch.setattr(overlays, "base_python", lambda envs, base: envs / base / "bin" / "python")
    monkeypatch.setattr(overlays, "overlay", lambda envs, library, version, python: target)
    calls, reads_nnx = [], {"libbase-jax-0.8.1"}

    def fake(python, callables, library=None, path=None):
        base = python.parent.parent.name
        calls.append(base)
        nnx = {"params": {}} if base in reads_nnx else "ImportError('nnx')"
        return {"version": "0.10.7", "file": f"{path}/flax/__init__.py",
                "answers": [{"params": {}} if owner.startswith("flax.linen") else nnx for owner, _ in callables]}

    monkeypatch.setattr(check, "observed", fake)
    answers = check.release_answers(tmp_path, "flax", "0.10.7", [("flax.linen.Dense", ""), ("flax.nnx.Linear", "")])
    assert answers == [{"params": {}}, {"params": {}}]
    # the floor (0.5.1) sends it to jax 0.6.2 first (nnx unreadable there), then on to 0.8.1, which reads both
    assert calls == ["libbase-jax-0.6.2", "libbase-jax-0.8.1"]
    calls.clear()
    reads_nnx.clear()
    assert check.release_answers(tmp_path, "flax", "0.10.7", [("flax.nnx.Linear", "")]) == ["ImportError('nnx')"]
    assert len(calls) == 8  # none reads it: every base tried, the answer of the one that read the most kept


def test_a_contradicted_library_row_is_written_and_never_loaded(tmp_path, monkeypatch):
    import catalogue_gen.library_signature_check as check
    from jaxlint.catalogue import signatures

    flax_row = {"library": "flax", "owner": "flax.linen.Dense", "member": "__init__", "parameter": "features",
                "change": "newly-required", "last_seen": "0.7.0", "changed_in": "0.8.0"}
    other = {**flax_row, "parameter": "use_bias", "change": "removed"}
    (tmp_path / "g.toml").write_text("".join(
        "[[signature]]\n" + "".join(f'{k} = "{v}"\n' for k, v in r.items()) for r in (flax_row, other)))
    check.write_contradicted("optax", [{**flax_row, "library": "optax", "owner": "optax.adam"}], tmp_path / "c.toml")
    check.write_contradicted("flax", [flax_row], tmp_path / "c.toml")
    assert len(signatures._rows(tmp_path / "c.toml")) == 2  # the optax row is kept
    monkeypatch.setattr(signatures, "DATA", tmp_path / "g.toml")
    monkeypatch.setattr(signatures, "CONFIRMED", tmp_path / "none.toml")
    monkeypatch.setattr(signatures, "CONTRADICTED", tmp_path / "c.toml")
    monkeypatch.setattr(signatures, "_reported_elsewhere", lambda: set())
    signatures._load.cache_clear()
    try:
        loaded = signatures.class_rows()["flax.linen.Dense"]["__init__"]
    finally:
        signatures._load.cache_clear()
    assert [(r.parameter, r.change) for r in loaded] == [("use_bias", "removed")]


def test_the_committed_contradicted_rows_are_generated_rows():
    from jaxlint.catalogue import signatures

    with open(DATA, "rb") as fh:
        keys = {signatures.row_key(r) for r in tomllib.load(fh)["signature"]}
    assert signatures.contradicted() <= keys


def test_a_jaxlib_release_without_a_venv_is_read_from_its_wheel_alone(tmp_path, monkeypatch):
    import catalogue_gen.library_signature_check as check
    import catalogue_gen.object_check as object_check

    target = tmp_path / "jaxlib-overlays" / "0.6.0"
    monkeypatch.setattr(object_check, "jaxlib_overlay", lambda envs, version: (
        (target, tmp_path / "base" / "bin" / "python") if version == "0.6.0" else (None, tmp_path)))
    (tmp_path / "base" / "bin").mkdir(parents=True)
    (tmp_path / "base" / "bin" / "python").write_text("")
    replies = {"0.6.0": {"version": "0.6.0", "file": f"{target}/jaxlib/__init__.py", "answers": ["x"]}}
    monkeypatch.setattr(check, "observed", lambda python, callables, library=None, path=None: replies["0.6.0"])
    assert check.jaxlib_answers(tmp_path, "0.6.0", [("m.A", "__init__")]) == ["x"]
    assert check.jaxlib_answers(tmp_path, "0.5.0", [("m.A", "__init__")]) is None  # no wheel
    replies["0.6.0"] = {"version": "0.4.20", "file": "/base/jaxlib/__init__.py", "answers": ["x"]}
    assert check.jaxlib_answers(tmp_path, "0.6.0", [("m.A", "__init__")]) is None  # the base's own jaxlib answered
