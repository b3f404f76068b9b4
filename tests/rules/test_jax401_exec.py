"""Execution check for JAX401's fix safety: why the fix is withheld around a ``pjit`` with ``PartitionSpec``s.

Run on JAX 0.12.0.1 (CPU, two host devices): the original ``with mesh:`` runs the ``pjit``; the ``jax.set_mesh``
form the fix would write raises ``RuntimeError``; and turning the ``pjit`` into ``jax.jit`` is no safe alternative
(it fails under both context managers). jaxlint reports the ``with`` and leaves the source as it is.
"""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.rules.jax401_mesh_context_manager import MeshContextManager
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from support.jaxenv import run_on_jax

pytestmark = pytest.mark.jax

PRELUDE = """import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
import jax
import jax.numpy as jnp
from jax.experimental.pjit import pjit
from jax.sharding import Mesh, PartitionSpec as P
"""

SOURCE = PRELUDE + """
step = pjit(lambda a: a * 2, in_shardings=P("x"), out_shardings=P("x"))

def main():
    mesh = Mesh(jax.devices(), ("x",))
    with mesh:
        print(step(jnp.arange(4.0)).tolist())

main()
"""

def attempt(transform: str, context: str, shardings: str = 'in_shardings=P("x"), out_shardings=P("x")') -> str:
    source = PRELUDE + f"""
mesh = Mesh(jax.devices(), ("x",))
f = {transform}(lambda a: a * 2, {shardings})
try:
    with {context}:
        print(f(jnp.arange(4.0)).tolist())
except Exception as error:
    print(type(error).__name__, str(error).split(" if ")[0].split(". Got")[0])
"""
    return run_on_jax("0.12.0.1", source).strip()


SETTINGS = Settings(select=("JAX401",), target_version=Version("0.12.0.1"), explicit_min_version=Version("0.10.2"),
                    min_version_source="test")


def test_the_fix_is_withheld_and_the_original_keeps_working():
    diagnostics = lint_source(SOURCE, "module.py", SETTINGS, rules=[MeshContextManager]).diagnostics
    assert [d.code for d in diagnostics] == ["JAX401"]
    assert diagnostics[0].fix is None and "pjit" in diagnostics[0].message
    assert fix_source(SOURCE, "module.py", SETTINGS, unsafe=True, rules=[MeshContextManager]).source == SOURCE
    assert run_on_jax("0.12.0.1", SOURCE).strip() == "[0.0, 2.0, 4.0, 6.0]"


def test_the_set_mesh_form_would_break_the_pjit():
    assert attempt("pjit", "mesh") == "[0.0, 2.0, 4.0, 6.0]"
    assert attempt("pjit", "jax.set_mesh(mesh)") == "RuntimeError pjit requires a non-empty mesh in context"


def test_jax_jit_is_no_safe_replacement_for_the_pjit():
    assert attempt("jax.jit", "mesh") == "RuntimeError jit requires a non-empty mesh in context"
    assert attempt("jax.jit", "jax.set_mesh(mesh)").startswith("ValueError Sharding passed to jit does not match")


def test_a_pjit_without_partition_specs_runs_under_set_mesh():
    # Why the fix is kept for ``pjit(f, out_shardings=None)`` (JAX401's examples).
    assert attempt("pjit", "jax.set_mesh(mesh)", "out_shardings=None") == "[0.0, 2.0, 4.0, 6.0]"
