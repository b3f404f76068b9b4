"""JAX203 empty-uninitialized: jnp.empty/empty_like may return uninitialized memory; use zeros (work in progress)."""
from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import Invalid, Rule, Valid


class EmptyUninitialized(Rule):
    code = "JAX203"
    name = "empty-uninitialized"
    summary = "jnp.empty/empty_like may return uninitialized memory; use zeros"
    since = "0.10.2"
    opt_in = True
    triggers = ('empty',)
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
