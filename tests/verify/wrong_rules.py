"""Deliberately wrong rewrites, for testing that the verifier catches them. Never registered as rules: they live in
tests/ and are passed to the verifier explicitly (``make_plan(..., rules=[...])``)."""
from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import Replace, Rule, safe_fix
from jaxlint.analysis.calls import add_keyword, keyword_arg
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


class TreeLeavesAsFlatten(Rule):
    """"Fixes" ``jax.tree_leaves(x)`` as ``jax.tree.flatten(x)`` (forgetting that it returns (leaves, treedef))."""

    code = "JAX101"
    name = "wrong-tree-leaves"
    summary = "test-only: a wrong rewrite of jax.tree_leaves"
    explanation = ""
    since = "0.6.0"
    triggers = ("tree_leaves",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) == "jax.tree_leaves":
            self.report(node, "jax.tree_leaves (wrong fix)",
                        safe_fix("Use jax.tree.flatten (wrong)", Replace(node.func, "jax.tree.flatten"), probe=node))


class TreeMapFirstTreeTwice(Rule):
    """"Fixes" ``jax.tree_map(lambda x, y: x * y, a, b)`` as ``jax.tree.map(lambda x, y: x * y, a, a)`` (a
    copy-paste slip: both runs succeed, the values differ); every other ``jax.tree_map`` gets the right rename."""

    code = "JAX101"
    name = "wrong-tree-map"
    summary = "test-only: a wrong rewrite of jax.tree_map"
    explanation = ""
    since = "0.6.0"
    triggers = ("tree_map",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) != "jax.tree_map":
            return
        edits = [Replace(node.func, "jax.tree.map")]
        args = node.args
        if len(args) == 3 and not any(a.keyword or a.star for a in args) and isinstance(args[0].value, cst.Lambda) \
                and isinstance(args[0].value.body, cst.BinaryOperation):
            edits.append(Replace(args[2].value, self.code_for(args[1].value)))
        self.report(node, "jax.tree_map (wrong fix)", safe_fix("Use jax.tree.map (wrong for arithmetic lambdas)",
                                                                *edits, probe=node))
