"""The execution check of the ``[[signature]]`` rows (``tools/catalogue_gen/signature_check.py``) on fake probe
answers, and what the rule's loader makes of its outcomes (``rules/signatures_confirmed.toml``): a contradicted row
never reports, a rename whose new keyword did not bind at both ends of its range gets no fix."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

import jaxlint.rules.jax105_changed_method_signature  # noqa: F401  (its gates are built from the real rows at import,
# before a test below swaps the data files)
from jaxlint.catalogue import signatures
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from catalogue_gen import signature_check as sc  # noqa: E402

TYPE_ERROR = "TypeError: got an unexpected keyword argument 'x'"


def answer(params=(), binds=None, member=True, kind="method"):
    """A probe's answer: ``params`` as ``[name, kind, required, default repr]``."""
    return {"via": "jax.A", "member": member, "kind": kind, "params": [list(p) for p in params], "why": "",
            "binds": binds or {}}


def row(change, parameter="x", **extra):
    return {"owner": "jax.A", "member": "f", "parameter": parameter, "change": change, "changed_in": "0.5.0",
            "last_seen": "0.4.38", **extra}


# -- the decision per change kind -----------------------------------------------------------------------------------
def test_removed_keyword_confirmed_when_it_binds_before_and_not_after():
    old = answer([("x", "pk", False, "None")], {"kw:x": "ok"})
    new = answer([], {"kw:x": TYPE_ERROR})
    assert sc.decide(row("removed"), old, new)[0] == "confirmed"


def test_removed_keyword_contradicted_when_it_still_binds_or_never_did():
    still = answer([("x", "kw", False, "None")], {"kw:x": "ok"})
    assert sc.decide(row("removed"), still, still)[0] == "contradicted"
    never = answer([], {"kw:x": TYPE_ERROR})
    assert sc.decide(row("removed"), never, never)[0] == "contradicted"


def test_a_keyword_only_kwargs_takes_is_unreadable_not_confirmed():
    old = answer([("kwargs", "varkw", False, None)], {"kw:x": "ok"})
    outcome, evidence = sc.decide(row("removed"), old, old)
    assert outcome == "unreadable" and "**kwargs" in evidence


def test_renamed_needs_the_new_keyword_to_bind_on_the_new_side():
    r = row("renamed", replacement="y", replacement_since="0.5.0")
    old = answer([("x", "pk", False, "None")], {"kw:x": "ok", "kw:y": TYPE_ERROR})
    good = answer([("y", "pk", False, "None")], {"kw:x": TYPE_ERROR, "kw:y": "ok"})
    bad = answer([("z", "pk", False, "None")], {"kw:x": TYPE_ERROR, "kw:y": TYPE_ERROR})
    assert sc.decide(r, old, good)[0] == "confirmed"
    assert sc.decide(r, old, bad)[0] == "contradicted"


def test_positional_only_needs_the_parameter_positional_only_after():
    old = answer([("x", "pk", True, None)], {"kw:x": "ok"})
    po = answer([("x", "po", True, None)], {"kw:x": "TypeError: 'x' parameter is positional only"})
    gone = answer([], {"kw:x": TYPE_ERROR})
    assert sc.decide(row("positional-only"), old, po)[0] == "confirmed"
    assert sc.decide(row("positional-only"), old, gone)[0] == "contradicted"


def test_newly_required():
    old = answer([("x", "pk", False, "None")], {"omit:x": "ok"})
    new = answer([("x", "pk", True, None)], {"omit:x": "TypeError: missing a required argument: 'x'"})
    assert sc.decide(row("newly-required"), old, new)[0] == "confirmed"
    assert sc.decide(row("newly-required"), new, new)[0] == "contradicted"  # already required before
    assert sc.decide(row("newly-required"), old, old)[0] == "contradicted"  # still optional after


def test_default_changed_compares_the_values_not_the_text():
    r = row("default-changed", old_default="'a'", new_default="True")
    old = answer([("x", "kw", False, "'a'")])
    new = answer([("x", "kw", False, "True")])
    assert sc.decide(r, old, new)[0] == "confirmed"
    assert sc.decide(r, old, old)[0] == "contradicted"


def test_member_removed():
    present, absent = answer(member=True, kind="property"), answer(member=False, kind=None)
    assert sc.decide(row("member-removed", parameter=""), present, absent)[0] == "confirmed"
    assert sc.decide(row("member-removed", parameter=""), present, present)[0] == "contradicted"
    # a property has no signature: presence is all a removed member needs
    present["params"] = None
    assert sc.decide(row("member-removed", parameter=""), present, absent)[0] == "confirmed"


def test_unreadable_sides_say_why():
    broken = {"error": "jax.experimental.mosaic.gpu: ImportError('libcuda')"}
    outcome, evidence = sc.decide(row("removed"), broken, answer())
    assert outcome == "unreadable" and "libcuda" in evidence and "0.4.38" in evidence
    assert sc.decide(row("removed"), None, answer()) == ("unreadable", "no venv of jax 0.4.38")
    no_signature = answer(kind="other")
    no_signature["params"] = None
    assert sc.decide(row("removed"), no_signature, answer())[0] == "unreadable"


def test_a_param_row_whose_member_is_absent_is_contradicted():
    assert sc.decide(row("removed"), answer(member=False, kind=None), answer())[0] == "contradicted"


# -- what is asked of each release ------------------------------------------------------------------------------------
def test_each_release_is_asked_once_with_every_bind_of_its_rows():
    rows = [row("renamed", replacement="y", replacement_since="0.5.0", spellings=["jax.old.A"]),
            row("removed", parameter="z"), row("newly-required", parameter="w", changed_in="0.6.0")]
    asked = sc.queries(rows)
    assert sorted(asked) == ["0.12.0.1", "0.4.38", "0.5.0", "0.6.0"]
    callable_ = (("jax.A", "jax.old.A"), "f")
    assert asked["0.4.38"][callable_] == [["kw", "x"], ["kw", "y"]]
    assert asked["0.4.38"][(("jax.A",), "f")] == [["kw", "z"], ["omit", "w"]]
    assert list(asked["0.12.0.1"]) == [callable_]  # only a fix is bound at the newest release


def test_fix_bound_at_the_bottom_of_the_range_and_the_newest_release():
    r = row("renamed", replacement="y", replacement_since="0.5.0")
    ok = answer([("y", "pk", False, "None")], {"kw:y": "ok"})
    assert sc.fix_bound(r, {"0.5.0": ok, "0.12.0.1": ok}) == {"0.5.0": "ok", "0.12.0.1": "ok"}
    assert sc.fix_bound(r, {"0.5.0": ok, "0.12.0.1": None}) == {"0.5.0": "ok", "0.12.0.1": "no venv of jax 0.12.0.1"}


# -- the loader -------------------------------------------------------------------------------------------------------
def test_a_contradicted_row_is_dropped_and_an_unproven_rename_loses_its_fix():
    block = row("renamed", replacement="y", replacement_since="0.5.0")
    assert signatures.checked(block, None) is block
    assert signatures.checked(block, {"outcome": "contradicted"}) is None
    proven = {"outcome": "confirmed", "fix_bound": {"0.5.0": "ok", "0.12.0.1": "ok"}, "plain_rename": True}
    assert signatures.checked(block, proven) is block
    unproven = {"outcome": "unreadable", "fix_bound": {"0.5.0": "no venv of jax 0.5.0", "0.12.0.1": "ok"},
                "plain_rename": False}
    assert signatures.checked(block, unproven)["change"] == "removed"


def test_a_rename_is_plain_only_when_bound_everywhere_with_the_same_annotation():
    r = row("renamed", replacement="y", replacement_since="0.5.0")
    old = answer([("x", "pk", True, None, "Value")], {"kw:x": "ok"})
    same = answer([("y", "pk", True, None, "Value")], {"kw:x": TYPE_ERROR, "kw:y": "ok"})
    other = answer([("y", "pk", True, None, "Scratch")], {"kw:x": TYPE_ERROR, "kw:y": "ok"})
    unknown = answer([("y", "pk", True, None, None)], {"kw:x": TYPE_ERROR, "kw:y": "ok"})
    bound = {"0.5.0": "ok", "0.12.0.1": "ok"}
    for new, plain in ((same, True), (other, False), (unknown, True)):
        outcome, evidence = sc.decide(r, old, new)
        assert outcome == "confirmed"
        assert sc.plain_rename({"outcome": outcome, "evidence": evidence, "fix_bound": bound}) is plain
    outcome, evidence = sc.decide(r, old, same)
    assert not sc.plain_rename({"outcome": outcome, "evidence": evidence,
                                "fix_bound": {"0.5.0": "ok", "0.12.0.1": TYPE_ERROR}})


GENERATED = """first_version = "0.4.1"
newest_version = "0.12.0.1"
[[signature]]
owner = "jax.experimental.layout.Format"
member = "__init__"
parameter = "device_local_layout"
change = "renamed"
changed_in = "0.7.0"
last_seen = "0.6.2"
replacement = "layout"
replacement_since = "0.7.0"

[[signature]]
owner = "jax.ShapeDtypeStruct"
member = "__init__"
parameter = "named_shape"
change = "removed"
changed_in = "0.4.34"
last_seen = "0.4.33"
"""
CALLS = """from jax.experimental.layout import Format
import jax
fmt = Format(device_local_layout=dll)
spec = jax.ShapeDtypeStruct((8,), f32, named_shape={})
"""


def confirmed_file(shape: str, fix: str) -> str:
    return f"""[[row]]
owner = "jax.ShapeDtypeStruct"
member = "__init__"
parameter = "named_shape"
change = "removed"
changed_in = "0.4.34"
outcome = "{shape}"

[[row]]
owner = "jax.experimental.layout.Format"
member = "__init__"
parameter = "device_local_layout"
change = "renamed"
changed_in = "0.7.0"
outcome = "confirmed"
fix_bound = {{ "0.7.0" = "{fix}", "0.12.0.1" = "ok" }}
plain_rename = {"true" if fix == "ok" else "false"}
"""


@pytest.fixture
def data(tmp_path, monkeypatch):
    def use(confirmed: str):
        (tmp_path / "g.toml").write_text(GENERATED)
        (tmp_path / "c.toml").write_text(confirmed)
        monkeypatch.setattr(signatures, "DATA", tmp_path / "g.toml")
        monkeypatch.setattr(signatures, "CONFIRMED", tmp_path / "c.toml")
        signatures._load.cache_clear()
    yield use
    signatures._load.cache_clear()
    # JAX105's text gate builds its tables on first use: built from the swapped rows, they would stay for the tests
    # that run after this one in the same process (a keep-case of JAX105's gate failed in that order)
    jaxlint.rules.jax105_changed_method_signature._text_gate_tables.cache_clear()


SETTINGS = Settings(select=("JAX105",), target_version=Version("0.12.0.1"), explicit_min_version=Version("0.8.0"),
                    min_version_source="test")


def test_the_rule_reports_confirmed_rows_and_fixes_proven_renames(data):
    data(confirmed_file("confirmed", "ok"))
    assert len(lint_source(CALLS, "a.py", SETTINGS).diagnostics) == 2
    assert "Format(layout=dll)" in fix_source(CALLS, "a.py", SETTINGS).source


def test_the_rule_never_reports_a_contradicted_row_nor_fixes_an_unproven_rename(data):
    data(confirmed_file("contradicted", "TypeError: got an unexpected keyword argument 'layout'"))
    messages = [d.message for d in lint_source(CALLS, "a.py", SETTINGS).diagnostics]
    assert len(messages) == 1 and "device_local_layout" in messages[0]
    assert fix_source(CALLS, "a.py", SETTINGS).source == CALLS


# -- the committed outcomes -------------------------------------------------------------------------------------------
def test_every_generated_row_has_its_outcome_and_every_outcome_a_row():
    rows = sc.load_rows(signatures.DATA)
    recorded = signatures.outcomes()
    assert {signatures.row_key(r) for r in rows} == set(recorded)
    assert {r["outcome"] for r in recorded.values()} <= {"confirmed", "contradicted", "unreadable"}
    # the evidence of each is the probe's, never empty
    assert all(r["evidence"] for r in recorded.values())
    # each renamed row records where its fix was bound: the bottom of its range and the newest release
    for r in rows:
        if r["change"] == "renamed":
            assert set(recorded[signatures.row_key(r)]["fix_bound"]) == {r["replacement_since"], sc.NEWEST}
            assert isinstance(recorded[signatures.row_key(r)]["plain_rename"], bool)


def test_a_rename_execution_found_to_take_another_type_is_reported_without_a_fix():
    # jax 0.5.0: ModuleContext(backend_or_name: str | XlaBackend | None) -> backend: XlaBackend | None (a string
    # no longer goes); the committed outcome says plain_rename = false
    source = "from jax.interpreters import mlir\nctx = mlir.ModuleContext(backend_or_name='cpu')\n"
    settings = Settings(select=("JAX105",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.5.0"), min_version_source="test")
    messages = [d.message for d in lint_source(source, "a.py", settings).diagnostics]
    assert len(messages) == 1 and "no plain rename" in messages[0] and "`backend=`" in messages[0]
    assert fix_source(source, "a.py", settings).source == source


def test_the_cached_copy_of_the_rows_answers_as_the_toml_and_follows_an_edit(data, tmp_path, monkeypatch):
    # The rows are kept as JSON in the user's cache folder (a sixth of a one-file check was parsing the TOML):
    # a cache may change how fast the rule answers, never what.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    data(confirmed_file("contradicted", "TypeError"))
    first = [d.message for d in lint_source(CALLS, "a.py", SETTINGS).diagnostics]
    assert list((tmp_path / "xdg" / "jaxlint").glob("signatures-*.json"))
    signatures._load.cache_clear()
    assert [d.message for d in lint_source(CALLS, "a.py", SETTINGS).diagnostics] == first  # from the copy
    assert len(first) == 1
    (tmp_path / "c.toml").write_text(confirmed_file("confirmed", "ok"))  # the outcomes file changes
    signatures._load.cache_clear()
    assert len(lint_source(CALLS, "a.py", SETTINGS).diagnostics) == 2
    from_toml = [block for block in (signatures.checked(b, signatures.outcomes().get(signatures.row_key(b)))
                                     for b in tomllib.loads(GENERATED)["signature"]) if block is not None]
    assert signatures._checked_blocks() == from_toml
