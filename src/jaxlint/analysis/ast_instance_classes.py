"""``jaxlint.lint.instance_classes.InstanceClasses`` on Python's ``ast`` (for JAX509's ``ast`` path): the same answers
(a qualified class name, a ``ClassDef`` of the module, or None for unknown) from the same sources, asked through
``AstNames`` (the resolver's port) and ``ast_attribute_values`` (``self``'s class, ``self.x``'s stores).

Where the answer is not certain it raises ``Undecidable``: a cycle (``ast_value_kinds.inferred_once``).
"""
from __future__ import annotations

import ast

from jaxlint.analysis.ast_attribute_values import attribute_answers, class_of_self, is_none
from jaxlint.analysis.ast_value_kinds import inferred_once
from jaxlint.lint.ast_findings import AstView
from jaxlint.lint.ast_names import AstNames, Binding
from jaxlint.lint.instance_classes import _EXPORT, _METHOD_RETURNS, _NONE, _OPTIONAL, _RETURNS, agree_on_class

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class AstInstanceClasses:
    """One file's answers (cached per node)."""

    def __init__(self, view: AstView) -> None:
        self.view = view
        self._cache: dict[int, object] = {}

    @property
    def names(self) -> AstNames:
        return self.view.names()

    def instance_class(self, node: ast.AST) -> "str | ast.ClassDef | None":
        # (``_infer`` never answers the neutral ``_NONE``: only a binding's class is that, and ``agree_on_class``
        # reads it)
        return inferred_once(self._cache, id(node), lambda: self._infer(node), "a cycle in the class inference")

    def annotation_class(self, annotation: ast.AST) -> "str | ast.ClassDef | None":
        """The class an annotation names (``nn.LSTMCell``, ``Optional[nn.LSTMCell]``, ``Cell | None``)."""
        kind = type(annotation)
        if kind is ast.BinOp and type(annotation.op) is ast.BitOr:
            kept = [side for side in (annotation.left, annotation.right) if not is_none(side)]
            return self.annotation_class(kept[0]) if len(kept) == 1 else None
        if kind is ast.Subscript:
            if self.names.qualified_name(annotation.value) in _OPTIONAL \
                    and type(annotation.slice) not in (ast.Slice, ast.Tuple):
                return self.annotation_class(annotation.slice)
            return None  # (a tuple: several elements, or one tuple, a class either way never)
        if kind is ast.Name or kind is ast.Attribute:
            return self._class_named(annotation)
        return None

    # -- expressions -------------------------------------------------------------------------------------------
    def _infer(self, node: ast.AST) -> "str | ast.ClassDef | None":
        kind = type(node)
        if kind is ast.Call:
            return self._call_class(node)
        if kind is ast.NamedExpr:
            return self.instance_class(node.value)
        if kind is ast.Name and self.names.qualified_name(node) is None:
            return self._name_class(node)
        if kind is ast.Attribute and type(node.value) is ast.Name:
            owner = class_of_self(self.names, node.value)
            return self._attribute_class(owner, node.attr) if owner is not None else None
        return None

    def _call_class(self, node: ast.Call) -> "str | ast.ClassDef | None":
        func = node.func
        qualified = self.names.qualified_name(func)
        if qualified in _RETURNS:
            return _RETURNS[qualified]
        if type(func) is ast.Call and self.names.qualified_name(func.func) == _EXPORT:
            return "jax.export.Exported"
        if type(func) is ast.Attribute and qualified is None:
            receiver = self.instance_class(func.value)
            return _METHOD_RETURNS.get((receiver, func.attr)) if isinstance(receiver, str) else None
        return self._class_named(func)

    def _class_named(self, node: ast.AST) -> "str | ast.ClassDef | None":
        """The class a name or attribute chain refers to: imported (by its qualified name) or of the module."""
        qualified = self.names.qualified_name(node)
        if qualified is not None:
            return qualified if qualified.rpartition(".")[2][:1].isupper() else None
        if type(node) is ast.Name:
            bindings = self.names.bindings(node)
            if len(bindings) == 1 and type(bindings[0].node) is ast.ClassDef:
                return bindings[0].node
        return None

    # -- names -------------------------------------------------------------------------------------------------
    def _name_class(self, name: ast.Name) -> "str | ast.ClassDef | None":
        bindings = self.names.bindings(name)
        if not bindings:
            return None
        if len(bindings) == 1 and type(bindings[0].node) is ast.arg and bindings[0].node.annotation is None:
            return class_of_self(self.names, name)  # ``self``; any other bare parameter: None
        return agree_on_class([self._binding_class(name.id, binding) for binding in bindings])

    def _binding_class(self, name: str, binding: Binding) -> "str | ast.ClassDef | None":
        bound = binding.node
        kind = type(bound)
        if kind is ast.Assign:
            if any(type(target) is ast.Name and target.id == name for target in bound.targets):
                return _NONE if is_none(bound.value) else self.instance_class(bound.value)
            return None  # bound by unpacking
        if kind is ast.AnnAssign and type(bound.target) is ast.Name:
            declared = self.annotation_class(bound.annotation)
            if declared is not None or bound.value is None:
                return declared
            return self.instance_class(bound.value)
        if kind is ast.NamedExpr:
            return self.instance_class(bound.value)
        if kind is ast.arg:
            if bound.annotation is None or self.view.parent(bound)[1] in ("vararg", "kwarg"):
                return None
            return self.annotation_class(bound.annotation)
        if kind in _FUNCTIONS and len(bound.decorator_list) == 1 \
                and self.names.qualified_name(bound.decorator_list[0]) == "jax.jit":
            return "jax.stages.Wrapped"
        return None

    # -- self.<attribute> --------------------------------------------------------------------------------------
    def _attribute_class(self, owner: ast.ClassDef, attribute: str) -> "str | ast.ClassDef | None":
        """What every class-level annotation of ``attribute`` and store of ``self.<attribute>`` in the class's
        methods give (``inference._attribute_stores``, as ``AstValueKinds._stored_kind`` reads them)."""
        return agree_on_class(list(attribute_answers(owner, attribute, self.annotation_class, self.instance_class,
                                                     _NONE)))
