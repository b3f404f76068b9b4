"""``jaxlint.lint.names`` on Python's ``ast``: the scopes of a module, every binding of every name in them, and the
scope of every name node, so that a search ported from libcst asks the same questions and gets the same answers.

A binding's node is the ``ast`` node that stands for libcst's (``ast.Import``/``ast.ImportFrom`` for an import,
``ast.Assign``, ``ast.AnnAssign``, ``ast.AugAssign``, ``ast.For``, ``ast.withitem``, ``ast.ExceptHandler``,
``ast.NamedExpr``, a definition, ``ast.arg`` for a parameter, ``ast.comprehension`` for a comprehension's target).
Names libcst spells as ``Name`` nodes but ``ast`` as strings have a scope too: a definition's name (keyed by the
definition), a parameter's (keyed by its ``ast.arg``) and an ``except ... as`` name (keyed by the handler).
The walk binds in libcst's order (a ``global`` counts from where it stands, as there).
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from jaxlint.lint.ast_gate import CHILD_FIELDS

_BUILTINS = frozenset(dir(builtins))
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# Nodes without a name or a scope below them: the walk stops there (every ``Name`` and ``Attribute`` has a context).
_LEAVES = frozenset({ast.Constant, ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue,
                     *(operator for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
                       for operator in base.__subclasses__())})


@dataclass(frozen=True)
class Binding:
    qualified: str | None
    node: ast.AST


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "class", "function", "lambda", "comprehension"
    parent: "Scope | None"
    node: ast.AST
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    global_names: set[str] = field(default_factory=set)
    nonlocal_names: set[str] = field(default_factory=set)
    star_imports: list[str] = field(default_factory=list)

    def bind(self, name: str, binding: Binding) -> None:
        self._owner_of(name).bindings.setdefault(name, []).append(binding)

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


def all_parameters(arguments: ast.arguments) -> list[ast.arg]:
    """libcst's ``_all_params`` order: positional-only, positional, ``*args``, keyword-only, ``**kwargs``."""
    return [*arguments.posonlyargs, *arguments.args, *([arguments.vararg] if arguments.vararg else []),
            *arguments.kwonlyargs, *([arguments.kwarg] if arguments.kwarg else [])]


def parameter_defaults(arguments: ast.arguments) -> dict[int, ast.expr]:
    """id(parameter) -> its default (``ast`` keeps them apart from the parameters)."""
    positional = [*arguments.posonlyargs, *arguments.args]
    found = {id(parameter): default for parameter, default in zip(positional[len(positional) - len(arguments.defaults):],
                                                                  arguments.defaults)}
    found.update((id(parameter), default) for parameter, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
                 if default is not None)
    return found


def identifier_of(node: ast.AST) -> str:
    """The name a name node spells (``ast.Name``, a parameter, a definition, an ``except ... as``)."""
    kind = type(node)
    if kind is ast.Name:
        return node.id
    if kind is ast.arg:
        return node.arg
    return node.name


class _Builder:
    def __init__(self, module: ast.Module) -> None:
        self.module_scope = Scope("module", None, module)
        self.scope = self.module_scope
        self.name_scopes: dict[int, Scope] = {}

    def _push(self, kind: str, node: ast.AST) -> None:
        self.scope = Scope(kind, self.scope, node)

    def _pop(self) -> None:
        self.scope = self.scope.parent

    def _bind_target(self, target: ast.AST, node: ast.AST) -> None:
        kind = type(target)
        if kind is ast.Name:
            self.scope.bind(target.id, Binding(None, node))
        elif kind in (ast.Tuple, ast.List):
            for element in target.elts:
                self._bind_target(element, node)
        elif kind is ast.Starred:
            self._bind_target(target.value, node)

    def walk_all(self, nodes) -> None:
        for node in nodes:
            if node is not None:
                self.walk(node)

    def walk(self, node: ast.AST) -> None:
        kind = type(node)
        if kind is ast.Name:
            self.name_scopes[id(node)] = self.scope
            return
        if kind in _LEAVES:
            return
        if kind is ast.Import:
            for alias in node.names:
                if alias.asname:
                    self.scope.bind(alias.asname, Binding(alias.name, node))
                else:
                    top = alias.name.split(".")[0]
                    self.scope.bind(top, Binding(top, node))
            return
        if kind is ast.ImportFrom:
            if any(alias.name == "*" for alias in node.names):
                self.scope.star_imports.append(node.module if node.module and not node.level else "")
                return
            for alias in node.names:
                qualified = None if node.level or node.module is None else f"{node.module}.{alias.name}"
                self.scope.bind(alias.asname or alias.name, Binding(qualified, node))
            return
        if kind is ast.Global:
            self.scope.global_names.update(node.names)
            return
        if kind is ast.Nonlocal:
            self.scope.nonlocal_names.update(node.names)
            return
        if kind in _FUNCTIONS:
            self._function(node)
            return
        if kind is ast.Lambda:
            self._defaults_and_annotations(node.args)
            self._push("lambda", node)
            self._bind_parameters(node.args)
            self.walk(node.body)
            self._pop()
            return
        if kind is ast.ClassDef:
            self.walk_all(node.decorator_list)
            self.walk_all(node.bases)
            self.walk_all(keyword.value for keyword in node.keywords)
            self.scope.bind(node.name, Binding(None, node))
            self.name_scopes[id(node)] = self.scope
            self._push("class", node)
            self._type_parameters(node)
            self.walk_all(node.body)
            self._pop()
            return
        if kind in _COMPREHENSIONS:
            self._comprehension(node)
            return
        if kind is ast.Assign:
            for target in node.targets:
                self._bind_target(target, node)
        elif kind in (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor):
            self._bind_target(node.target, node)
        elif kind is ast.withitem:
            if node.optional_vars is not None:
                self._bind_target(node.optional_vars, node)
        elif kind is ast.ExceptHandler:
            if node.name:
                self.scope.bind(node.name, Binding(None, node))
                self.name_scopes[id(node)] = self.scope
        elif kind is ast.NamedExpr:
            scope = self.scope
            while scope.kind == "comprehension" and scope.parent is not None:
                scope = scope.parent
            if type(node.target) is ast.Name:
                scope.bind(node.target.id, Binding(None, node))
        elif kind in (ast.MatchAs, ast.MatchStar):
            if node.name:
                self.scope.bind(node.name, Binding(None, node))
        elif kind is ast.MatchMapping:
            if node.rest:
                self.scope.bind(node.rest, Binding(None, node))
        elif kind.__name__ == "TypeAlias":
            self.scope.bind(node.name.id, Binding(None, node))
        # ``ast.iter_child_nodes``, inlined (the walk meets every node of the module), over the fields that may hold
        # a node other than a context or an operator (``CHILD_FIELDS``: a third of the calls were for those leaves)
        for name in CHILD_FIELDS[kind]:
            value = getattr(node, name, None)
            if type(value) is list:
                for child in value:
                    if isinstance(child, ast.AST):
                        self.walk(child)
            elif isinstance(value, ast.AST):
                self.walk(value)

    def _function(self, node) -> None:
        self.walk_all(node.decorator_list)
        self._defaults_and_annotations(node.args)
        if node.returns is not None:
            self.walk(node.returns)
        self.scope.bind(node.name, Binding(None, node))
        self.name_scopes[id(node)] = self.scope
        self._push("function", node)
        self._type_parameters(node)
        self._bind_parameters(node.args)
        self.walk_all(node.body)
        self._pop()

    def _defaults_and_annotations(self, arguments: ast.arguments) -> None:
        defaults = parameter_defaults(arguments)
        for parameter in all_parameters(arguments):
            if id(parameter) in defaults:
                self.walk(defaults[id(parameter)])
            if parameter.annotation is not None:
                self.walk(parameter.annotation)

    def _bind_parameters(self, arguments: ast.arguments) -> None:
        for parameter in all_parameters(arguments):
            self.scope.bind(parameter.arg, Binding(None, parameter))
            self.name_scopes[id(parameter)] = self.scope

    def _type_parameters(self, node) -> None:
        parameters = getattr(node, "type_params", ()) or ()
        for parameter in parameters:
            self.scope.bind(parameter.name, Binding(None, parameter))
        for parameter in parameters:  # ``names._ScopeBuilder._bind_type_params``: bounds in the parameters' scope
            bound = getattr(parameter, "bound", None)
            if bound is not None:
                self.walk(bound)

    def _comprehension(self, node) -> None:
        first = node.generators[0]
        self.walk(first.iter)
        self._push("comprehension", node)
        for clause in node.generators:
            if clause is not first:
                self.walk(clause.iter)
            self._bind_target(clause.target, clause)
            self.walk(clause.target)
            self.walk_all(clause.ifs)
        if type(node) is ast.DictComp:
            self.walk(node.key)
            self.walk(node.value)
        else:
            self.walk(node.elt)
        self._pop()


class AstNames:
    """``NameResolver``'s answers for an ``ast`` module: ``bindings``, ``qualified_name``, ``scope_of``."""

    def __init__(self, module: ast.Module) -> None:
        builder = _Builder(module)
        builder.walk_all(module.body)
        self.module_scope = builder.module_scope
        self._name_scopes = builder.name_scopes

    def scope_of(self, node: ast.AST) -> Scope | None:
        return self._name_scopes.get(id(node))

    def bindings(self, node: ast.AST) -> list[Binding]:
        owner = self.owner(node)
        return owner.bindings.get(identifier_of(node), []) if owner is not None else []

    def owner(self, node: ast.AST) -> Scope | None:
        """The scope whose bindings of the name ``node`` spells are the name's (``NameResolver._owner``): the
        nearest that binds it, class bodies skipped but the name's own; None when none does."""
        scope = self.scope_of(node)
        return self._owner(identifier_of(node), scope) if scope is not None else None

    def qualified_name(self, node: ast.AST) -> str | None:
        if type(node) is ast.Name:
            return self._resolve_name(node)
        if type(node) is ast.Attribute:
            base = self.qualified_name(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def is_bound_in_scope(self, identifier: str, scope: Scope) -> bool:
        """``NameResolver.is_bound_in_scope``: anything binds ``identifier`` in reach of ``scope``."""
        return self._owner(identifier, scope) is not None

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

    def _resolve_name(self, node: ast.Name) -> str | None:
        scope = self.scope_of(node)
        if scope is None:
            return None
        return self.qualified_in_scope(node.id, scope)

    def qualified_in_scope(self, identifier: str, scope: Scope) -> str | None:
        """What a name ``identifier`` written in ``scope`` resolves to: ``NameResolver._resolve_name``'s answer, the
        star import's or the builtin where nothing binds it in reach (its ``qualified_in_scope`` answers None there)."""
        owner = self._owner(identifier, scope)
        if owner is None:
            star = self._star_source(scope)
            if star:
                return f"{star}.{identifier}"
            if star is None and identifier in _BUILTINS:
                return f"builtins.{identifier}"
            return None
        qualified = {binding.qualified for binding in owner.bindings[identifier]}
        return next(iter(qualified)) if len(qualified) == 1 else None

    @staticmethod
    def _star_source(scope: Scope) -> str | None:
        sources: set[str] = set()
        current: Scope | None = scope
        while current is not None:
            sources.update(current.star_imports)
            current = current.parent
        if not sources:
            return None
        return next(iter(sources)) if len(sources) == 1 else ""
