"""Which class a value is an instance of, where the module makes it plain to see (``ValueInference.classes``).

The method rules (JAX509) need the class of a call's receiver: ``cell.initialize_carry(...)`` matters only when
``cell`` is a ``flax.linen.LSTMCell``. The answer is a qualified name (an imported class), a ``ClassDef`` of the
module (the project's own class, which the rule follows to its bases), or None: unknown, and the rules stay silent.

What is followed, within one module:
- a call of a class: ``nn.LSTMCell(...)`` (a qualified callee whose last part starts with a capital letter: the
  naming convention of classes; ``jax.jit(f)`` is no class), ``Cell(...)`` for a class of the module;
- names: every binding in the scope that owns the name gives the same class (``cell = nn.LSTMCell(...)``, a
  parameter or a variable annotated ``cell: nn.LSTMCell``, ``(cell := nn.LSTMCell(...))``); a binding to the literal
  ``None`` is neutral, as in ``ValueInference``; a loop target, an unpacking, a ``with ... as``: unknown;
- ``self``: the class whose method binds it; ``self.cell``: every ``self.cell = ...`` in the class's methods
  (``__init__``, flax's ``setup``) and its class-level annotation (a flax dataclass field) agree;
- JAX's staged objects, whose class a function or method fixes (``_RETURNS``, ``_METHOD_RETURNS``, read in the
  wheels' ``jax/_src/stages.py``, ``jax/_src/export/_export.py``, ``jax/_src/mesh_utils.py``): ``jax.jit(f)`` and a
  function decorated with ``@jax.jit`` alone are ``Wrapped``, their ``.lower(...)`` a ``Lowered``, whose
  ``.compile()`` is a ``Compiled``; ``jax.export.export(f)(...)`` and ``jax.export.deserialize(...)`` an
  ``Exported``; ``jax.make_mesh(...)`` a ``Mesh``.
"""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.names import Binding, NameResolver

_NONE = "none"  # a binding to the literal None: neutral
_IN_PROGRESS = object()
_OPTIONAL = frozenset({"typing.Optional", "typing_extensions.Optional"})
_RETURNS = {
    "jax.jit": "jax.stages.Wrapped",
    "jax.export.deserialize": "jax.export.Exported",
    "jax.make_mesh": "jax.sharding.Mesh",
}
_EXPORT = "jax.export.export"  # ``export(f)`` is a function; what it returns, called, is the ``Exported``
_METHOD_RETURNS = {
    ("jax.stages.Wrapped", "lower"): "jax.stages.Lowered",
    ("jax.stages.Wrapped", "trace"): "jax.stages.Traced",
    ("jax.stages.Traced", "lower"): "jax.stages.Lowered",
    ("jax.stages.Lowered", "compile"): "jax.stages.Compiled",
}


class InstanceClasses:
    """``instance_class(node)``: the class of what ``node`` holds (lazily; every answer is cached)."""

    def __init__(self, resolver: NameResolver, class_of_self, stores) -> None:
        self.resolver = resolver
        self._class_of_self = class_of_self  # ``inference.class_of_self`` (bound to the resolver): a ``self``'s class
        self._stores = stores  # (class, attribute) -> the statements that store ``self.<attribute>``
        self._cache: dict[int, object] = {}

    def instance_class(self, node: cst.BaseExpression) -> "str | cst.ClassDef | None":
        key = id(node)
        cached = self._cache.get(key)
        if cached is _IN_PROGRESS:
            return None  # a cycle (``x = f(x)``)
        if key in self._cache:
            return cached  # type: ignore[return-value]
        self._cache[key] = _IN_PROGRESS
        try:
            found = self._infer(node)
        except RecursionError:  # pragma: no cover - absurdly deep code
            found = None
        self._cache[key] = None if found == _NONE else found
        return self._cache[key]  # type: ignore[return-value]

    def annotation_class(self, annotation: cst.BaseExpression) -> "str | cst.ClassDef | None":
        """The class an annotation names (``nn.LSTMCell``, ``Optional[nn.LSTMCell]``, ``Cell | None``)."""
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            kept = [side for side in (annotation.left, annotation.right) if not _is_none(side)]
            return self.annotation_class(kept[0]) if len(kept) == 1 else None
        if isinstance(annotation, cst.Subscript):
            if self.resolver.qualified_name(annotation.value) in _OPTIONAL and len(annotation.slice) == 1 \
                    and isinstance(annotation.slice[0].slice, cst.Index):
                return self.annotation_class(annotation.slice[0].slice.value)
            return None
        if isinstance(annotation, (cst.Name, cst.Attribute)):
            return self._class_named(annotation)
        return None

    # -- expressions -------------------------------------------------------------------------------------------
    def _infer(self, node: cst.BaseExpression) -> "str | cst.ClassDef | None":
        if isinstance(node, cst.Call):
            return self._call_class(node)
        if isinstance(node, cst.NamedExpr):
            return self.instance_class(node.value)
        if isinstance(node, cst.Name) and self.resolver.qualified_name(node) is None:
            return self._name_class(node)
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            owner = self._class_of_self(node.value)
            return self._attribute_class(owner, node.attr.value) if owner is not None else None
        return None

    def _call_class(self, node: cst.Call) -> "str | cst.ClassDef | None":
        func = node.func
        qualified = self.resolver.qualified_name(func)
        if qualified in _RETURNS:
            return _RETURNS[qualified]
        if isinstance(func, cst.Call) and self.resolver.qualified_name(func.func) == _EXPORT:
            return "jax.export.Exported"
        if isinstance(func, cst.Attribute) and qualified is None:
            receiver = self.instance_class(func.value)
            return _METHOD_RETURNS.get((receiver, func.attr.value)) if isinstance(receiver, str) else None
        return self._class_named(func)

    def _class_named(self, node: cst.BaseExpression) -> "str | cst.ClassDef | None":
        """The class a name or attribute chain refers to: imported (by its qualified name) or of the module."""
        qualified = self.resolver.qualified_name(node)
        if qualified is not None:
            return qualified if qualified.rpartition(".")[2][:1].isupper() else None
        if isinstance(node, cst.Name):
            bindings = self.resolver.bindings(node)
            if len(bindings) == 1 and isinstance(bindings[0].node, cst.ClassDef):
                return bindings[0].node
        return None

    # -- names -------------------------------------------------------------------------------------------------
    def _name_class(self, name: cst.Name) -> "str | cst.ClassDef | None":
        bindings = self.resolver.bindings(name)
        if not bindings:
            return None
        if len(bindings) == 1 and isinstance(bindings[0].node, cst.Param) and bindings[0].node.annotation is None:
            return self._class_of_self(name)  # ``self``; any other bare parameter: None
        return agree_on_class([self._binding_class(name.value, binding) for binding in bindings])

    def _binding_class(self, name: str, binding: Binding) -> "str | cst.ClassDef | None":
        bound = binding.node
        if isinstance(bound, cst.Assign):
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in bound.targets):
                return _NONE if _is_none(bound.value) else self.instance_class(bound.value)
            return None  # bound by unpacking
        if isinstance(bound, cst.AnnAssign) and isinstance(bound.target, cst.Name):
            declared = self.annotation_class(bound.annotation.annotation)
            if declared is not None or bound.value is None:
                return declared
            return self.instance_class(bound.value)
        if isinstance(bound, cst.NamedExpr):
            return self.instance_class(bound.value)
        if isinstance(bound, cst.Param) and bound.annotation is not None and not bound.star:
            return self.annotation_class(bound.annotation.annotation)
        if isinstance(bound, cst.FunctionDef) and len(bound.decorators) == 1 \
                and self.resolver.qualified_name(bound.decorators[0].decorator) == "jax.jit":
            return "jax.stages.Wrapped"
        return None

    # -- self.<attribute> --------------------------------------------------------------------------------------
    def _attribute_class(self, owner: cst.ClassDef, attribute: str) -> "str | cst.ClassDef | None":
        found: list = []
        annotations, stores = self._stores(owner, attribute)
        for statement in annotations:
            found.append(self.annotation_class(statement.annotation.annotation))
        for bound in stores:
            if isinstance(bound, cst.AnnAssign):
                declared = self.annotation_class(bound.annotation.annotation)
                found.append(declared if declared is not None or bound.value is None
                             else self.instance_class(bound.value))
            elif isinstance(bound, cst.Assign):
                found.append(_NONE if _is_none(bound.value) else self.instance_class(bound.value))
            else:
                found.append(None)  # unpacked, augmented, a loop or ``with`` target
        return agree_on_class(found)  # nothing stores it in this class (a base class or outside code does): None


def agree_on_class(found: list):
    """The one class every binding gives (``None`` literals neutral); None when they differ or none is known. A
    class is a qualified name, or a class of the module (a ``ClassDef`` of libcst's or of ``ast``'s tree: the
    ``ast`` port, ``analysis.ast_instance_classes``, agrees the same way), the same only as itself."""
    kept = [item for item in found if not (isinstance(item, str) and item == _NONE)]
    if not kept or any(item is None for item in kept):
        return None
    first = kept[0]
    same = all(item == first if isinstance(first, str) else item is first for item in kept)
    return first if same else None


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"
