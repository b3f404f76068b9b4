"""Which call chain an expression's value comes from, from the ``ast`` tree, where that is certain (JAX207).

A chain names a result: ``F()`` is what calling the function ``F`` returns, ``Class.method()`` what the method
returns on an instance of ``Class``. Where the class of a result is known (``instance_classes._RETURNS`` and
``_METHOD_RETURNS``: ``jax.jit(f)`` is a ``Wrapped``, its ``.lower(...)`` a ``Lowered``, whose ``.compile()`` is a
``Compiled``; ``nnx.state(model)`` is an ``nnx.State``), the chain continues from the class, so that
``jax.jit(f).lower(x).compile().cost_analysis()`` is ``jax.stages.Compiled.cost_analysis()``.

Followed: a call of an imported name (its qualified name), a method call on a followed value, ``(x := value)``, a
subscript by one of the literal keys the caller names for the receiver's class (``Class[key]``), and
a name whose every binding in the scope that owns it is a plain assignment (``x = value``, ``x: T = value``) of
values with the same chain. Anything else (a parameter, a loop target, an unpacking, ``global``, a star import, a
name that is not certain) has no chain: silence.
"""
from __future__ import annotations

import ast

from jaxlint.lint.ast_findings import AstView, Undecidable, scope_chain
from jaxlint.lint.instance_classes import _METHOD_RETURNS, _RETURNS

# What ``instance_classes`` knows, and the class of ``nnx.state(...)`` (``flax/nnx/statelib.py``: ``def state(...)
# -> State``, a ``State`` in every flax release that has nnx, executed in 0.10.2 and 0.12.12).
RETURNS = {**_RETURNS, "flax.nnx.state": "flax.nnx.State"}
METHOD_RETURNS = dict(_METHOD_RETURNS)
_OTHER = "other"  # a binding that is not a plain assignment


def producers(chain: str) -> frozenset[str]:
    """The imported callables a file must name for a value of ``chain`` to be followed (the gate's names)."""
    head = chain.partition("()")[0].partition("[")[0]
    classes = {cls for cls in {*RETURNS.values(), *METHOD_RETURNS.values()}
               if head == cls or head.startswith(cls + ".")}
    found = set() if classes else {head}  # ``Class.method``: the class's producers; ``F``: the function itself
    while classes:
        cls = classes.pop()
        found |= {name for name, made in RETURNS.items() if made == cls}
        classes |= {receiver for (receiver, _), made in METHOD_RETURNS.items() if made == cls}
    return frozenset(name for name in found if name not in METHOD_RETURNS.values())


class ResultChains:
    """``chain(node)``: the call chain ``node``'s value comes from, or None (answers cached per view)."""

    def __init__(self, view: AstView, subscripts: dict[str, frozenset[str]] | None = None) -> None:
        self.view = view
        # class -> the literal keys whose subscript of an instance is followed (``state["kernel"]`` of an
        # ``nnx.State`` is a variable, ``state["encoder"]`` a nested ``State``): its chain is ``Class[key]``
        self.subscripts = subscripts or {}
        self._bindings: dict[tuple[int, str], list] | None = None
        self._walrus: set[str] = set()
        self._cache: dict[int, str | None] = {}

    def chain(self, node: ast.AST) -> str | None:
        key = id(node)
        if key not in self._cache:
            self._cache[key] = None  # a cycle (``x = f(x)``) answers None
            self._cache[key] = self._chain(node)
        return self._cache[key]

    def _chain(self, node: ast.AST) -> str | None:
        kind = type(node)
        if kind is ast.NamedExpr:
            return self.chain(node.value)
        if kind is ast.Name:
            return self._name(node)
        if kind is ast.Subscript and self.subscripts:
            index = node.slice
            if type(index) is ast.Constant and type(index.value) is str:
                receiver = self.chain(node.value)
                if index.value in self.subscripts.get(receiver, ()):
                    return f"{receiver}[key]"
            return None
        if kind is not ast.Call or type(node.func) not in (ast.Name, ast.Attribute):
            return None
        func = node.func
        qualified = self._qualified(func)
        if qualified is not None:
            return RETURNS.get(qualified, qualified + "()")
        if type(func) is ast.Attribute:
            receiver = self.chain(func.value)
            if receiver is not None:
                return METHOD_RETURNS.get((receiver, func.attr), f"{receiver}.{func.attr}()")
        return None

    def _qualified(self, node: ast.AST) -> str | None:
        root = node
        while type(root) is ast.Attribute:
            root = root.value
        if type(root) is not ast.Name or not self.view.may_import(root.id):
            return None  # never imported: a local value (followed as one), or a builtin
        try:
            return self.view.qualified_name(node)
        except Undecidable:
            return None

    # -- names -------------------------------------------------------------------------------------------------
    def _name(self, name: ast.Name) -> str | None:
        held = self.plain_values(name)
        if not held:
            return None
        found = {self.chain(value) for value in held}
        return found.pop() if len(found) == 1 else None

    def plain_values(self, name: ast.Name) -> list[ast.expr] | None:
        """The values of every binding of ``name`` in the scope that owns it, when each is a plain assignment
        (``x = value``, ``x: T = value``); None otherwise (a parameter, a loop target, an import, no binding)."""
        if name.id in self._walrus_targets():
            return None  # ``:=`` in a comprehension binds in the enclosing scope: not followed
        bindings = self._index()
        chain = scope_chain(self.view.ancestors(name))
        for depth, scope in enumerate(reversed(chain)):
            if depth and type(scope) is ast.ClassDef:
                continue  # a class body's names are not seen from its methods
            held = bindings.get((id(scope), name.id))
            if held is None:
                continue
            return None if any(value is _OTHER for value in held) else held
        return None

    def _walrus_targets(self) -> set[str]:
        self._index()
        return self._walrus

    def _index(self) -> dict[tuple[int, str], list]:
        """(id of a scope, identifier) -> the values of its plain assignments there, ``_OTHER`` for any other
        binding."""
        if self._bindings is not None:
            return self._bindings
        bindings: dict[tuple[int, str], list] = {}
        view = self.view

        def bind(node: ast.AST, identifier: str, value) -> None:
            scope = scope_chain(view.ancestors(node))[-1]
            bindings.setdefault((id(scope), identifier), []).append(value)

        for node in view.nodes:
            kind = type(node)
            if kind is ast.Name and type(node.ctx) is not ast.Load:
                parent, field = view.parent(node)
                plain = type(node.ctx) is ast.Store and (
                    (type(parent) is ast.Assign and field == "targets")
                    or (type(parent) is ast.AnnAssign and parent.value is not None))
                bind(node, node.id, parent.value if plain else _OTHER)
            elif kind is ast.NamedExpr:
                self._walrus.add(node.target.id)
            elif kind is ast.arg:  # a parameter binds in its function's scope
                function = next(a for a, _ in reversed(view.ancestors(node))
                                if type(a) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                bindings.setdefault((id(function), node.arg), []).append(_OTHER)
            elif kind is ast.alias:
                bind(node, node.asname or node.name.partition(".")[0], _OTHER)
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                bind(node, node.name, _OTHER)
            elif kind in (ast.Global, ast.Nonlocal):
                for identifier in node.names:
                    bind(node, identifier, _OTHER)
            elif kind is ast.ExceptHandler and node.name:
                bind(node, node.name, _OTHER)
            elif kind in (ast.MatchAs, ast.MatchStar) and node.name:
                bind(node, node.name, _OTHER)
            elif kind is ast.MatchMapping and node.rest:
                bind(node, node.rest, _OTHER)
        self._bindings = bindings
        return bindings
