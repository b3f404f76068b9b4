"""``extend-rules``: a team's own rule folder (``tests/catalogue/our-rules``) goes through the same engine, messages
and fixes as the packaged catalogue; a bad row is a configuration error naming the file, the row and the key."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jaxlint.catalogue.extend import RulesFileError, extended, read_folder
from tests.cli.test_cli import run

EXAMPLE = Path(__file__).parent / "our-rules"
CODE = """\
import ourlib.train
from ourlib.data import legacy_loader
import ourlib.pmap_utils

state = ourlib.train.old_step(state, batch)
state = ourlib.train.step(state, batch, lr=0.1)
state = ourlib.train.step(state, batch, 0.1)
state = ourlib.train.step(state, batch, **options)
"""
FIXED = CODE.replace("train.old_step(", "train.step(").replace("lr=0.1", "learning_rate=0.1")


def project(tmp_path: Path, config: str = 'extend-rules = ["tools/our-rules"]\n') -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "tools" / "our-rules")
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n" + config)
    (tmp_path / "train.py").write_text(CODE)
    return tmp_path


def findings(root: Path, *args: str) -> list[dict]:
    result = run(["check", "--output-format", "json", *args, "train.py"], root)
    return json.loads(result.output)


def test_the_example_folder_is_valid_and_merged_into_the_catalogue():
    rows = read_folder(EXAMPLE)
    assert [len(rows[k]) for k in ("symbol", "module", "parameter")] == [2, 1, 1]
    catalogue = extended((EXAMPLE.resolve(),))
    assert catalogue.symbol("ourlib.train.old_step").replacement == "ourlib.train.step"
    assert catalogue.symbol("jax.tree_map") is not None  # the packaged rows are still there
    assert catalogue.parameters_of("ourlib.train.step")["lr"].safe_replacement("0.4.20") == "learning_rate"


def test_user_rules_report_with_the_same_engine(tmp_path):
    root = project(tmp_path)
    got = sorted((f["code"], f["location"]["row"]) for f in findings(root, "--select", "JAX1,JAX4"))
    # removed symbol (row 5), removed module (row 3), deprecated symbol (row 2), renamed keyword (row 6); the
    # positional and **kwargs calls (rows 7, 8) are not flagged
    assert got == [("JAX101", 3), ("JAX101", 5), ("JAX103", 6), ("JAX402", 2)]


def test_user_rules_fix_renames_where_the_range_allows(tmp_path):
    root = project(tmp_path, 'extend-rules = ["tools/our-rules"]\nmin-version = "0.4.30"\n')
    run(["check", "--fix", "--select", "JAX101,JAX103", "train.py"], root)
    assert (root / "train.py").read_text() == FIXED


def test_no_user_rules_no_findings_on_their_names(tmp_path):
    root = project(tmp_path, 'target-version = "0.12.0"\n')
    assert findings(root) == []


def test_target_before_the_removal_is_silent(tmp_path):
    root = project(tmp_path, 'extend-rules = ["tools/our-rules"]\ntarget-version = "0.7.0"\n')
    assert findings(root, "--select", "JAX101,JAX103") == []


@pytest.mark.parametrize("row,fragment", [
    ('[[symbol]]\nname = "ourlib.x"\nremovd_in = "0.9.0"\n', "[[symbol]] 'ourlib.x': unknown key `removd_in`"),
    ('[[symbol]]\nname = "ourlib.x"\n', "[[symbol]] 'ourlib.x': needs `removed_in` or `deprecated_in`"),
    ('[[symbol]]\nname = "ourlib.x"\nremoved_in = "soon"\n', "`removed_in` is not a version: 'soon'"),
    ('[[parameter]]\nname = "ourlib.f"\nparameter = "a"\n', "[[parameter]] 'ourlib.f': missing `removed_in`"),
    ('[[parameter]]\nname = "ourlib.f"\nparameter = "a"\nremoved_in = "0.9"\nchange = "renamed"\n',
     "a renamed parameter needs `replacement` and `replacement_since`"),
    ('[[flag]]\nname = "x"\n', "unknown table `flag`"),
    ('[[symbol]]\nremoved_in = "0.9.0"\n', "[[symbol]] row without a dotted `name`"),
    ('[[symbol]]\nname = "ourlib.x"\nremoved_in = "0.9.0"\nequivalent = "yes"\n', "`equivalent` must be a bool"),
])
def test_bad_rule_files_are_configuration_errors(tmp_path, row, fragment):
    root = project(tmp_path)
    (root / "tools" / "our-rules" / "broken.toml").write_text(row)
    result = run(["check", "train.py"], root)
    assert result.exit_code == 2, result.output
    assert "pyproject.toml" in result.output and "broken.toml" in result.output and fragment in result.output


def test_a_missing_folder_is_a_configuration_error(tmp_path):
    root = project(tmp_path, 'extend-rules = ["tools/nowhere"]\n')
    result = run(["check", "train.py"], root)
    assert result.exit_code == 2 and "tools/nowhere: not a folder" in result.output


def test_read_folder_error_type():
    with pytest.raises(RulesFileError):
        read_folder(EXAMPLE / "missing")


# -- issue 24 item 5: a team's rules read as the team's decision, everywhere the built-in ones show ----------------
def test_user_rules_are_worded_as_the_teams_deprecation_with_its_message(tmp_path):
    root = project(tmp_path)
    got = sorted((f["location"]["row"], f["code"], f["message"]) for f in findings(root, "--select", "JAX1,JAX4"))
    assert got == [
        (2, "JAX402", "`ourlib.data.legacy_loader` is deprecated by this project from JAX 0.9.0 on: legacy_loader "
                      "reads the old shard format; convert the data with ourlib-convert"),
        (3, "JAX101", "`ourlib.pmap_utils` is removed by this project from JAX 0.8.0 on: pmap helpers are gone: use "
                      "jax.shard_map"),
        (5, "JAX101", "`ourlib.train.old_step` is removed by this project from JAX 0.10.0 on: ourlib.train.old_step "
                      "was removed with the move to JAX 0.10; use ourlib.train.step"),
        (6, "JAX103", "`ourlib.train.step(lr=...)`: the keyword is removed by this project from JAX 0.10.0 on; use "
                      "`learning_rate=` (JAX 0.4.20+)"),
    ]


def test_the_teams_message_is_not_repeated_as_jaxs_in_full_output(tmp_path):
    root = project(tmp_path)
    output = run(["check", "--no-cache", "--output-format", "full", "--select", "JAX402", "train.py"], root).output
    assert "legacy_loader reads the old shard format" in output and 'JAX: "' not in output


def test_show_settings_lists_the_user_rules(tmp_path):
    root = project(tmp_path)
    shown = run(["check", "--show-settings", "train.py"], root).output
    assert ("extend-rules:   tools/our-rules: ourlib.train.old_step (JAX101), ourlib.data.legacy_loader (JAX402), "
            "ourlib.pmap_utils (JAX101), ourlib.train.step(lr=) (JAX103)\n") in shown
    assert "extend-rules:   (none)\n" in run(["check", "--show-settings", "train.py"], project(
        tmp_path / "plain", 'target-version = "0.12.0"\n')).output


def test_jaxlint_rule_and_rules_list_the_user_rules(tmp_path):
    root = project(tmp_path)
    jax101 = run(["rule", "JAX101"], root).output
    assert "## User rules (extend-rules)" in jax101
    assert ("| `ourlib.pmap_utils` | module | — | 0.8.0 | `ourlib.pmap_utils` is removed by this project from JAX 0.8.0 "
            "on: pmap helpers are gone: use jax.shard_map | our-rules |") in jax101
    assert "ourlib.data.legacy_loader" not in jax101  # deprecated only: JAX402's
    assert "| `ourlib.data.legacy_loader` | symbol | 0.9.0 | — |" in run(["rule", "JAX402"], root).output
    assert ("| `ourlib.train.step(lr=)` | keyword, renamed | — | 0.10.0 | `learning_rate=` (0.4.20+) | our-rules |"
            in run(["rule", "JAX103"], root).output)
    assert "ourlib" not in run(["rule", "JAX201"], root).output
    listed = run(["rules"], root).output
    assert ("User rules (extend-rules): tools/our-rules: ourlib.train.old_step (JAX101), ourlib.data.legacy_loader "
            "(JAX402), ourlib.pmap_utils (JAX101), ourlib.train.step(lr=) (JAX103)") in listed
    as_json = {item["code"]: item.get("user_rules") for item in json.loads(run(["rules", "--output-format", "json"],
                                                                                root).output)}
    assert as_json["JAX101"] == ["ourlib.train.old_step", "ourlib.pmap_utils"]
    assert as_json["JAX402"] == ["ourlib.data.legacy_loader"] and as_json["JAX103"] == ["ourlib.train.step(lr=)"]
    assert as_json["JAX201"] is None


def test_an_override_sets_only_what_it_names(tmp_path):
    root = project(tmp_path)
    (root / "tools" / "our-rules" / "zz-overrides.toml").write_text(
        '[[module]]\nname = "ourlib.pmap_utils"\nmessage = "use ourlib.sharding instead."\n'
        + '\n[[symbol]]\nname = "jax.tree_map"\nfix = "manual"\n'
        + '\n[[parameter]]\nname = "ourlib.train.step"\nparameter = "lr"\nnote = "the schedule takes it too"\n')
    (root / "train.py").write_text("import jax\n" + CODE + "y = jax.tree_map(f, x)\n")
    got = {(f["location"]["row"], f["code"]): f for f in findings(root)}
    assert got[(4, "JAX101")]["message"] == ("`ourlib.pmap_utils` is removed by this project from JAX 0.8.0 on: use "
                                             "ourlib.sharding instead")
    assert got[(7, "JAX103")]["message"].endswith("use `learning_rate=` (JAX 0.4.20+) (the schedule takes it too)")
    assert got[(10, "JAX101")]["fix"] is None  # the override made the built-in rename manual, and kept the rest
    assert got[(10, "JAX101")]["message"] == "`jax.tree_map` was removed in JAX 0.6.0; use `jax.tree.map`"
