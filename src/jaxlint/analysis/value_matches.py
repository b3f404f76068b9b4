"""JAX601's rows whose use is recognised by what an argument holds (``complex-argument``: ``jnp.sign`` of a complex
value; ``batched-vector``: ``jnp.linalg.solve(a, b)`` with ``b.ndim == a.ndim - 1 >= 2``), decided on the whole file's
``ast`` tree (``analysis.array_values``), since the values are often bound in other statements than the call.

Both of JAX601's paths ask here, so they agree: the ``ast`` path with the file's view, the libcst path (which may see
only a cut of the file, ``lint.focus``) with the call's text. A call is known by its text without whitespace; where
the file holds the same text twice with different answers, neither path reports it (the ``ast`` path raises
``Undecidable``, the libcst path answers no).
"""
from __future__ import annotations

import ast
from typing import Iterable

from jaxlint.analysis.array_values import ArrayValues, argument
from jaxlint.catalogue.behaviour import Change
from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.ast_gate import parse_module

VALUE_MATCHES = frozenset({"complex-argument", "batched-vector"})


def call_key(text: str) -> str:
    return "".join(text.split())


def value_match(values: ArrayValues, row: Change, call: ast.Call) -> bool:
    """Whether the call's arguments certainly have the dtype or shape the row's change is about."""
    if any(type(arg) is ast.Starred for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        return False
    if row.match == "complex-argument":
        value = argument(call, row.keyword, row.position)
        return value is not None and values.is_complex(value)
    if row.match == "batched-vector":  # ``solve(a, b)``: a batched 1-D right-hand side before the change
        a, b = argument(call, "a", 0), argument(call, "b", 1)
        if a is None or b is None:
            return False
        a_ndim, b_ndim = values.ndim(a), values.ndim(b)
        return a_ndim is not None and b_ndim is not None and b_ndim >= 2 and b_ndim == a_ndim - 1
    return False


class ValueDecisions:
    """For one file: the answer of ``value_match`` for each call whose name ends as a value row's API does."""

    def __init__(self, view: AstView | None, rows: Iterable[Change]) -> None:
        self.by_key: dict[str, set[bool]] = {}
        by_last = {row.api.rpartition(".")[2]: row for row in rows if row.match in VALUE_MATCHES}
        if view is None or not by_last:
            return
        values = ArrayValues(view)
        for node in view.nodes:
            if type(node) is not ast.Call:
                continue
            func = node.func
            last = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
            row = by_last.get(last)
            if row is not None:
                self.by_key.setdefault(call_key(view.text(node)), set()).add(value_match(values, row, node))

    @classmethod
    def of_file(cls, file_text: str, settings, path: str, rows: Iterable[Change]) -> ValueDecisions:
        """The decisions from the whole file's text (a libcst visit of a cut of it)."""
        tree = parse_module(file_text)  # the gate's tree of this text, when it parsed it
        view = None
        if tree is not None:
            try:
                view = AstView(file_text, tree, file_text, settings=settings, path=path)
            except Undecidable:
                view = None
        return cls(view, rows)

    def certain(self, key: str) -> bool:
        """The libcst path: reported only where every call of that text matches."""
        return self.by_key.get(key) == {True}

    def decide(self, key: str) -> bool:
        """The ``ast`` path: ``Undecidable`` where calls of the same text answer differently."""
        found = self.by_key.get(key, {False})
        if len(found) > 1:
            raise Undecidable("the same call text with different argument values")
        return True in found
