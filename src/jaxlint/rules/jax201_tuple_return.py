"""JAX201 tuple-return: ``meshgrid``, ``broadcast_arrays`` and multi-argument ``atleast_*d`` return tuples now."""
from __future__ import annotations

import ast
import functools
import keyword
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst
from jaxlint.lint.lazy_libcst import Visits, visitor

from jaxlint.lint.ast_findings import AstView, Undecidable, walk
from jaxlint.lint.code_map import closing_bracket_end, is_assignment_sign, is_word_char, line_start, starts_statement
from jaxlint.lint.text_gate import chain_start, names_by_last, read_call
from jaxlint.lint.names import Binding
from jaxlint.rules.base import InsertAfter, InsertBefore, Invalid, Report, Rule, Valid, safe_fix
from jaxlint.analysis.calls import argument, has_star_args, positional_args
from jaxlint.analysis.targets import target_context

# qualified name -> (JAX release that returns a tuple, whether the arity matters)
TARGETS: dict[str, tuple[str, bool]] = {
    "jax.numpy.meshgrid": ("0.11.1", False),
    "jax.numpy.broadcast_arrays": ("0.11.1", False),
    "jax.numpy.atleast_1d": ("0.12.0", True),
    "jax.numpy.atleast_2d": ("0.12.0", True),
    "jax.numpy.atleast_3d": ("0.12.0", True),
}

# Attributes a list has and a tuple lacks (``index``/``count`` exist on both).
LIST_ONLY_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear", "copy"})
# Augmented assignments a list does in place and a tuple does not (``+=`` with a non-tuple even raises).
IN_PLACE_OPERATORS = {"AddAssign": "+=", "MultiplyAssign": "*="}  # libcst class names

LIST_TYPES = frozenset({"builtins.list", "typing.List", "typing.MutableSequence", "collections.abc.MutableSequence"})
# Types that a tuple is an instance of as much as a list: with one of these the isinstance result does not change.
SEQUENCE_TYPES = frozenset({
    "builtins.tuple", "builtins.object", "typing.Tuple", "typing.Sequence", "typing.Collection", "typing.Iterable",
    "typing.Container", "typing.Sized", "typing.Reversible", "typing.Any",
    "collections.abc.Sequence", "collections.abc.Collection", "collections.abc.Iterable",
    "collections.abc.Container", "collections.abc.Sized", "collections.abc.Reversible", "collections.abc.Hashable",
})

# loop -> (body function parameter name and position, initial value parameter name and position, carry position)
LOOPS: dict[str, tuple[tuple[str, int], tuple[str, int], bool]] = {
    # scan's body returns ``(carry, y)``; the others return the carry itself.
    "jax.lax.scan": (("f", 0), ("init", 1), True),
    "jax.lax.fori_loop": (("body_fun", 2), ("init_val", 3), False),
    "jax.lax.while_loop": (("body_fun", 1), ("init_val", 2), False),
}


_TARGET_LASTS = frozenset(name.rpartition(".")[2] for name in TARGETS)
_LOOPS_BY_LAST = names_by_last(frozenset(LOOPS))
_ONE_ARRAY_LASTS = frozenset(name.rpartition(".")[2] for name, (_, one_array) in TARGETS.items() if one_array)


def _one_array_call(call: ast.Call) -> bool:
    """``atleast_2d(x)``: one argument, not starred, no keyword (it returns the array, not a tuple)."""
    return len(call.args) == 1 and type(call.args[0]) is not ast.Starred and not call.keywords


def _only_harmless_calls_ast(facts) -> bool:
    """Whether every name or attribute that may be one of the TARGETS is the callee of a call whose result cannot be
    used as a list: the whole value of an assignment whose every target unpacks it (``a, b = f(...)``, ``[a] =
    f(...)``), an ``atleast_*d`` call of one array, one indexed or sliced at once and read (``f(...)[0]``), or, in a
    file that refers to no loop of ``LOOPS``, the first argument of a call (not of ``isinstance``/``type``)."""
    harmless = {id(call.func) for call in facts.calls_to(frozenset(TARGETS)) if _one_array_call(call)
                and all(TARGETS[name][1] for name in facts.qualified_names(call.func) if name in TARGETS)}
    # passed on (``list(jnp.meshgrid(x))``, ``jnp.stack(...)``): no list use, unless a loop's carry may hold it
    passed_on = not (facts.file or facts).refers_to_any(frozenset(LOOPS))
    for node in facts.nodes:
        kind = type(node)
        if kind is ast.Assign and type(node.value) is ast.Call \
                and all(type(target) in (ast.Tuple, ast.List) for target in node.targets):
            harmless.add(id(node.value.func))
        elif passed_on and kind is ast.Call and node.args and type(node.args[0]) is ast.Call \
                and not (type(node.func) is ast.Name and node.func.id in ("isinstance", "type")):
            harmless.add(id(node.args[0].func))
        elif kind is ast.Subscript and type(node.value) is ast.Call and type(node.ctx) is ast.Load:
            harmless.add(id(node.value.func))  # an element or a slice read: no list use of the result
    qualified_names = facts.qualified_names
    return not any(type(node) in (ast.Name, ast.Attribute) and id(node) not in harmless
                   and not TARGETS.keys().isdisjoint(qualified_names(node)) for node in facts.nodes)


def _only_harmless_calls_text(facts, words) -> bool:
    """``_only_harmless_calls_ast`` read from the text, for every occurrence of a TARGET's last name in code (another
    library's ``np.meshgrid`` too): a call read for sure as ``atleast_*d`` of one plain argument, or as the whole
    value of a statement ``<targets with a comma outside brackets> = <chain>(...)``. False where the strings and
    comments cannot be read."""
    lasts = _TARGET_LASTS & words
    strings = facts.strings() if lasts else None
    if strings is None:
        return False
    source, code = facts.source, None
    for last in lasts:
        for end, _ in facts.occurrences(last):
            start = end - len(last)
            if strings.at(start) is not None:
                continue  # in a string or a comment
            call = read_call(source, end, strings, start)
            if call is None or call.positional < 0:
                return False  # no call we can read: a reference that may be an alias
            if last in _ONE_ARRAY_LASTS and call.positional == 1 and call.first and not call.keywords \
                    and not call.double_star:
                continue
            if code is None:
                code = facts.masked_code()
                passed_on = not facts.refers_to_any(_LOOPS_BY_LAST, words)
            if not _unpacked_text(code, start, end) and not _indexed_text(code, end) \
                    and not (passed_on and _first_argument_text(code, start, end)):
                return False
    return True


def _call_end(code: str, end: int) -> int:
    """The offset after the closing parenthesis of the call whose callee's last word ends at ``end`` of ``code``
    (``masked_code``; blanks before its ``(``), or -1 where no call follows or it does not close."""
    opening = end
    while opening < len(code) and code[opening] in " \t":
        opening += 1
    if code[opening:opening + 1] != "(":
        return -1
    return closing_bracket_end(code, opening)


def _indexed_text(code: str, end: int) -> bool:
    """Whether the call whose callee's last word ends at ``end`` of ``code`` (``masked_code``) is indexed or sliced at
    once and read (``<callee>(...)[0]``, not ``<callee>(...)[0] = x`` nor ``del <callee>(...)[0]``: an ``ast``
    ``Subscript`` of the call with ``Load``)."""
    close = _call_end(code, end)
    if close < 0 or code[close:close + 1] != "[":  # (a blank before the ``[`` is left to the tree)
        return False
    after = closing_bracket_end(code, close)
    if after < 0:
        return False
    while after < len(code) and code[after] in " \t":
        after += 1
    # a store (``= x``, ``+= x``, ``: int = x``, a target among others) or a ``del``, a ``for`` or ``as`` target:
    # the tree's ``Subscript`` is no ``Load``; what may be one is left to the tree
    following = code[after:after + 3]
    if following[:1] in ("=", ",", ":") and following[:2] != "==" \
            or following[1:2] == "=" and following[:1] in "+-*/%&|^@<>" \
            or following[:2] in ("//", "**", "<<", ">>") and following[2:3] == "=":
        return False
    return _STORE_WORDS.isdisjoint(code[line_start(code, end):end].split())


_STORE_WORDS = frozenset(("del", "for", "as"))


def _first_argument_text(code: str, start: int, end: int) -> bool:
    """Whether the call whose callee's last word spans ``start``-``end`` of ``code`` (``masked_code``) is the whole
    first argument of a call of a name or chain (not ``isinstance``/``type``, not a keyword's ``(``): ``f(<callee>(
    ...), ...)``, the callee on the call's line or a later one (``masked_code`` has blanked the comments between)."""
    before = chain_start(code, start)
    while before and code[before - 1] in " \t\r\n\\":
        before -= 1
    if not before or code[before - 1] != "(":
        return False
    word_end = before - 1
    while word_end and code[word_end - 1] in " \t":
        word_end -= 1
    word_start = word_end
    while word_start and is_word_char(code[word_start - 1]):
        word_start -= 1
    word = code[word_start:word_end]
    if not word or word[0].isdigit() or keyword.iskeyword(word) or word in ("isinstance", "type"):
        return False
    line = line_start(code, word_start)
    if code[line:word_start].split()[-1:] == ["class"]:
        return False  # a class's bases, not a call's arguments
    close = _call_end(code, end)
    if close < 0:
        return False
    while close < len(code) and code[close] in " \t":
        close += 1
    return code[close:close + 1] in (",", ")")


_AFTER_STATEMENT = frozenset(("", "\n", "\r", ";"))


def _unpacked_text(code: str, start: int, end: int) -> bool:
    """Whether the call whose callee's last word spans ``start``-``end`` of ``code`` (``masked_code``) is the whole
    value of a statement ``a, b = <callee>(...)`` whose target holds a comma outside brackets (or is a list, or a
    parenthesized tuple)."""
    after = _call_end(code, end)
    if after < 0:
        return False
    while after < len(code) and code[after] in " \t":
        after += 1
    if code[after:after + 1] not in _AFTER_STATEMENT:
        return False
    equals = chain_start(code, start)
    while equals and code[equals - 1] in " \t":
        equals -= 1
    if not equals or not is_assignment_sign(code, equals - 1):
        return False
    line = line_start(code, equals)
    head = code[line:equals - 1]
    if any(mark in head for mark in "=:;'\"\\") or not starts_statement(code, line):
        return False
    target = head.strip(" \t")
    if target.startswith("[") and closing_bracket_end(target, 0) == len(target):
        return True  # ``[a] = ...``, ``[a, b] = ...``: a list target unpacks
    if target.startswith("(") and closing_bracket_end(target, 0) == len(target):
        target = target[1:-1]  # ``(a, b) = ...`` (not ``(a) = ...``: a comma inside is needed)
    depth = 0
    for char in target:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and not depth:
            return True
    return False


@functools.cache
def _ordering() -> tuple[type[cst.CSTNode], ...]:
    return (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


@dataclass
class _Candidate:
    """A call of one of the TARGETS that returns several arrays."""

    node: cst.Call
    qualified: str
    since: str
    # False for ``atleast_1d(*arrays)``: one array gives an Array, not a sequence, so ``list(...)`` could change it.
    certain: bool


def _short(qualified: str) -> str:
    return "jnp." + qualified.rsplit(".", 1)[1]


class TupleReturn(Rule):
    code = "JAX201"
    name = "tuple-return"
    summary = "meshgrid, broadcast_arrays and multi-argument atleast_*d return a tuple, not a list"
    since = "0.11.1"
    # The per-function releases differ (0.11.1 and 0.12.0), so the min/target gating is done per call below.
    behaviour_change = False
    triggers = ("meshgrid", "broadcast_arrays", "atleast_")
    ast_names = frozenset(TARGETS)  # every finding is about a call of one of them
    # A file where no call's result can be used as a list has no finding, and ``findings_from_ast`` proves it.
    decides_from_ast = True

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        # Most files that call these unpack the result (``xx, yy = jnp.meshgrid(x, y)``) or pass ``atleast_*d`` one
        # array: a file whose every occurrence is such a call, read for sure, has no finding (``may_match_ast`` asks
        # the same of the tree).
        return super().may_match_text(facts, words) and not _only_harmless_calls_text(facts, words)

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        return super().may_match_ast(facts) and not _only_harmless_calls_ast(facts)
    explanation = """
## What it does
Finds results of `jnp.meshgrid`, `jnp.broadcast_arrays` and `jnp.atleast_1d/2d/3d` (with several arguments, or
none) that are used as a **list**: a list method (`append`, `extend`, `insert`, `pop`, `remove`, `sort`,
`reverse`, `clear`, `copy`), item or slice assignment or deletion, `+` with a list on either side, the in-place
operators `+=` and `*=`, `isinstance(x, list)`, `type(x) is list` (or `==`, `!=`, `is not`, `in (list, ...)`, and
`type([])` for `list`), an
ordering or equality comparison with a list, and a loop carry of `lax.scan`, `lax.fori_loop` or `lax.while_loop`
whose initial value is a list (or, the other way round, an initial value that is such a call while the body returns
a list there). The result may be used directly or through a name assigned in the same scope
(`g = jnp.meshgrid(x, y)` ... `g.append(z)`), as long as every binding of that name in its scope is such a call,
an in-place `+=`/`*=`, or `g = g + ...`; a name with any other binding (`g = []` in a branch, a loop variable, a
parameter, `global`/`nonlocal` rebinding) is left alone. The result of a function of the module whose every
`return` gives such a call (`def broadcast(*xs): return jnp.broadcast_arrays(*xs)`, undecorated) counts as the
call's own result: `type(broadcast(a, b)) is list` is reported on the call inside `broadcast`. Copies through
another name (`h = g`) and attributes (`self.g = ...`) are not followed.

The finding is on the call, where `list(` goes, not on the use.

Results that are only unpacked, indexed, sliced, iterated, measured with `len`, star-expanded, passed to a
function (`jnp.stack(jnp.meshgrid(x, y))`), returned, or already wrapped in `list(...)`/`tuple(...)` behave the
same as a tuple and are not reported. `numpy.meshgrid`, `tf.meshgrid`, `torch.meshgrid` and a project's own
`meshgrid` are not JAX's and are never reported.

## Why
`jnp.meshgrid` and `jnp.broadcast_arrays` return a `tuple` since JAX 0.11.1 (a `list` before);
`jnp.atleast_1d/2d/3d(a, b, ...)` (and with no argument) since JAX 0.12.0 (with one argument they return an Array,
unchanged). Code that treats the result as a list breaks, loudly or silently:

- `g.append(z)` → `AttributeError: 'tuple' object has no attribute 'append'`
- `g + [z]` → `TypeError: can only concatenate tuple (not "list") to tuple`
- `g[0] = z` → `TypeError: 'tuple' object does not support item assignment`
- `isinstance(g, list)`, `type(g) is list`, `g == [a, b]` silently become `False`
- the pytree structure changes: `lax.scan(body, [a, b], xs)` whose `body` returns `jnp.broadcast_arrays(*c), y`
  as the carry raises `TypeError: scan body function carry input and carry output must have the same pytree
  structure, but they differ:` (`fori_loop` runs as a scan or a while_loop; `while_loop` says `while_loop body
  function carry input and carry output must have the same pytree structure, but they differ:`).

`+=` and `*=` are in-place operations on a list; on a tuple they build a new object (`+=` with anything but a
tuple raises `TypeError`), so other references to the old list no longer see the change. They are reported.

## Example
```python
import jax.numpy as jnp
grids = jnp.meshgrid(x, y)
grids.append(z)
```
Use instead:
```python
import jax.numpy as jnp
grids = list(jnp.meshgrid(x, y))
grids.append(z)
```

## Fix safety
Safe: `list(...)` around the call gives a list with the same arrays in every JAX version, which is exactly what the
code relied on. With `jnp.atleast_*d(*arrays)` the number of arguments is unknown; with one array the call returns
an Array and `list(...)` would split it into rows, so that case is reported without a fix.

## JAX version
0.11.1 for `meshgrid` and `broadcast_arrays`; 0.12.0 for `atleast_1d/2d/3d` (not in the changelog;
`jax/_src/numpy/lax_numpy.py`, `jax/_src/numpy/util.py`). Not reported when the min version is already at or after
the release that changed the function, or the target version is before it.
"""

    VALID = [
        Valid("""
            import jax.numpy as jnp
            xx, yy = jnp.meshgrid(x, y)
        """, note="unpacked"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y, indexing="ij")
            first = g[0]
            rest = g[1:]
            n = len(g)
            for a in g:
                print(a)
        """, note="indexed, sliced, measured and iterated through a name"),
        Valid("""
            import jax.numpy as jnp
            pts = jnp.stack(jnp.meshgrid(x, y), axis=-1)
            grid = jnp.stack(jnp.broadcast_arrays(a, b))
        """, note="passed to jnp.stack"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            f(*g)
            h = [*g, z]
            out = jnp.concatenate(g)
        """, note="star-expanded and passed to a function"),
        Valid("""
            import jax.numpy as jnp
            def grids(x, y):
                return jnp.meshgrid(x, y)
        """, note="returned: the caller is not known"),
        Valid("""
            import jax
            import jax.numpy as jnp

            def grids(x, y, flat):
                if flat:
                    return [x, y]
                return jnp.meshgrid(x, y)

            @jax.jit
            def broadcast(a, b):
                return jnp.broadcast_arrays(a, b)

            if type(grids(x, y, True)) is list and type(broadcast(a, b)) is list:
                pass
            g = grids(x, y, False)
            g.append(z)
        """, note="a function that may return another list, or a decorated one: its result is not known"),
        Valid("""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            g.append(z)
            t = tuple(jnp.broadcast_arrays(a, b)) + (c,)
        """, note="already wrapped in list() / tuple()"),
        Valid("""
            import numpy as np
            g = np.meshgrid(x, y)
            g.append(z)
            b = np.broadcast_arrays(a, c)
            b[0] = 1
        """, note="numpy.meshgrid is NumPy's"),
        Valid("""
            import tensorflow as tf
            import torch
            g = tf.meshgrid(x, y)
            g.append(z)
            h = torch.meshgrid(x, y)
            h += [z]
        """, note="tf.meshgrid and torch.meshgrid"),
        Valid("""
            import jax.numpy as jnp
            def meshgrid(*xs):
                return [x for x in xs]
            g = meshgrid(x, y)
            g.append(z)
        """, note="a project's own function named meshgrid"),
        Valid("""
            import jax.numpy as jnp
            meshgrid = make_grid_fn(jnp)
            g = meshgrid(x, y)
            g.append(z)
        """, note="a local variable named meshgrid"),
        Valid("""
            import jax.numpy as np
            xx, yy = np.meshgrid(x, y)
            zz = np.stack(np.meshgrid(x, y))[0]
        """, note="import jax.numpy as np: only unpacked and passed"),
        Valid("""
            import jax.numpy as jnp
            a2 = jnp.atleast_2d(a)
            a2[0] = 1
            a2 = a2 + [1.0]
        """, note="one-argument atleast_2d returns an Array, unchanged"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            if flag:
                g = [x, y]
            g.append(z)
        """, note="the name has another binding that can make it a list"),
        Valid("""
            import jax.numpy as jnp
            def f(g):
                g.append(z)
            g = jnp.meshgrid(x, y)
            f(g)
        """, note="a parameter of the same name in another scope"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            ok = isinstance(g, (list, tuple))
            seq = g == (x, y)
            found = x in g
        """, note="isinstance with tuple too, comparison with a tuple, membership"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            both = g + jnp.broadcast_arrays(a, b)
            twice = g * 2
        """, note="+ with another such result, * with a number: works on tuples"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.atleast_2d(a, b)
            g.append(c)
        """, target_version="0.11.2", note="atleast_2d still returns a list in 0.11.x"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g.append(z)
        """, min_version="0.11.1", note="min version already has the tuple"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g.append(z)
        """, target_version="0.11.0", note="target before the change"),
        Valid("""
            import jax
            import jax.numpy as jnp
            def body(c, x):
                return tuple(jnp.broadcast_arrays(*c)), x
            out = jax.lax.scan(body, (a, b), xs)
            out2 = jax.lax.scan(body, jnp.broadcast_arrays(a, b), xs)
        """, note="scan carry whose initial value is not a list"),
        Valid("""
            import jax
            import jax.numpy as jnp
            def body(c, x):
                return list(jnp.broadcast_arrays(*c)), x
            out = jax.lax.scan(body, [a, b], xs)
        """, note="scan carry already a list"),
        Valid("""
            import jax
            import jax.numpy as jnp
            def body(c, x):
                return c, jnp.broadcast_arrays(*c)
            out = jax.lax.scan(body, [a, b], xs)
        """, note="the tuple is the scan output y, not the carry"),
        Valid("""
            import jax.numpy as jnp
            try:
                g = jnp.meshgrid(x, y)
                g.append(z)
            except AttributeError:
                g = None
        """, note="compatibility shim"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            h = g
            obj.g.append(z)
            f(g=[z]).append(w)
        """, note="attribute and keyword named like the variable are not the variable"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            def f():
                global g
                g = []
            g.append(z)
        """, note="rebound through global in a function"),
        Valid("""
            import jax.numpy as jnp
            list = tuple
            g = jnp.meshgrid(x, y)
            ok = isinstance(g, list)
        """, note="list shadowed"),
        Valid("""
            import jax.numpy as jnp
            acc = []
            acc += jnp.meshgrid(x, y)
            acc.extend(jnp.broadcast_arrays(a, b))
        """, note="a list extended by the result: works with a tuple"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g -= 1
            g.append(z)
        """, note="another augmented assignment rebinds the name to something else"),
        Valid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g = g + other
            h = g[0]
        """, note="g = g + <unknown>: neither a list use nor breaking"),
        Valid("""
            import jax.numpy as jnp
            def f(g=jnp.meshgrid(x, y)):
                g.append(z)
        """, note="a parameter default: callers may pass anything"),
    ]

    INVALID = [
        Invalid("""
            import jax.numpy as jnp

            def broadcast(*arrays):
                return jnp.broadcast_arrays(*arrays)

            out = broadcast(a, b)
            if type(out) is list:
                out = out + [c]
        """, fixed="""
            import jax.numpy as jnp

            def broadcast(*arrays):
                return list(jnp.broadcast_arrays(*arrays))

            out = broadcast(a, b)
            if type(out) is list:
                out = out + [c]
        """, note="through a module function that returns the call: the fix goes on the returned call"),
        Invalid("""
            import jax.numpy as jnp
            grids = jnp.meshgrid(x, y)
            assert type(grids) == type([])
        """, fixed="""
            import jax.numpy as jnp
            grids = list(jnp.meshgrid(x, y))
            assert type(grids) == type([])
        """, note="type(...) == type([])"),
        Invalid("""
            import jax.numpy as jnp
            grids = jnp.meshgrid(x, y)
            grids.append(z)
        """, fixed="""
            import jax.numpy as jnp
            grids = list(jnp.meshgrid(x, y))
            grids.append(z)
        """, note="list method through a name"),
        Invalid("""
            import jax.numpy as np
            g = np.meshgrid(x, y, sparse=True)
            g.extend(more)
            g.insert(0, w)
            g.pop()
        """, fixed="""
            import jax.numpy as np
            g = list(np.meshgrid(x, y, sparse=True))
            g.extend(more)
            g.insert(0, w)
            g.pop()
        """, note="import jax.numpy as np; several uses, one finding"),
        Invalid("""
            from jax.numpy import broadcast_arrays as ba
            arrays = ba(a, b)
            arrays.remove(a)
            arrays.sort(key=len)
            arrays.reverse()
            arrays.clear()
        """, fixed="""
            from jax.numpy import broadcast_arrays as ba
            arrays = list(ba(a, b))
            arrays.remove(a)
            arrays.sort(key=len)
            arrays.reverse()
            arrays.clear()
        """, note="from-import alias; remove/sort/reverse/clear"),
        Invalid("""
            import jax.numpy as jnp
            jnp.meshgrid(x, y).append(z)
        """, fixed="""
            import jax.numpy as jnp
            list(jnp.meshgrid(x, y)).append(z)
        """, note="list method on the call itself"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.broadcast_arrays(a, b)
            g[0] = jnp.zeros_like(g[0])
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.broadcast_arrays(a, b))
            g[0] = jnp.zeros_like(g[0])
        """, note="item assignment"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g[1:] = [w]
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            g[1:] = [w]
        """, note="slice assignment"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            del g[0]
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            del g[0]
        """, note="item deletion"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g[0], other = a, b
            g[1] += 1
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            g[0], other = a, b
            g[1] += 1
        """, note="item assignment inside a tuple target and augmented item assignment"),
        Invalid("""
            import jax.numpy as jnp
            out = jnp.meshgrid(x, y) + [z]
            out2 = [w] + jnp.broadcast_arrays(a, b)
        """, fixed="""
            import jax.numpy as jnp
            out = list(jnp.meshgrid(x, y)) + [z]
            out2 = [w] + list(jnp.broadcast_arrays(a, b))
        """, count=2, note="concatenation with a list, either side"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            h = g + list(extra)
            k = sorted(extra) + g
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            h = g + list(extra)
            k = sorted(extra) + g
        """, note="concatenation with list(...) / sorted(...) through a name"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g += [z]
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            g += [z]
        """, note="+= with a list"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g = g + [z]
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            g = g + [z]
        """, note="g = g + [z]: the rebinding keeps a list, the + is the use"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.broadcast_arrays(a, b)
            g += others
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.broadcast_arrays(a, b))
            g += others
        """, note="+= with anything: list.__iadd__ extends in place"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x)
            g *= 2
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x))
            g *= 2
        """, note="*= is an in-place list operation (documented decision)"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            if isinstance(g, list):
                pass
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            if isinstance(g, list):
                pass
        """, note="isinstance(x, list)"),
        Invalid("""
            import jax.numpy as jnp
            import numpy as np
            ok = isinstance(jnp.broadcast_arrays(a, b), (list, np.ndarray))
        """, fixed="""
            import jax.numpy as jnp
            import numpy as np
            ok = isinstance(list(jnp.broadcast_arrays(a, b)), (list, np.ndarray))
        """, note="isinstance with list in a tuple of types without tuple"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            a = type(g) is list
            b = type(g) == list
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            a = type(g) is list
            b = type(g) == list
        """, note="type(x) is list / =="),
        Invalid("""
            import jax.numpy as jnp

            def align(x, y, extra):
                arrays = jnp.broadcast_arrays(x, y)
                if type(arrays) == list:
                    arrays.append(extra)
                return arrays
        """, fixed="""
            import jax.numpy as jnp

            def align(x, y, extra):
                arrays = list(jnp.broadcast_arrays(x, y))
                if type(arrays) == list:
                    arrays.append(extra)
                return arrays
        """, note="type(x) == list on a broadcast_arrays result in a function"),
        Invalid("""
            import jax.numpy as jnp
            same = jnp.meshgrid(x) == [x]
            g = jnp.broadcast_arrays(a, b)
            differ = [a, b] != g
        """, fixed="""
            import jax.numpy as jnp
            same = list(jnp.meshgrid(x)) == [x]
            g = list(jnp.broadcast_arrays(a, b))
            differ = [a, b] != g
        """, count=2, note="comparison with a list literal, either side"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.atleast_2d(a, b)
            g.append(c)
            h = jnp.atleast_1d()
            h.append(c)
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.atleast_2d(a, b))
            g.append(c)
            h = list(jnp.atleast_1d())
            h.append(c)
        """, count=2, note="atleast_2d with several arguments, atleast_1d with none (0.12.0)"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.atleast_3d(*arrays)
            g.append(c)
        """, note="atleast_3d(*arrays): arity unknown, no fix"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g.append(z)
            h = jnp.atleast_2d(a, b)
            h.append(c)
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            g.append(z)
            h = jnp.atleast_2d(a, b)
            h.append(c)
        """, target_version="0.11.2", note="target 0.11.2: only meshgrid changed"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g.append(z)
            h = jnp.atleast_2d(a, b)
            h.append(c)
        """, fixed="""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            g.append(z)
            h = list(jnp.atleast_2d(a, b))
            h.append(c)
        """, min_version="0.11.1", note="min 0.11.1: only atleast_2d changes in range"),
        Invalid("""
            import jax.numpy as jnp
            def grids(x, y):
                from jax import numpy as jnp2
                g = jnp2.meshgrid(
                    x,
                    y,
                )
                def add(z):
                    g.append(z)
                return add
        """, fixed="""
            import jax.numpy as jnp
            def grids(x, y):
                from jax import numpy as jnp2
                g = list(jnp2.meshgrid(
                    x,
                    y,
                ))
                def add(z):
                    g.append(z)
                return add
        """, note="function-local import, multi-line call, use in a nested function"),
        Invalid("""
            import jax.numpy as jnp
            if (g := jnp.meshgrid(x, y)):
                g.append(z)
        """, fixed="""
            import jax.numpy as jnp
            if (g := list(jnp.meshgrid(x, y))):
                g.append(z)
        """, note="walrus binding"),
        Invalid("""
            import jax.numpy as jnp
            if flag:
                g = jnp.meshgrid(x, y)
            else:
                g = jnp.meshgrid(y, x)
            g.append(z)
        """, fixed="""
            import jax.numpy as jnp
            if flag:
                g = list(jnp.meshgrid(x, y))
            else:
                g = list(jnp.meshgrid(y, x))
            g.append(z)
        """, count=2, note="every binding of the name is such a call"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            def body(c, x):
                return jnp.broadcast_arrays(*c), x
            out = jax.lax.scan(body, [a, b], xs)
        """, fixed="""
            import jax
            import jax.numpy as jnp
            def body(c, x):
                return list(jnp.broadcast_arrays(*c)), x
            out = jax.lax.scan(body, [a, b], xs)
        """, note="lax.scan carry with a list initial value"),
        Invalid("""
            from jax import lax
            import jax.numpy as jnp
            def step(carry, x):
                (u, v), n = carry
                new = jnp.broadcast_arrays(u * x, v)
                return (new, n + 1), None
            init = ([a, b], 0)
            final, _ = lax.scan(step, init, xs)
        """, fixed="""
            from jax import lax
            import jax.numpy as jnp
            def step(carry, x):
                (u, v), n = carry
                new = list(jnp.broadcast_arrays(u * x, v))
                return (new, n + 1), None
            init = ([a, b], 0)
            final, _ = lax.scan(step, init, xs)
        """, note="part of the carry, through names for the result and the initial value"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            out = jax.lax.fori_loop(0, 3, lambda i, c: jnp.meshgrid(*c), [x, y])
        """, fixed="""
            import jax
            import jax.numpy as jnp
            out = jax.lax.fori_loop(0, 3, lambda i, c: list(jnp.meshgrid(*c)), [x, y])
        """, note="fori_loop with a lambda body"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            def body(c):
                return jnp.broadcast_arrays(c[0] + 1, c[1])
            out = jax.lax.while_loop(cond, body, init_val=[x, y])
        """, fixed="""
            import jax
            import jax.numpy as jnp
            def body(c):
                return list(jnp.broadcast_arrays(c[0] + 1, c[1]))
            out = jax.lax.while_loop(cond, body, init_val=[x, y])
        """, note="while_loop, initial value by keyword"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            def body(c, x):
                u, v = c
                return [u * x, v], None
            out = jax.lax.scan(body, jnp.meshgrid(a, b), xs)
        """, fixed="""
            import jax
            import jax.numpy as jnp
            def body(c, x):
                u, v = c
                return [u * x, v], None
            out = jax.lax.scan(body, list(jnp.meshgrid(a, b)), xs)
        """, note="the other way round: a tuple initial value, a list carry returned by the body"),
        Invalid("""
            import jax.numpy as jnp
            g = jnp.meshgrid(x, y)
            a = list is type(g)
            b = type(g) in (list, dict)
        """, fixed="""
            import jax.numpy as jnp
            g = list(jnp.meshgrid(x, y))
            a = list is type(g)
            b = type(g) in (list, dict)
        """, note="list is type(x), type(x) in (list, ...)"),
        Invalid("""
            import jax.numpy as jnp
            class Grid:
                axes = jnp.meshgrid(x, y)
                backup = axes.copy()
        """, fixed="""
            import jax.numpy as jnp
            class Grid:
                axes = list(jnp.meshgrid(x, y))
                backup = axes.copy()
        """, note=".copy() exists on lists only; class scope"),
        Invalid("""
            from jax.numpy import *
            g = meshgrid(x, y)
            g.append(z)
        """, fixed="""
            from jax.numpy import *
            g = list(meshgrid(x, y))
            g.append(z)
        """, note="star import from jax.numpy"),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self._reported: set[int] = set()
        # Loop calls seen, with their ancestors: bodies are usually defined before the loop, so carry findings are
        # made at the end of the module, reported with the ancestors the body's call had when it was visited.
        self._loops: list[tuple[cst.Call, str]] = []
        self._call_ancestors: dict[int, tuple[cst.CSTNode, ...]] = {}
        self._name_uses: dict[int, str | None] = {}
        # Calls of the module's own functions that return such a result, used as a list: (call, how), reported at
        # the end of the module on the calls the function returns (defined before or after its callers).
        self._helper_uses: list[tuple[cst.Call, str]] = []
        self._helpers: dict[int, list[_Candidate]] = {}

    # -- no finding, proved from ``ast`` (``jaxlint.lint.ast_findings``) ------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list:
        """None, where every call of the TARGETS in range is used only in ways ``_use_of_result`` never reports
        (unpacked, passed on, indexed, an attribute a tuple has too); anything else is ``Undecidable``: a result
        bound to a name used as a list, returned (a helper), compared, added, or given to ``isinstance``/``type``,
        and, in a file with a loop, a call where its carry may hold it (``_may_be_carried``; not ``list(...)``).
        Most files that refer to these functions unpack the result (``xx, yy = jnp.meshgrid(x, y)``).

        A star import (``from jax_md.util import *``) is read as the resolver reads it (``AstView.star_names``): this
        port asks the resolver for callees only, and takes ``isinstance``/``type`` for the builtins by their names
        alone, which a star import can only make "maybe" (``Undecidable``), never wrong."""
        with view.star_names():
            return cls._findings_from_ast(view)

    @classmethod
    def _findings_from_ast(cls, view: AstView) -> list:
        rule = view.rule(cls)
        loop = carried = False
        for node in walk(view, (ast.Call,)):
            qualified = _called_name(view, node)
            if qualified in LOOPS:
                loop = True  # a carry finding is about a call in range: none in the file, none in the carry
                continue
            if qualified not in TARGETS or TARGETS[qualified][1] and not node.keywords and len(node.args) == 1 \
                    and type(node.args[0]) is not ast.Starred:
                continue  # not a candidate: ``atleast_2d(x)`` with one array returns it, unchanged
            ancestors = view.ancestors(node)
            parent, field = ancestors[-1]
            if type(parent) is ast.Return and not _helper_never_used_as_list(view, ancestors):
                raise Undecidable("a function returns the result: its callers may use it as a list")
            if not rule._in_range(TARGETS[qualified][0]):
                continue
            carried = carried or _may_be_carried(view, ancestors)
            if type(parent) in (ast.Return, ast.Lambda):
                continue  # a lambda's result is followed only as a loop's body (``loop`` below)
            if not _never_a_list_use(ancestors) and not _names_never_used_as_lists(view, ancestors):
                raise Undecidable("the result may be used as a list")
        if loop and carried:
            raise Undecidable("a loop: its carry may hold such a result")
        return []

    # -- visiting ----------------------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.qualified_name(node.func)
        if qualified in LOOPS:
            if not has_star_args(node):
                self._loops.append((node, qualified))
            return
        candidate = self._candidate(node)
        if candidate is None and self._helper_candidates(node):
            use = self._use_of_result(node, list(self.context.ancestors))
            if use is not None:
                self._helper_uses.append((node, use))
            return
        if candidate is None or not self._in_range(candidate.since):
            return
        self._call_ancestors[id(node)] = tuple(self.context.ancestors)
        use = self._use_of_result(node, list(self.context.ancestors))
        if use is not None:
            self._report(candidate, f"the result is used as a list ({use})")

    def leave_Module(self, node: cst.Module) -> None:
        for loop, qualified in self._loops:
            self._check_loop(loop, qualified)
        for call, use in self._helper_uses:
            for candidate in self._helper_candidates(call):
                ancestors = self._call_ancestors.get(id(candidate.node))
                if ancestors is not None:  # None: outside the version range
                    self._report(candidate, f"`{call.func.value}(...)` returns it, and its result is used as a "
                                            f"list ({use})", ancestors)

    def _helper_candidates(self, node: cst.BaseExpression) -> list[_Candidate]:
        """``helper(...)`` where ``helper`` is a plain function of the module whose every ``return`` gives such a
        call (``def broadcast(*xs): return jnp.broadcast_arrays(*xs)``): its callers get the tuple too."""
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Name):
            return []
        bindings = self.context.resolver.bindings(node.func)
        if len(bindings) != 1 or not isinstance(bindings[0].node, cst.FunctionDef):
            return []
        function = bindings[0].node
        if id(function) not in self._helpers:
            found: list[_Candidate] = []
            if not function.decorators and function.asynchronous is None:
                finder = visitor(_Returns)()
                function.body.visit(finder)
                found = [c for c in map(self._candidate, finder.values) if c is not None]
                if finder.generator or len(found) != len(finder.values):
                    found = []  # another value may be returned: the caller may be checking for it
            self._helpers[id(function)] = found
        return self._helpers[id(function)]

    # -- what the calls are ------------------------------------------------------------------------------------
    def _candidate(self, node: cst.BaseExpression) -> _Candidate | None:
        if not isinstance(node, cst.Call):
            return None
        qualified = self.qualified_name(node.func)
        if qualified not in TARGETS:
            return None
        since, arity_matters = TARGETS[qualified]
        certain = True
        if arity_matters:
            if any(arg.star == "**" or arg.keyword is not None for arg in node.args):
                return None
            plain = len(positional_args(node))
            if any(arg.star == "*" for arg in node.args):
                certain = plain >= 2
            elif plain == 1:
                return None  # one argument: an Array, unchanged
        return _Candidate(node, qualified, since, certain)

    def _in_range(self, since: str) -> bool:
        settings = self.settings
        if settings.target_version < since:
            return False
        return not (settings.min_version_known and settings.min_version >= since)

    def _report(self, candidate: _Candidate, why: str, ancestors: tuple[cst.CSTNode, ...] | None = None) -> None:
        node = candidate.node
        if id(node) in self._reported:
            return
        self._reported.add(id(node))
        name = _short(candidate.qualified)
        if candidate.qualified.endswith(("atleast_1d", "atleast_2d", "atleast_3d")):
            changed = f"`{name}` with several arguments returns a tuple since JAX {candidate.since} (a list before)"
        else:
            changed = f"`{name}` returns a tuple since JAX {candidate.since} (a list before)"
        message = f"{changed}; {why}"
        fix = None
        if candidate.certain:
            fix = safe_fix("Wrap the call in `list(...)`", InsertBefore(node, "list("), InsertAfter(node, ")"),
                           probe=node)
        else:
            message += (f"; with one array `{name}(*...)` returns an Array instead, so `list(...)` is right only "
                        f"if several arrays are passed")
        if ancestors is None:
            ancestors = tuple(self.context.ancestors)
        self.context.add_report(Report(self.code, node, message, fix, ancestors))

    # -- uses as a list ----------------------------------------------------------------------------------------
    def _use_of_result(self, node: cst.Call, chain: list[cst.CSTNode]) -> str | None:
        """How the value of ``node`` (``chain[-1]``) is used as a list, directly or through the name it is bound to."""
        parent = chain[-2] if len(chain) >= 2 else None
        direct = _list_use(chain, self)
        if direct is not None:
            return direct
        if isinstance(parent, cst.NamedExpr) and parent.value is node:
            use = _list_use(chain[:-1], self)
            if use is not None:
                return use
            if isinstance(parent.target, cst.Name):
                return self._use_through_name(parent.target)
            return None
        if isinstance(parent, cst.Assign) and parent.value is node:
            for target in parent.targets:
                if isinstance(target.target, cst.Name):
                    use = self._use_through_name(target.target)
                    if use is not None:
                        return use
            return None
        if isinstance(parent, cst.AnnAssign) and parent.value is node and isinstance(parent.target, cst.Name):
            return self._use_through_name(parent.target)
        return None

    def _use_through_name(self, target: cst.Name) -> str | None:
        bindings = self.context.resolver.bindings(target)
        key = id(bindings)
        if key not in self._name_uses:
            self._name_uses[key] = self._analyse_name(target, bindings)
        return self._name_uses[key]

    def _analyse_name(self, target: cst.Name, bindings: list[Binding]) -> str | None:
        if not bindings or not all(self._is_sequence_binding(target.value, b) for b in bindings):
            return None
        owner = self._owner_node(target, bindings)
        if owner is None:
            return None
        finder = visitor(_NameUses)(target.value)
        owner.visit(finder)
        resolver = self.context.resolver
        for name, chain in finder.uses:
            if resolver.bindings(name) is not bindings:
                continue
            parent = chain[-2]
            if isinstance(parent, cst.AugAssign) and parent.target is name:
                if type(parent.operator).__name__ in IN_PLACE_OPERATORS:
                    return f"`{name.value} {IN_PLACE_OPERATORS[type(parent.operator).__name__]} ...`"
                continue
            use = _list_use(chain, self)
            if use is not None:
                return f"`{name.value}`: {use}"
        return None

    def _is_sequence_binding(self, name: str, binding: Binding) -> bool:
        """A binding that keeps ``name`` one of these results: ``name = <call>`` or an in-place ``+=``/``*=``."""
        node = binding.node
        if isinstance(node, cst.Assign):
            return any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets) \
                and (self._is_result(node.value) or _grows_itself(name, node.value))
        if isinstance(node, (cst.AnnAssign, cst.NamedExpr)):
            return isinstance(node.target, cst.Name) and node.value is not None and self._is_result(node.value)
        if isinstance(node, cst.AugAssign):
            return isinstance(node.target, cst.Name) and type(node.operator).__name__ in IN_PLACE_OPERATORS
        return False

    def _is_result(self, value: cst.BaseExpression) -> bool:
        """One of the calls, or a call of a module function returning one."""
        return self._candidate(value) is not None or bool(self._helper_candidates(value))

    def _owner_node(self, target: cst.Name, bindings: list[Binding]) -> cst.CSTNode | None:
        scope = self.context.resolver.scope_of(target)
        while scope is not None:
            if scope.bindings.get(target.value) is bindings:
                return scope.node
            scope = scope.parent
        return None

    # -- loop carries ------------------------------------------------------------------------------------------
    def _check_loop(self, loop: cst.Call, qualified: str) -> None:
        (body_name, body_position), (init_name, init_position), returns_pair = LOOPS[qualified]
        body_arg = argument(loop, body_name, body_position)
        init_arg = argument(loop, init_name, init_position)
        if body_arg is None or init_arg is None:
            return
        loop_name = "lax." + qualified.rsplit(".", 1)[1]
        for returned in self._body_returns(body_arg.value):
            carry = returned
            if returns_pair:
                returned = self._literal_value(returned)
                if not (isinstance(returned, cst.Tuple) and len(returned.elements) == 2
                        and not isinstance(returned.elements[0], cst.StarredElement)):
                    continue
                carry = returned.elements[0].value
            self._match_carry(carry, init_arg.value, loop_name, depth=0)

    def _literal_value(self, node: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression:
        """Follow a name assigned exactly once in its scope (``init = ([a, b], 0)``) to its value."""
        while isinstance(node, cst.Name) and depth < 8:
            bindings = self.context.resolver.bindings(node)
            if len(bindings) != 1:
                break
            binding = bindings[0].node
            if not (isinstance(binding, cst.Assign) and len(binding.targets) == 1
                    and isinstance(binding.targets[0].target, cst.Name)):
                break
            node, depth = binding.value, depth + 1
        return node

    def _body_returns(self, body: cst.BaseExpression) -> list[cst.BaseExpression]:
        if isinstance(body, cst.Lambda):
            return [body.body]
        if not isinstance(body, cst.Name):
            return []
        bindings = self.context.resolver.bindings(body)
        if len(bindings) != 1 or not isinstance(bindings[0].node, cst.FunctionDef):
            return []
        function = bindings[0].node
        for decorator in function.decorators:
            decorator_name = self.qualified_name(
                decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator)
            if not decorator_name or not decorator_name.startswith("jax."):
                return []
        finder = visitor(_Returns)()
        function.body.visit(finder)
        if finder.generator:
            return []
        return finder.values

    def _match_carry(self, carry: cst.BaseExpression, init: cst.BaseExpression, loop_name: str, depth: int) -> None:
        """Report calls whose tuple meets a list at the same place of the carry and of its initial value."""
        if depth > 8:
            return
        carry_value, init_value = self._literal_value(carry), self._literal_value(init)
        if _is_list_value(init_value, self):
            self._report_carry(carry, (
                f"it is returned as (part of) the `{loop_name}` carry whose initial value is a list"), loop_name)
        if _is_list_value(carry_value, self):
            self._report_carry(init, (
                f"it is (part of) the initial value of a `{loop_name}` carry that the body returns as a list"),
                loop_name)
        if type(carry_value) is type(init_value) and isinstance(carry_value, (cst.List, cst.Tuple)) \
                and len(carry_value.elements) == len(init_value.elements) \
                and not any(isinstance(e, cst.StarredElement) for e in carry_value.elements + init_value.elements):
            for carry_element, init_element in zip(carry_value.elements, init_value.elements):
                self._match_carry(carry_element.value, init_element.value, loop_name, depth + 1)

    def _report_carry(self, expression: cst.BaseExpression, where: str, loop_name: str) -> None:
        for candidate in self._candidates_behind(expression):
            ancestors = self._call_ancestors.get(id(candidate.node))
            if ancestors is None:  # outside the version range
                continue
            # The scan text is the verified one; fori_loop runs as a scan or a while_loop, so its prefix varies.
            prefix = {"lax.scan": "scan body function", "lax.while_loop": "while_loop body function"}.get(
                loop_name, "...")
            self._report(candidate, (
                f"{where}, so the carry structures differ and JAX raises `TypeError: {prefix} carry input and carry "
                f"output must have the same pytree structure, but they differ`"), ancestors)

    def _candidates_behind(self, node: cst.BaseExpression) -> list[_Candidate]:
        """The call itself, or every call a name is bound to when all of its bindings are such calls."""
        candidate = self._candidate(node)
        if candidate is not None:
            return [candidate]
        if not isinstance(node, cst.Name):
            return []
        bindings = self.context.resolver.bindings(node)
        if not bindings or not all(self._is_sequence_binding(node.value, b) for b in bindings):
            return []
        found = []
        for binding in bindings:
            value = getattr(binding.node, "value", None)
            if not isinstance(binding.node, cst.AugAssign):
                candidate = self._candidate(value)
                if candidate is not None:
                    found.append(candidate)
        return found


def _grows_itself(name: str, value: cst.BaseExpression) -> bool:
    """``g = g + x``, ``g = x + g``, ``g = g * 2``: a list stays a list (the ``+`` itself is checked as a use)."""
    if not isinstance(value, cst.BinaryOperation):
        return False
    def is_name(node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value == name
    if isinstance(value.operator, cst.Add):
        return is_name(value.left) or is_name(value.right)
    if isinstance(value.operator, cst.Multiply):
        return (is_name(value.left) and isinstance(value.right, cst.Integer)) \
            or (isinstance(value.left, cst.Integer) and is_name(value.right))
    return False


def _called_name(view: AstView, call: ast.Call) -> str | None:
    """The qualified name of what ``call`` calls, where it may be one of the LOOPS or TARGETS (only an imported
    root can be); None otherwise."""
    return view.imported_name(call.func, lambda name: name in LOOPS or name in TARGETS)


def _may_be_carried(view: AstView, ancestors) -> bool:
    """``_report_carry`` may report the call with these ast ancestors: it stands where ``_check_loop`` looks for a
    carry or an initial value (returned, a lambda's body, an element of a tuple or list, an argument of a loop) or
    is bound to a name, which ``_candidates_behind`` follows (``g = jnp.meshgrid(x, y)``; not ``a, b = ...``).
    Anywhere else (``list(jnp.meshgrid(...))``, an attribute, an item) no carry holds the call itself."""
    parent, field = ancestors[-1]
    kind = type(parent)
    if kind in (ast.Return, ast.Tuple, ast.List, ast.NamedExpr):
        return True
    if kind is ast.Lambda:
        return field == "body"
    if kind is ast.Assign:
        return field == "value" and any(type(target) is ast.Name for target in parent.targets)
    if kind is ast.AnnAssign:
        return field == "value" and type(parent.target) is ast.Name
    if kind is ast.Call and field == "args" or kind is ast.keyword:
        call = parent if kind is ast.Call else ancestors[-2][0]
        return _called_name(view, call) in LOOPS
    return False


_TARGET_FIELDS = frozenset({"targets", "target"})  # an assignment's, ``for``'s, ``with``'s or ``del``'s targets


def _never_a_list_use(ancestors) -> bool:
    """``_use_of_result`` gives None for a call with these ast ancestors: its parent is none of the uses it checks
    (an attribute of ``LIST_ONLY_METHODS``, a stored or deleted item, ``+``, a comparison, an argument of a builtin
    ``isinstance``/``type``, a binding to a name)."""
    parent, field = ancestors[-1]
    kind = type(parent)
    if kind is ast.Assign:
        return field == "value" and not any(type(target) is ast.Name for target in parent.targets)
    if kind is ast.Attribute:
        return parent.attr not in LIST_ONLY_METHODS
    if kind is ast.Subscript:
        return type(parent.ctx) is ast.Load and not any(name in _TARGET_FIELDS for _, name in ancestors)
    if kind is ast.Call and field == "args" or kind is ast.keyword:
        call = parent if kind is ast.Call else ancestors[-2][0]
        return not (type(call.func) is ast.Name and call.func.id in ("isinstance", "type"))
    return kind in _PASSIVE_PARENTS


def _names_never_used_as_lists(view: AstView, ancestors) -> bool:
    """``_use_of_result`` gives None for a call bound to names (``g = jnp.meshgrid(x, y)``, ``g: T = ...``): no
    use of a name it binds can be a list use (``_use_through_name``). The uses the resolver may find of the binding
    lie in the subtree of the scope that holds the assignment (its owner), or anywhere where the name is made
    ``global`` or ``nonlocal`` somewhere: every ``Name`` so spelled there is checked, a superset of them."""
    parent, field = ancestors[-1]
    if field != "value" or type(parent) not in (ast.Assign, ast.AnnAssign):
        return False
    targets = parent.targets if type(parent) is ast.Assign else [parent.target]
    names = {target.id for target in targets if type(target) is ast.Name}
    if not names:
        return True  # ``self.g: T = ...``: the libcst visit follows no name
    redirected = {name for node in walk(view, (ast.Global, ast.Nonlocal)) for name in node.names}
    scope = next((ancestor for ancestor, _ in reversed(ancestors) if type(ancestor) in _OWNERS), view.tree)
    for name in names:
        uses = view.nodes if name in redirected else ast.walk(scope)
        for node in uses:
            if type(node) is ast.Name and node.id == name and _may_use_name_as_list(view.ancestors(node), node):
                return False
    return True


def _helper_never_used_as_list(view: AstView, ancestors) -> bool:
    """The function that returns such a call (``_helper_candidates``: a plain module function, called by its name)
    has no call in the file whose result may be used as a list; a decorated or async one is never a helper."""
    function = next((ancestor for ancestor, _ in reversed(ancestors)
                     if type(ancestor) in (ast.FunctionDef, ast.AsyncFunctionDef)), None)
    if function is None or type(function) is ast.AsyncFunctionDef or function.decorator_list:
        return True
    for node in walk(view, (ast.Call,)):
        if type(node.func) is ast.Name and node.func.id == function.name:
            called = view.ancestors(node)
            if type(called[-1][0]) not in (ast.Return, ast.Lambda) and not _never_a_list_use(called) \
                    and not _names_never_used_as_lists(view, called):
                return False
    return True


# The scopes that may own an assignment's bindings (a comprehension holds no statement).
_OWNERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _may_use_name_as_list(ancestors, name: ast.Name) -> bool:
    """``_list_use`` (or ``_analyse_name``'s in-place operators) may find a list use of this name: its parent is
    one of the uses they check (conservatively: a comparison or a ``+`` of any kind, ``isinstance`` and ``type``
    spelled so whatever they resolve to)."""
    parent, field = ancestors[-1]
    kind = type(parent)
    if kind is ast.AugAssign:
        return field == "target" and type(parent.op) in (ast.Add, ast.Mult)
    if type(name.ctx) is not ast.Load:
        return False
    if kind is ast.Attribute:
        return parent.attr in LIST_ONLY_METHODS
    if kind is ast.Subscript:
        return field == "value" and not (type(parent.ctx) is ast.Load
                                          and not any(held in _TARGET_FIELDS for _, held in ancestors))
    if kind is ast.BinOp or kind is ast.Compare:
        return True
    if kind is ast.Call and field == "args" or kind is ast.keyword:
        call = parent if kind is ast.Call else ancestors[-2][0]
        return type(call.func) is ast.Name and call.func.id in ("isinstance", "type")
    return False


# Parents that hand the value on without looking at its type (``_list_use`` checks none of them).
_PASSIVE_PARENTS = (ast.Expr, ast.Tuple, ast.List, ast.Set, ast.Starred, ast.For, ast.comprehension,
                    ast.FormattedValue, ast.Yield, ast.YieldFrom, ast.Await, ast.Dict)


# -- classifying one use --------------------------------------------------------------------------------------
def _list_use(chain: Sequence[cst.CSTNode], rule: TupleReturn) -> str | None:
    """How the expression ``chain[-1]`` is used as a list by its parent, or None."""
    if len(chain) < 2:
        return None
    node, parent = chain[-1], chain[-2]
    if isinstance(parent, cst.Attribute) and parent.value is node:
        if parent.attr.value in LIST_ONLY_METHODS:
            return f"`.{parent.attr.value}`"
        return None
    if isinstance(parent, cst.Subscript) and parent.value is node:
        context = target_context(chain[:-1])
        if context == "del":
            return "item deletion"
        if context is not None:
            return "item assignment"
        return None
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add):
        other = parent.right if parent.left is node else parent.left
        if _is_visible_list(other, rule):
            return "`+` with a list"
        return None
    comparison = _comparison_of(chain)
    if comparison is not None:
        return _comparison_use(comparison, node, rule, lambda other: _is_visible_list(other, rule),
                               _ordering(), "comparison with a list")
    if isinstance(parent, cst.Arg) and parent.value is node and len(chain) >= 3:
        call = chain[-3]
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or has_star_args(call):
            return None
        resolver = rule.context.resolver
        if resolver.is_builtin(call.func, "isinstance") and len(call.args) == 2 and call.args[0] is parent \
                and call.args[1].keyword is None:
            if _changes_isinstance(call.args[1].value, rule):
                return "`isinstance(..., list)`"
            return None
        if resolver.is_builtin(call.func, "type") and len(call.args) == 1 and parent.keyword is None \
                and _comparison_of(chain[:-2]) is not None:
            comparison = _comparison_of(chain[:-2])
            use = _comparison_use(comparison, call, rule, lambda other: _names_list_type(other, rule),
                                  (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual), "`type(...) is list`")
            if use is not None:
                return use
            return _comparison_use(comparison, call, rule, lambda other: _changes_type_membership(other, rule),
                                   (cst.In, cst.NotIn), "`type(...) in (list, ...)`", right_only=True)
    return None


def _names_list_type(node: cst.BaseExpression, rule: TupleReturn) -> bool:
    """``list``, or ``type([])`` / ``type(list(...))``: the list type itself."""
    if rule.qualified_name(node) == "builtins.list":
        return True
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
        and rule.context.resolver.is_builtin(node.func, "type") and len(node.args) == 1 \
        and node.args[0].keyword is None and not node.args[0].star and _is_visible_list(node.args[0].value, rule)


def _comparison_of(chain: Sequence[cst.CSTNode]) -> cst.Comparison | None:
    """The comparison ``chain[-1]`` is an operand of (its left side, or a comparator inside a ComparisonTarget)."""
    if len(chain) >= 2 and isinstance(chain[-2], cst.Comparison) and chain[-2].left is chain[-1]:
        return chain[-2]
    if len(chain) >= 3 and isinstance(chain[-2], cst.ComparisonTarget) and chain[-2].comparator is chain[-1] \
            and isinstance(chain[-3], cst.Comparison):
        return chain[-3]
    return None


def _comparison_use(comparison: cst.Comparison, node: cst.CSTNode, rule: TupleReturn, other_matches, operators,
                    description: str, right_only: bool = False) -> str | None:
    operands = [comparison.left] + [target.comparator for target in comparison.comparisons]
    for i, operand in enumerate(operands):
        if operand is not node:
            continue
        neighbours = []
        if i > 0 and not right_only:
            neighbours.append((operands[i - 1], comparison.comparisons[i - 1].operator))
        if i < len(comparison.comparisons):
            neighbours.append((operands[i + 1], comparison.comparisons[i].operator))
        for other, operator in neighbours:
            if isinstance(operator, operators) and other_matches(other):
                return description
    return None


def _is_list_value(node: cst.BaseExpression, rule: TupleReturn) -> bool:
    """A value that is a list in every version: a list display, comprehension, ``list(...)`` or ``sorted(...)``."""
    return _is_visible_list(node, rule)


def _is_visible_list(node: cst.BaseExpression, rule: TupleReturn) -> bool:
    """A list display or comprehension, ``list(...)``, ``sorted(...)``, ``[...] * 3``, or ``+`` of two of these."""
    if isinstance(node, (cst.List, cst.ListComp)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        resolver = rule.context.resolver
        return resolver.is_builtin(node.func, "list") or resolver.is_builtin(node.func, "sorted")
    if isinstance(node, cst.BinaryOperation):
        # Not ``[a] + x`` or ``[a] * n`` in general: with an array ``x``/``n`` those broadcast and give an Array.
        if isinstance(node.operator, cst.Add):
            return _is_visible_list(node.left, rule) and _is_visible_list(node.right, rule)
        if isinstance(node.operator, cst.Multiply):
            return (_is_visible_list(node.left, rule) and isinstance(node.right, cst.Integer)) \
                or (isinstance(node.left, cst.Integer) and _is_visible_list(node.right, rule))
    return False


def _type_kind(node: cst.BaseExpression, rule: TupleReturn) -> str:
    """"list", "sequence" (a tuple is one too), "other" (a known type that is neither), or "unknown"."""
    qualified = rule.qualified_name(node)
    if qualified in LIST_TYPES:
        return "list"
    if qualified in SEQUENCE_TYPES:
        return "sequence"
    if qualified is None:
        return "unknown"
    return "other"


def _changes_isinstance(types: cst.BaseExpression, rule: TupleReturn) -> bool:
    """``isinstance(result, types)`` is True for a list and False for a tuple."""
    if isinstance(types, (cst.Tuple, cst.List, cst.Set)):
        kinds = []
        for element in types.elements:
            if isinstance(element, cst.StarredElement):
                return False
            if isinstance(element.value, (cst.Tuple, cst.List, cst.Set)):
                if _changes_isinstance(element.value, rule):
                    kinds.append("list")
                    continue
                return False
            kinds.append(_type_kind(element.value, rule))
        return "list" in kinds and all(kind in ("list", "other") for kind in kinds)
    return _type_kind(types, rule) == "list"


def _changes_type_membership(types: cst.BaseExpression, rule: TupleReturn) -> bool:
    """``type(result) in types`` is True for a list and False for a tuple: every element known, list but no tuple."""
    if not isinstance(types, (cst.Tuple, cst.List, cst.Set)):
        return False
    names = []
    for element in types.elements:
        if isinstance(element, cst.StarredElement):
            return False
        qualified = rule.qualified_name(element.value)
        if qualified is None:
            return False
        names.append(qualified)
    return "builtins.list" in names and "builtins.tuple" not in names


class _NameUses(Visits):
    """Every ``Name`` node spelled ``name`` that reads or stores a variable, with its ancestors."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stack: list[cst.CSTNode] = []
        self.uses: list[tuple[cst.Name, tuple[cst.CSTNode, ...]]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        if isinstance(node, cst.Name) and node.value == self.name:
            self.uses.append((node, tuple(self.stack)))
        # on_leave runs even when the children are skipped: it pops what was pushed here.
        if isinstance(node, cst.Attribute):
            node.value.visit(self)  # not ``.attr``: ``obj.g`` is not the variable ``g``
            return False
        if isinstance(node, cst.Arg) and node.keyword is not None:
            node.value.visit(self)  # not the keyword: ``f(g=1)``
            return False
        if isinstance(node, (cst.NameItem, cst.Import, cst.ImportFrom)):
            return False
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


class _Returns(Visits):
    """The values a function returns (not counting nested functions, lambdas and classes)."""

    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []
        self.generator = False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.values.append(node.value)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.generator = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False
