"""Execution check for JAX104: the original raises on JAX 0.12.0.1, the fixed code runs on 0.10.2 and 0.12.0.1."""
from __future__ import annotations

import subprocess

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.rules.jax104_removed_array_attribute import RemovedArrayAttribute
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from support.jaxenv import jax_python, run_on_jax

pytestmark = pytest.mark.jax

USES = {
    "device_buffers": "print([b.shape for b in x.device_buffers])",
    "device_buffer": "print(x.device_buffer.tolist())",
    "block_host_until_ready": "print(x.block_host_until_ready().tolist())",
    "device": "print(x.device().platform)",
}
PRELUDE = "import jax\nimport jax.numpy as jnp\nx = jnp.arange(4.0)\n"


def settings(min_version: str) -> Settings:
    return Settings(select=("JAX104",), target_version=Version("0.12.0.1"),
                    explicit_min_version=Version(min_version), min_version_source="test")


def fails_on(version: str, source: str) -> str:
    proc = subprocess.run([str(jax_python(version)), "-W", "ignore", "-c", source], capture_output=True, text=True,
                          timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0, proc.stdout
    return proc.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("name", sorted(USES))
def test_original_fails_and_fixed_runs(name):
    source = PRELUDE + USES[name] + "\n"
    error = fails_on("0.12.0.1", source)
    assert error.startswith("TypeError" if name == "device" else "AttributeError"), error
    # The spelling the fix writes at a min version of 0.10.2 (0.4.27+ for the device property).
    fixed = fix_source(source, "module.py", settings("0.10.2"), rules=[RemovedArrayAttribute]).source
    assert fixed != source
    assert run_on_jax("0.10.2", fixed) == run_on_jax("0.12.0.1", fixed)


def test_device_below_the_property_release_gets_the_unsafe_spelling_that_runs():
    source = PRELUDE + USES["device"] + "\n"
    safe = fix_source(source, "module.py", settings("0.4.20"), rules=[RemovedArrayAttribute]).source
    assert safe == source  # no safe fix below 0.4.27
    unsafe = fix_source(source, "module.py", settings("0.4.20"), unsafe=True, rules=[RemovedArrayAttribute]).source
    assert "next(iter(x.devices()))" in unsafe
    assert run_on_jax("0.12.0.1", unsafe).strip() == "cpu"
