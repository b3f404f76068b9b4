"""`jaxlint exports` end to end through click: output formats, the JSON contract, exit codes."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import jsonschema
import pytest
from click.testing import CliRunner

from conftest import DATA, REPO, artifact
from jaxlint.exports.cli import exports_command

JSON_SCHEMA = {  # the contract in issue 6, exactly: no missing and no extra keys
    "type": "array",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["path", "verdict", "serialization_version", "calling_convention_version", "nr_devices",
                     "jax_version", "shardings", "platforms", "in_avals", "out_avals", "effects", "reason"],
        "properties": {
            "path": {"type": "string"},
            "verdict": {"enum": ["loads", "loads-with-flag", "cannot-load", "unknown"]},
            "serialization_version": {"type": ["integer", "null"]},
            "calling_convention_version": {"type": ["integer", "null"]},
            "nr_devices": {"type": ["integer", "null"]},
            "jax_version": {"type": ["string", "null"]},
            "shardings": {"enum": ["named", "hlo-only", "none", None]},
            "platforms": {"type": "array", "items": {"type": "string"}},
            "in_avals": {"type": "array", "items": {"type": "string"}},
            "out_avals": {"type": "array", "items": {"type": "string"}},
            "effects": {"oneOf": [{"type": "null"}, {
                "type": "object", "additionalProperties": False, "required": ["ordered", "unordered"],
                "properties": {"ordered": {"type": "array", "items": {"type": "string"}},
                               "unordered": {"type": "array", "items": {"type": "string"}}}}]},
            "reason": {"type": "string"},
        },
    },
}


def run(*args):
    return CliRunner().invoke(exports_command, [str(a) for a in args], catch_exceptions=False)


def test_json_contract(store):
    result = run(store, "--output-format", "json")
    assert result.exit_code == 1
    records = json.loads(result.stdout)
    jsonschema.validate(records, JSON_SCHEMA)
    assert len(records) == 30
    by_name = {os.path.basename(r["path"]): r for r in records}
    assert all(os.path.isabs(r["path"]) for r in records)
    old = by_name["jax-0.8.1-simple.jaxexport"]
    assert old["verdict"] == "loads-with-flag" and old["nr_devices"] == 1 and old["serialization_version"] == 2
    assert old["jax_version"] is None and old["shardings"] == "none"
    assert old["in_avals"] == ["float32[4]"] and old["platforms"] == ["cpu"]
    assert old["effects"] == {"ordered": [], "unordered": []}
    assert list(old) == list(JSON_SCHEMA["items"]["required"])  # the documented order
    new = by_name["jax-0.12.0.1-sharded2.jaxexport"]
    assert new["verdict"] == "loads" and new["jax_version"] == "0.12.0.1" and new["shardings"] == "named"
    assert new["nr_devices"] == 2
    assert by_name["jax-0.8.2-sharded2.jaxexport"]["verdict"] == "cannot-load"
    assert by_name["jax-0.8.2-sharded2.jaxexport"]["shardings"] == "hlo-only"
    assert sorted(r["verdict"] for r in records).count("loads") == 26


def test_json_for_a_corrupt_file(tmp_path):
    bad = tmp_path / "broken.jaxexport"
    bad.write_bytes(artifact("0.11.1", "simple").read_bytes()[:700])
    result = run(bad, "--output-format", "json")
    assert result.exit_code == 1
    (record,) = json.loads(result.stdout)
    jsonschema.validate([record], JSON_SCHEMA)
    assert record["verdict"] == "unknown" and "truncated" in record["reason"]
    assert record["serialization_version"] is None and record["in_avals"] == []


def test_text_report_and_summary(store):
    (store / "README.txt").write_text("not an artifact")
    result = run(store, "--target-version", "0.11.1")
    assert result.exit_code == 1
    assert "30 artifacts (26 loads, 2 loads-with-flag, 2 cannot-load) among 31 files looked at; target JAX 0.11.1." \
        in result.stdout
    assert "loads only with the expired-versions flag" in result.stdout
    assert "devices: 1 (nr_devices=0, legacy nr_devices_short=1)" in result.stdout
    assert "written by JAX 0.12.0.1" in result.stdout


def test_csv(store):
    result = run(store, "--output-format", "csv", "--target-version", "0.10.2")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 30
    cannot = sorted(r["path"].rsplit("/", 1)[1] for r in rows if r["verdict"] == "cannot-load")
    assert cannot == [f"jax-{v}-poly.jaxexport" for v in ("0.11.2", "0.12.0", "0.12.0.1")]
    assert result.exit_code == 1


def test_exit_zero_when_everything_loads(tmp_path):
    for writer in ("0.10.2", "0.12.0.1"):
        (tmp_path / f"{writer}.jaxexport").write_bytes(artifact(writer, "sharded2").read_bytes())
    assert run(tmp_path).exit_code == 0
    assert run(tmp_path, "--target-version", "0.11.0").exit_code == 0


def test_exit_one_for_an_older_target(tmp_path):
    (tmp_path / "a.jaxexport").write_bytes(artifact("0.12.0", "poly").read_bytes())
    assert run(tmp_path).exit_code == 0
    assert run(tmp_path, "--target-version", "0.10.2").exit_code == 1


@pytest.mark.parametrize("args", [
    ["--target-version", "eleven"],
    ["--output-format", "xml"],
    ["--target-python", sys.executable],  # without --check-load
    [],  # no paths
])
def test_usage_errors_exit_2(args):
    paths = [] if args == [] else [DATA]
    assert CliRunner().invoke(exports_command, [*map(str, paths), *args]).exit_code == 2


def test_missing_path_exits_2(tmp_path):
    assert CliRunner().invoke(exports_command, [str(tmp_path / "nope")]).exit_code == 2


def test_inspect_is_also_an_explicit_subcommand(store):
    assert run("inspect", store, "--output-format", "json").stdout == run(store, "--output-format", "json").stdout


def test_python_dash_m_and_help():
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.run([sys.executable, "-m", "jaxlint.exports", "--help"], capture_output=True, text=True,
                          env=env, check=True)
    assert "jaxlint exports [inspect] PATHS..." in proc.stdout and "migrate" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "jaxlint.exports", str(DATA / "jax-0.8.1-simple.jaxexport")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "1 artifact (1 loads-with-flag) among 1 file looked at" in proc.stdout
