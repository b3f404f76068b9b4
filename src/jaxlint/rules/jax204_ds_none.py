"""JAX204 ds-none: ds(start, None) and ds(None, size) changed meaning in JAX 0.11.1 (work in progress)."""
from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import Invalid, Rule, Valid


class DsNone(Rule):
    code = "JAX204"
    name = "ds-none"
    summary = "ds(start, None) and ds(None, size) changed meaning in JAX 0.11.1"
    since = "0.11.1"
    opt_in = False
    triggers = ('ds',)
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
