"""Qualified-name resolution: which module object a name or attribute chain refers to.

libcst's ``QualifiedNameProvider`` qualifies every node and costs ~8x the parse. jaxlint only needs to know, for the
few expressions a rule asks about, where the base name was bound. So one cheap pass records, per scope, every binding
of every name (imports with the module path they bind, anything else as a plain local), and which scope each ``Name``
node is in. Resolution then follows Python's rules: function scopes are flow-insensitive, class bodies are skipped by
nested functions, ``global``/``nonlocal`` redirect, comprehensions have their own scope.

A name resolves to a qualified name only when *every* binding of it in the scope that owns it is an import of the
same thing. A local ``meshgrid``, a ``try: import jax.numpy as np / except: import numpy as np`` or a parameter named
``jnp`` therefore resolve to nothing, and rules stay silent: precision over recall, so ``--fix`` can be trusted.
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.walk import child_fields, trivia_classes

_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class Binding:
    """One binding of a name. ``qualified`` is set for imports (``np`` -> ``jax.numpy``), None otherwise."""

    qualified: str | None
    node: cst.CSTNode


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "class", "function", "lambda", "comprehension"
    parent: "Scope | None"
    node: cst.CSTNode
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    global_names: set[str] = field(default_factory=set)
    nonlocal_names: set[str] = field(default_factory=set)
    star_imports: list[str] = field(default_factory=list)

    def bind(self, name: str, binding: Binding) -> None:
        target = self._owner_of(name)
        target.bindings.setdefault(name, []).append(binding)

    def _owner_of(self, name: str) -> "Scope":
        if name in self.global_names:
            return self.module
        if name in self.nonlocal_names:
            scope = self.parent
            while scope is not None and (scope.kind == "class" or name not in scope.bindings):
                if scope.kind == "module":
                    break
                scope = scope.parent
            return scope or self.module
        return self

    @property
    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


def _import_alias_name(alias: cst.ImportAlias) -> str:
    return cst.helpers.get_full_name_for_node_or_raise(alias.name)


class _ScopeBuilder:
    """Pass 1: scopes, bindings, and the scope of every ``Name`` node.

    Walks with ``jaxlint.lint.walk`` (libcst's order, no node rebuilding, whitespace and punctuation skipped): a
    ``visit_<Type>`` method that returns False walks the children it needs itself.
    """

    _plans: dict[type, tuple] = {}
    _skip: frozenset[type] = frozenset()

    def walk(self, node: cst.CSTNode) -> None:
        cls = type(node)
        plan = self._plans.get(cls)
        if plan is None:
            plan = self._plans[cls] = (getattr(type(self), f"visit_{cls.__name__}", None), child_fields(cls))
            if not _ScopeBuilder._skip:
                _ScopeBuilder._skip = trivia_classes()
        handler, fields = plan
        if handler is not None and handler(self, node) is False:
            return
        skip = self._skip
        for field_name in fields:
            value = getattr(node, field_name)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    if type(child) not in skip:
                        self.walk(child)
            elif kind not in skip and value is not None and kind is not cst.MaybeSentinel:
                self.walk(value)

    def __init__(self, module: cst.Module) -> None:
        self.module_scope = Scope("module", None, module)
        self.scope = self.module_scope
        self.name_scopes: dict[int, Scope] = {}
        self.scope_of_node: dict[int, Scope] = {id(module): self.module_scope}

    # -- helpers -----------------------------------------------------------------------------------------------
    def _push(self, kind: str, node: cst.CSTNode) -> Scope:
        scope = Scope(kind, self.scope, node)
        self.scope_of_node[id(node)] = scope
        self.scope = scope
        return scope

    def _pop(self) -> None:
        assert self.scope.parent is not None
        self.scope = self.scope.parent

    def _bind_target(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        """Bind every name an assignment target introduces (tuples, lists, starred)."""
        if isinstance(target, cst.Name):
            self.scope.bind(target.value, Binding(None, node))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value, node)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, node)
        # Attributes and subscripts bind nothing.

    def _visit_all(self, nodes) -> None:
        for child in nodes:
            if child is not None:
                self.walk(child)

    # -- names ---------------------------------------------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        self.name_scopes[id(node)] = self.scope

    # Names that are not variables (``x.attr``, ``f(keyword=...)``) get no scope, so they never resolve.
    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.walk(node.value)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        self.walk(node.value)
        return False

    # -- imports -------------------------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            full = _import_alias_name(alias)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.scope.bind(alias.asname.name.value, Binding(full, node))
            else:
                top = full.split(".")[0]
                self.scope.bind(top, Binding(top, node))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        module = cst.helpers.get_full_name_for_node(node.module) if node.module is not None else None
        relative = bool(node.relative)
        if isinstance(node.names, cst.ImportStar):
            if module is not None and not relative:
                self.scope.star_imports.append(module)
            else:
                self.scope.star_imports.append("")  # unknown source: makes star resolution ambiguous
            return False
        for alias in node.names:
            imported = _import_alias_name(alias)
            local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) \
                else imported
            qualified = None if relative or module is None else f"{module}.{imported}"
            self.scope.bind(local, Binding(qualified, node))
        return False

    # -- other bindings ----------------------------------------------------------------------------------------
    def visit_Global(self, node: cst.Global) -> None:
        self.scope.global_names.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.scope.nonlocal_names.update(item.name.value for item in node.names)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_target(target.target, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        # Even a bare annotation (``x: int``) makes ``x`` local to a function.
        self._bind_target(node.target, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target, node)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target, node)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name, node)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self.scope.bind(node.name.name.value, Binding(None, node))

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self.scope.bind(node.name.name.value, Binding(None, node))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        # The walrus binds in the nearest enclosing non-comprehension scope.
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        if isinstance(node.target, cst.Name):
            scope.bind(node.target.value, Binding(None, node))

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.scope.bind(node.name.value, Binding(None, node))

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.scope.bind(node.name.value, Binding(None, node))

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.scope.bind(node.rest.value, Binding(None, node))

    def visit_TypeAlias(self, node: cst.TypeAlias) -> None:
        self.scope.bind(node.name.value, Binding(None, node))

    # -- scopes ------------------------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._visit_all(d for d in node.decorators)
        self._visit_defaults_and_annotations(node.params)
        if node.returns is not None:
            self.walk(node.returns)
        self.scope.bind(node.name.value, Binding(None, node))
        self.name_scopes[id(node.name)] = self.scope
        self._push("function", node)
        if node.type_parameters is not None:
            self._bind_type_params(node.type_parameters)
        self._bind_params(node.params)
        self.walk(node.body)
        self._pop()
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._visit_defaults_and_annotations(node.params)
        self._push("lambda", node)
        self._bind_params(node.params)
        self.walk(node.body)
        self._pop()
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._visit_all(d for d in node.decorators)
        self._visit_all(arg for arg in node.bases)
        self._visit_all(arg for arg in node.keywords)
        self.scope.bind(node.name.value, Binding(None, node))
        self.name_scopes[id(node.name)] = self.scope
        self._push("class", node)
        if node.type_parameters is not None:
            self._bind_type_params(node.type_parameters)
        self.walk(node.body)
        self._pop()
        return False

    def _visit_comprehension(self, node, elements) -> bool:
        # The first iterable is evaluated in the enclosing scope; everything else in the comprehension's own.
        first = node.for_in
        self.walk(first.iter)
        self._push("comprehension", node)
        clause = first
        while clause is not None:
            if clause is not first:
                self.walk(clause.iter)
            self._bind_target(clause.target, clause)
            self.walk(clause.target)
            self._visit_all(clause.ifs)
            clause = clause.inner_for_in
        self._visit_all(elements)
        self._pop()
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return self._visit_comprehension(node, [node.elt])

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return self._visit_comprehension(node, [node.elt])

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return self._visit_comprehension(node, [node.elt])

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return self._visit_comprehension(node, [node.key, node.value])

    def _visit_defaults_and_annotations(self, params: cst.Parameters) -> None:
        for param in _all_params(params):
            if param.default is not None:
                self.walk(param.default)
            if param.annotation is not None:
                self.walk(param.annotation)

    def _bind_params(self, params: cst.Parameters) -> None:
        for param in _all_params(params):
            self.scope.bind(param.name.value, Binding(None, param))
            self.name_scopes[id(param.name)] = self.scope

    def _bind_type_params(self, type_params: cst.TypeParameters) -> None:
        for type_param in type_params.params:
            name = getattr(type_param.param, "name", None)
            if isinstance(name, cst.Name):
                self.scope.bind(name.value, Binding(None, type_param))
        # a bound (``T: jnp.ndarray``) is read in the scope the parameters are bound in (PEP 695's annotation scope,
        # which sees the enclosing names): its names resolve as the function's or class's own would
        for type_param in type_params.params:
            bound = getattr(type_param.param, "bound", None)
            if bound is not None:
                self.walk(bound)


def _all_params(params: cst.Parameters):
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


class NameResolver:
    """Answers "what does this expression refer to?" for one parsed module."""

    def __init__(self, module: cst.Module) -> None:
        builder = _ScopeBuilder(module)
        builder.walk(module)
        self.module_scope = builder.module_scope
        self._name_scopes = builder.name_scopes
        self._scope_of_node = builder.scope_of_node

    # -- public API ------------------------------------------------------------------------------------------
    def qualified_name(self, node: cst.CSTNode) -> str | None:
        """``jax.numpy.meshgrid`` for ``jnp.meshgrid`` (after ``import jax.numpy as jnp``); None if unknown/local."""
        if isinstance(node, cst.Name):
            return self._resolve_name(node)
        if isinstance(node, cst.Attribute):
            base = self.qualified_name(node.value)
            return None if base is None else f"{base}.{node.attr.value}"
        return None

    def scope_of(self, name: cst.Name) -> Scope | None:
        return self._name_scopes.get(id(name))

    def scope_for_node(self, node: cst.CSTNode) -> Scope | None:
        """The scope a function/class/lambda/comprehension/module node opens."""
        return self._scope_of_node.get(id(node))

    def bindings(self, name: cst.Name) -> list[Binding]:
        """All bindings of ``name`` in the scope that owns it (empty for builtins and undefined names)."""
        scope = self.scope_of(name)
        if scope is None:
            return []
        owner = self._owner(name.value, scope)
        return owner.bindings.get(name.value, []) if owner is not None else []

    def qualified_in_scope(self, identifier: str, scope: Scope) -> str | None:
        """What ``identifier`` would resolve to if written in ``scope`` (as ``qualified_name`` resolves a name)."""
        owner = self._owner(identifier, scope)
        if owner is None:
            return None
        qualified = {binding.qualified for binding in owner.bindings[identifier]}
        return qualified.pop() if len(qualified) == 1 else None

    def is_bound_in_scope(self, identifier: str, scope: Scope) -> bool:
        """Whether anything binds ``identifier`` in reach of ``scope`` (an import, an assignment, a parameter)."""
        return self._owner(identifier, scope) is not None

    def is_builtin(self, name: cst.Name, builtin: str) -> bool:
        """True if ``name`` is the unshadowed builtin ``builtin`` (e.g. ``list``, ``isinstance``)."""
        return name.value == builtin and self._resolve_name(name) == f"builtins.{builtin}"

    # -- internals ---------------------------------------------------------------------------------------------
    def _owner(self, name: str, scope: Scope) -> Scope | None:
        current: Scope | None = scope
        first = True
        while current is not None:
            if name in current.global_names:
                current = current.module
            if (first or current.kind != "class") and name in current.bindings:
                return current
            first = False
            current = current.parent
        return None

    def _resolve_name(self, node: cst.Name) -> str | None:
        scope = self.scope_of(node)
        if scope is None:
            return None
        owner = self._owner(node.value, scope)
        if owner is None:
            star = self._star_source(scope)
            if star:
                return f"{star}.{node.value}"
            if star is None and node.value in _BUILTINS:
                return f"builtins.{node.value}"
            return None
        qualified = {binding.qualified for binding in owner.bindings[node.value]}
        if len(qualified) == 1:
            (only,) = qualified
            return only
        return None

    def _star_source(self, scope: Scope) -> str | None:
        """The single module star-imported into reach of ``scope``; "" if ambiguous; None if there is none."""
        sources: set[str] = set()
        current: Scope | None = scope
        while current is not None:
            sources.update(current.star_imports)
            current = current.parent
        if not sources:
            return None
        if len(sources) == 1:
            return next(iter(sources))
        return ""
