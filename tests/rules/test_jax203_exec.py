"""Execution check for JAX203: the safe rewrite gives the same values as the original did on JAX 0.10.2."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.rules.jax203_empty_uninitialized import EmptyUninitialized
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from support.jaxenv import run_on_jax

pytestmark = pytest.mark.jax

BEFORE = """import jax
import jax.numpy as jnp
from jax.numpy import empty
x = jnp.ones((2, 3), jnp.float32)
print(jnp.empty((2, 3)).tolist(), jnp.empty((2,), jnp.int32).dtype)
print(jnp.empty_like(x).tolist(), jnp.empty_like(prototype=x, dtype=jnp.int32, shape=(4,)).tolist())
print(empty((3,)).tolist())
print(jax.jit(lambda a: jnp.empty_like(a) + 1)(x).tolist())
"""


def test_fixed_code_computes_what_the_original_computed():
    settings = Settings(select=("JAX203",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test")
    fixed = fix_source(BEFORE, "module.py", settings, rules=[EmptyUninitialized]).source
    assert fixed != BEFORE
    expected = run_on_jax("0.10.2", BEFORE)
    assert run_on_jax("0.10.2", fixed) == expected
    assert run_on_jax("0.12.0.1", fixed) == expected
