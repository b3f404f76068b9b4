"""``UnreadBuffers.never_read`` from the ``ast`` tree (JAX203's ``findings_from_ast``): its local tests read exactly
(a zero-size shape, a template use by the parent); those that follow a name's bindings (a name used only as a
template, a scan body that never reads its carry slot) or the next statement (``buf = buf.at[:].set(v)``) are
``Undecidable`` wherever they might answer, and a certain "read" everywhere else.
"""
from __future__ import annotations

import ast

from jaxlint.analysis.ast_calls import argument as argument_ast
from jaxlint.analysis.unread_buffers import SCAN, TEMPLATE_ARGUMENTS, TEMPLATE_ATTRIBUTES
from jaxlint.lint.ast_findings import AstView, Undecidable, walk


def never_read_ast(view: AstView, call: ast.Call, shape_position: int | None) -> bool:
    """Whether ``never_read`` gives a reason for the buffer ``call`` makes (a call without star arguments)."""
    if shape_position is not None and _zero_size_shape(argument_ast(call, "shape", shape_position)):
        return True
    if _template_use(view, call):
        return True
    parent, field = view.parent(call)
    if type(parent) is ast.Assign and field == "value" and len(parent.targets) == 1 \
            and type(parent.targets[0]) is ast.Name:
        name = parent.targets[0].id
        if _may_be_used_as_template(view, name, parent.targets[0]):
            raise Undecidable(f"`{name}` may be used only as a shape/dtype template (its bindings decide)")
        if _may_be_overwritten_next(view, parent, name):
            raise Undecidable(f"`{name}` may be overwritten by the next statement")
    if _may_be_scan_carry(view, call):
        raise Undecidable("a slot of a scan's carry (the body decides)")
    return False


def _zero_size_shape(value: ast.expr | None) -> bool:
    """``_zero_size_shape``: a literal 0, a tuple/list with a literal 0 in it, or a sum with one of those."""
    if type(value) is ast.BinOp and type(value.op) is ast.Add:
        return _zero_size_shape(value.left) or _zero_size_shape(value.right)
    if type(value) in (ast.Tuple, ast.List):
        return any(_zero(element) for element in value.elts)
    return _zero(value)


def _zero(value: ast.expr | None) -> bool:
    """libcst's ``Integer`` whose value is 0 (not ``False``, not ``0.0``)."""
    return type(value) is ast.Constant and type(value.value) is int and value.value == 0


def _template_use(view: AstView, node: ast.expr) -> bool:
    """``UnreadBuffers._template_use``: ``node`` is used only for its shape and dtype by its parent."""
    parent, field = view.parent(node)
    if type(parent) is ast.Attribute:
        return parent.attr in TEMPLATE_ATTRIBUTES  # (``field`` is ``value``: an attribute's only child)
    if type(parent) is ast.keyword:
        if parent.arg is None:
            return False  # ``**node``
        call, _ = view.parent(parent)
        return type(call) is ast.Call and parent.arg in _template_arguments(view, call)[1]  # (not a class's)
    if type(parent) is ast.Call and field == "args":
        index = parent.args.index(node)
        positions = _template_arguments(view, parent)[0]
        return index in positions and not any(type(arg) is ast.Starred for arg in parent.args[:index])
    return False  # (``*node`` sits in a ``Starred``: no template)


def _template_arguments(view: AstView, call: ast.Call) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """``TEMPLATE_ARGUMENTS`` of the callee (``Undecidable`` where its name may be one but is not certain)."""
    return TEMPLATE_ARGUMENTS.get(view.imported_name(call.func, TEMPLATE_ARGUMENTS.__contains__) or "", ((), ()))


def _may_be_used_as_template(view: AstView, identifier: str, target: ast.Name) -> bool:
    """Whether ``_only_template_uses`` may hold: it needs every use of the name to be a template use, so some use
    of that identifier, anywhere in the file, must be one (the uses libcst sees that ``ast`` holds as strings, a
    definition's or a parameter's name, are never template uses)."""
    return any(node.id == identifier and node is not target and _template_use(view, node)
               for node in walk(view, (ast.Name,)))


def _may_be_overwritten_next(view: AstView, assign: ast.Assign, identifier: str) -> bool:
    """Whether ``_overwritten_next`` may hold: the statement after ``assign`` in its block assigns ``identifier``
    the result of a ``.set(...)`` call (libcst's next line, where the assignment is alone on its own)."""
    parent, field = view.parent(assign)
    block = getattr(parent, field)
    following = block[block.index(assign) + 1] if block.index(assign) + 1 < len(block) else None
    return type(following) is ast.Assign and len(following.targets) == 1 \
        and type(following.targets[0]) is ast.Name and following.targets[0].id == identifier \
        and type(following.value) is ast.Call and type(following.value.func) is ast.Attribute \
        and following.value.func.attr == "set"


def _may_be_scan_carry(view: AstView, call: ast.Call) -> bool:
    """Whether ``_unread_scan_slot`` may hold: the buffer is an element of a tuple passed to ``jax.lax.scan``."""
    parent, _ = view.parent(call)
    if type(parent) is not ast.Tuple:
        return False
    holder, _ = view.parent(parent)
    scan = view.parent(holder)[0] if type(holder) is ast.keyword else holder
    return type(scan) is ast.Call and view.imported_name(scan.func, SCAN.__contains__) in SCAN
