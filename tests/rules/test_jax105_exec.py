"""Execution check for JAX105: three rows of rules/signatures_generated.toml run on both sides of their release, in
real JAX environments (the releases the shared environments hold: 0.4.13, 0.4.20, 0.10.2, 0.12.0.1)."""
from __future__ import annotations

import subprocess

import pytest

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from support.jaxenv import jax_python, run_on_jax

pytestmark = [pytest.mark.jax, pytest.mark.slow]

# jax.stages.Compiled.compiler_ir: member-removed in 0.4.14
COMPILER_IR = """import jax
compiled = jax.jit(lambda x: x + 1).lower(1.0).compile()
print(type(compiled.compiler_ir()).__name__ != "")
"""
# jax.ShapeDtypeStruct(named_shape=): removed in 0.4.34
NAMED_SHAPE = """import jax
import jax.numpy as jnp
spec = jax.ShapeDtypeStruct((8,), jnp.float32, named_shape={})
print(spec.shape)
"""
# jax.experimental.layout.Format(device_local_layout=) -> layout=: renamed in 0.7.0
FORMAT = """from jax.experimental.layout import Format
fmt = Format(device_local_layout=None)
print(fmt)
"""


def fails_on(version: str, source: str) -> str:
    proc = subprocess.run([str(jax_python(version)), "-W", "ignore", "-c", source], capture_output=True, text=True,
                          timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0
    return proc.stderr


def flagged(source: str, min_version: str) -> list[str]:
    settings = Settings(select=("JAX105",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version(min_version), min_version_source="test")
    return [d.message for d in lint_source(source, "a.py", settings).diagnostics if d.code == "JAX105"]


def test_removed_method_runs_before_and_fails_after():
    assert flagged(COMPILER_IR, "0.4.13")
    assert run_on_jax("0.4.13", COMPILER_IR).strip() == "True"
    assert "AttributeError" in fails_on("0.4.20", COMPILER_IR)


def test_removed_constructor_keyword_runs_before_and_fails_after():
    assert flagged(NAMED_SHAPE, "0.4.20")
    assert run_on_jax("0.4.20", NAMED_SHAPE).strip() == "(8,)"
    assert "named_shape" in fails_on("0.10.2", NAMED_SHAPE)


def test_renamed_keyword_fix_runs_at_the_bottom_of_the_range_and_the_original_fails():
    settings = Settings(select=("JAX105",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test")
    fixed = fix_source(FORMAT, "a.py", settings).source
    assert "Format(layout=None)" in fixed
    assert "device_local_layout" in fails_on("0.10.2", FORMAT)
    assert run_on_jax("0.10.2", fixed) == run_on_jax("0.12.0.1", fixed)
