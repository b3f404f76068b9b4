"""JAX103 changed-signature: Arguments whose calling convention changed: jnp.array positional copy/order/ndmin, make_mesh(axis_shapes=) (work in progress)."""
from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import Invalid, Rule, Valid


class ChangedSignature(Rule):
    code = "JAX103"
    name = "changed-signature"
    summary = "Arguments whose calling convention changed: jnp.array positional copy/order/ndmin, make_mesh(axis_shapes=)"
    since = "0.10.2"
    opt_in = False
    triggers = ('array', 'make_mesh')
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
