"""Whether a value may be an instance of some JAX classes, from the ``ast`` tree: a sound over-approximation of
``jaxlint.lint.instance_classes.InstanceClasses.instance_class`` for deciding "no finding" without libcst.

``may_be_instance(view, node, classes)`` is False only where ``instance_class(node)`` (on the libcst tree of the
same source) is certainly none of ``classes`` (qualified names); True where it may be one, and the caller then asks
libcst (``Undecidable``). Each answer of ``instance_class`` that is a qualified name comes from one of these
sources, which are followed here, more loosely than there (so the answer covers libcst's):

- a call: its callee's qualified name (a class, or ``_RETURNS``: ``jax.jit``, ``jax.make_mesh``...),
  ``jax.export.export(f)(...)``, or ``<receiver>.lower(...)``/``.trace(...)``/``.compile()`` of a receiver that
  may be of the class whose method returns one of ``classes`` (``_METHOD_RETURNS``);
- ``(x := value)``: the value;
- a name: every binding of that identifier anywhere in the file, whatever its scope (an assignment's value, an
  annotation, a function decorated with ``jax.jit``); libcst reads only the bindings of the name's own scope and
  needs them all to agree;
- ``<name>.<attribute>`` (``self.x``): every store to an attribute of that name on anything in the file, and every
  annotated name of that name (a class-level field).

A qualified name that is not certain from ``ast`` (``AstView.qualified_name_unless``) but may be one that matters
raises ``Undecidable``.
"""
from __future__ import annotations

import ast
from typing import Iterable

from jaxlint.lint.ast_findings import AstView
from jaxlint.lint.instance_classes import _EXPORT, _METHOD_RETURNS, _RETURNS

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class _Sources:
    """Per identifier, the expressions that may give a name of it its class; per attribute, those that may give
    ``<name>.<attribute>`` its class (built once per file, on the view)."""

    def __init__(self, view: AstView) -> None:
        self.names: dict[str, list[ast.AST]] = {}
        self.attributes: dict[str, list[ast.AST]] = {}
        for node in view.nodes:
            kind = type(node)
            if kind is ast.Assign:
                for target in node.targets:
                    self._targets(target, node.value)
            elif kind is ast.AnnAssign:
                # an annotation, or the value where the annotation names no class (both followed)
                self._targets(node.target, node.annotation)
                if node.value is not None:
                    self._targets(node.target, node.value)
                if type(node.target) is ast.Name:  # a class-level field: ``self.<name>``'s annotation
                    self.attributes.setdefault(node.target.id, []).append(node.annotation)
            elif kind is ast.NamedExpr:
                self._targets(node.target, node.value)
            elif kind is ast.arg:
                if node.annotation is not None:
                    self.names.setdefault(node.arg, []).append(node.annotation)
            elif kind in _FUNCTIONS:
                self.names.setdefault(node.name, []).append(node)  # ``@jax.jit``: a ``Wrapped``

    def _targets(self, target: ast.AST, value: ast.AST) -> None:
        """``value`` for every name and attribute ``target`` stores (an unpacking too: followed, never a class)."""
        kind = type(target)
        if kind is ast.Name:
            self.names.setdefault(target.id, []).append(value)
        elif kind is ast.Attribute:
            self.attributes.setdefault(target.attr, []).append(value)
        elif kind in (ast.Tuple, ast.List):
            for element in target.elts:
                self._targets(element, value)
        elif kind is ast.Starred:
            self._targets(target.value, value)


def _sources(view: AstView) -> _Sources:
    cached = view.__dict__.get("_value_sources")
    if cached is None:
        cached = view.__dict__["_value_sources"] = _Sources(view)
    return cached


def may_be_instance(view: AstView, node: ast.AST, classes: Iterable[str]) -> bool:
    """Whether ``instance_class(node)`` may be one of ``classes`` (``Undecidable`` where a name that may matter is
    not certain)."""
    classes = frozenset(classes)
    return bool(classes) and _May(view).value(node, classes)


class _May:
    def __init__(self, view: AstView) -> None:
        self.view = view
        self.sources = _sources(view)
        self.seen: set[tuple[object, frozenset[str]]] = set()  # a source followed once per query (cycles)

    def value(self, node: ast.AST, classes: frozenset[str]) -> bool:
        key = (id(node), classes)
        if key in self.seen:
            return False  # already followed in this query: its answer is counted there
        self.seen.add(key)
        kind = type(node)
        if kind is ast.Call:
            return self._call(node, classes)
        if kind is ast.NamedExpr:
            return self.value(node.value, classes)
        if kind is ast.Name:
            return self._followed(("name", node.id), self.sources.names.get(node.id, ()), classes)
        if kind is ast.Attribute and type(node.value) is ast.Name:
            return self._followed(("attribute", node.attr), self.sources.attributes.get(node.attr, ()), classes)
        if kind in _FUNCTIONS:  # a binding by ``def``: ``@jax.jit`` alone makes a ``Wrapped``
            return "jax.stages.Wrapped" in classes and any(
                self._qualified(decorator, classes) == "jax.jit" for decorator in node.decorator_list)
        return False

    def _followed(self, key: tuple[str, str], sources: Iterable[ast.AST], classes: frozenset[str]) -> bool:
        if (key, classes) in self.seen:
            return False
        self.seen.add((key, classes))
        return any(self._annotation(source, classes) if _is_annotation(self.view, source)
                   else self.value(source, classes) for source in sources)

    def _annotation(self, annotation: ast.AST, classes: frozenset[str]) -> bool:
        """``annotation_class``: any name or attribute chain in it may be the class."""
        return any(type(part) in (ast.Name, ast.Attribute) and self._qualified(part, classes) in classes
                   for part in ast.walk(annotation))

    def _call(self, node: ast.Call, classes: frozenset[str]) -> bool:
        func = node.func
        qualified = self._qualified(func, classes) if type(func) in (ast.Name, ast.Attribute) else None
        if qualified is not None:
            return _RETURNS.get(qualified, qualified) in classes
        if type(func) is ast.Call and type(func.func) in (ast.Name, ast.Attribute):
            if "jax.export.Exported" in classes and self._qualified(func.func, classes) == _EXPORT:
                return True
        if type(func) is ast.Attribute:
            receivers = frozenset(receiver for (receiver, method), returned in _METHOD_RETURNS.items()
                                  if method == func.attr and returned in classes)
            return bool(receivers) and self.value(func.value, receivers)
        return False

    def _qualified(self, node: ast.AST, classes: frozenset[str]) -> str | None:
        """The resolver's name for a name or attribute chain, where it may matter: one of ``classes``, or a callable
        whose result may be one of them."""
        root = node
        while type(root) is ast.Attribute:
            root = root.value
        if type(root) is not ast.Name or not (self.view.star_import or self.view.may_import(root.id)):
            return None  # never imported: the resolver qualifies no such name (no class here is a builtin)

        def relevant(qualified: str) -> bool:
            return qualified in classes or qualified in _RETURNS or qualified == _EXPORT

        return self.view.qualified_name_unless(node, relevant)


def _is_annotation(view: AstView, node: ast.AST) -> bool:
    """Whether ``node`` is held as an annotation (of an argument or an annotated assignment)."""
    parent, field = view.parent(node)
    return field == "annotation" and type(parent) in (ast.arg, ast.AnnAssign)
