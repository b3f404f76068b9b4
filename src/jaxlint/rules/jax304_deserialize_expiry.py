"""JAX304 deserialize-expiry: jax.export.deserialize may refuse stored artifacts past their expiry (work in progress)."""
from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import Invalid, Rule, Valid


class DeserializeExpiry(Rule):
    code = "JAX304"
    name = "deserialize-expiry"
    summary = "jax.export.deserialize may refuse stored artifacts past their expiry"
    since = "0.10.2"
    opt_in = True
    triggers = ('deserialize',)
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
