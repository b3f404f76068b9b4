"""``jaxlint.lint.inference.ValueInference.kind_of`` on Python's ``ast`` (for the ``ast`` paths of JAX104, JAX301's
``Exported`` receivers and JAX303's ``cfg = jax.config``): the same
answers (``ARRAY``, ``OTHER``, ``MESH``, ``EXPORTED``, ``CONFIG`` or None for unknown) from the same sources, asked
through ``AstNames`` (the resolver's port) and ``ast_attribute_values`` (``self.x``'s stores).

Where the answer is not certain it raises ``Undecidable``:
- a cycle (``a = b``, ``b = a``): libcst answers "unknown" at the node it meets again and caches what it had so far,
  so its answers then depend on the order of its queries;
- a class among its own bases, or a starred base;
- ``x.device_buffers[0, 1]``: several elements in ``ast``'s one ``Tuple`` (libcst tells ``[(0, 1)]`` apart).
"""
from __future__ import annotations

import ast
from typing import Callable, Iterator

from jaxlint.analysis.ast_attribute_values import attribute_answers, class_of_self, is_none
from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.ast_names import AstNames, Binding
from jaxlint.lint.inference import ANNOTATION_KINDS, ARRAY, CONFIG, CONFIG_OBJECTS, MESH, OTHER, _OPTIONAL, \
    _may_alias_array, _names_other_type, kind_of_call_to, kind_of_transformed_call

_NONE = "none"  # a binding to the literal ``None`` (``inference._NONE``)
_IN_PROGRESS = object()
_MISSING = object()
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_PLAIN_BASES = ("builtins.object", "typing.NamedTuple", "typing.Generic", "typing.Protocol", "abc.ABC")


class AstValueKinds:
    """One file's answers (cached per node). Made per query of the file and not kept on the view: holding the view,
    it would make a reference cycle that keeps the tree alive until the cycle collector runs."""

    def __init__(self, view: AstView) -> None:
        self.view = view
        self._cache: dict[int, object] = {}
        self._attributes: dict[tuple[int, str], object] = {}

    @property
    def names(self) -> AstNames:
        """The resolver's port: the view's, built at the first question (a file may ask none)."""
        return self.view.names()

    def kind_of(self, node: ast.AST) -> str | None:
        return inferred_once(self._cache, id(node), lambda: self._infer(node), "a cycle in the value inference")

    def holds_device_buffers(self, node: ast.AST) -> bool:
        """``x.device_buffers`` on a receiver not known to be the project's own object."""
        return type(node) is ast.Attribute and node.attr == "device_buffers" and self.kind_of(node.value) != OTHER

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
        if kind is ast.Subscript and type(node.value) is ast.Attribute and node.value.attr == "device_buffers":
            index = node.slice
            if type(index) is ast.Slice or type(index) is ast.Tuple and any(type(e) is ast.Slice for e in index.elts):
                return None  # a slice, or several elements: no one element of the list
            if type(index) is ast.Tuple:
                raise Undecidable("a subscript of a tuple: one element or several to libcst")
            if self.holds_device_buffers(node.value):
                return ARRAY  # ``x.device_buffers[0]``
        return None

    def _call_kind(self, call: ast.Call) -> str | None:
        func = call.func
        if type(func) is ast.Call:
            return kind_of_transformed_call(self.names.qualified_name(func.func))
        qualified = self._callee(func)
        if qualified is not None:
            return kind_of_call_to(qualified)
        if type(func) is ast.Name:
            bindings = self.names.bindings(func)
            if len(bindings) == 1 and type(bindings[0].node) is ast.ClassDef:
                return OTHER  # an instance of the module's own class
            if len(bindings) == 1 and type(bindings[0].node) in _FUNCTIONS:
                function = bindings[0].node
                if function.returns is None:
                    return self._returned_kind(function)
                return self.annotation_kind(function.returns)  # ``_returned_kind``: the annotation first
        return None

    def _returned_kind(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        """``ValueInference._returned_kind`` of a function without a return annotation: the one kind its own
        ``return`` values give, where the inference reads them (``returned_values``); unknown otherwise, and for a
        coroutine (numpyro's ``def model(...): ... return x``)."""
        if type(function) is ast.AsyncFunctionDef:
            return None
        values, complete = returned_values(function)
        if not complete:
            return None
        kinds = {self.kind_of(value) for value in values}
        return kinds.pop() if len(kinds) == 1 else None

    def _callee(self, func: ast.AST) -> str | None:
        """``ValueInference.callee``: also through a name whose only binding assigns it a name or attribute chain."""
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
                return _NONE if is_none(bound.value) else self.kind_of(bound.value)
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
            # ``for b in x.device_buffers`` (a statement or a comprehension): each ``b`` is a ``jax.Array``
            named = type(bound.target) is ast.Name and bound.target.id == name
            return ARRAY if named and self.holds_device_buffers(bound.iter) else None
        if kind is ast.arg:
            if bound.annotation is None or self.view.parent(bound)[1] in ("vararg", "kwarg"):
                return None
            return self.annotation_kind(bound.annotation)
        if kind is ast.withitem:
            # A ``Mesh`` enters as itself; other context managers' ``__enter__`` results are not followed.
            if type(bound.optional_vars) is ast.Name and self.kind_of(bound.context_expr) == MESH:
                return MESH
            return None
        return None

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
        return bindings[0].node if len(bindings) == 1 and type(bindings[0].node) is ast.ClassDef else None

    # -- annotations -----------------------------------------------------------------------------------------
    def annotation_kind(self, annotation: ast.AST) -> str | None:
        kind = type(annotation)
        if kind is ast.BinOp and type(annotation.op) is ast.BitOr:
            kept = [side for side in (annotation.left, annotation.right) if not is_none(side)]
            return self.annotation_kind(kept[0]) if len(kept) == 1 else None
        if kind is ast.Subscript:
            if self.names.qualified_name(annotation.value) in _OPTIONAL and type(annotation.slice) is not ast.Slice:
                if type(annotation.slice) is ast.Tuple:
                    return None  # several elements, or one tuple: no kind either way
                return self.annotation_kind(annotation.slice)
            return None
        if kind is not ast.Name and kind is not ast.Attribute:
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

    def _relative_import(self, name: ast.Name) -> bool:
        bindings = self.names.bindings(name)
        return bool(bindings) and all(type(b.node) is ast.ImportFrom and b.node.level for b in bindings)

    # -- self.<attribute> --------------------------------------------------------------------------------------
    def _attribute_kind(self, node: ast.Attribute) -> str | None:
        if type(node.value) is not ast.Name:
            return None
        owner = class_of_self(self.names, node.value)
        if owner is None:
            return None
        return inferred_once(self._attributes, (id(owner), node.attr), lambda: self._stored_kind(owner, node.attr),
                             "a cycle through an attribute")

    def _stored_kind(self, owner: ast.ClassDef, attribute: str) -> str | None:
        """What every store of ``self.<attribute>`` in the class's methods (and its class-level annotation) gives
        (a class with a method has an indented body: libcst's ``_class_level_annotations`` sees all of it)."""
        return _agree(set(attribute_answers(owner, attribute, self.annotation_kind, self.kind_of, _NONE)))


def inferred_once(cache: dict, key: object, infer: Callable[[], object], cycle: str):
    """The answer cached under ``key``, ``infer()`` the first time it is asked. The ports raise ``Undecidable``
    where libcst's inference meets a node again while answering it (a cycle: libcst answers "unknown" there and
    caches what it had so far, so its answers then depend on the order of its queries) and on absurdly deep code;
    an answer given up on is not cached."""
    cached = cache.get(key, _MISSING)
    if cached is _IN_PROGRESS:
        raise Undecidable(cycle)
    if cached is not _MISSING:
        return cached
    cache[key] = _IN_PROGRESS
    try:
        answer = infer()
    except RecursionError:
        del cache[key]
        raise Undecidable("absurdly deep code") from None
    except Undecidable:
        del cache[key]
        raise
    cache[key] = answer
    return answer


def own_body_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function's body but those of the functions, lambdas and classes nested in it (nor those
    themselves): what ``inference._BodyWalker`` walks, in no particular order."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if type(node) in _NESTED_SCOPES:
            continue
        yield node
        stack += ast.iter_child_nodes(node)


_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _agree(kinds: set) -> str | None:
    """``inference._agree``: the one kind all bindings give, ``None`` bindings neutral."""
    if len(kinds) == 2 and _NONE in kinds:
        kinds = kinds - {_NONE}
    kind = next(iter(kinds)) if len(kinds) == 1 else None
    return None if kind == _NONE else kind



def returned_values(function: ast.FunctionDef) -> tuple[list[ast.expr], bool]:
    """(the values its own ``return``s give, whether the inference reads them: ``inference._Returns`` finds no
    ``yield``, no bare ``return``, at least one value, and the body cannot fall off its end)."""
    values: list[ast.expr] = []
    complete = True
    for node in own_body_nodes(function):
        kind = type(node)
        if kind is ast.Return:
            if node.value is None:
                complete = False
            else:
                values.append(node.value)
        elif kind in (ast.Yield, ast.YieldFrom):
            complete = False
    return values, complete and bool(values) and _ends_in_return(function.body)


def _ends_in_return(body: list[ast.stmt]) -> bool:
    """``inference._ends_in_return``: the last statement returns or raises, or is an ``if`` whose branches do."""
    last = body[-1]
    if type(last) in (ast.Return, ast.Raise):
        return True
    if type(last) is ast.If:
        return bool(last.orelse) and _ends_in_return(last.body) and _ends_in_return(last.orelse)
    return False
