"""Execution check of the keyword fixes this change adds: each original runs on a JAX that accepts it, each fix on the
newest, and both print the same values; the originals fail on the newest JAX.

- JAX103 ``jnp.sort/argsort(kind=...)`` -> ``stable=True``: JAX 0.4.20 ignores ``kind`` (and sorts stably); the ties
  in the data make an unstable order visible.
- JAX402 ``jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs, check_rep=)`` -> ``jax.shard_map(f,
  mesh=, in_specs=, out_specs=, check_vma=)`` (min version 0.8.0), and JAX103 ``jax.shard_map(check_rep=)``.
"""
from __future__ import annotations

import subprocess

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.jax103_changed_signature import ChangedSignature
from jaxlint.rules.jax402_deprecated_symbol import DeprecatedSymbol
from support.jaxenv import jax_python, run_on_jax

pytestmark = pytest.mark.jax

SORT = """import jax.numpy as jnp
x = jnp.array([3, 1, 2, 1, 3, 1, 0, 2] * 8)
print(jnp.argsort(x, kind="quicksort").tolist())
print(jnp.argsort(x, kind="stable").tolist())
print(jnp.sort(x, kind="mergesort").tolist())
"""

SHARD_MAP = """import jax
import jax.experimental.shard_map
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
mesh = jax.sharding.Mesh(jax.devices()[:1], ("x",))
def body(a):
    return a * 2 + jax.lax.psum(a, "x")
a = jnp.arange(8.0)
print(jax.experimental.shard_map.shard_map(body, mesh, P("x"), P("x"), check_rep=False)(a).tolist())
print(jax.experimental.shard_map.shard_map(body, mesh, in_specs=P("x"), out_specs=P("x"))(a).tolist())
"""

NEW_SHARD_MAP = """import jax
import jax.experimental.shard_map
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
mesh = jax.sharding.Mesh(jax.devices()[:1], ("x",))
print(jax.shard_map(lambda a: a + 1, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_rep=False)(
    jnp.arange(4.0)).tolist())
"""


def fixed(source: str, rule, min_version: str) -> str:
    settings = Settings(select=(rule.code,), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version(min_version), min_version_source="test")
    out = fix_source(source, "module.py", settings, rules=[rule]).source
    assert out != source
    return out


def fails_on(version: str, source: str) -> str:
    proc = subprocess.run([str(jax_python(version)), "-c", source], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0
    return proc.stderr


def test_sort_kind_becomes_stable_true():
    new = fixed(SORT, ChangedSignature, "0.4.24")
    assert "kind" not in new and new.count("stable=True") == 3
    expected = run_on_jax("0.4.20", SORT)
    assert run_on_jax("0.12.0.1", new) == expected
    assert "'kind' argument to argsort is not supported. Use stable=True or stable=False" in fails_on("0.12.0.1", SORT)


def test_experimental_shard_map_moves_with_check_vma():
    new = fixed(SHARD_MAP, DeprecatedSymbol, "0.8.0")
    assert "experimental.shard_map.shard_map" not in new and "check_vma=False" in new
    expected = run_on_jax("0.8.0", SHARD_MAP)
    assert run_on_jax("0.8.0", new) == expected
    assert run_on_jax("0.12.0.1", new) == expected


def test_jax_shard_map_check_rep_becomes_check_vma():
    new = fixed(NEW_SHARD_MAP, ChangedSignature, "0.8.0")
    assert "check_vma=False" in new
    assert "unexpected keyword argument 'check_rep'" in fails_on("0.12.0.1", NEW_SHARD_MAP)
    assert run_on_jax("0.12.0.1", new) == run_on_jax("0.8.0", new) == "[1.0, 2.0, 3.0, 4.0]\n"
