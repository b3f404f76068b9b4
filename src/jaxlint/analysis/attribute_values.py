"""What ``self.<attribute>`` may hold, for the searches that follow a ``with`` block's calls (JAX401's fix safety).

``self.model.train(batch)`` runs whatever class ``self.model`` holds: the class says so where it stores it
(``self.model = Model(cfg)`` in any method, ``self.model: Model`` there, or ``model: Model`` / ``model = ...`` in
the class body). The searches (``project_reach``, ``pjit_specs``) open those values and annotations, so a name in
them that comes from another module (``Model``, imported) or names the module's own class is followed as if the
block had spelled it. ``self.train_step(...)`` is the class's own method: its body is opened. An attribute the class
never stores comes from a base class (or from outside): the bases are opened instead, so an attribute inherited
from a class of a risky module counts. Only ``self`` of a method is followed; anything else stays unknown (the
searches then do what they did without this).
"""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.inference import attribute_stores, class_of_self
from jaxlint.lint.names import NameResolver


def self_attribute(node: cst.BaseExpression) -> cst.Attribute | None:
    """The ``self.<attribute>`` link at the root of an attribute chain (``self.model`` in ``self.model.train``),
    when the chain starts at a plain name; the caller checks that the name is a method's ``self``."""
    link = None
    while isinstance(node, cst.Attribute):
        link, node = node, node.value
    return link if isinstance(node, cst.Name) and link is not None else None


class AttributeValues:
    """``sources(self.<attribute>)``: what to search for the value it holds (answers cached per class)."""

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver
        self._cache: dict[tuple[int, str], list[cst.CSTNode]] = {}

    def owner(self, link: cst.Attribute) -> cst.ClassDef | None:
        """The class of ``self`` in ``self.<attribute>``, or None when the receiver is no method's ``self``."""
        return class_of_self(self.resolver, link.value) if isinstance(link.value, cst.Name) else None

    def sources(self, link: cst.Attribute) -> list[cst.CSTNode] | None:
        """The nodes that say what ``self.<attribute>`` holds: stored values and annotations, a method's body, or
        the class's bases; None when the receiver is not ``self`` (unknown)."""
        owner = self.owner(link)
        if owner is None:
            return None
        key = (id(owner), link.attr.value)
        if key not in self._cache:
            self._cache[key] = _sources(owner, link.attr.value)
        return self._cache[key]


def method_body(owner: cst.ClassDef, name: str) -> cst.CSTNode | None:
    """The body of the class's own method ``name`` (a property too), or None."""
    for statement in owner.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            return statement.body
    return None


def _sources(owner: cst.ClassDef, attribute: str) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    method = method_body(owner, attribute)
    if method is not None:
        found.append(method)
    for statement in owner.body.body:  # ``model = Model()`` in the class body (annotations come with the stores)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and any(
                        isinstance(t.target, cst.Name) and t.target.value == attribute for t in small.targets):
                    found.append(small.value)
    for store in attribute_stores(owner, attribute):
        found.extend(_stored(store))
    if not found:  # stored by a base class (or by code outside): what the bases run
        found.extend(base.value for base in owner.bases)
    return found


def _stored(store: cst.CSTNode) -> list[cst.CSTNode]:
    """The parts of a store that say what it stores: the value, the annotation, the iterable of a loop."""
    if isinstance(store, cst.AnnAssign):
        return [store.annotation] + ([store.value] if store.value is not None else [])
    if isinstance(store, (cst.Assign, cst.AugAssign, cst.NamedExpr)):
        return [store.value]
    if isinstance(store, (cst.For, cst.CompFor)):
        return [store.iter]
    if isinstance(store, cst.WithItem):
        return [store.item]
    return []  # an unpacking target: which part of the value it gets is not followed
