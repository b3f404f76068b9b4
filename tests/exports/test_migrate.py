"""`jaxlint exports migrate`: 0.8.x artifacts re-serialized through JAX 0.10.2, verified by running them."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import textwrap

import pytest
from click.testing import CliRunner

from conftest import artifact
from jaxlint.exports import migrate as migrate_module
from jaxlint.exports.cli import exports_command
from jaxlint.exports.flatbuf import Table
from jaxlint.exports.header import MLIR_MODULE, decode_artifact
from jaxlint.exports.verdict import predict
from tests.support.jaxenv import jax_python

pytestmark = pytest.mark.jax
BASELINE, TARGET = "0.10.2", "0.12.0.1"

# Run in the target venv, independently of jaxlint: the migrated file loads without the flag and computes sin(x)*2.
CALL_IN_TARGET = textwrap.dedent("""
    import sys, numpy as np, jax
    exp = jax.export.deserialize(bytearray(open(sys.argv[1], "rb").read()))
    x = np.arange(4, dtype=np.float32)
    if exp.nr_devices == 2:
        mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
        x = jax.device_put(x, exp.in_shardings_jax(mesh)[0])
    print(bool(np.allclose(np.asarray(exp.call(x)), np.sin(np.arange(4, dtype=np.float32)) * 2)))
""")


def migrate(*args):
    return CliRunner().invoke(exports_command, ["migrate", *map(str, args), "--baseline-python",
                                                str(jax_python(BASELINE)), "--target-python",
                                                str(jax_python(TARGET))], catch_exceptions=False)


def computes_sin_times_two(path) -> bool:
    env = dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS="--xla_force_host_platform_device_count=2")
    proc = subprocess.run([str(jax_python(TARGET)), "-c", CALL_IN_TARGET, str(path)], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip().splitlines()[-1] == "True"


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def inbox(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("writer,kind,extra", [("0.8.1", "simple", []), ("0.8.1", "sharded2", ["--mesh", "x=2"]),
                                               ("0.8.2", "sharded2", ["--mesh", "x=2"])])
def test_migration_verified_by_execution(inbox, tmp_path, writer, kind, extra):
    source = inbox / f"{writer}-{kind}.jaxexport"
    shutil.copy(artifact(writer, kind), source)
    before = sha256(source)
    out = tmp_path / "out"
    result = migrate(inbox, "--out", out, *extra)
    assert result.exit_code == 0, result.output
    assert "1 migrated, 0 already loading, 0 failed" in result.output
    migrated = out / source.name
    assert sha256(source) == before  # the input is untouched
    header = decode_artifact(migrated.read_bytes())
    assert predict(header, TARGET).kind == "loads"
    assert header.nr_devices == (2 if kind == "sharded2" else 1) and header.shardings in ("none", "named")
    record = json.loads((out / (source.name + ".migration.json")).read_text())
    assert record["source"]["sha256"] == before and record["migrated"]["sha256"] == sha256(migrated)
    assert record["writers"]["re-serialized by"] == BASELINE
    assert record["verdict_before"] in ("loads-with-flag", "cannot-load") and record["verdict_after"] == "loads"
    assert record["verification"]["outputs_equal"] and record["verification"]["target_jax"] == TARGET
    assert record["verification"]["inputs"] == [{"shape": [4], "dtype": "float32"}]
    if kind == "sharded2":
        assert record["mesh"] == {"x": 2} and "shardings hlo-only -> named" in " ".join(record["changes"])
    # Only the flatbuffer envelope changes: the StableHLO module is carried over byte for byte.
    assert Table.root(migrated.read_bytes()).bytes_(MLIR_MODULE) == Table.root(source.read_bytes()).bytes_(MLIR_MODULE)
    assert computes_sin_times_two(migrated)


def test_poly_records_the_chosen_dimension(inbox, tmp_path):
    shutil.copy(artifact("0.8.1", "poly"), inbox / "poly.jaxexport")
    result = migrate(inbox, "--out", tmp_path / "out", "--dim", "b=5")
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "out" / "poly.jaxexport.migration.json").read_text())
    assert record["verification"]["symbolic_dims"] == {"b": 5}
    assert record["verification"]["inputs"] == [{"shape": [5], "dtype": "float32"}]


def test_hlo_only_without_mesh_says_why(inbox, tmp_path):
    shutil.copy(artifact("0.8.2", "sharded2"), inbox / "s.jaxexport")
    result = migrate(inbox, "--out", tmp_path / "out")
    assert result.exit_code == 1
    assert "stored only as HloSharding" in result.output and "--mesh" in result.output
    assert not (tmp_path / "out" / "s.jaxexport").exists()
    assert (tmp_path / "out" / "s.jaxexport.migration-failed.json").exists()


def test_a_mesh_of_the_wrong_size_is_refused(inbox, tmp_path):
    shutil.copy(artifact("0.8.1", "sharded2"), inbox / "s.jaxexport")
    result = migrate(inbox, "--out", tmp_path / "out", "--mesh", "x=4")
    assert result.exit_code == 1 and "exported for 2 devices" in result.output
    assert not (tmp_path / "out" / "s.jaxexport").exists()


def test_outputs_that_differ_are_not_written(inbox, tmp_path, monkeypatch):
    shutil.copy(artifact("0.8.1", "simple"), inbox / "m.jaxexport")
    impostor = tmp_path / "cos.jaxexport"  # same signature, different function
    subprocess.run([str(jax_python(TARGET)), "-c", textwrap.dedent(f"""
        import numpy as np, jax, jax.numpy as jnp
        exp = jax.export.export(jax.jit(lambda v: jnp.cos(v) * 2.0))(np.arange(4, dtype=np.float32))
        open({str(impostor)!r}, "wb").write(exp.serialize())
    """)], check=True, capture_output=True, env=dict(os.environ, JAX_PLATFORMS="cpu"))
    real_run_worker = migrate_module.run_worker

    def broken_reserializer(python, script, request, **kwargs):
        if script == "reserialize.py":
            shutil.copy(impostor, request["dst"])
            return {"ok": True, "error": None, "jax_version": "fake", "used_flag": False, "rebuilt_shardings": []}
        return real_run_worker(python, script, request, **kwargs)

    monkeypatch.setattr(migrate_module, "run_worker", broken_reserializer)
    result = migrate(inbox, "--out", tmp_path / "out")
    assert result.exit_code == 1 and "outputs differ" in result.output
    assert not (tmp_path / "out" / "m.jaxexport").exists()
    assert not (tmp_path / "out" / "m.jaxexport.migration.json").exists()


def test_never_overwrites_inputs(inbox):
    source = inbox / "m.jaxexport"
    shutil.copy(artifact("0.8.1", "simple"), source)
    before = sha256(source)
    result = migrate(source, "--out", inbox)  # the destination would be the input itself
    assert result.exit_code == 1 and "would overwrite an input file" in result.output
    result = migrate(inbox, "--out", inbox / "migrated")  # an output folder inside an input folder
    assert result.exit_code == 2 and "must lie outside the input folder" in result.output
    assert sha256(source) == before and sorted(p.name for p in inbox.iterdir()) == ["m.jaxexport"]


def test_nothing_to_migrate_builds_no_baseline(inbox, tmp_path, monkeypatch):
    shutil.copy(artifact("0.11.0", "sharded2"), inbox / "ok.jaxexport")
    monkeypatch.setenv("JAXLINT_ENV_DIR", str(tmp_path / "envs"))
    result = CliRunner().invoke(exports_command, ["migrate", str(inbox), "--out", str(tmp_path / "out"),
                                                  "--target-python", str(jax_python(TARGET))])
    assert result.exit_code == 0 and "0 migrated, 1 already loading, 0 failed" in result.output
    assert not (tmp_path / "envs").exists()


def test_usage_errors(inbox, tmp_path):
    shutil.copy(artifact("0.8.1", "simple"), inbox / "m.jaxexport")
    runner = CliRunner()
    base = ["migrate", str(inbox), "--out", str(tmp_path / "o")]
    assert runner.invoke(exports_command, ["migrate", str(inbox)]).exit_code == 2  # no --out
    assert runner.invoke(exports_command, [*base, "--mesh", "x"]).exit_code == 2
    assert runner.invoke(exports_command, [*base, "--dim", "b=x"]).exit_code == 2
    both = [*base, "--baseline-jax", "0.10.2", "--baseline-python", str(jax_python(BASELINE))]
    assert runner.invoke(exports_command, both).exit_code == 2


def test_several_inputs_with_the_same_file_names_lose_nothing(tmp_path):
    # Two input folders, each with model.jaxexport and a sub/model.jaxexport: four outputs, four records.
    for name in ("a", "b"):
        (tmp_path / name / "sub").mkdir(parents=True)
        shutil.copy(artifact("0.8.1", "simple"), tmp_path / name / "model.jaxexport")
        shutil.copy(artifact("0.8.1", "simple"), tmp_path / name / "sub" / "model.jaxexport")
    out = tmp_path / "out"
    result = migrate(tmp_path / "a", tmp_path / "b", "--out", out)
    assert result.exit_code == 0, result.output
    assert "4 migrated, 0 already loading, 0 failed (4 artifacts among 4 files" in result.output
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == [f"{root}/{sub}model.jaxexport{suffix}" for root in ("a", "b") for sub in ("", "sub/")
                       for suffix in ("", ".migration.json")]
    for root in ("a", "b"):
        record = json.loads((out / root / "model.jaxexport.migration.json").read_text())
        assert record["source"]["path"] == str(tmp_path / root / "model.jaxexport")


def test_inputs_that_would_still_share_an_output_are_refused_not_overwritten(tmp_path):
    for parent in ("x", "y"):
        (tmp_path / parent / "data").mkdir(parents=True)
        shutil.copy(artifact("0.8.1", "simple"), tmp_path / parent / "data" / "m.jaxexport")
    out = tmp_path / "out"
    result = migrate(tmp_path / "x" / "data", tmp_path / "y" / "data", "--out", out)
    assert result.exit_code == 1
    assert "0 migrated, 0 already loading, 2 failed (2 artifacts among 2 files" in result.output
    assert result.output.count("would also be the output of") == 2
    assert not out.exists() or not any(out.rglob("*"))


def test_one_artifact_is_counted_in_the_singular(inbox, tmp_path):
    shutil.copy(artifact("0.8.1", "simple"), inbox / "m.jaxexport")
    result = migrate(inbox, "--out", tmp_path / "out")
    assert "(1 artifact among 1 file;" in result.output
