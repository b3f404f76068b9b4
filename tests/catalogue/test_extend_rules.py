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
