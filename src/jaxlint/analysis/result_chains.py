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
from functools import lru_cache
from typing import Callable, Iterator

from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.instance_classes import _METHOD_RETURNS, _RETURNS

# What ``instance_classes`` knows, and the class of ``nnx.state(...)`` (``flax/nnx/statelib.py``: ``def state(...)
# -> State``, a ``State`` in every flax release that has nnx, executed in 0.10.2 and 0.12.12).
RETURNS = {**_RETURNS, "flax.nnx.state": "flax.nnx.State"}
METHOD_RETURNS = dict(_METHOD_RETURNS)
_OTHER = "other"  # a binding that is not a plain assignment
# What ``_index`` reads: the nodes that bind an identifier, and ``:=``
_BINDERS = (ast.Name, ast.NamedExpr, ast.arg, ast.alias, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
            ast.Global, ast.Nonlocal, ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


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
    if chain == head + "()":
        found.add(head)  # ``Class.method()`` is also a call of the imported ``Class.method`` (``C.cost_analysis(c)``)
    return frozenset(name for name in found if name not in METHOD_RETURNS.values())


@lru_cache(maxsize=None)
def word_sets_forming(chain: str, _seen: frozenset[str] = frozenset()) -> tuple[frozenset[str], ...]:
    """``may_form`` as word sets, read once per chain: ``may_form(chain, spelled)`` holds exactly when ``spelled``
    answers yes for every word of one of these sets (each way ``may_form`` may take, with the words it asks on the
    way; a set that holds another is left out). A file's words are then tested with a few subset tests."""
    if chain in _seen:
        return ()
    seen = _seen | {chain}
    if chain.endswith("[key]"):
        return word_sets_forming(chain[:-len("[key]")], seen)
    found = [frozenset(name.split(".")) for name, made in RETURNS.items() if made == chain]
    found += [words | {attr} for (receiver, attr), made in METHOD_RETURNS.items() if made == chain
              for words in word_sets_forming(receiver, seen)]
    if chain.endswith("()"):
        called = chain[:-len("()")]
        if "(" not in called and "[" not in called:
            found.append(frozenset(called.split(".")))
        receiver, _, attr = called.rpartition(".")
        if receiver:
            found += [words | {attr} for words in word_sets_forming(receiver, seen)]
    return minimal_sets(found)


def minimal_sets(sets) -> tuple[frozenset[str], ...]:
    """The sets none of the others is a subset of (each once)."""
    kept: list[frozenset[str]] = []
    for words in sorted(set(sets), key=lambda words: (len(words), sorted(words))):
        if not any(smaller <= words for smaller in kept):
            kept.append(words)
    return tuple(kept)


def may_form(chain: str, spelled: Callable[[str], bool], _seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``ResultChains`` can give some node of a file the chain ``chain`` when ``spelled`` answers which words
    the file's identifiers spell (False: certainly not; a test on the text, before any walk). Every chain starts at
    a call of an imported name (each component of its qualified name is spelled: in the import or the attribute
    chain), continues by methods (their names spelled) and literal subscripts, and passes through names unchanged."""
    if chain in _seen:
        return False
    seen = _seen | {chain}
    if chain.endswith("[key]"):  # ``Class[key]``: a subscript of a ``Class``
        return may_form(chain[:-len("[key]")], spelled, seen)
    if any(made == chain and all(map(spelled, name.split("."))) for name, made in RETURNS.items()):
        return True
    if any(made == chain and spelled(attr) and may_form(receiver, spelled, seen)
           for (receiver, attr), made in METHOD_RETURNS.items()):
        return True
    if not chain.endswith("()"):
        return False  # a class is only ever made by ``RETURNS`` and ``METHOD_RETURNS``
    called = chain[:-len("()")]
    if "(" not in called and "[" not in called and all(map(spelled, called.split("."))):
        return True  # an imported name called
    receiver, _, attr = called.rpartition(".")
    return bool(receiver) and spelled(attr) and may_form(receiver, spelled, seen)


class ResultChains:
    """``chain(node)``: the call chain ``node``'s value comes from, or None (answers cached per view).

    The file's bindings are read in one pass, on the first name asked about that the file binds; their scopes only
    for the identifiers asked about; what a name holds is kept per (its scope, its identifier)."""

    def __init__(self, view: AstView, subscripts: dict[str, frozenset[str]] | None = None) -> None:
        self.view = view
        # class -> the literal keys whose subscript of an instance is followed (``state["kernel"]`` of an
        # ``nnx.State`` is a variable, ``state["encoder"]`` a nested ``State``): its chain is ``Class[key]``
        self.subscripts = subscripts or {}
        self._binders: dict[str, list[tuple[ast.AST, object]]] | None = None  # identifier -> (binding, value)
        self._walrus: set[str] = set()
        self._scoped: dict[str, dict[int, list]] = {}  # identifier -> id of a scope -> its values there
        self._held: dict[tuple[int, str], list[ast.expr] | None] = {}  # (id of a name's scope, identifier)
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
        identifier = name.id
        view = self.view
        if not view.bound_in_file(identifier) and not view.may_import(identifier):
            return None  # nothing in the file binds it
        if identifier in self._walrus_targets():
            return None  # ``:=`` in a comprehension binds in the enclosing scope: not followed
        scope = self.view.scope_of(name)
        key = (id(scope), identifier)  # the answer depends on the name's own scope alone
        if key not in self._held:
            self._held[key] = self._owned_values(scope, identifier)
        return self._held[key]

    def _owned_values(self, scope: ast.AST, identifier: str) -> list[ast.expr] | None:
        """``plain_values`` of ``identifier`` read in ``scope``: the bindings of the nearest scope out from it that
        binds it (a class body's names are not seen from its methods)."""
        bindings = self._bindings_of(identifier)
        for depth, outer in enumerate(self._scopes_out(scope)):
            if depth and type(outer) is ast.ClassDef:
                continue
            held = bindings.get(id(outer))
            if held is None:
                continue
            return None if any(value is _OTHER for value in held) else held
        return None

    def _walrus_targets(self) -> set[str]:
        self._index()
        return self._walrus

    def _bindings_of(self, identifier: str) -> dict[int, list]:
        """id of a scope -> the values of the plain assignments of ``identifier`` there, ``_OTHER`` for any other
        binding (in source order)."""
        found = self._scoped.get(identifier)
        if found is None:
            found = self._scoped[identifier] = {}
            for node, value in self._index().get(identifier, ()):
                # a parameter binds in its function's scope (``ast.arg`` sits in the function's ``arguments``)
                scope = self.view.parent(self.view.parent(node)[0])[0] if type(node) is ast.arg else self.view.scope_of(node)
                found.setdefault(id(scope), []).append(value)
        return found

    def _scopes_out(self, scope: ast.AST) -> Iterator[ast.AST]:
        """``scope``, then the scopes around it out to the module (``reversed(scope_chain(...))``)."""
        while True:
            yield scope
            if type(scope) is ast.Module:
                return
            scope = self.view.scope_of(scope)

    def _index(self) -> dict[str, list[tuple[ast.AST, object]]]:
        """identifier -> (a node that binds it, the value of a plain assignment or ``_OTHER``), in source order."""
        if self._binders is not None:
            return self._binders
        binders: dict[str, list[tuple[ast.AST, object]]] = {}
        view = self.view

        def bind(node: ast.AST, identifier: str, value) -> None:
            binders.setdefault(identifier, []).append((node, value))

        for node in view.nodes_of(_BINDERS):
            kind = type(node)
            if kind is ast.Name:
                if type(node.ctx) is ast.Load:
                    continue
                parent, field = view.parent(node)
                plain = type(node.ctx) is ast.Store and (
                    (type(parent) is ast.Assign and field == "targets")
                    or (type(parent) is ast.AnnAssign and parent.value is not None))
                bind(node, node.id, parent.value if plain else _OTHER)
            elif kind is ast.NamedExpr:
                self._walrus.add(node.target.id)
            elif kind is ast.arg:
                bind(node, node.arg, _OTHER)
            elif kind is ast.alias:
                bind(node, node.asname or node.name.partition(".")[0], _OTHER)
            elif kind in _DEFINITIONS:
                bind(node, node.name, _OTHER)
            elif kind is ast.Global or kind is ast.Nonlocal:
                for identifier in node.names:
                    bind(node, identifier, _OTHER)
            elif kind is ast.MatchMapping:
                if node.rest:
                    bind(node, node.rest, _OTHER)
            elif node.name:  # ``except ... as name``, ``case ... as name``, ``case [*name]``
                bind(node, node.name, _OTHER)
        self._binders = binders
        return binders
