"""JAX203 empty-uninitialized: ``jnp.empty``/``empty_like`` no longer return zeros on GPU/TPU (JAX 0.11.0)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, statement_of, walk
from jaxlint.lint.diagnostics import Applicability, Edit
from jaxlint.lint.names import Scope
from jaxlint.rules.base import Invalid, NodeEdit, Replace, Rule, Valid, safe_fix
from jaxlint.analysis.ast_calls import argument as argument_ast, has_star_args as has_star_args_ast
from jaxlint.analysis.calls import argument, has_star_args, keyword_arg, string_value
from jaxlint.analysis.unread_buffers import UnreadBuffers
from jaxlint.analysis.unread_buffers_ast import never_read_ast

# qualified name -> (replacement function, first parameter's old name, its new name)
TARGETS = {
    "jax.numpy.empty": ("zeros", None, None),
    "jax.numpy.empty_like": ("zeros_like", "prototype", "a"),
}
# Where the ``shape`` parameter sits: ``empty(shape, ...)``, ``empty_like(prototype, dtype, shape, ...)``.
SHAPE_POSITION = {"jax.numpy.empty": 0, "jax.numpy.empty_like": 2}
PAD = "jax.numpy.pad"
SINCE = "0.11.0"
PAD_MESSAGE = (f"`jnp.pad(mode=\"empty\")` pads with uninitialized values on GPU/TPU since JAX {SINCE}; use "
               f"`mode=\"constant\"` if the padding is read (it gives zeros)")


def _message(old_name: str, new_name: str) -> str:
    return (f"`jnp.{old_name}` returns uninitialized memory on GPU/TPU since JAX {SINCE} (it returned zeros before); "
            f"use `jnp.{new_name}` if the array is read before every element is written")


def _unseen_keyword(old_keyword: str) -> str:
    """What the message adds where ``empty_like`` gets no fix."""
    return f" (no automatic fix: `{old_keyword}=` could be passed unseen)"


def _fix_message(new_name: str) -> str:
    return f"Use `jnp.{new_name}` (zeros, as JAX 0.10.2 returned)"


class EmptyUninitialized(Rule):
    code = "JAX203"
    name = "empty-uninitialized"
    summary = "jnp.empty/empty_like return uninitialized memory on GPU/TPU since JAX 0.11.0 (opt-in)"
    since = SINCE
    behaviour_change = True
    opt_in = True
    triggers = ()
    required_words = frozenset({frozenset({"jax", "empty"}), frozenset({"jax", "empty_like"})})
    ast_names = frozenset(TARGETS) | {PAD}
    # Its findings and their fixes (one-for-one renames) are read from ``ast`` (``findings_from_ast``); a buffer whose
    # reads only ``UnreadBuffers`` can follow (a name's uses, a scan body, the next statement) is ``Undecidable``.
    decides_from_ast = True
    explanation = """
## What it does
Finds `jnp.empty(...)` and `jnp.empty_like(...)`, called or passed as a function
(`jax.tree.map(jnp.empty_like, params)`), and replaces them with `jnp.zeros` / `jnp.zeros_like`. Also reports
`jnp.pad(..., mode="empty")`, without a fix. Opt-in (`--extend-select JAX203`): most code writes every element
before reading it, and then `empty` is right and cheaper.

Silent where no element can be read uninitialized (`jaxlint.analysis.unread_buffers`): a zero-size buffer
(`jnp.empty((0, d))`, `jnp.empty((0,) + shape)`); a shape/dtype template (`jax.pure_callback(f, jnp.empty_like(x), x)`,
`jnp.zeros_like(jnp.empty(...))`, `jax.eval_shape(f, jnp.empty(...))`, `.shape`/`.dtype`, directly or through a
name used only so); a buffer fully overwritten by the next statement (`buf = jnp.empty(n)` then
`buf = buf.at[:].set(v)`); a `lax.scan` carry slot that the body unpacks (`buf, h = carry` as its first statement)
and never reads. Everything else is reported, as whether code reads before it writes cannot be decided in general.

## Why
Up to JAX 0.10.2, `jnp.empty` was `jnp.zeros` and `jnp.empty_like` was `lax.full_like(prototype, 0)`: the arrays
were zeros, and code could (wrongly, but it worked) read them before writing. From JAX 0.11.0 both lower to the
`empty` primitive: an `AllocateBuffer` custom call on GPU and TPU, whose contents are whatever was in memory (CPU
still gives zeros, so tests on CPU do not show it). `jnp.pad(mode="empty")` pads with such values too. Whether the
code reads before it writes cannot be decided statically.

## Example
```python
acc = jnp.empty((n, d), jnp.float32)
buf = jnp.empty_like(prototype=x)
```
Use instead:
```python
acc = jnp.zeros((n, d), jnp.float32)
buf = jnp.zeros_like(a=x)
```

## Fix safety
Safe: `jnp.zeros(shape, dtype, *, device, out_sharding)` takes exactly the arguments of `jnp.empty`, and
`jnp.zeros_like(a, dtype, shape, *, device)` those of `jnp.empty_like` with the first one renamed (`prototype=`
becomes `a=`); the result is the zeros JAX 0.10.2 returned, in every version (at the cost of filling the memory).
A bare `empty` imported with `from jax.numpy import empty` is rewritten to `<alias>.zeros` when the module imports
`jax.numpy` under some alias, and gets no fix otherwise. `empty_like` passed as a function gets no fix: a caller
could pass `prototype=`. For `jnp.pad(mode="empty")`, `mode="constant"` pads with zeros: decide by hand.

## JAX version
0.11.0 (changelog; `jax/_src/numpy/array_creation.py`, `jax/_src/lax/lax.py`). Not reported when the min version
is known to be 0.11.0 or later.
"""

    VALID = [
        Valid("""
            import jax
            import jax.numpy as jnp
            import numpy as np

            def host_sort(x):
                return jax.pure_callback(np.sort, jnp.empty_like(x), x)
        """, note="a result template for pure_callback: only its shape and dtype are used"),
        Valid("""
            import jax
            import jax.numpy as jnp
            template = jnp.empty((batch, 128), jnp.bfloat16)
            out_shape = jax.eval_shape(model.apply, params, template)
            print(template.shape, template.dtype)
        """, note="a name used only as a shape/dtype template"),
        Valid("""
            import jax.numpy as jnp
            no_rows = jnp.empty((0, 16))
            nothing = jnp.empty(0, jnp.int32)
            def remainder(x):
                return jnp.empty((0,) + x.shape[1:], dtype=x.dtype)
        """, note="zero-size buffers"),
        Valid("""
            import jax.numpy as jnp
            def fill(values):
                buf = jnp.empty_like(values)
                buf = buf.at[:].set(values * 2)
                return buf
        """, note="fully overwritten by the next statement"),
        Valid("""
            import jax
            import jax.numpy as jnp

            def step(carry, x):
                last, total = carry
                return (x, total + x), None

            (last, total), _ = jax.lax.scan(step, (jnp.empty(()), jnp.zeros(())), xs)
        """, note="a scan carry slot the body never reads"),
        Valid("""
            import jax.numpy as jnp
            a = jnp.zeros((3, 4))
            b = jnp.zeros_like(x)
        """, note="already zeros"),
        Valid("""
            import numpy as np
            a = np.empty((3, 4))
            b = np.empty_like(x)
        """, note="numpy's empty is not jax's"),
        Valid("""
            import jax.numpy as jnp
            def empty(shape):
                return jnp.ones(shape)
            a = empty((3,))
        """, note="a project's own empty"),
        Valid("""
            import jax.numpy as jnp
            if queue.empty():
                items = jnp.array([])
            is_empty = x.size == 0
        """, note="other things called empty"),
        Valid("""
            import jax.numpy as jnp
            a = jnp.pad(x, 2, mode="edge")
            b = jnp.pad(x, 2)
        """, note="other pad modes"),
        Valid("""
            import jax.numpy as jnp
            a = jnp.empty((3, 4))
        """, min_version="0.11.0", note="the project only supports JAX >= 0.11.0"),
        Valid("""
            import jax.numpy as jnp
            a = jnp.empty((3, 4))
        """, target_version="0.10.2", note="target before the change"),
    ]

    INVALID = [
        Invalid("""
            import jax
            import jax.numpy as jnp

            def step(carry, x):
                acc, count = carry
                return (acc + x, count + 1), None

            (acc, count), _ = jax.lax.scan(step, (jnp.empty(()), 0), xs)
        """, fixed="""
            import jax
            import jax.numpy as jnp

            def step(carry, x):
                acc, count = carry
                return (acc + x, count + 1), None

            (acc, count), _ = jax.lax.scan(step, (jnp.zeros(()), 0), xs)
        """, note="a scan carry slot the body reads"),
        Invalid("""
            import jax.numpy as jnp
            def fill(values):
                buf = jnp.empty_like(values)
                buf = buf.at[1:].set(values[1:])
                return buf
        """, fixed="""
            import jax.numpy as jnp
            def fill(values):
                buf = jnp.zeros_like(values)
                buf = buf.at[1:].set(values[1:])
                return buf
        """, note="partly overwritten: element 0 is read uninitialized"),
        Invalid("""
            import jax.numpy as jnp
            template = jnp.empty((4, 4))
            print(template.shape, template.sum())
        """, fixed="""
            import jax.numpy as jnp
            template = jnp.zeros((4, 4))
            print(template.shape, template.sum())
        """, note="used as a template and read"),
        Invalid("""
            import jax.numpy as jnp
            a = jnp.empty((3, 4), jnp.float32)
        """, fixed="""
            import jax.numpy as jnp
            a = jnp.zeros((3, 4), jnp.float32)
        """, runnable=True),
        Invalid("""
            import jax.numpy as jnp
            x = jnp.ones((2, 3))
            b = jnp.empty_like(x, dtype=jnp.int32)
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.ones((2, 3))
            b = jnp.zeros_like(x, dtype=jnp.int32)
        """, runnable=True),
        Invalid("""
            import jax.numpy as jnp
            x = jnp.ones((2, 3))
            b = jnp.empty_like(prototype=x, shape=(4,))
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.ones((2, 3))
            b = jnp.zeros_like(a=x, shape=(4,))
        """, runnable=True, note="prototype= becomes a="),
        Invalid("""
            import jax
            a = jax.numpy.empty(shape=(8,), dtype=jax.numpy.bfloat16)
        """, fixed="""
            import jax
            a = jax.numpy.zeros(shape=(8,), dtype=jax.numpy.bfloat16)
        """, note="fully spelled; shape by keyword"),
        Invalid("""
            import jax
            import jax.numpy as np
            params = jax.tree.map(np.empty_like, tree)
            make = np.empty
        """, fixed="""
            import jax
            import jax.numpy as np
            params = jax.tree.map(np.empty_like, tree)
            make = np.zeros
        """, count=2, note="passed as a function: empty is renamed, empty_like (prototype=?) is not"),
        Invalid("""
            import jax.numpy as jnp
            from jax.numpy import empty
            a = empty((3,))
        """, fixed="""
            import jax.numpy as jnp
            from jax.numpy import empty
            a = jnp.zeros((3,))
        """, note="from-import: rewritten through the module's jax.numpy alias"),
        Invalid("""
            from jax.numpy import empty
            a = empty((3,))
        """, note="from-import and no jax.numpy alias: no fix"),
        Invalid("""
            import jax.numpy as jnp
            from jax.numpy import empty
            def f(jnp):
                return empty((3,))
        """, note="the alias is shadowed where the call is: no fix"),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.pad(x, ((1, 1),), mode="empty")
            z = jnp.pad(x, 1, "empty")
        """, count=2, note="pad mode='empty': no fix"),
        Invalid("""
            import jax.numpy as jnp
            a = jnp.empty(shape, **options)
        """, fixed="""
            import jax.numpy as jnp
            a = jnp.zeros(shape, **options)
        """, note="**kwargs: zeros accepts every keyword empty accepts"),
        Invalid("""
            import jax.numpy as jnp
            b = jnp.empty_like(**options)
        """, note="**kwargs could hold prototype=: no fix"),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self._unread = UnreadBuffers(context.resolver)

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) != PAD or has_star_args(node):
            return
        mode = argument(node, "mode", 2)
        if mode is not None and string_value(mode.value) == "empty":
            self.report(node, PAD_MESSAGE)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._reference(node)

    def _reference(self, node: cst.Name | cst.Attribute) -> None:
        qualified = self.qualified_name(node)
        if qualified not in TARGETS:
            return
        ancestors = self.context.ancestors
        if any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in ancestors):
            return
        parent = ancestors[-2] if len(ancestors) >= 2 else None
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return  # ``jnp.empty.__doc__``: not a use of the function's result
        new_name, old_keyword, new_keyword = TARGETS[qualified]
        old_name = qualified.rsplit(".", 1)[1]
        called = isinstance(parent, cst.Call) and parent.func is node
        if called and not has_star_args(parent) \
                and self._unread.never_read(parent, ancestors[:-1], SHAPE_POSITION[qualified]) is not None:
            return  # no element of it is ever read before being written
        subject = parent if called else node
        message = _message(old_name, new_name)
        if old_keyword is not None and (not called or any(arg.star == "**" for arg in parent.args)):
            self.report(subject, message + _unseen_keyword(old_keyword))
            return
        edits: list[NodeEdit] = []
        if isinstance(node, cst.Attribute):
            edits.append(Replace(node.attr, new_name))
        else:
            alias = self._numpy_alias(node)
            if alias is None:
                self.report(subject, message + " (no automatic fix: the module has no `jax.numpy` alias to use)")
                return
            edits.append(Replace(node, f"{alias}.{new_name}"))
        if called and old_keyword is not None:
            keyword = keyword_arg(parent, old_keyword)
            if keyword is not None:
                edits.append(Replace(keyword.keyword, new_keyword))
        self.report(subject, message, safe_fix(_fix_message(new_name), *edits, probe=subject if called else None))

    def _numpy_alias(self, name: cst.Name) -> str | None:
        """A module-level name bound only to ``jax.numpy`` and not shadowed where ``name`` is."""
        resolver = self.context.resolver
        candidates = sorted(alias for alias, bindings in resolver.module_scope.bindings.items()
                            if bindings and all(b.qualified == "jax.numpy" for b in bindings))
        scope: Scope | None = resolver.scope_of(name)
        for alias in candidates:
            current, first, shadowed = scope, True, False
            while current is not None and current.parent is not None:
                if (first or current.kind != "class") and alias in current.bindings:
                    shadowed = True
                    break
                first = False
                current = current.parent
            if not shadowed:
                return alias
        return None

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) --------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` and ``_reference`` report, fixes included (a rename of the attribute, and of
        ``prototype=``). ``Undecidable`` where a bare name may be ``empty``/``empty_like`` (its fix needs the
        module's ``jax.numpy`` alias as the resolver's scopes see it), and where ``never_read_ast`` cannot tell."""
        if not cls.applies_to(view.settings):
            return []  # (the engine asks only a rule that applies; ``decide`` alone may ask any)
        if view.star_import:
            raise Undecidable("a star import may bind `empty`")
        found = []
        for node in walk(view, (ast.Import, ast.ImportFrom, ast.Call, ast.Attribute)):
            kind = type(node)
            if kind is ast.Call:
                finding = _pad_from_ast(view, node)
            elif kind is ast.Attribute:
                finding = _reference_from_ast(view, node)
            else:
                _no_bare_target(node)
                finding = None
            if finding is not None:
                found.append(finding)
        return found


def _no_bare_target(node: ast.Import | ast.ImportFrom) -> None:
    """``Undecidable`` for an import that binds a name to ``empty``/``empty_like`` itself."""
    for alias in node.names:
        if type(node) is ast.ImportFrom:
            bound = f"{node.module}.{alias.name}" if node.module and not node.level else None
        else:
            bound = alias.name if alias.asname else None
        if bound in TARGETS:
            raise Undecidable(f"`{bound}` imported by name")


def _pad_from_ast(view: AstView, call: ast.Call) -> AstFinding | None:
    """``visit_Call``: ``jnp.pad(..., mode="empty")``."""
    if view.imported_name(call.func, PAD.__eq__) != PAD or has_star_args_ast(call):
        return None
    mode = argument_ast(call, "mode", 2)
    if type(mode) is ast.JoinedStr:
        raise Undecidable("an f-string mode")  # libcst's value of a concatenation with one is not read here
    if type(mode) is ast.Constant and type(mode.value) is str and mode.value == "empty":
        return AstFinding(EmptyUninitialized.code, call, PAD_MESSAGE)
    return None


def _reference_from_ast(view: AstView, node: ast.Attribute) -> AstFinding | None:
    """``_reference`` for an attribute chain (``jnp.empty``, ``jax.numpy.empty_like``)."""
    if node.attr not in ("empty", "empty_like"):
        return None
    qualified = view.imported_name(node, TARGETS.__contains__)
    if qualified not in TARGETS:
        return None
    parent, field = view.parent(node)
    if type(parent) is ast.Attribute:
        return None  # ``jnp.empty.__doc__``
    new_name, old_keyword, new_keyword = TARGETS[qualified]
    called = type(parent) is ast.Call and field == "func"
    if called and not has_star_args_ast(parent) and never_read_ast(view, parent, SHAPE_POSITION[qualified]):
        return None
    subject = parent if called else node
    message = _message(node.attr, new_name)
    if old_keyword is not None and (not called or any(kw.arg is None for kw in parent.keywords)):
        return AstFinding(EmptyUninitialized.code, subject, message + _unseen_keyword(old_keyword))
    edits = [_renamed(view, view.offset_of(node, end=True) - len(node.attr), node.attr, new_name)]
    if called and old_keyword is not None:
        keyword = next((kw for kw in parent.keywords if kw.arg == old_keyword), None)
        if keyword is not None:
            edits.append(_renamed(view, view.offset_of(keyword), old_keyword, new_keyword))
    probe = view.span(subject, statement_of(view.ancestors(subject))) if called else None
    return AstFinding(EmptyUninitialized.code, subject, message,
                      fix=AstFix(Applicability.SAFE, _fix_message(new_name), tuple(edits), probe))


def _renamed(view: AstView, start: int, old: str, new: str) -> Edit:
    """``Replace`` of the identifier ``old`` that starts at ``start``."""
    if view.source[start:start + len(old)] != old:
        raise Undecidable("an identifier spelled otherwise in the source")  # (``ast`` normalizes identifiers)
    return Edit(start, start + len(old), new)
