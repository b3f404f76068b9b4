"""JAX202 take-along-axis-wrap: ``take_along_axis`` negative-index wrapping changed in JAX 0.11.1."""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue.floors import FLOORS, floor_withheld
from jaxlint.analysis.ast_calls import added_keyword
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, statement_of, walk
from jaxlint.lint.diagnostics import Applicability
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix
from jaxlint.analysis.calls import add_keyword, argument, has_star_args, is_none, keyword_arg, string_value

TAKE_ALONG_AXIS = "jax.numpy.take_along_axis"
PROMISE = "promise_in_bounds"
KEYWORD_SINCE = FLOORS["take_along_axis.wrap_negative_indices"].since  # the keyword does not exist before


_PROMISE_MESSAGE = (f"`take_along_axis(..., mode=\"{PROMISE}\")` wraps negative indices since JAX 0.11.1 (before, it "
                    f"did not)")
KEYWORD_FIX = "wrap_negative_indices=False"
_PROMISE_FIX_MESSAGE = f"Add `{KEYWORD_FIX}` (the behaviour before JAX 0.11.1)"


def _is_none(node: ast.AST) -> bool:
    """``calls.is_none`` on ``ast``: ``None`` is a constant there."""
    return type(node) is ast.Constant and node.value is None


# A keyword's value that is one plain string (``"clip"``, ``r'fill'``; no escape, no other string after it), then
# the end of the argument.
_PLAIN_STRING_ARGUMENT = re.compile(r"""\s*[rRuU]?(?:"([^"\\\r\n]*)"|'([^'\\\r\n]*)')\s*[,)]""")
_MODE_KEYWORD = re.compile(r"\bmode[\s\\]*=(?!=)")  # blanks, line breaks, line continuations before the ``=``


def _every_mode_keyword_another_string(facts) -> bool:
    """Whether every ``mode`` followed by ``=`` in the file's code (blanks, comments, line breaks and continuations
    between) gives a plain string other than the promise mode: then no call's ``mode=`` keeps it. False where the
    strings and comments cannot be read, or a name in code is not ASCII."""
    code = facts.masked_code()  # comments blanked: ``mode  # why\n = x`` reads ``mode =``; no string spells it
    if code is None:
        return False
    if not code.isascii():
        return False  # a name spelled with other letters may be ``mode`` (Python normalizes names, NFKC)
    for match in _MODE_KEYWORD.finditer(code):
        value = _PLAIN_STRING_ARGUMENT.match(facts.source, match.end())
        if value is None or (value.group(1) if value.group(1) is not None else value.group(2)) == PROMISE:
            return False
    return True


def _is_enum_member(qualified: str | None) -> bool:
    """``jax.lax.GatherScatterMode.CLIP`` or ``GatherScatterMode.from_any(...)``: an enum, never equal to a str."""
    return bool(qualified) and qualified.startswith("jax") and ".GatherScatterMode." in qualified


class TakeAlongAxisWrap(Rule):
    code = "JAX202"
    name = "take-along-axis-wrap"
    summary = "take_along_axis negative-index wrapping changed in JAX 0.11.1"
    since = "0.11.1"
    behaviour_change = True
    triggers = ("take_along_axis",)
    ast_names = frozenset({TAKE_ALONG_AXIS})
    statement_gated = True  # every finding is at a name, import or call its own statement spells
    # Its findings without a fix are decided from ``ast`` (``findings_from_ast``); a call whose finding has one is
    # ``Undecidable``.
    decides_from_ast = True

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        # ``may_match_ast`` read from the text: calls with a 4th positional argument or ``wrap_negative_indices=``,
        # or ``mode=`` where some ``mode=`` of the file is not another mode's plain string (``mode="clip"``).
        return (facts.may_call_with_more_than(TAKE_ALONG_AXIS, 3)
                or facts.may_call_with_keyword(TAKE_ALONG_AXIS, frozenset({"wrap_negative_indices"}))
                or facts.may_call_with_keyword(TAKE_ALONG_AXIS, frozenset({"mode"}))
                and not _every_mode_keyword_another_string(facts))

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        # Every finding is about a ``mode`` (4th positional or keyword) or a ``wrap_negative_indices=`` argument; a
        # ``mode`` that is a string other than the promise mode is none (``mode="clip"`` wraps before and after).
        return any(len(call.args) >= 4 or any(k.arg == "wrap_negative_indices" or k.arg == "mode" and not (
            type(k.value) is ast.Constant and type(k.value.value) is str and k.value.value != PROMISE)
            for k in call.keywords) for call in facts.calls_to(TAKE_ALONG_AXIS))
    explanation = """
## What it does
Finds `jnp.take_along_axis` calls whose result changes in JAX 0.11.1 for negative indices:
`wrap_negative_indices=None`, and `mode="promise_in_bounds"` without `wrap_negative_indices`.

## Why
Before 0.11.1, `wrap_negative_indices=None` (the default) meant `mode != "promise_in_bounds"`: a comparison with
the *string*, so negative indices were wrapped unless `mode` was exactly that string (a `GatherScatterMode` enum
member always wrapped). From 0.11.1 the default is `True` and an explicit `None` is silently falsy: no wrapping.
Nothing warns. With `x = [10, 20, 30, 40]`, `idx = [-1, 1, 5]`, `axis=0`:

| call | JAX 0.10.2 / 0.11.0 | JAX 0.11.1 and later |
|---|---|---|
| `mode="promise_in_bounds"` | `[10, 20, 40]` | `[40, 20, 40]` |
| `wrap_negative_indices=None` | `[40, 20, nan]` | `[nan, 20, nan]` |
| `wrap_negative_indices=None, mode="clip"` | `[40, 20, 40]` | `[10, 20, 40]` |

## Example
```python
jnp.take_along_axis(x, idx, axis=0, mode="promise_in_bounds")
jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)
```
Use instead:
```python
jnp.take_along_axis(x, idx, axis=0, mode="promise_in_bounds", wrap_negative_indices=False)
jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=True)
```

## Fix safety
Safe: the fix spells out the pre-0.11.1 behaviour. `wrap_negative_indices=None` becomes `False` when `mode` is the
string `"promise_in_bounds"`, `True` when `mode` is absent, another string or a `GatherScatterMode` member, and
`(<mode> != "promise_in_bounds")` (the old rule, verbatim) otherwise. Adding `wrap_negative_indices=False` next to
`mode="promise_in_bounds"` needs the keyword, which exists only from JAX 0.10.2 (0.4.30 ... 0.10.1 raise
`TypeError: take_along_axis() got an unexpected keyword argument 'wrap_negative_indices'`): below a min version of
0.10.2 there is no fix. A `mode` that is neither a literal nor an enum member, without the keyword, is reported
without a fix. `mode=GatherScatterMode.PROMISE_IN_BOUNDS` is unchanged (it always wrapped) and is not reported.

## JAX version
0.11.1 (the change is not in the changelog; `jax/_src/numpy/indexing.py`).
"""

    VALID = [
        Valid("""
            import jax.numpy as jnp
            jnp.take_along_axis(x, idx, axis=0)
        """, note="default mode: wraps before and after"),
        Valid("""
            import jax.numpy as jnp
            jnp.take_along_axis(x, idx, axis=0, mode="clip")
        """, note="another string mode: wraps before and after"),
        Valid("""
            import jax
            import jax.numpy as jnp
            jnp.take_along_axis(x, idx, 0, mode=jax.lax.GatherScatterMode.PROMISE_IN_BOUNDS)
        """, note="enum member always wrapped"),
        Valid("""
            from jax.lax import GatherScatterMode
            from jax.numpy import take_along_axis
            take_along_axis(x, idx, 0, GatherScatterMode.PROMISE_IN_BOUNDS)
        """, note="enum member passed positionally"),
        Valid("""
            import jax.numpy as jnp
            jnp.take_along_axis(x, idx, 0, mode="promise_in_bounds", wrap_negative_indices=False)
        """, note="already explicit"),
        Valid("""
            import numpy as np
            np.take_along_axis(x, idx, 0)
            np.take_along_axis(x, idx, axis=0, mode="promise_in_bounds", wrap_negative_indices=None)
        """, note="numpy, not jax"),
        Valid("""
            import jax.numpy as jnp
            def take_along_axis(a, i, axis, mode=None, wrap_negative_indices=None):
                return a
            take_along_axis(x, idx, 0, mode="promise_in_bounds")
        """, note="a project's own function of the same name"),
        Valid("""
            import jax.numpy as jnp
            jnp.take_along_axis(x, idx, 0, **options)
        """, note="arguments hidden in **kwargs: nothing to say for sure"),
        Valid("""
            import jax.numpy as jnp
            jnp.take_along_axis(x, idx, 0, mode="promise_in_bounds")
        """, min_version="0.11.1", note="the project only supports JAX >= 0.11.1: no behaviour change in range"),
        Valid("""
            import jax.numpy as jnp
            jnp.take_along_axis(x, idx, 0, mode="promise_in_bounds")
        """, target_version="0.11.0", note="target before the change"),
    ]

    INVALID = [
        Invalid("""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, mode="promise_in_bounds")
        """, fixed="""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, mode="promise_in_bounds", wrap_negative_indices=False)
        """, min_version="0.10.2", runnable=True),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, mode="promise_in_bounds")
        """, min_version="0.4.30", note="keyword unavailable at the min version: no fix"),
        Invalid("""
            from jax import numpy as np
            y = np.take_along_axis(x, idx, 0, "promise_in_bounds")
        """, fixed="""
            from jax import numpy as np
            y = np.take_along_axis(x, idx, 0, "promise_in_bounds", wrap_negative_indices=False)
        """, note="mode as the 4th positional argument; numpy alias of jax.numpy"),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.take_along_axis(
                x,
                idx,
                axis=0,
                mode="promise_in_bounds",
            )
        """, fixed="""
            import jax.numpy as jnp
            y = jnp.take_along_axis(
                x,
                idx,
                axis=0,
                mode="promise_in_bounds",
                wrap_negative_indices=False,
            )
        """, note="one argument per line with a trailing comma"),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)
        """, fixed="""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=True)
        """, runnable=True),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, mode="promise_in_bounds", wrap_negative_indices=None)
        """, fixed="""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, mode="promise_in_bounds", wrap_negative_indices=False)
        """),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, mode="clip", wrap_negative_indices=None)
        """, fixed="""
            import jax.numpy as jnp
            y = jnp.take_along_axis(x, idx, axis=0, mode="clip", wrap_negative_indices=True)
        """),
        Invalid("""
            import jax
            from jax.numpy import take_along_axis as tal
            y = tal(x, idx, 0, jax.lax.GatherScatterMode.PROMISE_IN_BOUNDS, wrap_negative_indices=None)
        """, fixed="""
            import jax
            from jax.numpy import take_along_axis as tal
            y = tal(x, idx, 0, jax.lax.GatherScatterMode.PROMISE_IN_BOUNDS, wrap_negative_indices=True)
        """, note="enum member with None: it always wrapped"),
        Invalid("""
            import jax.numpy as jnp
            def f(x, idx, mode):
                return jnp.take_along_axis(x, idx, axis=0, mode=mode, wrap_negative_indices=None)
        """, fixed="""
            import jax.numpy as jnp
            def f(x, idx, mode):
                return jnp.take_along_axis(x, idx, axis=0, mode=mode, wrap_negative_indices=(mode != "promise_in_bounds"))
        """, note="unknown mode with None: the old rule verbatim"),
        Invalid("""
            import jax.numpy as jnp
            def f(x, idx, mode):
                return jnp.take_along_axis(x, idx, axis=0, mode=mode)
        """, note="unknown mode without the keyword: no fix"),
        Invalid("""
            def f(x, idx):
                from jax import numpy as jnp
                return jnp.take_along_axis(x, idx, 0, mode="promise_in_bounds")
        """, fixed="""
            def f(x, idx):
                from jax import numpy as jnp
                return jnp.take_along_axis(x, idx, 0, mode="promise_in_bounds", wrap_negative_indices=False)
        """, note="function-local import"),
    ]

    # -- from ``ast`` (``jaxlint.lint.ast_findings``) -------------------------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """``visit_Call``'s findings, read from ``ast``: a non-literal ``mode`` (no fix); the promise mode, its fix
        ``add_keyword``'s edit placed from ``ast`` (``added_keyword``: ``Undecidable`` where the last argument's text
        may differ), or withheld below the keyword's release. ``wrap_negative_indices=None``'s fix is
        ``Undecidable``."""
        rule = view.rule(cls)
        found = []
        for node in walk(view, (ast.Call,)):
            if view.imported_name(node.func, TAKE_ALONG_AXIS.__eq__) != TAKE_ALONG_AXIS \
                    or any(type(arg) is ast.Starred for arg in node.args) \
                    or any(keyword.arg is None for keyword in node.keywords):
                continue
            keywords = {keyword.arg: keyword.value for keyword in reversed(node.keywords)}  # the first of a name
            mode = keywords.get("mode", node.args[3] if len(node.args) > 3 else None)
            if "wrap_negative_indices" in keywords:
                if _is_none(keywords["wrap_negative_indices"]):
                    raise Undecidable("`wrap_negative_indices=None`: a fix")
                continue
            if mode is None or _is_none(mode) or _is_enum_member(view.qualified_name_unless(
                    mode.func if type(mode) is ast.Call else mode, _is_enum_member)):
                continue
            literal = mode.value if type(mode) is ast.Constant and type(mode.value) is str else None
            if literal is not None and literal != PROMISE:
                continue
            if literal is None:
                view.span(mode)  # the message quotes it: ``Undecidable`` where libcst's text may differ
                found.append(AstFinding(cls.code, node, rule._non_literal_message(view.text(mode).strip())))
            elif rule.min_version_at_least(KEYWORD_SINCE):
                probe = view.span(node, statement_of(view.ancestors(node)))
                edit = added_keyword(view, node, KEYWORD_FIX)
                found.append(AstFinding(cls.code, node, _PROMISE_MESSAGE, fix=AstFix(
                    Applicability.SAFE, _PROMISE_FIX_MESSAGE, (edit,), probe)))
            else:
                message, withheld = rule._promise_withheld()
                found.append(AstFinding(cls.code, node, message, withheld=withheld))
        return found

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) != TAKE_ALONG_AXIS or has_star_args(node):
            return
        mode_arg = argument(node, "mode", 3)
        wrap_arg = keyword_arg(node, "wrap_negative_indices")
        if wrap_arg is not None:
            if is_none(wrap_arg.value):
                self._explicit_none(node, wrap_arg, mode_arg)
            return
        if mode_arg is None or is_none(mode_arg.value) or self._is_enum(mode_arg.value):
            return
        mode = string_value(mode_arg.value)
        if mode is not None and mode != PROMISE:
            return
        if mode == PROMISE:
            self._promise_without_keyword(node)
        else:
            self.report(node, self._non_literal_message(self.code_for(mode_arg.value).strip()))

    @staticmethod
    def _non_literal_message(mode: str) -> str:
        return (f"`take_along_axis` with a non-literal `mode` wraps negative indices since JAX 0.11.1 even when "
                f"`mode` is \"{PROMISE}\" (before, it did not); pass `wrap_negative_indices=` explicitly, e.g. "
                f"`wrap_negative_indices=({mode} != \"{PROMISE}\")` for the old behaviour")

    def _is_enum(self, node: cst.BaseExpression) -> bool:
        target = node.func if isinstance(node, cst.Call) else node
        return _is_enum_member(self.qualified_name(target))

    def _promise_without_keyword(self, node: cst.Call) -> None:
        if not self.min_version_at_least(KEYWORD_SINCE):
            message, withheld = self._promise_withheld()
            self.report(node, message, withheld=withheld)
            return
        edit = add_keyword(node, KEYWORD_FIX, self.context.module.default_newline, self.block_indent())
        self.report(node, _PROMISE_MESSAGE, safe_fix(_PROMISE_FIX_MESSAGE, edit, probe=node))

    def _promise_withheld(self) -> tuple[str, object]:
        """The promise mode's finding below the keyword's release: its message and why its fix is withheld."""
        return _PROMISE_MESSAGE + (
            f"; `wrap_negative_indices=False` keeps the old result but the keyword needs JAX >= {KEYWORD_SINCE} "
            f"(min version is {self.settings.min_version}): raise the minimum or make the indices non-negative"
        ), floor_withheld("take_along_axis.wrap_negative_indices", self.settings)

    def _explicit_none(self, node: cst.Call, wrap_arg: cst.Arg, mode_arg: cst.Arg | None) -> None:
        if mode_arg is None or is_none(mode_arg.value) or self._is_enum(mode_arg.value):
            replacement = "True"
        else:
            mode = string_value(mode_arg.value)
            if mode is not None:
                replacement = "False" if mode == PROMISE else "True"
            else:
                replacement = f"({self.code_for(mode_arg.value).strip()} != \"{PROMISE}\")"
        self.report(node, (
            "`wrap_negative_indices=None` no longer means `mode != \"promise_in_bounds\"`: since JAX 0.11.1 it is "
            "falsy and negative indices are not wrapped"
        ), safe_fix(f"Replace with `wrap_negative_indices={replacement}` (the behaviour before JAX 0.11.1)",
                    Replace(wrap_arg.value, replacement), probe=node))
