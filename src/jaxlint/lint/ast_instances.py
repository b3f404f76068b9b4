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


_SELF = "self"  # an unannotated parameter: ``self`` of some class of the file (``class_of_self``)


class MayClasses:
    """What ``InstanceClasses.instance_class`` may answer for one value, over-approximated from ``ast``: where it
    cannot be one of a rule's classes, a call on that value is no finding of the rule.

    The inference follows, per value: a call of a class (its callee's chain); a name's bindings in the scope that
    owns it (here: every assignment, annotation, walrus and parameter of that identifier in the file, whatever its
    scope: a superset); ``self.x``'s stores in its class (here: every ``<name>.x = ...``, ``<name>.x: T`` and
    class-level ``x: T`` of the file); an unannotated parameter may be ``self`` of any class of the file. A class of
    the file reaches a library class through a base (any chain in its bases, any class of the file named there).
    Only what can give a qualified name or a class of the file is followed; everything else answers nothing."""

    def __init__(self, view: AstView) -> None:
        self.view = view
        # identifier -> what binds it, attribute -> what stores it: (an annotation?, the node), or ``_SELF``
        self._bindings: dict[str, list] | None = None
        self._stores: dict[str, list] = {}
        self._classes: dict[str, list[ast.ClassDef]] = {}  # name -> the classes of the file of that name
        self._seen: dict[int, frozenset] = {}

    def may_be(self, node: ast.AST, owners: frozenset[str]) -> bool:
        """Whether ``instance_class(node)``, followed through a class of the file to its base as JAX509's
        ``_library_class`` follows it, may be one of ``owners``."""
        if owners & UNSPELLED or any(name.startswith("builtins.") for name in owners):
            return True
        self._index()
        for found in self._values(node):
            if found == _SELF:
                if any(self._reaches(cls, owners, set()) for classes in self._classes.values() for cls in classes):
                    return True
            elif self._chain_may_be(found, owners, set()):
                return True
        return False

    # -- the index of bindings and stores ------------------------------------------------------------------------
    def _index(self) -> None:
        if self._bindings is not None:
            return
        bindings: dict[str, list] = {}
        stores = self._stores
        for node in self.view.nodes:
            kind = type(node)
            if kind is ast.Assign:
                for target in node.targets:
                    if type(target) is ast.Name:
                        bindings.setdefault(target.id, []).append((False, node.value))
                    elif type(target) is ast.Attribute:
                        stores.setdefault(target.attr, []).append((False, node.value))
            elif kind is ast.AnnAssign:
                held = [(True, node.annotation)] + ([(False, node.value)] if node.value is not None else [])
                if type(node.target) is ast.Name:  # a class-level annotation is also a store of ``self.<name>``
                    bindings.setdefault(node.target.id, []).extend(held)
                    stores.setdefault(node.target.id, []).append((True, node.annotation))
                elif type(node.target) is ast.Attribute:
                    stores.setdefault(node.target.attr, []).extend(held)
            elif kind is ast.NamedExpr:
                bindings.setdefault(node.target.id, []).append((False, node.value))
            elif kind is ast.arg:
                bindings.setdefault(node.arg, []).append((True, node.annotation) if node.annotation is not None
                                                         else _SELF)
            elif kind is ast.ClassDef:
                self._classes.setdefault(node.name, []).append(node)
        self._bindings = bindings

    # -- values --------------------------------------------------------------------------------------------------
    def _values(self, node: ast.AST) -> frozenset:
        """The chains (class names, or names of classes of the file) and ``_SELF`` that ``node``'s class may come
        from: every value reachable through bindings and stores (a search of its own per value: an answer cut
        short by a cycle is never reused)."""
        key = id(node)
        if key in self._seen:
            return self._seen[key]
        found: set = set()
        stack, visited = [node], set()
        while stack:
            current = stack.pop()
            if id(current) in visited:
                continue
            visited.add(id(current))
            kind = type(current)
            if kind is ast.Call:
                if type(current.func) in (ast.Name, ast.Attribute):
                    found.add(current.func)  # the class called (``_class_named``)
            elif kind is ast.NamedExpr:
                stack.append(current.value)
            elif kind is ast.Name or kind is ast.Attribute and type(current.value) is ast.Name:
                held = self._bindings.get(current.id, ()) if kind is ast.Name else self._stores.get(current.attr, ())
                for bound in held:
                    if bound == _SELF:
                        found.add(_SELF)
                    elif bound[0]:  # an annotation: the chains it may name its class by (``Optional[X]``)
                        found.update(inner for inner in ast.walk(bound[1]) if type(inner) in (ast.Name, ast.Attribute))
                    else:
                        stack.append(bound[1])
        self._seen[key] = frozenset(found)
        return self._seen[key]

    # -- classes -------------------------------------------------------------------------------------------------
    def _chain_may_be(self, chain: ast.AST, owners: frozenset[str], seen: set[int]) -> bool:
        """Whether the class a chain names may be one of ``owners``, or a class of the file that reaches one."""
        try:
            if self.view.qualified_name_unless(chain, owners.__contains__) in owners:
                return True
        except Undecidable:
            return True
        if type(chain) is ast.Name:
            return any(self._reaches(cls, owners, seen) for cls in self._classes.get(chain.id, ()))
        return False

    def _reaches(self, cls: ast.ClassDef, owners: frozenset[str], seen: set[int]) -> bool:
        if id(cls) in seen:
            return False
        seen.add(id(cls))
        return any(self._chain_may_be(chain, owners, seen) for base in cls.bases for chain in ast.walk(base)
                   if type(chain) in (ast.Name, ast.Attribute))
