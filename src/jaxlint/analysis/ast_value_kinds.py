"""``jaxlint.lint.inference.ValueInference.kind_of`` on Python's ``ast`` (for rules that decide from ``ast``: JAX301's
``Exported`` receivers, JAX303's ``cfg = jax.config``): the same kind for the same expression, or ``Undecidable``.

It follows what ``kind_of`` follows, through ``AstNames`` (``NameResolver``'s port: the same bindings, the same
qualified names), except where porting it would be a second copy of a long search; there it raises ``Undecidable``
and the file goes to libcst:

- a call of the module's own function without a return annotation (``_returned_kind`` reads its ``return``s);
- ``self.<attribute>`` in a method (``_stored_kind`` reads the class's stores);
- a cycle (``x = f(x)``): libcst's answer there depends on which rule asked first (its cache keeps the answer it
  gave inside the cycle), so none is certain here.
"""
from __future__ import annotations

import ast

from jaxlint.analysis.ast_attribute_values import class_of_self
from jaxlint.lint.ast_findings import Undecidable
from jaxlint.lint.ast_names import AstNames, Binding
from jaxlint.lint.inference import (ANNOTATION_KINDS, ARRAY, ARRAY_FACTORIES, COMPILING, CONFIG, CONFIG_OBJECTS,
                                    EXPORT_FUNCTIONS, EXPORTED, EXPORTED_FACTORIES, MESH, MESH_FACTORIES, OTHER,
                                    _NOT_ONE_ARRAY, _OPTIONAL, _may_alias_array, _names_other_type)

_NONE = "none"  # ``inference._NONE``: a binding to the literal ``None``
_IN_PROGRESS = object()
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Bases ``ValueInference._may_be_jax_class`` knows are not JAX's.
_PLAIN_BASES = ("builtins.object", "typing.NamedTuple", "typing.Generic", "typing.Protocol", "abc.ABC")


class AstValueKinds:
    """``ValueInference`` for one ``ast`` module: ``kind_of`` answers MESH, EXPORTED, CONFIG, ARRAY, OTHER or None
    (unknown), as libcst's does, or raises ``Undecidable``."""

    def __init__(self, tree: ast.Module, names: AstNames | None = None) -> None:
        self.names = names if names is not None else AstNames(tree)
        self._cache: dict[int, object] = {}

    def kind_of(self, node: ast.AST) -> str | None:
        key = id(node)
        cached = self._cache.get(key)
        if cached is _IN_PROGRESS:
            raise Undecidable("a cycle in the value inference")
        if key in self._cache:
            return cached  # type: ignore[return-value]
        self._cache[key] = _IN_PROGRESS
        try:
            kind = self._infer(node)
        except RecursionError:
            raise Undecidable("absurdly deep code") from None
        except Undecidable:
            del self._cache[key]
            raise
        self._cache[key] = kind
        return kind

    def annotation_kind(self, annotation: ast.AST) -> str | None:
        """``ValueInference.annotation_kind``."""
        kind = type(annotation)
        if kind is ast.BinOp and type(annotation.op) is ast.BitOr:
            kept = [side for side in (annotation.left, annotation.right) if not _is_none(side)]
            return self.annotation_kind(kept[0]) if len(kept) == 1 else None
        if kind is ast.Subscript:
            # libcst's one ``Index`` (``x[a, b]`` is two, a slice is no ``Index``; ``x[(a, b)]`` one tuple, unknown)
            inner = annotation.slice
            if self.names.qualified_name(annotation.value) in _OPTIONAL and type(inner) not in (ast.Tuple, ast.Slice):
                return self.annotation_kind(inner)
            return None
        if kind not in (ast.Name, ast.Attribute):
            return None
        qualified = self.names.qualified_name(annotation)
        if qualified in ANNOTATION_KINDS:
            return ANNOTATION_KINDS[qualified]
        if qualified is not None:
            return OTHER if _names_other_type(qualified) else None
        if kind is ast.Name and self._project_class(annotation) is not None:
            return OTHER
        if kind is ast.Name and self._relative_import(annotation) and not _may_alias_array(annotation.id):
            return OTHER
        return None

    # -- expressions -----------------------------------------------------------------------------------------
    def _infer(self, node: ast.AST) -> str | None:
        kind = type(node)
        if kind is ast.Name or kind is ast.Attribute:
            qualified = self.names.qualified_name(node)
            if qualified in CONFIG_OBJECTS:
                return CONFIG
            if qualified is not None:
                return None
            return self._name_kind(node) if kind is ast.Name else self._attribute_kind(node)
        if kind is ast.Call:
            return self._call_kind(node)
        if kind is ast.NamedExpr:
            return self.kind_of(node.value)
        if kind is ast.Subscript and type(node.slice) is not ast.Slice and self._holds_device_buffers(node.value):
            if type(node.slice) is ast.Tuple:
                raise Undecidable("a tuple index: one element or several to libcst")
            return ARRAY
        return None

    def _holds_device_buffers(self, node: ast.AST) -> bool:
        return type(node) is ast.Attribute and node.attr == "device_buffers" and self.kind_of(node.value) != OTHER

    def _call_kind(self, call: ast.Call) -> str | None:
        func = call.func
        if type(func) is ast.Call:
            inner = self.names.qualified_name(func.func)
            if inner in EXPORT_FUNCTIONS:
                return EXPORTED
            return ARRAY if inner in COMPILING else None
        qualified = self._callee(func)
        if qualified is not None:
            if qualified in MESH_FACTORIES:
                return MESH
            if qualified in EXPORTED_FACTORIES:
                return EXPORTED
            if qualified in ARRAY_FACTORIES:
                return ARRAY
            module, _, last = qualified.rpartition(".")
            if module in ("jax.numpy", "jax.random") and last not in _NOT_ONE_ARRAY and not last[:1].isupper():
                return ARRAY
            return None
        if type(func) is ast.Name:
            bindings = self.names.bindings(func)
            if len(bindings) == 1 and type(bindings[0].node) is ast.ClassDef:
                return OTHER  # an instance of the module's own class
            if len(bindings) == 1 and type(bindings[0].node) in _FUNCTIONS:
                function = bindings[0].node
                if function.returns is None:
                    raise Undecidable("a call of the module's own function: its returns decide")
                return self.annotation_kind(function.returns)
        return None

    def _callee(self, func: ast.AST) -> str | None:
        """``ValueInference.callee``: also through a local alias bound once (``Mesh = jax.sharding.Mesh``)."""
        qualified = self.names.qualified_name(func)
        if qualified is None and type(func) is ast.Name:
            bindings = self.names.bindings(func)
            if len(bindings) == 1 and type(bindings[0].node) is ast.Assign \
                    and type(bindings[0].node.value) in (ast.Name, ast.Attribute) \
                    and len(bindings[0].node.targets) == 1:
                qualified = self.names.qualified_name(bindings[0].node.value)
        return qualified

    # -- names -----------------------------------------------------------------------------------------------
    def _name_kind(self, name: ast.Name) -> str | None:
        bindings = self.names.bindings(name)
        if not bindings:
            return None
        if len(bindings) == 1 and type(bindings[0].node) is ast.arg and bindings[0].node.annotation is None:
            owner = class_of_self(self.names, name)
            if owner is not None and not self._may_be_jax_class(owner, set()):
                return OTHER  # ``self``: an instance of the module's own class
        return _agree({self._binding_kind(name.id, binding) for binding in bindings})

    def _binding_kind(self, name: str, binding: Binding) -> str | None:
        bound = binding.node
        kind = type(bound)
        if kind is ast.Import or kind is ast.ImportFrom:
            return CONFIG if binding.qualified in CONFIG_OBJECTS else None
        if kind is ast.Assign:
            if any(type(target) is ast.Name and target.id == name for target in bound.targets):
                return _NONE if _is_none(bound.value) else self.kind_of(bound.value)
            return None  # bound by unpacking
        if kind is ast.AnnAssign:
            if type(bound.target) is not ast.Name:
                return None
            declared = self.annotation_kind(bound.annotation)
            if declared is not None:
                return declared
            return self.kind_of(bound.value) if bound.value is not None else None
        if kind is ast.NamedExpr:
            return self.kind_of(bound.value)
        if kind in (ast.For, ast.AsyncFor, ast.comprehension):
            named = type(bound.target) is ast.Name and bound.target.id == name
            return ARRAY if named and self._holds_device_buffers(bound.iter) else None
        if kind is ast.arg:
            if bound.annotation is None or self._is_star(bound):
                return None
            return self.annotation_kind(bound.annotation)
        if kind is ast.withitem:
            if type(bound.optional_vars) is ast.Name and self.kind_of(bound.context_expr) == MESH:
                return MESH
            return None
        return None

    def _is_star(self, parameter: ast.arg) -> bool:
        """``*args`` or ``**kwargs`` (libcst's ``Param.star``)."""
        scope = self.names.scope_of(parameter)
        arguments = getattr(scope.node, "args", None) if scope is not None else None
        return arguments is not None and parameter in (arguments.vararg, arguments.kwarg)

    def _may_be_jax_class(self, owner: ast.ClassDef, seen: set[int]) -> bool:
        if id(owner) in seen:
            raise Undecidable("a class among its own bases")
        seen.add(id(owner))
        for base in owner.bases:
            if type(base) is ast.Starred:
                raise Undecidable("a starred base: libcst reads the name after the star")
            qualified = self.names.qualified_name(base)
            if qualified in _PLAIN_BASES:
                continue
            if type(base) is ast.Name and qualified is None:
                inner = self._project_class(base)
                if inner is not None and not self._may_be_jax_class(inner, seen):
                    continue
            return True
        return False

    def _project_class(self, name: ast.Name) -> ast.ClassDef | None:
        bindings = self.names.bindings(name)
        if len(bindings) == 1 and type(bindings[0].node) is ast.ClassDef:
            return bindings[0].node
        return None

    def _relative_import(self, name: ast.Name) -> bool:
        bindings = self.names.bindings(name)
        return bool(bindings) and all(type(b.node) is ast.ImportFrom and b.node.level for b in bindings)

    # -- self.<attribute> --------------------------------------------------------------------------------------
    def _attribute_kind(self, node: ast.Attribute) -> str | None:
        if type(node.value) is not ast.Name or class_of_self(self.names, node.value) is None:
            return None
        raise Undecidable("an attribute of `self`: the class's stores decide")


def _agree(kinds: set) -> str | None:
    """``inference._agree``."""
    if len(kinds) == 2 and _NONE in kinds:
        kinds = kinds - {_NONE}
    kind = next(iter(kinds)) if len(kinds) == 1 else None
    return None if kind == _NONE else kind


def _is_none(node: ast.AST) -> bool:
    """libcst's name ``None``: a constant to ``ast``."""
    return type(node) is ast.Constant and node.value is None
