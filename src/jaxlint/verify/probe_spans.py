"""A probe span for a fix whose rule named none (a rename such as ``jax.tree_map`` -> ``jax.tree.map``).

The probed expression is the smallest one that holds every edit of the fix, widened so that it is a value the
program uses: a renamed function is probed as the call it makes (``jax.tree_map(f, x)``), a renamed module prefix
as the whole attribute chain. Nothing is probed where wrapping the text would change what it means (an import, an
assignment or ``del`` target, a parameter, a keyword name, an unparenthesised tuple, a generator argument).
"""
from __future__ import annotations

from typing import Sequence

import libcst as cst

from jaxlint.lint.diagnostics import Edit
from jaxlint.lint.positions import SpanError, node_spans

# Expressions whose text cannot be wrapped in ``record(id, <text>)`` as it stands.
_UNWRAPPABLE = (cst.Tuple, cst.GeneratorExp, cst.Yield, cst.StarredElement, cst.StarredDictElement, cst.Await,
                cst.NamedExpr)
# Parents under which a Name/Attribute is a binding or a name, not a value that is read.
_NOT_A_VALUE = (cst.Import, cst.ImportFrom, cst.ImportAlias, cst.AsName, cst.AssignTarget, cst.Del, cst.Param,
                cst.FunctionDef, cst.ClassDef, cst.Global, cst.Nonlocal, cst.CompFor, cst.For, cst.AugAssign,
                cst.AnnAssign, cst.Decorator, cst.MatchAs, cst.MatchStar, cst.MatchMapping, cst.MatchClass)


class _Collector(cst.CSTVisitor):
    """The ancestor chain (outermost first) of the innermost expression holding ``[low, high)``."""

    def __init__(self, spans: dict, low: int, high: int) -> None:
        self.spans, self.low, self.high = spans, low, high
        self.stack: list[cst.CSTNode] = []
        self.best: list[cst.CSTNode] | None = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        try:
            start, end = self.spans[node]
        except (KeyError, SpanError):
            return False
        if not (start <= self.low and self.high <= end):
            return False
        self.stack.append(node)
        if isinstance(node, cst.BaseExpression):
            self.best = list(self.stack)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


def _widen(chain: list[cst.CSTNode]) -> int:
    """Index in ``chain`` of the value to probe: climb out of callee, attribute-prefix and subscript-base slots."""
    index = len(chain) - 1
    while index > 0:
        node, parent = chain[index], chain[index - 1]
        if isinstance(parent, cst.Call) and parent.func is node:
            index -= 1
        elif isinstance(parent, cst.Attribute) and (parent.value is node or parent.attr is node):
            index -= 1
        elif isinstance(parent, cst.Subscript) and parent.value is node:
            index -= 1
        else:
            break
    return index


def _is_read(chain: list[cst.CSTNode], index: int) -> bool:
    node = chain[index]
    parent = chain[index - 1] if index > 0 else None
    if any(isinstance(ancestor, (cst.Import, cst.ImportFrom)) for ancestor in chain[:index]):
        return False
    if isinstance(parent, _NOT_A_VALUE):
        # Only the parts of these nodes that are read are values (an annotation, a default, an iterable...).
        slot_names = {cst.AssignTarget: "target", cst.Del: "target", cst.For: "target", cst.CompFor: "target",
                      cst.AugAssign: "target", cst.AnnAssign: "target", cst.Param: "name", cst.FunctionDef: "name",
                      cst.ClassDef: "name", cst.AsName: "name", cst.ImportAlias: "name", cst.Decorator: "decorator",
                      cst.MatchAs: "name", cst.MatchStar: "name"}
        slot = slot_names.get(type(parent))
        if slot is None or getattr(parent, slot, None) is node:
            return False
    if isinstance(parent, cst.Arg) and parent.keyword is node:
        return False
    if isinstance(parent, (cst.NamedExpr,)) and parent.target is node:
        return False
    return isinstance(node, cst.BaseExpression) and not isinstance(node, _UNWRAPPABLE)


def derive_probe(source: str, edits: Sequence[Edit], module: cst.Module | None = None) -> tuple[int, int] | None:
    """The ``[start, end)`` span in ``source`` of the expression to probe for ``edits``, or None (no value)."""
    if not edits:
        return None
    low, high = min(e.start for e in edits), max(e.end for e in edits)
    try:
        module = module if module is not None else cst.parse_module(source)
        spans = node_spans(module, source)
    except (cst.ParserSyntaxError, SpanError):
        return None
    collector = _Collector(spans, low, high)
    module.visit(collector)
    chain = collector.best
    if not chain:
        return None
    index = _widen(chain)
    if not _is_read(chain, index):
        return None
    try:
        return spans[chain[index]]
    except (KeyError, SpanError):
        return None
