"""JAX401 mesh-context-manager: `with mesh:` is deprecated; use `with jax.set_mesh(mesh):` (work in progress)."""
from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import Invalid, Rule, Valid


class MeshContextManager(Rule):
    code = "JAX401"
    name = "mesh-context-manager"
    summary = "`with mesh:` is deprecated; use `with jax.set_mesh(mesh):`"
    since = "0.10.1"
    opt_in = False
    triggers = ('with',)
    explanation = """
## What it does
Work in progress.

## Why
Work in progress.

## Example
Work in progress.

## Fix safety
Work in progress.
"""
    VALID = [Valid("""
        import jax
    """)]
    INVALID = []
