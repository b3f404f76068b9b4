"""Which classes ``jaxlint.lint.instance_classes`` could answer in a file, read from its ``ast`` tree (for rules that
decide from ``ast``: ``jaxlint.lint.ast_findings``).

``InstanceClasses`` answers a qualified name only in two ways: the resolver's name for a name or attribute chain of
the module (a callee ``nn.LSTMCell(...)``, an annotation ``cell: nn.LSTMCell``, a project class's base
``class Opt(nnx.Optimizer)``: ``_class_named``), or one of the classes JAX's staged objects are known to be
(``UNSPELLED``: ``jax.jit(f)`` is a ``jax.stages.Wrapped``), or a builtin's (``builtins.None`` for libcst's name
``None``, a constant to ``ast``). So where no chain of the file can resolve to one of the
classes a rule asks about, no value of the file is an instance of one of them, for certain, whatever the inference
follows (names, ``self.x``, ``self``, a project class's bases), and a rule that reports only on those classes has
nothing to report. ``may_name_class`` answers that, over-approximating the resolver as ``AstView.qualified_name_unless``
does: every import of the chain's root, in any scope; a star import, which may bind any name, counts as naming every
class.
"""
from __future__ import annotations

import ast
from typing import Iterable

from jaxlint.lint.ast_findings import AstView, Undecidable, walk
from jaxlint.lint.instance_classes import _METHOD_RETURNS, _RETURNS

# What ``InstanceClasses`` answers without a chain of the file naming it (``jax.export.export(f)(...)``'s
# ``jax.export.Exported`` among ``_RETURNS``' values).
UNSPELLED = frozenset(_RETURNS.values()) | frozenset(_METHOD_RETURNS.values())


def may_name_class(view: AstView, classes: Iterable[str]) -> bool:
    """Whether ``InstanceClasses`` could answer one of ``classes`` (qualified names) anywhere in the file: some
    name or attribute chain may resolve to one (True also where a star import makes it unclear)."""
    wanted = frozenset(classes)
    if not wanted:
        return False
    if wanted & UNSPELLED or any(name.startswith("builtins.") for name in wanted):
        return True  # a builtin needs no import (and ``None`` is a name to libcst only)
    last_parts = frozenset(name.rpartition(".")[2] for name in wanted)
    for node in walk(view, (ast.Name, ast.Attribute)):
        if (node.id if type(node) is ast.Name else node.attr) not in last_parts:
            continue  # a chain names a class by its last part
        try:
            if view.qualified_name_unless(node, wanted.__contains__) in wanted:
                return True
        except Undecidable:  # a star import, or an import of one of them beside other bindings
            return True
    return False
