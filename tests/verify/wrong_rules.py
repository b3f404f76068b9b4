"""Deliberately wrong rewrites, for testing that the verifier catches them. Never registered as rules: they live in
tests/ and are passed to the verifier explicitly (``make_plan(..., rules=[...])``)."""
from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import Rule, safe_fix
from jaxlint.rules.calls import add_keyword, keyword_arg
from jaxlint.rules.jax202_take_along_axis import TakeAlongAxisWrap


class MeshgridWithoutList(Rule):
    """"Fixes" a meshgrid used as a list by spelling out ``indexing="xy"`` and leaving out the ``list(...)``."""

    code = "JAX201"
    name = "wrong-tuple-return"
    summary = "test-only: a wrong rewrite of meshgrid"
    explanation = ""
    since = "0.11.1"
    triggers = ("meshgrid",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) != "jax.numpy.meshgrid" or keyword_arg(node, "indexing") is not None:
            return
        edit = add_keyword(node, 'indexing="xy"', self.context.module.default_newline)
        self.report(node, "meshgrid (wrong fix)", safe_fix("Spell out indexing (and forget list(...))", edit,
                                                          probe=node))


class TakeAlongAxisWrongBool(TakeAlongAxisWrap):
    """Turns ``wrap_negative_indices=None`` into ``False`` where the old behaviour was ``True``."""

    def _explicit_none(self, node, wrap_arg, mode_arg):
        from jaxlint.rules.base import Replace

        self.report(node, "wrap_negative_indices=None (wrong fix)",
                    safe_fix("Replace with `wrap_negative_indices=False` (wrong)", Replace(wrap_arg.value, "False"),
                             probe=node))
