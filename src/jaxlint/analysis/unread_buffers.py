"""Is an uninitialized buffer (``jnp.empty(...)``) ever read? The shapes of code where it provably is not (JAX203).

Each test is local and gives True only when no element of the buffer can be read before it is written:
- zero-size: a literal shape with a 0 in it (``jnp.empty((0, d))``, ``jnp.empty((0,) + shape)``);
- a shape/dtype template: passed where only its shape and dtype are used (``jax.pure_callback(f,
  jnp.empty_like(x), x)``, ``jnp.zeros_like(...)``, ``jax.eval_shape(f, ...)``, ``.shape``/``.dtype``), directly or
  through a name whose every use is such;
- fully overwritten before any read: ``buf = jnp.empty(...)`` followed by ``buf = buf.at[:].set(v)`` (or ``[...]``);
- a ``lax.scan`` carry slot the body never reads: ``lax.scan(body, (jnp.empty(...), h0), xs)`` where ``body``
  unpacks its carry (``buf, h = carry``, or in its parameters) and never reads ``buf``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.names import NameResolver
from jaxlint.lint.walk import iter_children
from jaxlint.analysis.calls import argument, has_star_args
from jaxlint.analysis.targets import target_context

# qualified name -> the argument positions (and keywords) that are only used for their shape and dtype.
TEMPLATE_ARGUMENTS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "jax.pure_callback": ((1,), ("result_shape_dtypes",)),
    "jax.experimental.io_callback": ((1,), ("result_shape_dtypes",)),
    "jax.numpy.zeros_like": ((0,), ("a",)),
    "jax.numpy.ones_like": ((0,), ("a",)),
    "jax.numpy.full_like": ((0,), ("a",)),
    "jax.numpy.empty_like": ((0,), ("prototype",)),
    "jax.lax.full_like": ((0,), ("x",)),
    "jax.numpy.shape": ((0,), ("a",)),
    "jax.numpy.ndim": ((0,), ("a",)),
    "jax.numpy.size": ((0,), ("a",)),
    "jax.eval_shape": ((1, 2, 3, 4, 5, 6, 7, 8), ()),
}
TEMPLATE_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size", "aval", "sharding"})
SCAN = frozenset({"jax.lax.scan"})


class UnreadBuffers:
    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def never_read(self, call: cst.Call, ancestors: Sequence[cst.CSTNode], shape_position: int | None) -> str | None:
        """Why the buffer ``call`` (``ancestors[-1]``) makes is never read uninitialized, or None."""
        if shape_position is not None and _zero_size(argument(call, "shape", shape_position)):
            return "zero-size"
        if self._template_use(ancestors):
            return "template"
        parent = ancestors[-2] if len(ancestors) >= 2 else None
        if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1 \
                and isinstance(parent.targets[0].target, cst.Name):
            name = parent.targets[0].target
            if self._only_template_uses(name):
                return "template"
            if _overwritten_next(parent, name.value, ancestors):
                return "overwritten"
        if self._unread_scan_slot(ancestors):
            return "scan-carry"
        return None

    # -- templates ---------------------------------------------------------------------------------------------
    def _template_use(self, chain: Sequence[cst.CSTNode]) -> bool:
        """``chain[-1]`` is used only for its shape and dtype by its parent."""
        node = chain[-1]
        parent = chain[-2] if len(chain) >= 2 else None
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return parent.attr.value in TEMPLATE_ATTRIBUTES
        if isinstance(parent, cst.Arg) and parent.value is node and len(chain) >= 3 \
                and isinstance(chain[-3], cst.Call):
            outer = chain[-3]
            positions, keywords = TEMPLATE_ARGUMENTS.get(self.resolver.qualified_name(outer.func) or "", ((), ()))
            if parent.keyword is not None:
                return parent.keyword.value in keywords
            if parent.star:
                return False
            index = [arg for arg in outer.args if arg.keyword is None].index(parent)
            return index in positions and not any(arg.star for arg in outer.args[:index])
        return False

    def _only_template_uses(self, name: cst.Name) -> bool:
        bindings = self.resolver.bindings(name)
        owner = self._owner_node(name, bindings)
        if owner is None or len(bindings) != 1:
            return False
        uses = [chain for found, chain in _name_uses(owner, name.value)
                if found is not name and self.resolver.bindings(found) is bindings]
        return bool(uses) and all(self._template_use(chain) for chain in uses)

    def _owner_node(self, name: cst.Name, bindings) -> cst.CSTNode | None:
        scope = self.resolver.scope_of(name)
        while scope is not None:
            if scope.bindings.get(name.value) is bindings:
                return scope.node
            scope = scope.parent
        return None

    # -- scan carries ------------------------------------------------------------------------------------------
    def _unread_scan_slot(self, chain: Sequence[cst.CSTNode]) -> bool:
        """``lax.scan(body, (..., <buffer>, ...), xs)`` where the body never reads that slot of its carry."""
        if len(chain) < 5 or not isinstance(chain[-2], cst.Element) or not isinstance(chain[-3], cst.Tuple):
            return False
        element, init = chain[-2], chain[-3]
        arg, scan = chain[-4], chain[-5]
        if not (isinstance(arg, cst.Arg) and arg.value is init and isinstance(scan, cst.Call)) \
                or self.resolver.qualified_name(scan.func) not in SCAN or has_star_args(scan):
            return False
        if argument(scan, "init", 1) is not arg:
            return False
        body = argument(scan, "f", 0)
        if body is None or not isinstance(body.value, cst.Name):
            return False
        bindings = self.resolver.bindings(body.value)
        if len(bindings) != 1 or not isinstance(bindings[0].node, cst.FunctionDef):
            return False
        function = bindings[0].node
        slot = list(init.elements).index(element)
        slot_name = _carry_slot_name(function, slot, len(init.elements))
        return slot_name is not None and not _reads(function.body, slot_name)


def _zero_size(arg: cst.Arg | None) -> bool:
    return arg is not None and _zero_size_shape(arg.value)


def _zero_size_shape(value: cst.BaseExpression) -> bool:
    """A literal 0, or a tuple/list with a literal 0 in it, or ``(0,) + rest`` / ``rest + (0,)``."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        return _zero_size_shape(value.left) or _zero_size_shape(value.right)
    if isinstance(value, cst.Integer):
        return value.evaluated_value == 0
    if isinstance(value, (cst.Tuple, cst.List)):
        return any(isinstance(e, cst.Element) and isinstance(e.value, cst.Integer) and e.value.evaluated_value == 0
                   for e in value.elements)
    return False


def _overwritten_next(assign: cst.Assign, name: str, chain: Sequence[cst.CSTNode]) -> bool:
    """The next statement of the block is ``name = name.at[:].set(value)`` (or ``[...]``), ``value`` not using it."""
    if len(chain) < 4 or not isinstance(chain[-3], cst.SimpleStatementLine) or len(chain[-3].body) != 1:
        return False
    line, block = chain[-3], chain[-4]
    statements = list(getattr(block, "body", ()))
    if line not in statements:
        return False
    position = statements.index(line)
    if position + 1 >= len(statements):
        return False
    following = statements[position + 1]
    if not isinstance(following, cst.SimpleStatementLine) or len(following.body) != 1:
        return False
    statement = following.body[0]
    if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0].target, cst.Name) and statement.targets[0].target.value == name):
        return False
    value = statement.value
    # name.at[FULL].set(v)
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "set"
            and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star):
        return False
    indexed = value.func.value
    if not (isinstance(indexed, cst.Subscript) and len(indexed.slice) == 1 and _is_full(indexed.slice[0].slice)):
        return False
    at = indexed.value
    if not (isinstance(at, cst.Attribute) and at.attr.value == "at" and isinstance(at.value, cst.Name)
            and at.value.value == name):
        return False
    return not _reads(value.args[0].value, name)


def _is_full(index: cst.BaseSlice) -> bool:
    if isinstance(index, cst.Slice):
        return index.lower is None and index.upper is None and index.step is None
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Ellipsis)


def _carry_slot_name(function: cst.FunctionDef, slot: int, size: int) -> str | None:
    """The name the body gives slot ``slot`` of its carry: ``def body(carry, x): a, b = carry`` (first statement)."""
    params = list(function.params.posonly_params) + list(function.params.params)
    if not params:
        return None
    carry = params[0].name.value
    body = function.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    first = body.body[0]
    if not (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
            and isinstance(first.body[0], cst.Assign)):
        return None
    assign = first.body[0]
    if not (len(assign.targets) == 1 and isinstance(assign.value, cst.Name) and assign.value.value == carry):
        return None
    target = assign.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != size:
        return None
    element = target.elements[slot]
    if not isinstance(element, cst.Element) or not isinstance(element.value, cst.Name):
        return None
    # The carry itself must not be read anywhere else (``carry[0]`` would read the slot).
    reads = [chain for node, chain in _name_uses(body, carry) if not _stored(chain)]
    if len(reads) != 1:
        return None
    return element.value.value


def _reads(node: cst.CSTNode, name: str) -> bool:
    return any(not _stored(chain) for _, chain in _name_uses(node, name))


def _stored(chain: Sequence[cst.CSTNode]) -> bool:
    """``chain[-1]`` (a Name) is assigned, not read: a target, except of ``x += ...`` (which reads ``x`` first)."""
    return target_context(chain) == "store" and not isinstance(chain[-2], cst.AugAssign)


def _name_uses(root: cst.CSTNode, name: str):
    """Every variable ``Name`` spelled ``name`` under ``root``, with its chain of ancestors (``root`` first)."""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(root, (root,))]
    while stack:
        node, chain = stack.pop()
        if isinstance(node, cst.Name):
            if node.value == name:
                yield node, chain
            continue
        if isinstance(node, cst.Attribute):
            children = [node.value]  # ``.attr`` is no variable
        elif isinstance(node, cst.Arg):
            children = [node.value]  # nor is a keyword
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        else:
            children = list(iter_children(node))
        for child in reversed(children):
            stack.append((child, chain + (child,)))
