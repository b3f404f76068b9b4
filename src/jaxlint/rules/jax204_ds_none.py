"""JAX204 ds-none: ``ds(start, None)`` and ``ds(None, size)`` changed meaning in JAX 0.11.1."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, walk
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix, unsafe_fix
from jaxlint.analysis.calls import argument, has_star_args, is_none

# ``jax.ds`` (top-level from 0.9.x) and Pallas' ``pl.ds``/``pl.dslice``: one function, ``jax._src.indexing.dslice``.
# (``jax.experimental.mosaic.gpu``'s ``ds`` is a different class, ``DynamicSlice``.)
DS = frozenset({"jax.ds", "jax.experimental.pallas.ds", "jax.experimental.pallas.dslice"})
SINCE = "0.11.1"


def _short(qualified: str) -> str:
    return "jax.ds" if qualified == "jax.ds" else "pl." + qualified.rsplit(".", 1)[1]


def _is_one(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "1"


def _simple(node: cst.BaseExpression) -> bool:
    """A value that can be dropped without losing a side effect."""
    return isinstance(node, (cst.Name, cst.Integer, cst.SimpleString)) or (
        isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer))


def _ast_argument(call: ast.Call, name: str, position: int) -> ast.expr | None:
    """``calls.argument``'s value on the ast tree."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return call.args[position] if len(call.args) > position else None


def _ast_none(node: ast.expr) -> bool:
    return type(node) is ast.Constant and node.value is None and not isinstance(node.value, bool)


def _ast_simple(node: ast.expr) -> bool:
    """``_simple`` on the ast tree (libcst's names include ``True``, ``False`` and ``None``); ``Undecidable`` for a
    string (libcst's ``"a" "b"`` is not simple)."""
    if type(node) is ast.UnaryOp:
        node = node.operand
        return type(node) is ast.Constant and type(node.value) is int
    if type(node) is ast.Constant and type(node.value) in (str, bytes):
        raise Undecidable("a string stride")
    return type(node) is ast.Name or type(node) is ast.Constant and type(node.value) in (int, bool, type(None))


def _arg_text(view: AstView, call: ast.Call, value: ast.expr) -> str:
    """``code_for(arg.value).strip()``: the value's text, where it has no parentheses of its own (the code before
    it, but for spaces and line breaks, is a comma, a keyword's ``=`` or the call's own opening parenthesis)."""
    start = view.offset_of(value)
    before = view.source[:start].rstrip(" \t\n")
    if "#" in before[before.rfind("\n") + 1:]:
        raise Undecidable("a comment before the argument")  # its text could end like a comma
    func_end = view.offset_of(call.func, end=True)
    opening = func_end + len(view.source[func_end:]) - len(view.source[func_end:].lstrip(" \t"))
    if not (before.endswith((",", "=")) or len(before) == opening + 1 and view.source[opening] == "("):
        raise Undecidable("an argument in parentheses of its own, or after a line break")
    return view.text(value).strip()


class DsNone(Rule):
    code = "JAX204"
    name = "ds-none"
    summary = "ds(start, None) and ds(None, size) changed meaning in JAX 0.11.1"
    since = SINCE
    triggers = ()
    required_words = frozenset({frozenset({"jax", "ds"}), frozenset({"jax", "dslice"})})
    ast_names = DS
    explanation = """
## What it does
Finds `jax.ds` / `pl.ds` / `pl.dslice` (`jax.experimental.pallas`) calls with an explicit `None` as `size`, or
`None` as `start` with a size: the two calls whose meaning JAX 0.11.1 changed. `ds(n)`, `ds(i, n)` and `ds(None)`
are unchanged and not reported; neither is `jax.experimental.mosaic.gpu`'s `ds` (a different
class) or a project's own `ds`.

## Why
Before 0.11.1, `size=None` was the default and meant "not given", and a `None` start always gave a full slice.
From 0.11.1 the default is a private sentinel, so `None` is a real value (JAX commit 1f35b0793e). With
`x = jnp.arange(10)`:

| call | JAX 0.10.2 ... 0.11.0 | JAX 0.11.1 and later |
|---|---|---|
| `ds(2, None)` | `Slice(start=0, size=2)`: `x[:2]` | `Slice(start=2, size=None)`; indexing raises `TypeError: Shapes must be 1D sequences of concrete values of integer type, got [None].` |
| `ds(None, 3)` | `slice(None)`: all of `x` (the size was ignored) | `Slice(start=0, size=3)`: `x[:3]` |
| `ds(None, None)` | `slice(None)`: all of `x` | `Slice(start=0, size=None)`: indexing raises `TypeError` |

## Example
```python
block = x_ref[pl.ds(n, None)]
```
Use instead:
```python
block = x_ref[pl.ds(n)]
```

## Fix safety
`ds(a, None)` → `ds(a)` and `ds(None, None)` → `ds(None)` are safe: they give the pre-0.11.1 result in every
version (the old code ignored a stride after a `None` start; it is dropped, unless it is not a plain name or number,
then there is no fix). `ds(a, None, stride)` gets no fix: the meaning of a stride changed as well (checked by
running: `x[ds(0, 4, 2)]` of `arange(10)` is `[0, 2, 4, 6]`, 4 elements, in 0.10.2 and `[0, 2]`, the span `0:4:2`,
in 0.12.0.1), so no spelling keeps the old result in every version. A `stride` of `1` moves to `stride=1`. When the min version is known to be 0.11.1 or later (given, or read from the pins), the call
fails in every supported version and the fix (to what it meant before) is unsafe. `ds(None, n)` gets no fix:
`ds(None)` would keep the old full slice, but `:n`, its meaning now, is more likely what was intended. Decide, and
write `ds(None)` or `ds(n)`. It is not reported when the min version is known to be 0.11.1 or later (the code was written
for the new meaning).

## JAX version
0.11.1 (not in the changelog; `jax/_src/indexing.py`, `dslice`).
"""

    VALID = [
        Valid("""
            import jax
            a = x[jax.ds(4)]
            b = x[jax.ds(i, 4)]
            c = x[jax.ds(None)]
            e = x[jax.ds(start=i, size=n)]
        """, note="unchanged forms"),
        Valid("""
            from jax.experimental import pallas as pl
            def kernel(x_ref, o_ref):
                o_ref[pl.ds(0, 8)] = x_ref[pl.ds(8, 8)]
        """, note="pl.ds with a size"),
        Valid("""
            from jax.experimental.mosaic.gpu import ds
            a = ref[ds(i, None)]
        """, note="mosaic GPU's ds is a different class"),
        Valid("""
            import jax
            def ds(start, size=None):
                return slice(start, size)
            a = x[ds(2, None)]
        """, note="a project's own ds"),
        Valid("""
            import jax
            a = x[jax.ds(2, None)]
        """, target_version="0.11.0", note="target before the change"),
        Valid("""
            import jax
            a = x[jax.ds(None, 3)]
        """, min_version="0.11.1", note="written for the new meaning of ds(None, n)"),
        Valid("""
            import jax
            a = x[jax.ds(i, *rest)]
        """, note="arguments hidden in *args"),
    ]

    INVALID = [
        Invalid("""
            import jax
            import jax.numpy as jnp
            x = jnp.arange(10)
            y = x[jax.ds(2, None)]
        """, fixed="""
            import jax
            import jax.numpy as jnp
            x = jnp.arange(10)
            y = x[jax.ds(2)]
        """, runnable=True),
        Invalid("""
            from jax.experimental import pallas as pl
            def kernel(x_ref, o_ref):
                o_ref[...] = x_ref[pl.ds(n, None)]
        """, fixed="""
            from jax.experimental import pallas as pl
            def kernel(x_ref, o_ref):
                o_ref[...] = x_ref[pl.ds(n)]
        """, note="pl.ds in a kernel"),
        Invalid("""
            from jax.experimental.pallas import dslice
            a = x[dslice(n, size=None)]
            b = x[dslice(start=n, size=None)]
        """, fixed="""
            from jax.experimental.pallas import dslice
            a = x[dslice(n)]
            b = x[dslice(start=n)]
        """, count=2, note="pl.dslice; size by keyword"),
        Invalid("""
            import jax
            a = x[jax.ds(n, None, 2)]
            b = x[jax.ds(n, None, stride=2)]
        """, count=2, note="with a stride: its meaning changed too, no fix"),
        Invalid("""
            import jax
            a = x[jax.ds(n, None, 1)]
        """, fixed="""
            import jax
            a = x[jax.ds(n, stride=1)]
        """, note="a stride of 1 moves to a keyword"),
        Invalid("""
            import jax
            a = x[jax.ds(None, None)]
            b = x[jax.ds(None, None, 2)]
        """, fixed="""
            import jax
            a = x[jax.ds(None)]
            b = x[jax.ds(None)]
        """, count=2, note="None, None: a full slice before; the ignored stride is dropped"),
        Invalid("""
            import jax
            a = x[jax.ds(None, None, step())]
        """, note="a stride with a possible side effect is not dropped: no fix"),
        Invalid("""
            import jax
            a = x[jax.ds(None, 3)]
        """, note="ds(None, n): full slice before, :n now; no fix"),
        Invalid("""
            import jax
            a = x[jax.ds(
                n,
                None,
            )]
        """, fixed="""
            import jax
            a = x[jax.ds(
                n,
            )]
        """, note="multi-line call with a trailing comma"),
        Invalid("""
            import jax
            def f(x, n):
                if n:
                    return x[jax.ds(
                        n,
                        None,
                        1,
                    )]
        """, fixed="""
            import jax
            def f(x, n):
                if n:
                    return x[jax.ds(
                        n,
                        stride=1,
                    )]
        """, note="multi-line call in nested blocks keeps its indentation"),
        Invalid("""
            import jax
            a = x[jax.ds(n, None)]
        """, unsafe_fixed="""
            import jax
            a = x[jax.ds(n)]
        """, min_version="0.11.1", note="fails in every supported version: the fix is unsafe"),
    ]

    decides_from_ast = True  # Undecidable where the finding has a fix (libcst rebuilds the call)

    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """``visit_Call``'s findings from the ast gate's tree: the calls without a fix; one with a fix (``ds(a, None)``
        with no stride or a simple one) is ``Undecidable``."""
        rule = view.rule(cls)
        found = []
        for node in walk(view, (ast.Call,)):
            qualified = view.qualified_name_unless(node.func, DS.__contains__)
            if qualified not in DS or any(type(arg) is ast.Starred for arg in node.args) or any(
                    keyword.arg is None for keyword in node.keywords):
                continue
            start, size, stride = (_ast_argument(node, name, index)
                                   for index, name in enumerate(("start", "size", "stride")))
            if start is None or size is None:
                continue
            name = _short(qualified)
            start_none, size_none = _ast_none(start), _ast_none(size)
            if size_none:
                if start_none and stride is not None and not _ast_simple(stride):
                    message = f"`{name}(None, None)` was a full slice `:` before JAX {SINCE}; write `{name}(None)`"
                elif not start_none and stride is not None and not (
                        type(stride) is ast.Constant and type(stride.value) is int and stride.value == 1):
                    start_text = _arg_text(view, node, start)
                    message = (
                        f"`{name}({start_text}, None)` was `:{start_text}` before JAX {SINCE}; it now starts at "
                        f"{start_text} with a `None` size and indexing with it raises `TypeError`; with a stride there "
                        f"is no spelling that keeps the old result in every version (`{name}({start_text}, "
                        f"stride=...)` takes {start_text} elements before JAX {SINCE} and the span `:{start_text}` "
                        f"with that stride in JAX 0.12): rewrite by hand")
                else:  # (a stride ``1`` may be spelled ``0x1``: not libcst's one; undecidable too)
                    raise Undecidable("`ds(a, None)` with a fix: libcst rebuilds the call")
            elif start_none and not rule._new_only():
                size_text = _arg_text(view, node, size)
                message = (
                    f"`{name}(None, {size_text})` was a full slice `:` before JAX {SINCE} (the size was ignored) and "
                    f"is `:{size_text}` since; write `{name}(None)` to keep the full slice or `{name}({size_text})` "
                    f"for the new meaning")
            else:
                continue
            found.append(AstFinding(cls.code, node, message))
        return found

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.qualified_name(node.func)
        if qualified not in DS or has_star_args(node):
            return
        start = argument(node, "start", 0)
        size = argument(node, "size", 1)
        stride = argument(node, "stride", 2)
        if start is None or size is None:
            return
        name = _short(qualified)
        if is_none(size.value):
            self._size_none(node, name, start, size, stride)
        elif is_none(start.value) and not self._new_only():
            size_text = self.code_for(size.value).strip()
            self.report(node, (
                f"`{name}(None, {size_text})` was a full slice `:` before JAX {SINCE} (the size was ignored) and is "
                f"`:{size_text}` since; write `{name}(None)` to keep the full slice or `{name}({size_text})` for "
                f"the new meaning"
            ))

    def _size_none(self, node: cst.Call, name: str, start: cst.Arg, size: cst.Arg, stride: cst.Arg | None) -> None:
        start_none = is_none(start.value)
        start_text = "None" if start_none else self.code_for(start.value).strip()
        if start_none:
            meaning = f"was a full slice `:` before JAX {SINCE}"
        else:
            meaning = (f"was `:{start_text}` before JAX {SINCE}; it now starts at {start_text} with a `None` size "
                       f"and indexing with it raises `TypeError`")
        message = f"`{name}({start_text}, None)` {meaning}"
        if start_none and stride is not None and not _simple(stride.value):
            self.report(node, f"{message}; write `{name}(None)`")
            return
        if not start_none and stride is not None and not _is_one(stride.value):
            # A stride changed meaning too: ``ds(i, n, s)`` took n elements (i, i+s, ...) up to 0.10.2 and is
            # ``i:i+n:s`` (about n/s elements) in 0.12.0.1, so no spelling keeps the old result in every version.
            self.report(node, (
                f"{message}; with a stride there is no spelling that keeps the old result in every version "
                f"(`{name}({start_text}, stride=...)` takes {start_text} elements before JAX {SINCE} and the span "
                f"`:{start_text}` with that stride in JAX 0.12): rewrite by hand"
            ))
            return
        args = [arg for arg in node.args if arg is not size and not (start_none and arg is stride)]
        if size is node.args[-1] or (start_none and stride is node.args[-1]):
            # The new last argument takes the old last one's comma (none, or a trailing one).
            args[-1] = args[-1].with_changes(comma=node.args[-1].comma)
        args = [self._stride_keyword(arg) if arg is stride else arg for arg in args]
        new_call = node.with_changes(args=args)
        fixed = self.code_in_place(new_call)
        describe = f"Replace with `{name}({start_text}{'' if start_none or stride is None else ', stride=...'})`"
        if self._new_only():
            fix = unsafe_fix(describe + " (what it meant before JAX 0.11.1)", Replace(node, fixed), probe=node)
        else:
            fix = safe_fix(describe + " (the same in every JAX version)", Replace(node, fixed), probe=node)
        self.report(node, message, fix)

    def _new_only(self) -> bool:
        """The project is known to support only versions with the new meaning."""
        return self.settings.min_version_known and self.min_version_at_least(SINCE)

    @staticmethod
    def _stride_keyword(arg: cst.Arg) -> cst.Arg:
        if arg.keyword is not None:
            return arg
        return arg.with_changes(keyword=cst.Name("stride"), equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
