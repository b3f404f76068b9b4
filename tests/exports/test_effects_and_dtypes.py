"""In a real JAX: an artifact with a user-defined effect (shown in the inventory, loadable with --import), and
migration inputs synthesised for every dtype jax.export takes (bfloat16, float8, int4...)."""
from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.exports.cli import exports_command
from jaxlint.exports.migrate import MigrationOptions, _verify
from jaxlint.project.versions import Version
from tests.support.jaxenv import jax_python

pytestmark = pytest.mark.jax

EFFECT_MODULE = textwrap.dedent('''
    from jax._src import effects

    class UserEffect(effects.Effect):
        def __eq__(self, other):
            return isinstance(other, UserEffect)

        def __hash__(self):
            return hash(UserEffect)

    effects.lowerable_effects.add_type(UserEffect)
''')

WRITE_WITH_EFFECT = textwrap.dedent('''
    import dataclasses, sys
    import jax, jax.numpy as jnp
    import usereffects
    exported = jax.export.export(jax.jit(lambda x: x * 2))(jax.ShapeDtypeStruct((4,), jnp.float32))
    exported = dataclasses.replace(exported, ordered_effects=(usereffects.UserEffect(),))
    open(sys.argv[1], "wb").write(exported.serialize())
''')

WRITE_DTYPES = textwrap.dedent('''
    import sys
    import jax, jax.numpy as jnp
    names = sys.argv[2:]
    def f(*xs):
        return [x.astype(jnp.float32).sum() for x in xs] + [xs[0]]
    avals = [jax.ShapeDtypeStruct((2, 3), jnp.dtype(n)) for n in names]
    open(sys.argv[1], "wb").write(jax.export.export(jax.jit(f))(*avals).serialize())
''')

DTYPES = ["bfloat16", "float16", "float32", "float8_e4m3fn", "float8_e5m2", "int4", "uint4", "int8", "uint32",
          "int16", "bool", "complex64"]


@pytest.fixture(scope="module")
def python():
    return jax_python("0.12.0.1")


def test_user_effects_are_shown_and_load_with_import(tmp_path, python, monkeypatch):
    (tmp_path / "usereffects.py").write_text(EFFECT_MODULE)
    (tmp_path / "write.py").write_text(WRITE_WITH_EFFECT)
    subprocess.run([str(python), "write.py", "effect.jaxexport"], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    shown = CliRunner().invoke(exports_command, ["effect.jaxexport"], catch_exceptions=False)
    assert "  effects: <class 'usereffects.UserEffect'> (ordered) (loading needs the module that defines them " \
           "imported: --import MODULE)" in shown.stdout
    args = ["effect.jaxexport", "--check-load", "--target-python", str(python), "--output-format", "json"]
    without = CliRunner().invoke(exports_command, args, catch_exceptions=False)
    assert json.loads(without.stdout)[0]["verdict"] == "cannot-load"
    assert json.loads(without.stdout)[0]["effects"] == {"ordered": ["<class 'usereffects.UserEffect'>"],
                                                        "unordered": []}
    assert "cannot deserialize effect type" in json.loads(without.stdout)[0]["reason"]
    with_import = CliRunner().invoke(exports_command, [*args, "--import", "usereffects"], catch_exceptions=False)
    assert json.loads(with_import.stdout)[0]["verdict"] == "loads", with_import.stderr
    assert with_import.exit_code == 0


def test_inputs_of_every_exported_dtype_are_synthesised_and_compared(tmp_path, python):
    (tmp_path / "write.py").write_text(WRITE_DTYPES)
    subprocess.run([str(python), "write.py", "dtypes.jaxexport", *DTYPES], cwd=tmp_path, check=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    options = MigrationOptions(tmp_path / "out", Path(python), Path(python), Version("0.12.0.1"))
    artifact = tmp_path / "dtypes.jaxexport"
    record = _verify(artifact, artifact, scratch, None, options, 1, ["cpu"])
    assert [entry["dtype"] for entry in record["inputs"]] == DTYPES
    assert record["outputs_equal"] and record["outputs"][-1]["dtype"] == "bfloat16"
    assert all(entry["match"] for entry in record["outputs"])
