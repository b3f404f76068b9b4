"""Deprecated means it warns: JAX502/JAX506 report a deprecated flax/optax name only where the newest release warns
when it is used under default settings, as ``tools/check_deprecation_warnings.py`` recorded by execution in
``rules/ecosystem_warnings.toml``."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from jaxlint.catalogue import ecosystem
from jaxlint.catalogue.ecosystem import FLAX, HAND_WRITTEN_OPTAX, OPTAX, Change, reported
from jaxlint.catalogue.ecosystem_generated import rows
from jaxlint.catalogue.ecosystem_warnings import WarningCheck, checks
from tests.rules.test_ecosystem import findings, project

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import check_deprecation_warnings as tool  # noqa: E402

sys.path.remove(str(REPO / "tools"))

CHECKPOINT = "flax.training.checkpoints.save_checkpoint"


def deprecated_rows() -> dict[str, str]:
    names = {row.name: row.library for row in rows() if row.kind == "symbol" and row.status == "deprecated"}
    names.update({name: "optax" for name, change in HAND_WRITTEN_OPTAX.items() if change.status == "deprecated"})
    return names


# -- the data's provenance -----------------------------------------------------------------------------------------
def test_every_deprecated_row_was_executed_on_the_newest_release():
    records = checks()
    assert set(records) == set(deprecated_rows())
    for name, record in records.items():
        newest = tool.NEWEST.libraries[record.library]
        assert record.library == deprecated_rows()[name]
        assert record.checked_on == f"{record.library} {newest}"
        assert record.checked[newest] == record.warns_by_default, name  # the answer is the newest run's
        assert record.use and name.rpartition(".")[2] in record.use
        assert (record.message is not None) == record.warns_by_default  # a warning run keeps the warning it saw


def test_every_deprecated_row_has_a_minimal_use_in_the_tool():
    assert set(deprecated_rows()) <= set(tool.CHECKS)
    assert all(checks()[name].use == check.use for name, check in tool.CHECKS.items() if name in checks())


def test_the_checkpoint_row_warns_only_under_its_condition():
    record = checks()[CHECKPOINT]
    assert record.warns_by_default is False and record.warns_under_condition is True
    assert "flax_use_orbax_checkpointing is False" in record.condition
    assert record.checked.get("0.6.8") is True  # the one release range whose default was the msgpack writer


def test_the_recorded_file_is_what_the_tool_renders():
    text = (REPO / "rules" / "ecosystem_warnings.toml").read_text()
    recorded = tomllib.loads(text)["deprecation"]
    assert tool.render(recorded) == text


# -- the table the rules read ---------------------------------------------------------------------------------------
def test_reported_keeps_removals_and_only_the_deprecations_that_warn(monkeypatch):
    def record(name: str, warns: bool) -> WarningCheck:
        return WarningCheck(name, "optax", warns, "optax 0.2.8", {"0.2.8": warns}, use=f"{name}()")

    monkeypatch.setattr(ecosystem, "warning_checks", lambda: {"w": record("w", True), "q": record("q", False)})
    given = {name: Change(name, status, "0.2.5", None, reason="r")
             for name, status in (("w", "deprecated"), ("q", "deprecated"), ("unchecked", "deprecated"),
                                  ("gone", "removed"))}
    kept = reported(given)
    assert sorted(kept) == ["gone", "w"]
    assert kept["w"].reason == "r; warns under default settings on optax 0.2.8 (executed: `w()`)"
    assert kept["gone"] == given["gone"]


def test_the_tables_hold_no_quiet_deprecation():
    quiet = {name for name, record in checks().items() if not record.warns_by_default}
    assert CHECKPOINT in quiet
    assert not quiet & (set(FLAX) | set(OPTAX))
    assert {"flax.jax_utils.pmean", "optax.global_norm", "optax.dpsgd"} <= set(FLAX) | set(OPTAX)


# -- findings ------------------------------------------------------------------------------------------------------
def test_must_flag_a_name_that_warns(tmp_path):
    project(tmp_path, "", "import optax\nn = optax.global_norm(grads)\n")
    (finding,) = findings(tmp_path, "--select", "JAX502")
    assert "is deprecated since optax 0.2.7" in finding["message"]


@pytest.mark.parametrize("source", [
    "from flax.training import checkpoints\ncheckpoints.save_checkpoint(d, state, step=1)\n",
    "from flax.training.checkpoints import save_checkpoint, save_checkpoint_multiprocess\n",
    "import flax\nflax.training.checkpoints.save_checkpoint_multiprocess(d, state, 1)\n",
])
def test_must_not_flag_a_name_that_warns_only_with_a_setting_off(tmp_path, source):
    project(tmp_path, "flax>=0.6.7\n", source)
    assert findings(tmp_path, "--select", "JAX506") == []


# -- the tool, by execution ----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_newest_releases_warn_as_recorded():
    """Re-runs two recorded rows in the newest flax/optax environment (built on first use)."""
    from tests.support.jaxenv import named_env

    envs = named_env(tool.NEWEST.folder).parent.parent.parent  # built on first use
    for name in (CHECKPOINT, "optax.global_norm"):
        check = tool.CHECKS[name]
        assert tool.deprecation_warned(tool.run(envs, tool.NEWEST, check.setup, check.use)) \
            is checks()[name].warns_by_default
    check = tool.CHECKS[CHECKPOINT]
    assert tool.deprecation_warned(tool.run(envs, tool.NEWEST, check.setup + "\n" + check.condition_setup,
                                            check.use)) is True
