"""What the ``ast`` tree says for certain about an array argument: whether it is complex, how many dimensions it has
(JAX601's ``complex-argument`` and ``batched-vector`` rows: ``jnp.sign`` of complex input, ``jnp.linalg.solve`` of a
batched vector).

Only literals and the calls that spell their result's dtype or shape are read: a complex literal (``3 + 4j``), a
``dtype=`` that names a complex type, ``.astype(complex)``, ``jax.lax.complex`` and the FFTs; literal shapes given to
``jnp.ones``/``zeros``/``full``/``empty``, ``jax.random.normal``/``uniform``/``randint`` and ``reshape``, ``jnp.eye``
(two), ``jnp.stack`` of a list of arrays of known rank, nested list literals. A name is followed where every binding in
its scope is a plain assignment (``analysis.result_chains``). Anything else is unknown: no answer, no finding.
"""
from __future__ import annotations

import ast

from jaxlint.analysis.result_chains import ResultChains
from jaxlint.lint.ast_findings import AstView, Undecidable

_NUMPY = ("jax.numpy.", "numpy.")
_COMPLEX_DTYPES = frozenset(f"{module}{name}" for module in _NUMPY
                            for name in ("complex64", "complex128", "complex_", "csingle", "cdouble", "complexfloating"))
_COMPLEX_STRINGS = frozenset({"complex", "complex64", "complex128", "c8", "c16"})
# calls whose result is complex whatever their input (``jax.lax.complex(re, im)``, the forward and inverse FFTs)
_COMPLEX_RESULTS = frozenset({"jax.lax.complex"} | {f"{module}fft.{name}" for module in _NUMPY for name in (
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn")})
# elementwise functions that keep a complex input complex
_KEEP_COMPLEX = frozenset(f"{module}{name}" for module in _NUMPY
                          for name in ("exp", "sqrt", "conj", "conjugate", "negative"))
_ARRAY_OF = frozenset(f"{module}{name}" for module in _NUMPY for name in ("array", "asarray"))
# the first argument (or ``shape=``) is the shape
_SHAPED = frozenset(f"{module}{name}" for module in _NUMPY for name in ("zeros", "ones", "empty", "full"))
_LIKE = frozenset(f"{module}{name}_like" for module in _NUMPY for name in ("zeros", "ones", "empty", "full"))
_MATRIX = frozenset(f"{module}{name}" for module in _NUMPY for name in ("eye", "identity"))
_STACK = frozenset(f"{module}stack" for module in _NUMPY)
_RESHAPE = frozenset(f"{module}reshape" for module in _NUMPY)
# ``jax.random.<name>(key, shape, ...)``: the shape is the second argument
_RANDOM_SHAPED = frozenset(f"jax.random.{name}" for name in ("normal", "uniform", "randint"))
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


class ArrayValues:
    """``is_complex(node)`` and ``ndim(node)`` for one file's ``ast`` view (the names' bindings indexed once)."""

    def __init__(self, view: AstView, chains: ResultChains | None = None) -> None:
        self.view = view
        self.chains = chains or ResultChains(view)
        self._visiting: set[int] = set()  # names being followed (``x = x + 1j`` answers unknown)

    # -- complex -----------------------------------------------------------------------------------------------
    def is_complex(self, node: ast.AST) -> bool:
        """Certainly a complex value (False: real, or not known)."""
        kind = type(node)
        if kind is ast.Constant:
            return type(node.value) is complex
        if kind is ast.UnaryOp:
            return type(node.op) in (ast.USub, ast.UAdd) and self.is_complex(node.operand)
        if kind is ast.BinOp:
            return type(node.op) in _ARITHMETIC and (self.is_complex(node.left) or self.is_complex(node.right))
        if kind in (ast.List, ast.Tuple):
            return any(self.is_complex(element) for element in node.elts)
        if kind is ast.Subscript:  # indexing an array keeps its dtype; an item of a list may be another number
            return not self._may_be_sequence(node.value) and self.is_complex(node.value)
        if kind is ast.Name:
            return self._all_values(node, self.is_complex)
        if kind is ast.Call:
            return self._complex_call(node)
        return False

    def _complex_call(self, call: ast.Call) -> bool:
        func = call.func
        if type(func) is ast.Attribute and func.attr == "astype" and self._qualified(func) is None:
            dtype = argument(call, "dtype", 0)
            return dtype is not None and self._complex_dtype(dtype)
        name = self._qualified(func)
        if name is None:
            return type(func) is ast.Name and func.id == "complex" and self._builtin("complex")
        if name == "jax.numpy.astype":
            dtype = argument(call, "dtype", 1)
            return dtype is not None and self._complex_dtype(dtype)
        if name in _COMPLEX_RESULTS:
            return True
        if name in _KEEP_COMPLEX:
            first = argument(call, "x", 0)
            return first is not None and self.is_complex(first)
        if name in _ARRAY_OF or name in _SHAPED or name in _LIKE or name in _MATRIX:
            position = 1 if name in _ARRAY_OF else None  # ``jnp.array(x, jnp.complex64)``
            dtype = argument(call, "dtype", position)
            if dtype is not None:
                return self._complex_dtype(dtype)
            if name in _ARRAY_OF:
                value = argument(call, "object", 0)
                return value is not None and self.is_complex(value)
            if name.endswith("full"):
                fill = argument(call, "fill_value", 1)
                return fill is not None and self.is_complex(fill)
        return False

    def _complex_dtype(self, node: ast.AST) -> bool:
        if type(node) is ast.Constant:
            return type(node.value) is str and node.value in _COMPLEX_STRINGS
        if type(node) is ast.Name and node.id == "complex":
            return self._builtin("complex")
        return self._qualified(node) in _COMPLEX_DTYPES

    def _may_be_sequence(self, node: ast.AST) -> bool:
        """A list or tuple literal, or a name that may hold one."""
        if type(node) in (ast.List, ast.Tuple):
            return True
        if type(node) is ast.Name:
            held = self.chains.plain_values(node)
            return held is None or any(type(value) in (ast.List, ast.Tuple) for value in held)
        return False

    # -- dimensions --------------------------------------------------------------------------------------------
    def ndim(self, node: ast.AST) -> int | None:
        """The number of dimensions, where it is certain."""
        kind = type(node)
        if kind is ast.Constant:
            return 0 if type(node.value) in (int, float, complex) else None
        if kind is ast.UnaryOp:
            return self.ndim(node.operand) if type(node.op) in (ast.USub, ast.UAdd) else None
        if kind is ast.BinOp:
            if type(node.op) not in _ARITHMETIC:
                return None
            left, right = self.ndim(node.left), self.ndim(node.right)
            return max(left, right) if left is not None and right is not None else None  # broadcasting
        if kind in (ast.List, ast.Tuple):
            inner = {self.ndim(element) for element in node.elts}
            return 1 + inner.pop() if len(inner) == 1 and None not in inner else None
        if kind is ast.Name:
            found = self._values(node, self.ndim)
            return found.pop() if found is not None and len(found) == 1 and None not in found else None
        if kind is ast.Call:
            return self._call_ndim(node)
        return None

    def _call_ndim(self, call: ast.Call) -> int | None:
        func = call.func
        if type(func) is ast.Attribute and func.attr == "reshape" and self._qualified(func) is None:
            if len(call.args) == 1 and not call.keywords:
                return _shape_length(call.args[0])
            if call.args and not call.keywords and all(_int_literal(arg) for arg in call.args):
                return len(call.args)  # ``x.reshape(2, 3)``
            return None
        name = self._qualified(func)
        if name is None:
            return None
        if name in _MATRIX:
            return 2
        if name in _SHAPED:
            shape = argument(call, "shape", 0)
            return _shape_length(shape) if shape is not None else None
        if name in _RANDOM_SHAPED:
            shape = argument(call, "shape", 1)
            return _shape_length(shape) if shape is not None else None
        if name in _RESHAPE:
            shape = argument(call, "shape", 1) or argument(call, "newshape", 1)
            return _shape_length(shape) if shape is not None else None
        if name in _ARRAY_OF or name in _LIKE:
            if any(keyword.arg in ("ndmin", "shape") for keyword in call.keywords):
                return None
            value = argument(call, "a" if name in _LIKE else "object", 0)
            return self.ndim(value) if value is not None else None
        if name in _STACK:
            arrays = argument(call, "arrays", 0)
            if type(arrays) is ast.BinOp and type(arrays.op) is ast.Mult and type(arrays.left) in (ast.List, ast.Tuple) \
                    and _int_literal(arrays.right):
                arrays = arrays.left  # ``[x] * 2``
            if type(arrays) not in (ast.List, ast.Tuple) or not arrays.elts:
                return None
            inner = {self.ndim(element) for element in arrays.elts}
            return 1 + inner.pop() if len(inner) == 1 and None not in inner else None
        return None

    # -- names -------------------------------------------------------------------------------------------------
    def _values(self, name: ast.Name, answer) -> set | None:
        """``answer`` of each value ``name`` is plainly assigned in its scope (None where it is not followed)."""
        held = self.chains.plain_values(name)
        if not held or id(name) in self._visiting:
            return None
        self._visiting.add(id(name))
        try:
            return {answer(value) for value in held}
        finally:
            self._visiting.discard(id(name))

    def _all_values(self, name: ast.Name, answer) -> bool:
        found = self._values(name, answer)
        return found == {True}

    def _qualified(self, node: ast.AST) -> str | None:
        """The imported name ``node`` spells, or None (a local, a builtin, or not certain)."""
        root = node
        while type(root) is ast.Attribute:
            root = root.value
        if type(root) is not ast.Name or not self.view.may_import(root.id):
            return None
        try:
            return self.view.qualified_name(node)
        except Undecidable:
            return None

    def _builtin(self, identifier: str) -> bool:
        return not self.view.may_import(identifier) and not self.view.bound_in_file(identifier) \
            and not self.view.star_import


def argument(call: ast.Call, keyword: str, position: int | None) -> ast.expr | None:
    """The argument passed as ``keyword=`` or at ``position`` (None: absent, or after a ``*args``)."""
    for item in call.keywords:
        if item.arg == keyword:
            return item.value
    if position is None or any(type(arg) is ast.Starred for arg in call.args[:position + 1]):
        return None
    return call.args[position] if len(call.args) > position else None


def _int_literal(node: ast.AST) -> bool:
    return type(node) is ast.Constant and type(node.value) is int


def _shape_length(shape: ast.AST) -> int | None:
    """The rank a literal shape gives: ``(2, 3)`` two, ``5`` one; a tuple of names counts too (``(n, d)``)."""
    if _int_literal(shape):
        return 1
    if type(shape) in (ast.Tuple, ast.List) and not any(type(e) is ast.Starred for e in shape.elts):
        return len(shape.elts)
    return None
