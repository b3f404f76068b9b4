"""--check-load: the real JAX agrees with every prediction, and a disagreement is reported."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import artifact
from jaxlint.exports.cli import exports_command
from tests.support.jaxenv import jax_python

pytestmark = pytest.mark.jax


def check(paths, python, *extra):
    return CliRunner().invoke(exports_command, [*map(str, paths), "--check-load", "--target-python", str(python),
                                                "--output-format", "json", *extra], catch_exceptions=False)


@pytest.mark.parametrize("version", ["0.12.0.1", "0.10.2"])
def test_every_prediction_confirmed(store, version):
    result = check([store], jax_python(version))
    assert f"check-load in JAX {version}: 0 disagreement(s)" in result.stderr
    records = json.loads(result.stdout)
    assert len(records) == 30
    expected_not_loading = 4 if version == "0.12.0.1" else 3
    assert sum(r["verdict"] != "loads" for r in records) == expected_not_loading
    assert result.exit_code == 1


def test_target_version_must_match_the_interpreter(store):
    result = check([store], jax_python("0.12.0.1"), "--target-version", "0.11.1")
    assert result.exit_code == 2 and "has JAX 0.12.0.1" in result.output


def test_a_wrong_prediction_is_reported(tmp_path):
    # The header is intact (so the prediction is "loads") but the StableHLO bytecode is damaged.
    data = bytearray(artifact("0.12.0", "simple").read_bytes())
    start = data.index(b"ML\xefR")
    data[start + 40:start + 200] = bytes(160)
    damaged = tmp_path / "damaged.jaxexport"
    damaged.write_bytes(bytes(data))
    result = check([damaged], jax_python("0.12.0.1"))
    assert "1 disagreement(s)" in result.stderr and "predicted loads, JAX 0.12.0.1 says cannot-load" in result.stderr
    (record,) = json.loads(result.stdout)
    assert record["verdict"] == "cannot-load"
    assert result.exit_code == 1


def test_only_the_good_ones_exit_zero(tmp_path):
    (tmp_path / "ok.jaxexport").write_bytes(artifact("0.9.2", "sharded2").read_bytes())
    assert check([tmp_path], jax_python("0.12.0.1")).exit_code == 0


def test_default_target_environment_comes_from_the_cache(tmp_path, monkeypatch):
    # Without --target-python the target JAX is taken from $JAXLINT_ENV_DIR/jax-<version> (built there on first use).
    venv = jax_python("0.12.0.1").parent.parent
    (tmp_path / "jax-0.12.0.1").symlink_to(venv, target_is_directory=True)
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path))
    result = CliRunner().invoke(exports_command, [str(artifact("0.8.1", "simple")), "--check-load"],
                                catch_exceptions=False)
    assert "check-load in JAX 0.12.0.1: 0 disagreement(s)" in result.stderr and result.exit_code == 1
