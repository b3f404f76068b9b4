"""``flax_dicts.VariablesTracker`` on Python's ``ast`` (JAX508 decides from the ast gate's tree): the same questions
asked of the same nodes, with ``AstNames`` (the resolver's port) for scopes, bindings and qualified names, and the
statements of a scope read in the order libcst's ``statements`` reads them (``statements_in_order_ast``: a name's
answer may rest on another name read at the same time, so the order is kept).

libcst and ``ast`` give an expression the same tree but for parentheses, which no question here reads (they hold
no node of their own in either), so nothing here is ``Undecidable``."""
from __future__ import annotations

import ast

from jaxlint.analysis.flax_dicts import TRAIN_STATE, builds_frozen_params
from jaxlint.analysis.flax_values import statements_in_order_ast
from jaxlint.lint.ast_findings import AstView

_TUPLE_SOURCES = frozenset({"init_with_output", "apply"})
_STATE_KEEPING = frozenset({"apply_gradients", "replace"})
_OPTIONAL = frozenset({"typing.Optional", "typing_extensions.Optional"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def method_call_ast(node: ast.AST, names: frozenset[str] | set[str]) -> str | None:
    """``flax_dicts.method_call``: the method name of ``x.NAME(...)`` when it is one of ``names``."""
    if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in names:
        return node.func.attr
    return None


def _keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((keyword for keyword in call.keywords if keyword.arg == name), None)


def returns_variables_pair_ast(call: ast.AST) -> bool:
    """``flax_dicts.returns_variables_pair``: ``init_with_output(...)`` or ``apply(..., mutable=...)`` (``mutable``
    not ``False`` nor ``None``, libcst's names and ``ast``'s constants)."""
    method = method_call_ast(call, _TUPLE_SOURCES)
    if method == "init_with_output":
        return True
    if method == "apply":
        mutable = _keyword(call, "mutable")
        return mutable is not None and not (type(mutable.value) is ast.Constant
                                            and (mutable.value.value is False or mutable.value.value is None))
    return False


def first_name_ast(node: ast.AST) -> ast.Name | None:
    """``flax_dicts.first_name``: the leftmost name of an expression."""
    while True:
        kind = type(node)
        if kind is ast.Name:
            return node
        if kind is ast.Attribute or kind is ast.Subscript:
            node = node.value
        elif kind is ast.Call:
            node = node.func
        else:
            return None


class VariablesTrackerAst:
    """``VariablesTracker.holds`` for the expressions of one ``ast`` file."""

    def __init__(self, view: AstView) -> None:
        self.view = view
        self.names = view.names()
        self._annotated_states = not builds_frozen_params(view.file_text)
        self._names: dict[tuple[int, str], bool | None] = {}
        self._pairs: dict[tuple[int, str], bool | None] = {}
        self._states: dict[str, dict[tuple[int, str], bool | None]] = {}

    def holds(self, node: ast.AST) -> bool:
        self._names.clear()
        self._pairs.clear()
        self._states.clear()
        return self._holds(node) is True

    def _holds(self, node: ast.AST) -> bool | None:
        if method_call_ast(node, {"init"}):
            return True
        if method_call_ast(node, {"copy"}) and (node.args or node.keywords):
            return self._holds(node.func.value)
        kind = type(node)
        if kind is ast.Subscript:
            if returns_variables_pair_ast(node.value):
                return self._index(node) == 1
            if type(node.value) is ast.Name and self._index(node) == 1 \
                    and self._name(node.value, self._pairs, self._binds_pair) is True:
                return True
            return self._holds(node.value)
        if kind is ast.Attribute and type(node.value) is ast.Name:
            return self._state(node.value, node.attr)
        if kind is ast.Name:
            return self._name(node, self._names, self._binds_variables)
        return False

    def _index(self, node: ast.Subscript) -> int | None:
        """``flax_dicts._index``: a subscript by one integer written in digits alone (libcst's ``Integer.value``)."""
        index = node.slice
        if type(index) is not ast.Constant or type(index.value) is not int:
            return None
        text = self.view.text(index)
        return int(text) if text.isdigit() else None

    # -- names, through every assignment of their scope -------------------------------------------------------
    def _name(self, name: ast.Name, cache: dict, binds, parameter=None) -> bool | None:
        scope = self.names.scope_of(name)
        if scope is None:
            return False
        key = (id(scope), name.id)
        if key in cache:
            return cache[key]
        cache[key] = None
        found = False
        if parameter is not None and type(scope.node) in _FUNCTIONS:
            bound = self._parameter(scope.node, name, parameter)
            if bound is False:
                cache[key] = False
                return False
            found = bound is True
        for small in statements_in_order_ast(self.view, scope.node):
            kind = type(small)
            if kind is not ast.Assign and kind is not ast.AnnAssign and kind is not ast.AugAssign:
                continue
            targets = small.targets if kind is ast.Assign else [small.target]
            for target in targets:
                if kind is ast.AugAssign or small.value is None:
                    bound = None if not _binds_name(target, name.id) else False
                else:
                    bound = binds(target, name.id, small.value)
                if bound is False:
                    return False
                found = found or bound is True
        cache[key] = found
        return found

    def _binds_variables(self, target: ast.AST, name: str, value: ast.AST) -> bool | None:
        kind = type(target)
        if kind is ast.Name:
            return None if target.id != name else self._holds(value)
        if kind is ast.Tuple or kind is ast.List:
            elements = [element.value if type(element) is ast.Starred else element for element in target.elts]
            names = [element.id if type(element) is ast.Name else None for element in elements]
            if name not in names:
                return None
            return len(names) == 2 and names[1] == name and returns_variables_pair_ast(value)
        return None if not _binds_name(target, name) else False

    def _binds_pair(self, target: ast.AST, name: str, value: ast.AST) -> bool | None:
        if not _binds_name(target, name):
            return None
        return type(target) is ast.Name and returns_variables_pair_ast(value)

    # -- TrainStates: ``state.FIELD`` ----------------------------------------------------------------------------
    def _state(self, name: ast.Name, field: str) -> bool | None:
        def binds(target: ast.AST, identifier: str, value: ast.AST) -> bool | None:
            return self._binds_state(target, identifier, value, field)

        parameter = self._annotated_state if field == "params" and self._annotated_states else None
        return self._name(name, self._states.setdefault(field, {}), binds, parameter)

    def _binds_state(self, target: ast.AST, name: str, value: ast.AST, field: str) -> bool | None:
        if not _binds_name(target, name):
            return None
        if type(target) is not ast.Name or type(value) is not ast.Call:
            return False
        if method_call_ast(value, {"create"}):
            passed = _keyword(value, field)
            return passed is not None and self._may_be_train_state(value.func.value) and self._holds(passed.value)
        if method_call_ast(value, _STATE_KEEPING) and type(value.func.value) is ast.Name:
            passed = _keyword(value, field)
            if passed is not None:
                return field == "params" and self._holds(passed.value)
            if value.func.value.id == name:
                return None
            return self._state(value.func.value, field)
        return False

    def _may_be_train_state(self, receiver: ast.AST) -> bool:
        named = self.annotation_class(receiver)
        if type(named) is not ast.ClassDef or self._train_state_class(named, set()):
            return True
        return not self._defines_create(named, set())

    def _defines_create(self, cls: ast.ClassDef, seen: set[int]) -> bool:
        if id(cls) in seen:
            return False
        seen.add(id(cls))
        if any(type(statement) in _FUNCTIONS and statement.name == "create" for statement in cls.body):
            return True  # (a one-line class body, libcst's suite, holds no ``def``)
        bases = (self.annotation_class(base.value if type(base) is ast.Starred else base) for base in cls.bases)
        return any(type(base) is ast.ClassDef and self._defines_create(base, seen) for base in bases)

    def _annotated_state(self, parameter: ast.arg) -> bool:
        if parameter.annotation is None:
            return False
        return self._train_state_class(self.annotation_class(parameter.annotation), set())

    def _train_state_class(self, named, seen: set[int]) -> bool:
        if isinstance(named, str):
            return named == TRAIN_STATE
        if type(named) is not ast.ClassDef or id(named) in seen:
            return False
        seen.add(id(named))
        return any(self._train_state_class(self.annotation_class(base), seen) for base in named.bases
                   if type(base) is not ast.Starred)

    def _parameter(self, function: ast.AST, name: ast.Name, test) -> bool | None:
        arguments = function.args
        found = next((parameter for parameter in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
                      if parameter.arg == name.id), None)
        if found is None:
            return None
        if any(type(binding.node) not in (ast.arg, ast.Assign, ast.AnnAssign) for binding in self.names.bindings(name)):
            return False
        return test(found)

    # -- ``InstanceClasses.annotation_class`` ------------------------------------------------------------------
    def annotation_class(self, annotation: ast.AST) -> str | ast.ClassDef | None:
        """The class an annotation names: a qualified name (an imported class, its last part capitalized) or a
        class of the module (a name whose one binding is a ``class``)."""
        kind = type(annotation)
        if kind is ast.BinOp and type(annotation.op) is ast.BitOr:
            kept = [side for side in (annotation.left, annotation.right)
                    if not (type(side) is ast.Constant and side.value is None)]
            return self.annotation_class(kept[0]) if len(kept) == 1 else None
        if kind is ast.Subscript:
            index = annotation.slice
            if self.names.qualified_name(annotation.value) in _OPTIONAL and type(index) not in (ast.Slice, ast.Tuple):
                return self.annotation_class(index)
            return None
        if kind is ast.Name or kind is ast.Attribute:
            qualified = self.names.qualified_name(annotation)
            if qualified is not None:
                return qualified if qualified.rpartition(".")[2][:1].isupper() else None
            if kind is ast.Name:
                bindings = self.names.bindings(annotation)
                if len(bindings) == 1 and type(bindings[0].node) is ast.ClassDef:
                    return bindings[0].node
        return None


def _binds_name(target: ast.AST, name: str) -> bool:
    kind = type(target)
    if kind is ast.Name:
        return target.id == name
    if kind is ast.Tuple or kind is ast.List:
        return any(_binds_name(element, name) for element in target.elts)
    if kind is ast.Starred:
        return _binds_name(target.value, name)
    return False
