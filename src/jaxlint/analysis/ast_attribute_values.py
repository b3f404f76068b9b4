"""``attribute_values`` on Python's ``ast`` (for the ``ast`` ports of ``project_reach`` and ``pjit_specs``): what
``self.<attribute>`` may hold, as the same nodes in the same order. A source is ``(node, annotation)``: libcst opens
an ``Annotation`` node where ``ast`` has the bare expression, so the flag says which it is; a method's body is its
statement list.
"""
from __future__ import annotations

import ast
from typing import Callable, Iterator, TypeVar

from jaxlint.lint.ast_gate import CHILD_FIELDS
from jaxlint.lint.ast_names import AstNames

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
Source = tuple[object, bool]  # (an ast node or a statement list, whether libcst would open it as an ``Annotation``)


_T = TypeVar("_T")


def is_none(node: ast.AST) -> bool:
    """The literal ``None``."""
    return type(node) is ast.Constant and node.value is None


def attribute_answers(owner: ast.ClassDef, attribute: str, of_annotation: Callable[[ast.expr], _T | None],
                      of_value: Callable[[ast.expr], _T | None], none: _T) -> Iterator[_T | None]:
    """What each class-level annotation of ``attribute`` and each store of ``self.<attribute>`` in the class's
    methods gives, in that order, as libcst's ``inference._attribute_stores`` reads them: an annotated store its
    annotation's answer (its value's where the annotation gives none), an assignment of ``None`` ``none``, any other
    assignment its value's answer, an unpacking, augmented, loop or ``with`` target None. The value inference's port
    asks for kinds (``AstValueKinds``), the class inference's for classes (``AstInstanceClasses``)."""
    for statement in owner.body:
        if type(statement) is ast.AnnAssign and type(statement.target) is ast.Name \
                and statement.target.id == attribute:
            yield of_annotation(statement.annotation)
    for store in stores_by_attribute(owner).get(attribute, []):
        kind = type(store)
        if kind is ast.AnnAssign:
            declared = of_annotation(store.annotation)
            yield declared if declared is not None or store.value is None else of_value(store.value)
        elif kind is ast.Assign:
            yield none if is_none(store.value) else of_value(store.value)
        else:
            yield None


def self_attribute(node: ast.AST) -> ast.Attribute | None:
    """The ``self.<attribute>`` link at the root of an attribute chain that starts at a plain name."""
    link = None
    while type(node) is ast.Attribute:
        link, node = node, node.value
    return link if type(node) is ast.Name and link is not None else None


def method_body(owner: ast.ClassDef, name: str) -> list[ast.stmt] | None:
    for statement in owner.body:
        if type(statement) in _FUNCTIONS and statement.name == name:
            return statement.body
    return None


def class_of_self(names: AstNames, name: ast.Name) -> ast.ClassDef | None:
    """``inference.class_of_self``: the class whose method binds ``name`` as its first parameter."""
    bindings = names.bindings(name)
    if len(bindings) != 1 or type(bindings[0].node) is not ast.arg:
        return None
    scope = names.scope_of(name)
    while scope is not None and scope.kind != "function":
        scope = scope.parent
    while scope is not None and scope.kind == "function":
        method, parent = scope.node, scope.parent
        if parent is not None and parent.kind == "class" and type(method) in _FUNCTIONS \
                and _first_parameter(method) is bindings[0].node and not is_static(method, names):
            return parent.node
        scope = parent
    return None


class AstAttributeValues:
    def __init__(self, names: AstNames) -> None:
        self.names = names
        self._cache: dict[tuple[int, str], list[Source]] = {}
        self._stores: dict[int, dict[str, list[ast.AST]]] = {}  # id(class) -> attribute -> its stores

    def sources(self, link: ast.Attribute) -> list[Source] | None:
        owner = class_of_self(self.names, link.value) if type(link.value) is ast.Name else None
        if owner is None:
            return None
        key = (id(owner), link.attr)
        if key not in self._cache:
            stores = self._stores.get(id(owner))
            if stores is None:
                stores = self._stores[id(owner)] = stores_by_attribute(owner)
            self._cache[key] = _sources(owner, link.attr, stores.get(link.attr, []))
        return self._cache[key]


def _first_parameter(function) -> ast.arg | None:
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0] if positional else None


def is_static(function, names: AstNames) -> bool:
    """``inference._is_static``: a ``staticmethod`` or ``classmethod`` decorator (by its qualified name)."""
    return any(names.qualified_name(decorator) in ("builtins.staticmethod", "builtins.classmethod")
               for decorator in function.decorator_list)


def _sources(owner: ast.ClassDef, attribute: str, method_stores: list[ast.AST]) -> list[Source]:
    found: list[Source] = []
    method = method_body(owner, attribute)
    if method is not None:
        found.append((method, False))
    for statement in owner.body:
        if type(statement) is ast.Assign and any(type(target) is ast.Name and target.id == attribute
                                                 for target in statement.targets):
            found.append((statement.value, False))
    for store in [statement for statement in owner.body if type(statement) is ast.AnnAssign
                  and type(statement.target) is ast.Name and statement.target.id == attribute] + method_stores:
        found.extend(_stored(store))
    if not found:
        found.extend((base, False) for base in owner.bases)
    return found


def stores_by_attribute(owner: ast.ClassDef) -> dict[str, list[ast.AST]]:
    """``inference._attribute_stores``' method stores of every attribute at once: each method's (with a first
    parameter) own body in libcst's order (pre-order, source order; not nested definitions), per attribute the
    statements that store ``<receiver>.<attribute>`` (an unpacking target for an unpacked one)."""
    found: dict[str, list[ast.AST]] = {}
    for method in owner.body:
        if type(method) not in _FUNCTIONS:
            continue
        receiver = _first_parameter(method)
        if receiver is None:
            continue
        receiver = receiver.arg

        def stored(target: ast.AST) -> str | None:
            if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == receiver:
                return target.attr
            return None

        def held(target: ast.AST) -> list[str]:
            attribute = stored(target)
            if attribute is not None:
                return [attribute]
            if type(target) in (ast.Tuple, ast.List):
                return list(dict.fromkeys(name for element in target.elts for name in held(element)))
            return held(target.value) if type(target) is ast.Starred else []

        stack: list[ast.AST] = list(reversed(method.body))
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in (*_FUNCTIONS, ast.Lambda, ast.ClassDef):
                continue
            if kind is ast.Assign:
                for target in node.targets:
                    attribute = stored(target)
                    if attribute is not None:
                        found.setdefault(attribute, []).append(node)
                    else:
                        for name in held(target):
                            found.setdefault(name, []).append(target)  # unpacked: unknown
            elif kind in (ast.AnnAssign, ast.AugAssign):
                attribute = stored(node.target)
                if attribute is not None:
                    found.setdefault(attribute, []).append(node)
            elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
                for name in held(node.target):
                    found.setdefault(name, []).append(node)
            elif kind is ast.withitem and node.optional_vars is not None:
                for name in held(node.optional_vars):
                    found.setdefault(name, []).append(node)
            stack.extend(reversed(source_ordered_children(node)))
    return found


def _stored(store: ast.AST) -> list[Source]:
    kind = type(store)
    if kind is ast.AnnAssign:
        return [(store.annotation, True)] + ([(store.value, False)] if store.value is not None else [])
    if kind in (ast.Assign, ast.AugAssign, ast.NamedExpr):
        return [(store.value, False)]
    if kind in (ast.For, ast.AsyncFor, ast.comprehension):
        return [(store.iter, False)]
    if kind is ast.withitem:
        return [(store.context_expr, False)]
    return []


def source_ordered_children(node: ast.AST) -> list[ast.AST]:
    """The children of ``node`` in libcst's order (source order): ``ast`` keeps a call's keywords, a dict's
    values and a conditional expression's test apart from where they stand."""
    kind = type(node)
    if kind is ast.Call:
        return [node.func, *sorted([*node.args, *node.keywords], key=lambda item: (item.lineno, item.col_offset))]
    if kind is ast.Dict:
        return [item for key, value in zip(node.keys, node.values) for item in (key, value) if item is not None]
    if kind is ast.IfExp:
        return [node.body, node.test, node.orelse]
    # ``ast.iter_child_nodes`` without the contexts and operators (leaves that hold nothing these walks look for)
    # and the fields that never hold a node: the walks over a class's methods asked it 60,000 times on the dev
    # corpus, a third of JAX401's decision
    children = []
    for field in CHILD_FIELDS[kind]:
        value = getattr(node, field, None)
        if type(value) is list:
            children += [item for item in value if isinstance(item, ast.AST)]
        elif isinstance(value, ast.AST):
            children.append(value)
    return children
