"""JAX205 cross-2d: ``jnp.cross`` of 2-element vectors, deprecated in JAX 0.11.0 and a ``ValueError`` from 0.12.0."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_findings import AstFinding, AstView, walk
from jaxlint.rules.base import Invalid, Rule, Valid
from jaxlint.analysis.calls import argument, has_star_args, keyword_arg
from jaxlint.project.versions import Version

CROSS = "jax.numpy.cross"
DEPRECATED = "0.11.0"  # DeprecationWarning
REMOVED = "0.12.0"  # ValueError: Dimension must be 3 for cross product
# Array constructors whose result has the shape of their (literal) first argument.
CONSTRUCTORS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray"})
FORMULA = "a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]"


def _number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float, cst.Imaginary))


def literal_shape(node: cst.BaseExpression) -> tuple[int, ...] | None:
    """The shape of a rectangular nested list/tuple of number literals; None when it is not one.

    Elements of unknown shape (names, calls) give None: ``[x, y]`` is ``(2, 3)`` when ``x`` and ``y`` are 3-vectors.
    """
    if _number(node):
        return ()
    if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements:
        return None
    shapes = set()
    for element in node.elements:
        if not isinstance(element, cst.Element):  # a *starred element
            return None
        shapes.add(literal_shape(element.value))
    if len(shapes) != 1 or None in shapes:
        return None
    return (len(node.elements),) + shapes.pop()


# -- the same reading on ``ast`` ----------------------------------------------------------------------------------
_LITERAL_OR_CALL = (ast.List, ast.Tuple, ast.Call)


def _may_hold_a_literal(arguments: str) -> bool:
    """Whether a call's argument text may hold an operand ``_vector_dim`` reads: a list or tuple literal, or a
    constructor's call, each opens a bracket (in a comment too: a "maybe")."""
    return "[" in arguments or "(" in arguments


def _may_be(view: AstView, func: ast.expr, relevant) -> bool:
    """The resolver qualifies ``func`` to a name ``relevant`` answers True for (only an imported name, or any name
    under a star import, qualifies; ``Undecidable`` where it is not certain)."""
    root = func
    while type(root) is ast.Attribute:
        root = root.value
    if type(root) is not ast.Name or not (view.star_import or view.may_import(root.id)):
        return False
    return relevant(view.qualified_name_unless(func, relevant) or "")


def _ast_star(call: ast.Call) -> bool:
    """``calls.has_star_args``."""
    return any(type(arg) is ast.Starred for arg in call.args) or any(kw.arg is None for kw in call.keywords)


def _ast_argument(call: ast.Call, name: str, position: int) -> ast.expr | None:
    """``calls.argument``'s value (no star argument: ``_ast_star`` is False)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return call.args[position] if len(call.args) > position else None


def _ast_number(node: ast.expr) -> bool:
    """``_number``: libcst's Integer, Float and Imaginary are ast's int, float and complex constants."""
    if type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant and type(node.value) in (int, float, complex)


def _ast_literal_shape(node: ast.expr) -> tuple[int, ...] | None:
    """``literal_shape``."""
    if _ast_number(node):
        return ()
    if type(node) not in (ast.List, ast.Tuple) or not node.elts:
        return None
    shapes = set()
    for element in node.elts:
        if type(element) is ast.Starred:
            return None
        shapes.add(_ast_literal_shape(element))
    if len(shapes) != 1 or None in shapes:
        return None
    return (len(node.elts),) + shapes.pop()


def _ast_axis(call: ast.Call, name: str, position: int) -> int | None | bool:
    """``Cross2D._axis``."""
    value = _ast_argument(call, name, position)
    if value is None:
        return None
    sign = 1
    if type(value) is ast.UnaryOp and type(value.op) is ast.USub:
        sign, value = -1, value.operand
    if type(value) is ast.Constant and type(value.value) is int:
        return sign * value.value
    if type(value) is ast.Constant and value.value is None and name == "axis":
        return None
    return False


def _ast_vector_dim(view: AstView, node: ast.expr, axis: int) -> int | None:
    """``Cross2D._vector_dim``."""
    if type(node) is ast.Call and _may_be(view, node.func, CONSTRUCTORS.__contains__):
        if _ast_star(node) or not node.args or any(kw.arg == "ndmin" for kw in node.keywords) \
                or len(node.args) + len(node.keywords) > 2:
            return None  # (no positional argument: the first is a keyword)
        node = node.args[0]
    shape = _ast_literal_shape(node)
    if not shape or not -len(shape) <= axis < len(shape):
        return None
    return shape[axis]


class Cross2D(Rule):
    code = "JAX205"
    name = "cross-2d"
    summary = "jnp.cross of 2-element vectors: deprecated in JAX 0.11.0, ValueError from 0.12.0"
    since = DEPRECATED
    triggers = ()
    required_words = frozenset({frozenset({"jax", "numpy", "cross"})})
    ast_names = frozenset({CROSS})
    decides_from_ast = True  # no fix: ``findings_from_ast`` reads the literals as ``visit_Call`` does

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        """``may_match_ast`` from the text: a call of ``jnp.cross`` whose arguments hold a bracket (a literal
        operand, or a constructor's call): ``jnp.cross(a, b)`` of names is no finding (brax calls it so)."""
        return super().may_match_text(facts, words) and facts.may_call_such(
            CROSS, lambda call: call.positional >= 0 and _may_hold_a_literal(facts.source[call.start:call.end - 1]))

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        """A call of it with an operand ``_vector_dim`` may read: a list or tuple, or a call (a constructor's)."""
        return any(type(value) in _LITERAL_OR_CALL for call in facts.calls_to(CROSS)
                   for value in (*call.args, *(keyword.value for keyword in call.keywords)))

    explanation = f"""
## What it does
Finds `jnp.cross(a, b, ...)` where an operand is provably a 2-element vector along its vector axis: a literal
list/tuple of numbers (`[1.0, 2.0]`, `[[1, 2, 3], [4, 5, 6]]` with `axisa=0`), or `jnp.array`/`jnp.asarray`/
`np.array` of one. The vector axis is `axis` when given, else `axisa`/`axisb` (default `-1`); they must be integer
literals. Operands of unknown shape (names, calls, `jnp.array([x, y])` whose elements may be arrays themselves) and
3-element vectors are not reported.

## Why
JAX 0.11.0 deprecated 2-element vectors in `jnp.cross` (`DeprecationWarning: Support for 2-dimensional vectors in
jnp.cross is deprecated and will be removed in JAX 0.12.0. Use arrays of 3-dimensional vectors instead.`, at trace
time only, as `jnp.cross` is jitted); JAX 0.12.0 raises `ValueError: Dimension must be 3 for cross product`.
Before, two 2-vectors gave the scalar z-component `{FORMULA}` (`[1, 2] x [3, 4] = -2`), and a 2-vector with a
3-vector was computed with a zero third component.

## Example
```python
z = jnp.cross(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
```
Use instead:
```python
a, b = jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])
z = {FORMULA}
```

## Fix safety
No automatic fix: the rewrite needs the operands bound to names, the vector axes moved last
(`jnp.moveaxis(a, axisa, -1)`) and, for a 2-vector with a 3-vector, the 2-vector given a zero third component
(`jnp.concatenate([a, jnp.zeros_like(a[..., :1])], axis=-1)`), which the message spells out.

## JAX version
Deprecated in 0.11.0 (reported from a target of 0.11.0), `ValueError` from 0.12.0.
"""

    VALID = [
        Valid("""
            import jax.numpy as jnp
            z = jnp.cross(jnp.array([1.0, 0.0, 0.0]), jnp.array([0.0, 1.0, 0.0]))
            w = jnp.cross([1, 0, 0], (0, 1, 0))
        """, note="3-vectors"),
        Valid("""
            import jax.numpy as jnp
            z = jnp.cross(a, b)
            w = jnp.cross(jnp.array(a), b, axis=axis)
        """, note="unknown shapes"),
        Valid("""
            import jax.numpy as jnp
            z = jnp.cross(jnp.array([x, y]), b)
        """, note="[x, y] is (2, 3) when x and y are 3-vectors: not provably 2-vectors"),
        Valid("""
            import jax.numpy as jnp
            z = jnp.cross(jnp.array([[1, 2, 3], [4, 5, 6]]), b)
        """, note="two 3-vectors stacked: the last axis has 3 elements"),
        Valid("""
            import jax.numpy as jnp
            z = jnp.cross([1, 2], [3, 4], axisa=ax)
        """, note="axis not a literal"),
        Valid("""
            import numpy as np
            z = np.cross([1, 2], [3, 4])
        """, note="numpy.cross"),
        Valid("""
            import jax.numpy as jnp
            z = jnp.cross([1.0, 2.0], [3.0, 4.0])
        """, target_version="0.10.2", note="target before the deprecation"),
    ]

    INVALID = [
        Invalid("""
            import jax.numpy as jnp
            z = jnp.cross(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
        """, note="two 2-vectors"),
        Invalid("""
            from jax import numpy as np
            z = np.cross([1, 0], (0, 1))
        """, note="plain list and tuple literals; jax.numpy imported as np"),
        Invalid("""
            import jax.numpy as jnp
            z = jnp.cross(a, jnp.asarray([-1.0, 2.5]))
        """, note="one operand provably a 2-vector, the other unknown"),
        Invalid("""
            import jax.numpy as jnp
            z = jnp.cross(jnp.array([[1, 2, 3], [4, 5, 6]]), b, axisa=0)
        """, note="axisa=0 makes the (2, 3) literal a set of 2-vectors"),
        Invalid("""
            import jax.numpy as jnp
            z = jnp.cross(((1, 2, 3), (4, 5, 6)), ((1, 0, 0), (0, 1, 0)), axis=0)
        """, note="axis= overrides axisa/axisb"),
        Invalid("""
            import jax.numpy as jnp
            z = jnp.cross([1.0, 2.0], [3.0, 4.0])
        """, target_version="0.11.0", note="deprecated at the target: still reported"),
    ]

    # -- from ``ast`` (``jaxlint.lint.ast_findings``) -------------------------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """``visit_Call``'s findings, read from ``ast`` (``Undecidable`` only where a name cannot be resolved)."""
        rule = view.rule(cls)
        found = []
        for node in walk(view, (ast.Call,)):
            if not _may_be(view, node.func, CROSS.__eq__) or _ast_star(node):
                continue
            a, b = _ast_argument(node, "a", 0), _ast_argument(node, "b", 1)
            if a is None or b is None:
                continue
            axis = _ast_axis(node, "axis", 5)
            if axis is False:
                continue
            axis_a = axis if axis is not None else _ast_axis(node, "axisa", 2)
            axis_b = axis if axis is not None else _ast_axis(node, "axisb", 3)
            if axis_a is False or axis_b is False:
                continue
            dims = (_ast_vector_dim(view, a, -1 if axis_a is None else axis_a),
                    _ast_vector_dim(view, b, -1 if axis_b is None else axis_b))
            message = rule._message(dims)
            if message is not None:
                found.append(AstFinding(cls.code, node, message))
        return found

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) != CROSS or has_star_args(node):
            return
        a, b = argument(node, "a", 0), argument(node, "b", 1)
        if a is None or b is None:
            return
        axis = self._axis(node, "axis", 5)
        if axis is False:
            return
        axis_a = axis if axis is not None else self._axis(node, "axisa", 2)
        axis_b = axis if axis is not None else self._axis(node, "axisb", 3)
        if axis_a is False or axis_b is False:
            return
        dims = (self._vector_dim(a.value, -1 if axis_a is None else axis_a),
                self._vector_dim(b.value, -1 if axis_b is None else axis_b))
        message = self._message(dims)
        if message is not None:
            self.report(node, message)

    def _message(self, dims: tuple[int | None, int | None]) -> str | None:
        """The finding's message for the operands' vector dimensions; None when there is no finding."""
        if 2 not in dims or any(d not in (None, 2, 3) for d in dims):
            return None  # not provably 2-D, or an error in every version anyway
        if self.settings.target_version >= Version(REMOVED):
            state = f"raises `ValueError: Dimension must be 3 for cross product` since JAX {REMOVED}"
        else:
            state = f"is deprecated since JAX {DEPRECATED} and raises `ValueError` from {REMOVED}"
        if dims == (2, 2):
            how = (f"compute the old scalar result by hand: `{FORMULA}` (vector axes moved last with "
                   f"`jnp.moveaxis` if they are not)")
        else:
            how = ("give the 2-vector a zero third component (`jnp.concatenate([a, jnp.zeros_like(a[..., :1])], "
                   f"axis=-1)`), or, if both are 2-vectors, use `{FORMULA}`")
        return f"`jnp.cross` of 2-element vectors {state}; {how}"

    def _axis(self, node: cst.Call, name: str, position: int) -> int | None | bool:
        """The literal integer value of an axis argument; None when absent; False when not a literal."""
        arg = argument(node, name, position)
        if arg is None:
            return None
        value = arg.value
        sign = 1
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            sign, value = -1, value.expression
        if isinstance(value, cst.Integer):
            return sign * int(value.evaluated_value)
        if isinstance(value, cst.Name) and value.value == "None" and name == "axis":
            return None
        return False

    def _vector_dim(self, node: cst.BaseExpression, axis: int) -> int | None:
        """How many elements ``node`` provably has along ``axis``; None when unknown."""
        if isinstance(node, cst.Call) and self.qualified_name(node.func) in CONSTRUCTORS:
            if has_star_args(node) or not node.args or node.args[0].keyword is not None \
                    or keyword_arg(node, "ndmin") is not None or len(node.args) > 2:
                return None
            node = node.args[0].value
        shape = literal_shape(node)
        if not shape or not -len(shape) <= axis < len(shape):
            return None
        return shape[axis]
