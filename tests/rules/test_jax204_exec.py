"""Execution check for JAX204: the safe rewrite gives the same values as the original did on JAX 0.10.2."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.rules.jax204_ds_none import DsNone
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from support.jaxenv import run_on_jax

pytestmark = pytest.mark.jax

BEFORE = """import jax
import jax.numpy as jnp
x = jnp.arange(10)
print(x[jax.ds(3, None)].tolist())
print(x[jax.ds(None, None, 2)].tolist())
print(x[jax.ds(None, None)].tolist())
print(jax.jit(lambda a: a[jax.ds(5, None)])(x).tolist())
"""


def test_fixed_code_computes_what_the_original_computed():
    settings = Settings(select=("JAX204",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test")
    fixed = fix_source(BEFORE, "module.py", settings, rules=[DsNone]).source
    assert fixed != BEFORE
    expected = run_on_jax("0.10.2", BEFORE)
    assert run_on_jax("0.10.2", fixed) == expected
    assert run_on_jax("0.12.0.1", fixed) == expected
