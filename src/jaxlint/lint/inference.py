"""What a name or attribute holds: a small, local, lazy value inference for the rules that decide on it.

Some rules decide on *what an expression holds*, not on how it is spelled: ``with mesh:`` (JAX401) only matters
for a ``jax.sharding.Mesh``, ``.in_shardings_hlo`` (JAX301) only on a ``jax.export.Exported``, ``cfg.update(...)``
(JAX102/JAX303) only on ``jax.config``, ``x.device()`` (JAX104) only on a ``jax.Array``. ``ValueInference.kind_of``
answers with one of the kinds below, or ``None``: **unknown is a first-class answer**, and each rule documents what
it does with it.

What is followed, all within one module and only for the expressions a rule asks about (answers are cached):
- calls of known JAX factories (``jax.sharding.Mesh``, ``jax.make_mesh``, ``jax.export.deserialize``,
  ``jax.export.export(f)(...)``, ``jnp.*``, ``jax.random.*``, ``jax.device_put``, ``jax.jit(f)(...)``), and
  references to ``jax.config``;
- names: every binding in the scope that owns the name must give the same kind (``cfg = jax.config``,
  ``mesh = make_mesh(...)``, a parameter annotated ``mesh: jax.sharding.Mesh``, ``with Mesh(...) as m``);
- ``self.x``: every ``self.x = ...`` / ``self.x: T`` in the methods of the enclosing class, and an ``x: T``
  annotation in the class body, must agree;
- calls of the module's own functions: the return annotation, or else every ``return`` giving the same kind;
- annotations: ``jax.Array``, ``jax.sharding.Mesh``, ``jax.export.Exported``..., ``Optional[...]``/``X | None``;
- the elements of ``x.device_buffers`` (``x.device_buffers[0]``, ``for b in x.device_buffers``, also in a
  comprehension): ``jax.Array``s, unless ``x`` is known to be the project's own object.
A binding to the literal ``None`` is neutral (``global_mesh = None``, set to a mesh later, holds a mesh wherever it is
used as one). A value known to be an instance of a class that is not JAX's is ``OTHER``, never a JAX type: ``self``
in a method of a module class whose bases are known and not JAX's, a call of a class of the module, an annotation
naming a builtin, a class of the module, or a class imported from a package that is no JAX library (unless its name
suggests an array alias, such as ``Array``). Everything else is unknown.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.instance_classes import InstanceClasses
from jaxlint.lint.names import Binding, NameResolver
from jaxlint.lint.walk import iter_children

MESH = "mesh"
EXPORTED = "exported"
CONFIG = "config"
ARRAY = "array"
OTHER = "other"  # known, and not a JAX object (a project's own class, a builtin type)

_UNKNOWN = None
_NONE = "none"  # a binding to the literal ``None``: neutral when the name's other bindings agree
_IN_PROGRESS = object()

MESH_FACTORIES = frozenset({
    "jax.sharding.Mesh", "jax.make_mesh", "jax.experimental.maps.Mesh", "jax.interpreters.pxla.Mesh",
})
EXPORTED_FACTORIES = frozenset({
    "jax.export.deserialize", "jax.experimental.export.deserialize", "jax.export.Exported",
    "jax.experimental.export.Exported",
})
EXPORT_FUNCTIONS = frozenset({"jax.export.export", "jax.experimental.export.export"})
CONFIG_OBJECTS = frozenset({"jax.config", "jax.config.config", "jax._src.config.config"})
ARRAY_FACTORIES = frozenset({"jax.device_put", "jax.numpy.asarray", "jax.numpy.array"})
# Transformations whose wrapped function, called, returns arrays (a pytree of them in general).
COMPILING = frozenset({"jax.jit", "jax.pmap"})
# ``jax.numpy`` / ``jax.random`` functions whose result is not one array.
_NOT_ONE_ARRAY = frozenset({
    "shape", "ndim", "size", "dtype", "result_type", "promote_types", "iinfo", "finfo", "issubdtype", "isdtype",
    "can_cast", "meshgrid", "broadcast_arrays", "broadcast_shapes", "split", "array_split", "hsplit", "vsplit",
    "dsplit", "unravel_index", "nonzero", "where", "argwhere", "tril_indices", "triu_indices", "diag_indices",
    "tril_indices_from", "triu_indices_from", "diag_indices_from", "mask_indices", "indices", "ix_", "atleast_1d",
    "atleast_2d", "atleast_3d", "histogram", "histogram2d", "histogramdd", "unique", "unique_all",
    "unique_counts", "unique_inverse", "frompyfunc", "vectorize", "ndarray", "printoptions", "set_printoptions",
    "get_printoptions", "load", "save", "savez", "divmod", "frexp", "modf", "polyfit", "einsum_path",
    "key_impl", "key_data",
})
ANNOTATION_KINDS = {
    "jax.sharding.Mesh": MESH, "jax.experimental.maps.Mesh": MESH,
    "jax.export.Exported": EXPORTED, "jax.experimental.export.Exported": EXPORTED,
    "jax.Array": ARRAY, "jax.numpy.ndarray": ARRAY,
}
# Annotations from these packages may name JAX types under another name (``chex.Array``, ``jaxtyping.Array``...)
# or generic ones: never taken as "not a JAX type".
_NOT_OTHER_ROOTS = frozenset({
    "jax", "jaxlib", "typing", "typing_extensions", "collections", "numpy", "chex", "jaxtyping", "flax", "equinox",
    "optax", "haiku", "penzai", "orbax", "praxis", "paxml", "tensorflow", "torch", "abc", "types",
})
_OPTIONAL = frozenset({"typing.Optional", "typing_extensions.Optional"})


class ValueInference:
    """Answers "what does this expression hold?" for one parsed module (lazily; every answer is cached)."""

    def __init__(self, module: cst.Module, resolver: NameResolver) -> None:
        self.module = module
        self.resolver = resolver
        self._cache: dict[int, object] = {}
        self._attributes: dict[tuple[int, str], object] = {}  # (id(class), attribute) -> kind
        self._classes: InstanceClasses | None = None

    @property
    def classes(self) -> InstanceClasses:
        """The class a value is an instance of (``instance_classes``), sharing this module's view of ``self``."""
        if self._classes is None:
            # not ``self._class_of_self``: a bound method here would be a reference cycle holding the tree
            self._classes = InstanceClasses(self.resolver, functools.partial(class_of_self, self.resolver),
                                            _attribute_stores)
        return self._classes

    # -- public API ------------------------------------------------------------------------------------------
    def kind_of(self, node: cst.BaseExpression) -> str | None:
        """MESH, EXPORTED, CONFIG, ARRAY, OTHER, or None when unknown."""
        key = id(node)
        cached = self._cache.get(key, _UNKNOWN)
        if cached is _IN_PROGRESS:
            return _UNKNOWN  # a cycle (``x = f(x)``): nothing to learn from it
        if key in self._cache:
            return cached  # type: ignore[return-value]
        self._cache[key] = _IN_PROGRESS
        try:
            kind = self._infer(node)
        except RecursionError:  # pragma: no cover - absurdly deep code
            kind = _UNKNOWN
        self._cache[key] = kind
        return kind

    def annotation_kind(self, annotation: cst.BaseExpression) -> str | None:
        """The kind of value an annotation promises (``jax.Array`` -> ARRAY, a project class -> OTHER)."""
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            sides = [annotation.left, annotation.right]
            kept = [side for side in sides if not _is_none(side)]
            return self.annotation_kind(kept[0]) if len(kept) == 1 else _UNKNOWN
        if isinstance(annotation, cst.Subscript):
            if self.resolver.qualified_name(annotation.value) in _OPTIONAL and len(annotation.slice) == 1 \
                    and isinstance(annotation.slice[0].slice, cst.Index):
                return self.annotation_kind(annotation.slice[0].slice.value)
            return _UNKNOWN
        if not isinstance(annotation, (cst.Name, cst.Attribute)):
            return _UNKNOWN
        qualified = self.resolver.qualified_name(annotation)
        if qualified in ANNOTATION_KINDS:
            return ANNOTATION_KINDS[qualified]
        if qualified is not None:
            return OTHER if _names_other_type(qualified) else _UNKNOWN
        if isinstance(annotation, cst.Name) and self._project_class(annotation) is not None:
            return OTHER
        if isinstance(annotation, cst.Name) and self._relative_import(annotation) \
                and not _may_alias_array(annotation.value):
            return OTHER
        return _UNKNOWN

    # -- expressions -----------------------------------------------------------------------------------------
    def _infer(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, (cst.Name, cst.Attribute)):
            qualified = self.resolver.qualified_name(node)
            if qualified in CONFIG_OBJECTS:
                return CONFIG
            if qualified is not None:
                return _UNKNOWN  # a module or an imported name: not a value this inference follows
            if isinstance(node, cst.Name):
                return self._name_kind(node)
            return self._attribute_kind(node)
        if isinstance(node, cst.Call):
            return self._call_kind(node)
        if isinstance(node, cst.NamedExpr):
            return self.kind_of(node.value)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
                and self._holds_device_buffers(node.value):
            return ARRAY  # ``x.device_buffers[0]``
        return _UNKNOWN

    def _holds_device_buffers(self, node: cst.BaseExpression) -> bool:
        """``x.device_buffers``: a list of single-device ``jax.Array``s. The name is JAX's own (no other common
        library has it), so any receiver counts except one known to be the project's own object."""
        return isinstance(node, cst.Attribute) and node.attr.value == "device_buffers" \
            and self.kind_of(node.value) != OTHER

    def _call_kind(self, call: cst.Call) -> str | None:
        func = call.func
        if isinstance(func, cst.Call):
            return kind_of_transformed_call(self.resolver.qualified_name(func.func))
        qualified = self.callee(func)
        if qualified is not None:
            return kind_of_call_to(qualified)
        if isinstance(func, cst.Name):
            bindings = self.resolver.bindings(func)
            if len(bindings) == 1 and isinstance(bindings[0].node, cst.ClassDef) \
                    and bindings[0].node.name is not func:
                return OTHER  # an instance of the module's own class
            if len(bindings) == 1 and isinstance(bindings[0].node, cst.FunctionDef):
                return self._returned_kind(bindings[0].node)
        return _UNKNOWN

    def callee(self, func: cst.BaseExpression) -> str | None:
        """The qualified name of a called function, also through a local alias (``Mesh = jax.sharding.Mesh``,
        ``fn = jnp.clip``): the alias's only binding is one plain assignment of a name or attribute chain."""
        qualified = self.resolver.qualified_name(func)
        if qualified is None and isinstance(func, cst.Name):
            bindings = self.resolver.bindings(func)
            if len(bindings) == 1 and isinstance(bindings[0].node, cst.Assign) \
                    and isinstance(bindings[0].node.value, (cst.Name, cst.Attribute)) \
                    and len(bindings[0].node.targets) == 1 and bindings[0].node.targets[0].target is not func:
                qualified = self.resolver.qualified_name(bindings[0].node.value)
        return qualified

    def _returned_kind(self, function: cst.FunctionDef) -> str | None:
        if function.returns is not None:
            return self.annotation_kind(function.returns.annotation)
        if function.asynchronous is not None:
            return _UNKNOWN
        finder = _Returns()
        finder.walk(function.body)
        if finder.generator or not finder.values or finder.bare or not _ends_in_return(function.body):
            return _UNKNOWN
        kinds = {self.kind_of(value) for value in finder.values}
        return kinds.pop() if len(kinds) == 1 else _UNKNOWN

    # -- names -----------------------------------------------------------------------------------------------
    def _name_kind(self, name: cst.Name) -> str | None:
        bindings = self.resolver.bindings(name)
        if not bindings:
            return _UNKNOWN
        if len(bindings) == 1 and isinstance(bindings[0].node, cst.Param) and bindings[0].node.annotation is None:
            owner = self._class_of_self(name)
            if owner is not None and not self._may_be_jax_class(owner):
                return OTHER  # ``self``: an instance of the module's own class
        kinds = {self._binding_kind(name.value, binding) for binding in bindings}
        return _agree(kinds)

    def _binding_kind(self, name: str, binding: Binding) -> str | None:
        bound = binding.node
        if isinstance(bound, (cst.Import, cst.ImportFrom)):
            return CONFIG if binding.qualified in CONFIG_OBJECTS else _UNKNOWN
        if isinstance(bound, cst.Assign):
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in bound.targets):
                return _NONE if _is_none(bound.value) else self.kind_of(bound.value)
            return _UNKNOWN  # bound by unpacking
        if isinstance(bound, cst.AnnAssign):
            if not isinstance(bound.target, cst.Name):
                return _UNKNOWN
            declared = self.annotation_kind(bound.annotation.annotation)
            if declared is not None:
                return declared
            return self.kind_of(bound.value) if bound.value is not None else _UNKNOWN
        if isinstance(bound, cst.NamedExpr):
            return self.kind_of(bound.value)
        if isinstance(bound, (cst.For, cst.CompFor)):
            # ``for b in x.device_buffers`` (a statement or a comprehension): each ``b`` is a ``jax.Array``
            named = isinstance(bound.target, cst.Name) and bound.target.value == name
            return ARRAY if named and self._holds_device_buffers(bound.iter) else _UNKNOWN
        if isinstance(bound, cst.Param):
            if bound.annotation is None or bound.star:
                return _UNKNOWN
            return self.annotation_kind(bound.annotation.annotation)
        if isinstance(bound, cst.WithItem):
            # A ``Mesh`` enters as itself; other context managers' ``__enter__`` results are not followed.
            if isinstance(bound.asname.name, cst.Name) and self.kind_of(bound.item) == MESH:
                return MESH
            return _UNKNOWN
        return _UNKNOWN

    def _may_be_jax_class(self, owner: cst.ClassDef) -> bool:
        """A class with a base that is JAX's, or unknown (``class MyMesh(Mesh)``, ``class A(Base)``)."""
        for base in owner.bases:
            qualified = self.resolver.qualified_name(base.value)
            if qualified in ("builtins.object", "typing.NamedTuple", "typing.Generic", "typing.Protocol", "abc.ABC"):
                continue
            if isinstance(base.value, cst.Name) and qualified is None:
                inner = self._project_class(base.value)
                if inner is not None and not self._may_be_jax_class(inner):
                    continue
            return True
        return False

    def _project_class(self, name: cst.Name) -> cst.ClassDef | None:
        bindings = self.resolver.bindings(name)
        if len(bindings) == 1 and isinstance(bindings[0].node, cst.ClassDef):
            return bindings[0].node
        return None

    def _relative_import(self, name: cst.Name) -> bool:
        bindings = self.resolver.bindings(name)
        return bool(bindings) and all(isinstance(b.node, cst.ImportFrom) and b.node.relative for b in bindings)

    # -- self.<attribute> --------------------------------------------------------------------------------------
    def _attribute_kind(self, node: cst.Attribute) -> str | None:
        if not isinstance(node.value, cst.Name):
            return _UNKNOWN
        owner = self._class_of_self(node.value)
        if owner is None:
            return _UNKNOWN
        attribute = node.attr.value
        key = (id(owner), attribute)
        if key not in self._attributes:
            self._attributes[key] = _IN_PROGRESS
            self._attributes[key] = self._stored_kind(owner, attribute)
        found = self._attributes[key]
        return _UNKNOWN if found is _IN_PROGRESS else found  # type: ignore[return-value]

    def _stored_kind(self, owner: cst.ClassDef, attribute: str) -> str | None:
        """What every store of ``self.<attribute>`` in the class's methods (and its class-level annotation) gives."""
        kinds: set[str | None] = set()
        for statement in _class_level_annotations(owner, attribute):
            kinds.add(self.annotation_kind(statement.annotation.annotation))
        for method in _methods(owner):
            receiver = _first_param(method)
            if receiver is None:
                continue
            for bound in _self_assignments(method, receiver, attribute):
                if isinstance(bound, cst.AnnAssign):
                    declared = self.annotation_kind(bound.annotation.annotation)
                    kinds.add(declared if declared is not None or bound.value is None
                              else self.kind_of(bound.value))
                elif isinstance(bound, cst.Assign):
                    kinds.add(_NONE if _is_none(bound.value) else self.kind_of(bound.value))
                else:
                    kinds.add(_UNKNOWN)
        # Nothing stores it in this class (a base class or outside code does): unknown.
        return _agree(kinds)

    def _class_of_self(self, name: cst.Name) -> cst.ClassDef | None:
        """The class whose method binds ``name`` as its first parameter (``self``), or None."""
        return class_of_self(self.resolver, name)


def class_of_self(resolver: NameResolver, name: cst.Name) -> cst.ClassDef | None:
    """The class whose method binds ``name`` as its first parameter (``self``), or None."""
    bindings = resolver.bindings(name)
    if len(bindings) != 1 or not isinstance(bindings[0].node, cst.Param):
        return None
    scope = resolver.scope_of(name)
    while scope is not None and scope.kind != "function":
        scope = scope.parent
    # The scope that owns the parameter is the method itself (self is rarely rebound in nested functions).
    while scope is not None and scope.kind == "function":
        method = scope.node
        parent = scope.parent
        if parent is not None and parent.kind == "class" and isinstance(method, cst.FunctionDef) \
                and _first_param(method) is bindings[0].node and not _is_static(method, resolver):
            return parent.node  # type: ignore[return-value]
        scope = parent
    return None


def attribute_stores(owner: cst.ClassDef, attribute: str) -> list[cst.CSTNode]:
    """Every statement of the class that gives ``self.<attribute>`` a value or a type: an ``attribute: T``
    annotation in the class body, then each store in its methods (``self.x = ...``, ``self.x: T``; an unpacking
    store is its ``AssignTarget``, a loop or ``with`` store the ``For``/``WithItem``)."""
    found: list[cst.CSTNode] = list(_class_level_annotations(owner, attribute))
    for method in _methods(owner):
        receiver = _first_param(method)
        if receiver is not None:
            found.extend(_self_assignments(method, receiver, attribute))
    return found


# -- helpers ---------------------------------------------------------------------------------------------------
def kind_of_call_to(qualified: str) -> str | None:
    """What a call of the function named ``qualified`` returns (both trees' inference ask this one table)."""
    if qualified in MESH_FACTORIES:
        return MESH
    if qualified in EXPORTED_FACTORIES:
        return EXPORTED
    if qualified in ARRAY_FACTORIES:
        return ARRAY
    module, _, last = qualified.rpartition(".")
    if module in ("jax.numpy", "jax.random") and last not in _NOT_ONE_ARRAY and not last[:1].isupper():
        return ARRAY
    return _UNKNOWN


def kind_of_transformed_call(inner: str | None) -> str | None:
    """What ``inner(f)(...)`` returns: an ``Exported`` from ``export(f)(...)``, an array from ``jax.jit(f)(...)``."""
    if inner in EXPORT_FUNCTIONS:
        return EXPORTED
    if inner in COMPILING:
        return ARRAY
    return _UNKNOWN


def _names_other_type(qualified: str) -> bool:
    """An annotation naming a type that is not JAX's: a builtin (not ``object``), or a class of another package
    that is no JAX library and whose name does not suggest an alias of the array type (``myproject.types.Array``)."""
    root, last = qualified.split(".")[0], qualified.rsplit(".", 1)[-1]
    if root == "builtins":
        return qualified != "builtins.object"
    return root not in _NOT_OTHER_ROOTS and not _may_alias_array(last)


def _may_alias_array(name: str) -> bool:
    """``Array``, ``ArrayLike``, ``PyTreeArray``...: may be a project's own alias of ``jax.Array``."""
    lowered = name.lower()
    return "array" in lowered or "tensor" in lowered


def _agree(kinds: set) -> str | None:
    """The one kind all bindings give. ``None`` bindings are neutral: a ``mesh = None`` set to a mesh later holds
    a mesh wherever it is used as one (``None`` would fail there in every version anyway)."""
    if len(kinds) == 2 and _NONE in kinds:
        kinds = kinds - {_NONE}
    kind = next(iter(kinds)) if len(kinds) == 1 else _UNKNOWN
    return _UNKNOWN if kind == _NONE else kind


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _ends_in_return(block: cst.BaseSuite) -> bool:
    """The block cannot fall off its end (which returns ``None``): its last statement returns or raises."""
    if not isinstance(block, cst.IndentedBlock) or not block.body:
        return isinstance(block, cst.SimpleStatementSuite) and isinstance(block.body[-1], (cst.Return, cst.Raise))
    last = block.body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], (cst.Return, cst.Raise))
    if isinstance(last, cst.If):
        orelse = last.orelse
        if orelse is None:
            return False
        rest = orelse.body if isinstance(orelse, cst.Else) else cst.IndentedBlock(body=[orelse])
        return _ends_in_return(last.body) and _ends_in_return(rest)
    return False


def _first_param(function: cst.FunctionDef) -> cst.Param | None:
    params = list(function.params.posonly_params) + list(function.params.params)
    return params[0] if params else None


def _is_static(function: cst.FunctionDef, resolver: NameResolver) -> bool:
    for decorator in function.decorators:
        if resolver.qualified_name(decorator.decorator) in ("builtins.staticmethod", "builtins.classmethod"):
            return True
    return False


def _methods(owner: cst.ClassDef):
    for statement in owner.body.body:
        if isinstance(statement, cst.FunctionDef):
            yield statement


def _class_level_annotations(owner: cst.ClassDef, attribute: str):
    for statement in owner.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                        and small.target.value == attribute:
                    yield small


def _attribute_stores(owner: cst.ClassDef, attribute: str) -> tuple[list, list]:
    """The class-level annotations of ``attribute`` and the statements of the class's methods that store
    ``self.<attribute>`` (the receiver being each method's first parameter)."""
    stores = []
    for method in _methods(owner):
        receiver = _first_param(method)
        if receiver is not None:
            stores.extend(_self_assignments(method, receiver, attribute))
    return list(_class_level_annotations(owner, attribute)), stores


def _self_assignments(method: cst.FunctionDef, receiver: cst.Param, attribute: str) -> list[cst.CSTNode]:
    """Statements of ``method`` (not of nested functions) that store ``<receiver>.<attribute>``."""
    return _stores_by_attribute(method, receiver.name.value).get(attribute, [])


# One walk of a method finds its stores of every attribute: asked attribute by attribute, a class with many
# ``self.x`` reads was walked once per attribute (the largest share of the libcst visit on the dev corpus). libcst
# nodes take no weak references, so the index is kept for the last methods asked, keyed by identity.
_STORES_KEPT = 64
_stores_index: dict[int, tuple[cst.FunctionDef, str, dict[str, list[cst.CSTNode]]]] = {}


def _stores_by_attribute(method: cst.FunctionDef, receiver: str) -> dict[str, list[cst.CSTNode]]:
    kept = _stores_index.get(id(method))
    if kept is not None and kept[0] is method and kept[1] == receiver:
        return kept[2]
    finder = _SelfStores(receiver)
    finder.walk(method.body)
    if len(_stores_index) >= _STORES_KEPT:
        del _stores_index[next(iter(_stores_index))]
    _stores_index[id(method)] = (method, receiver, finder.found)
    return finder.found


@functools.cache
def _nested_scopes() -> frozenset[type[cst.CSTNode]]:
    return frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})


class _BodyWalker:
    """Walks one function body, not the functions, lambdas and classes nested in it."""

    def walk(self, node: cst.CSTNode) -> None:
        nested_scopes = _nested_scopes()
        stack = [node]
        while stack:
            current = stack.pop()
            if type(current) in nested_scopes:
                continue
            self.visit(current)
            stack.extend(reversed(tuple(iter_children(current))))

    def visit(self, node: cst.CSTNode) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class _Returns(_BodyWalker):
    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []
        self.bare = False
        self.generator = False

    def visit(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Return):
            if node.value is None:
                self.bare = True
            else:
                self.values.append(node.value)
        elif isinstance(node, cst.Yield):
            self.generator = True


class _SelfStores(_BodyWalker):
    """The stores of ``<receiver>.<attribute>``, per attribute, in walk order (an unpacking store is its target,
    once per attribute it holds)."""

    def __init__(self, receiver: str) -> None:
        self.receiver = receiver
        self.found: dict[str, list[cst.CSTNode]] = {}

    def _stored(self, target: cst.BaseExpression) -> str | None:
        """The attribute ``target`` stores when it is ``<receiver>.<attribute>`` itself."""
        if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == self.receiver:
            return target.attr.value
        return None

    def _held(self, target: cst.BaseExpression, into: dict[str, None]) -> None:
        """The attributes an unpacking ``target`` stores, in order (a dict as an ordered set)."""
        attribute = self._stored(target)
        if attribute is not None:
            into[attribute] = None
        elif type(target) in (cst.Tuple, cst.List):
            for element in target.elements:
                self._held(element.value, into)
        elif type(target) is cst.StarredElement:
            self._held(target.value, into)

    def _add(self, attribute: str, node: cst.CSTNode) -> None:
        self.found.setdefault(attribute, []).append(node)

    def _add_held(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        held: dict[str, None] = {}
        self._held(target, held)
        for attribute in held:
            self._add(attribute, node)

    def visit(self, node: cst.CSTNode) -> None:
        kind = type(node)  # exact types: libcst's isinstance goes through ABCMeta, the costliest call here
        if kind is cst.Assign:
            for target in node.targets:
                attribute = self._stored(target.target)
                if attribute is not None:
                    self._add(attribute, node)
                else:
                    self._add_held(target.target, target)  # unpacked: unknown
        elif kind is cst.AnnAssign or kind is cst.AugAssign or kind is cst.NamedExpr:
            attribute = self._stored(node.target)
            if attribute is not None:
                self._add(attribute, node)
        elif kind is cst.For or kind is cst.CompFor:
            self._add_held(node.target, node)
        elif kind is cst.WithItem and node.asname is not None:
            self._add_held(node.asname.name, node)
