"""Execution check for JAX103: the safe rewrite gives the same values as the original did on JAX 0.10.2."""
from __future__ import annotations

import subprocess

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.rules.jax103_changed_signature import ChangedSignature
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from support.jaxenv import jax_python, run_on_jax

pytestmark = pytest.mark.jax

BEFORE = """import jax
import jax.numpy as jnp
import numpy as np
base = np.arange(6.0).reshape(2, 3)
print(jnp.array(base, jnp.float32, False).tolist())
print(jnp.array(base, None, True, "K", 4).shape)
print(jnp.array([1, 2], jnp.int32, True, "K").tolist())
mesh = jax.make_mesh(axis_shapes=(1,), axis_names=("x",))
print(mesh.shape)
"""


def test_fixed_code_computes_what_the_original_computed():
    settings = Settings(select=("JAX103",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test")
    fixed = fix_source(BEFORE, "module.py", settings, rules=[ChangedSignature]).source
    assert fixed != BEFORE
    expected = run_on_jax("0.10.2", BEFORE)
    assert run_on_jax("0.10.2", fixed) == expected
    assert run_on_jax("0.12.0.1", fixed) == expected


def test_original_fails_on_the_new_jax():
    proc = subprocess.run([str(jax_python("0.12.0.1")), "-c", BEFORE], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0 and "TypeError" in proc.stderr
