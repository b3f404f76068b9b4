"""Execution check: once JAX101 rewrites every use of a removed module bound by a from-import, the import goes too,
and the fixed file imports and runs on JAX 0.10.2 and 0.12.0.1 (re-created from real reports, where the fixed file
still failed on the import it kept)."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.jax101_removed_symbol import RemovedSymbol
from support.jaxenv import jax_python, run_on_jax

pytestmark = pytest.mark.jax

CASES = {
    "abstract_arrays": ("""import jax
import jax.numpy as jnp
from jax import abstract_arrays

aval = abstract_arrays.ShapedArray((2, 3), jnp.float32)
print(aval.shape, aval.dtype)
""", "(2, 3) float32\n"),
    "extend.ffi": ("""import jax
from jax.extend import ffi

print(callable(ffi.ffi_call), callable(ffi.register_ffi_target))
""", "True True\n"),
    "xla_bridge": ("""import jax
from jax.lib import xla_bridge

print(xla_bridge.get_backend().platform)
""", "cpu\n"),
}


def _fixed(source: str) -> str:
    settings = Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test")
    outcome = fix_source(source, "module.py", settings, rules=[RemovedSymbol])
    assert not outcome.remaining, outcome.remaining
    return outcome.source


@pytest.mark.parametrize("name", CASES)
def test_the_fixed_file_runs_where_the_original_fails(name):
    import subprocess

    source, expected = CASES[name]
    proc = subprocess.run([str(jax_python("0.12.0.1")), "-c", source], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0 and ("ImportError" in proc.stderr or "ModuleNotFoundError" in proc.stderr)
    fixed = _fixed(source)
    assert "import abstract_arrays" not in fixed and "import ffi" not in fixed and "import xla_bridge" not in fixed
    for version in ("0.10.2", "0.12.0.1"):
        assert run_on_jax(version, fixed) == expected, version
