"""JAX601 behaviour-change: a use of a JAX, flax or optax API whose default, validation or result type changed inside
the project's version range of that library (``rules/behaviour.toml``: each row with its changelog line and an
example run on both sides)."""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.value_matches import VALUE_MATCHES, ValueDecisions, call_key
from jaxlint.catalogue.behaviour import Change, crossed, recognisable
from jaxlint.analysis.ast_calls import simple_string
from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, walk
from jaxlint.lint.text_gate import call_of_result, names_by_last
from jaxlint.project.versions import parse_version
from jaxlint.rules.base import Invalid, Rule, Valid

ROWS: dict[str, Change] = recognisable()


def _rows_table() -> str:
    lines = ["| API | release | what changed | keep the old behaviour |", "|---|---|---|---|"]
    for row in sorted(ROWS.values(), key=lambda r: (r.library != "jax", r.library, parse_version(r.changed_in), r.api)):
        lines.append(f"| `{row.api}` | {row.changed_in if row.library == 'jax' else row.release} | {row.what} "
                     f"| {row.keep_old} |")
    return "\n".join(lines)


class BehaviourChange(Rule):
    code = "JAX601"
    name = "behaviour-change"
    summary = "a JAX, flax or optax API whose default, validation or result type changed inside the project's range"
    since = min((row.changed_in for row in ROWS.values() if row.library == "jax"), key=parse_version)
    triggers = ()
    required_words = frozenset(frozenset(api.split(".")) for api in ROWS)
    ast_names = frozenset(ROWS)

    statement_gated = True  # every finding is a call its own statement spells, read with the file's imports
    decides_from_ast = True  # no fix; the callee's qualified name and the call's shape (``findings_from_ast``)

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        """Some row's API may be referred to, and the text its pattern needs is in the file (``dtype=`` for a
        keyword, ``(None`` for a first argument): ``jnp.array(x, jnp.float32)`` is no ``jnp.array(None)``."""
        return any(every <= words and (not one or not one.isdisjoint(words)) and facts.refers_to_any(names, words)
                   and (text is None or text.search(facts.source) is not None)
                   and _may_call_so(facts, *shape) for every, one, text, names, shape in _TEXT_GATE)

    @classmethod
    def may_report_under(cls, settings) -> bool:
        # every report needs its row's release inside the range (``crossed``, in ``visit_Call`` and on ``ast``): a
        # project without pins (min = target) crosses none, and its files are not gated for this rule at all
        return any(crossed(row, settings) for row in ROWS.values())

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        # one pass over the calls (``calls_to`` per row walked them once per row: 1.7 s of a corpus run)
        built = []  # the constructor calls of an instance row's API: their instance's call is the one to read
        for call in facts.calls_to(cls.ast_names):
            for api in facts.qualified_names(call.func) & cls.ast_names:
                if ROWS[api].instance_call:
                    built.append((call, ROWS[api]))
                elif _may_match_ast_call(ROWS[api], call):
                    return True
        return bool(built) and any(type(outer.func) is ast.Call and outer.func is call
                                   and _may_match_ast_call(row, outer) for outer in facts.calls for call, row in built)

    explanation = f"""
## What it does
Finds calls of JAX, flax and optax APIs whose behaviour changed in a release that the project's range crosses
(min version below the release, target at or above it), where the call has the shape the change is about:
`jnp.einsum` of three operands or more without `optimize` (0.5.0: `'auto'`, was `'optimal'`), `jax.make_mesh`
without `axis_types` (0.9.0: `Explicit`), `jax.random.randint` with an 8- or 16-bit `dtype` (0.7.2),
`jnp.unique(..., return_inverse=True)` (0.4.24), `jax.scipy.fft.dctn(s=...)` without `axes` (0.10.0), and the other
rows of `rules/behaviour.toml` whose `match` is not `none` ({len(ROWS)} rows). Two rows are recognised by what an
argument certainly holds, read in the whole file (`analysis/array_values.py`): `jnp.sign` of a complex value (0.4.24:
a complex literal, a complex `dtype=`, `.astype(complex)`, `jax.lax.complex`, an FFT) and `jnp.linalg.solve(a, b)`
whose `b` has one dimension less than `a` and at least two (0.5.0: a batched vector, now refused), the ranks read
from literal shapes (`jnp.ones((2, 3))`, `jnp.eye(3)`, `jnp.stack([...])`, `jax.random.normal(key, (5, 3))`,
`reshape`, nested lists), through names assigned once. flax and optax rows follow the
project's pins of that library, not JAX's range (`flax>=0.7.0` crosses flax 0.7.5; where flax is not pinned from
below, a JAX min version under the JAX that the flax release needs does: JAX 0.4.16 runs a flax older than 0.7.5):
`nn.MultiHeadDotProductAttention(...)(q, kv, mask)`, whose third positional argument is `inputs_v` from flax 0.7.5,
the NNX norm layers with `use_scale=False` or `use_bias=False`, whose attribute is `None` from flax 0.10.3 (it was an
`nnx.Param(None)`), and `nnx.Dropout(..., rngs=rngs)`, which holds a forked copy of the `Rngs` from flax 0.11.0. Each
row quotes the changelog line and records an example run on both sides of the change.

## Why
The code still runs and computes something else: another default, a dtype, a shape, or a `ValueError` where a value
was accepted. Nothing fails at import time, and a test suite may not look at the difference.

## Example
```python
import jax.numpy as jnp
out = jnp.einsum("ij,jk,kl->il", a, b, c)  # min version 0.4.30, target 0.12.0.1
```
Keeps the old behaviour:
```python
import jax.numpy as jnp
out = jnp.einsum("ij,jk,kl->il", a, b, c, optimize="optimal")
```

## Fix safety
No fix: it is a notice. The message says what changed and how to keep the old behaviour; often the new one is what
the code wants. On by default: every row it reports has a precise pattern (a keyword absent whose default changed,
a keyword or argument written with the value the change is about). Silent when the project's min version already
has the new behaviour, and in version branches (`jax.__version_info__`). Changes no static pattern recognises (they
depend on a value's dtype or shape: `jnp.floor` of integers, `jnp.cov` of empty arrays...) are listed by
`jaxlint upgrade` under "changes to check by hand", with the count of uses of each API; so are `jnp.sign` and
`jnp.linalg.solve`, whose other uses (dtype or shape not known) may be affected too.

## JAX version
Per row: `jaxlint rule JAX601` lists them below.

{_rows_table()}
"""

    VALID = [
        Valid("""
            import jax.numpy as jnp
            out = jnp.einsum("ij,jk,kl->il", a, b, c, optimize="optimal")
        """, min_version="0.4.30", note="the old default, spelled out"),
        Valid("""
            import jax.numpy as jnp
            out = jnp.einsum("ij,jk->ik", a, b)
        """, min_version="0.4.30", note="two operands: one contraction order only"),
        Valid("""
            import jax.numpy as jnp
            out = jnp.einsum("ij,jk,kl->il", a, b, c)
        """, min_version="0.5.0", note="the min version already has the new default"),
        Valid("""
            import jax.numpy as jnp
            out = jnp.einsum("ij,jk,kl->il", a, b, c)
        """, note="min = target (no pins): the range crosses nothing"),
        Valid("""
            import jax
            x = jax.random.randint(key, (3,), 0, 10, dtype=jnp.int32)
        """, min_version="0.4.30", note="a 32-bit dtype: not changed"),
        Valid("""
            import jax
            import jax.numpy as jnp
            if jax.__version_info__ >= (0, 5, 0):
                out = jnp.einsum("ij,jk,kl->il", a, b, c)
            else:
                out = jnp.einsum("ij,jk,kl->il", a, b, c, optimize="optimal")
        """, min_version="0.4.30", note="a version branch"),
        Valid("""
            import flax.linen as nn
            y = nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask)
        """, min_version="0.4.20",
              note="flax unpinned, and JAX 0.4.20 runs flax 0.7.5 (it needs 0.4.19): no crossing known"),
        Valid("""
            import jax.numpy as jnp
            s = jnp.sign(jnp.array([-2.0, 0.0, 3.0]))
            x = jnp.linalg.solve(jnp.eye(3), jnp.ones(3))
            y = jnp.linalg.solve(jnp.stack([jnp.eye(3)] * 2), jnp.ones((2, 3))[..., None])
        """, min_version="0.4.20", note="a real sign, a 1-D right-hand side, an explicit batch of columns"),
        Valid("""
            def einsum(*args):
                return args
            out = einsum("ij,jk,kl->il", a, b, c)
        """, min_version="0.4.30", note="the project's own einsum"),
    ]

    INVALID = [
        Invalid("""
            import flax.linen as nn
            y = nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask)
        """, min_version="0.4.16", note="flax unpinned; JAX 0.4.16 runs flax older than 0.7.5 (which needs 0.4.19)"),
        Invalid("""
            import jax.numpy as jnp
            out = jnp.einsum("ij,jk,kl->il", a, b, c)
        """, min_version="0.4.30", note="einsum of three operands without optimize"),
        Invalid("""
            import jax
            mesh = jax.make_mesh((4, 2), ("data", "model"))
        """, min_version="0.8.0", note="make_mesh without axis_types"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            x = jax.random.randint(key, (3,), 0, 10, dtype=jnp.int8)
        """, min_version="0.6.0", note="an 8-bit randint"),
        Invalid("""
            from jax.scipy.fft import dctn
            y = dctn(x, s=(2,))
        """, min_version="0.8.0", note="dctn with s and without axes"),
        Invalid("""
            import jax.numpy as jnp
            values, inverse = jnp.unique(x, return_inverse=True)
            nan = jnp.array(None)
        """, min_version="0.4.20", count=2, note="a keyword value, a literal argument"),
        Invalid("""
            import jax.numpy as jnp
            phase = jnp.sign(jnp.array(3 + 4j))
            a = jnp.stack([jnp.eye(3)] * 2)
            b = jnp.ones((2, 3))
            x = jnp.linalg.solve(a, b)
        """, min_version="0.4.20", count=2, note="a complex argument; a batched vector, its shapes from literals"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        row = _row_of(node, self.qualified_name)
        if row is None or not crossed(row, self.settings):
            return
        if row.match in VALUE_MATCHES:
            if not self._value_decisions().certain(call_key(self.code_for(node))):
                return
        elif not matches(row, node, self.code_for):
            return
        self.report(node, message(row))

    def _value_decisions(self) -> ValueDecisions:
        """The value rows' answers, from the whole file (this visit may see only a cut of it)."""
        decisions = getattr(self, "_decisions", None)
        if decisions is None:
            decisions = self._decisions = ValueDecisions.of_file(
                self.context.file_text, self.settings, self.context.path, ROWS.values())
        return decisions

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) -------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` reports, from the ``ast`` tree: the row of the callee's qualified name (``Undecidable``
        where a name the row table holds may be meant but the name is not certain), and the call's shape
        (``_ast_matches``)."""
        found = []
        decisions = None
        for node in walk(view, (ast.Call,)):
            row = _ast_row_of(view, node)
            if row is None or not crossed(row, view.settings):
                continue
            if row.match in VALUE_MATCHES:
                decisions = decisions or ValueDecisions(view, ROWS.values())
                if not decisions.decide(call_key(view.text(node))):
                    continue
            elif not _ast_matches(view, row, node):
                continue
            found.append(AstFinding(cls.code, node, message(row)))
        return found


def _ast_qualified(view: AstView, node: ast.expr) -> str | None:
    """The resolver's name for ``node`` where it may be a row's API (None where no row's API can be meant)."""
    return view.imported_name(node, ROWS.__contains__)


def _ast_row_of(view: AstView, call: ast.Call) -> Change | None:
    """``_row_of`` for an ``ast`` call."""
    if type(call.func) is ast.Call:
        row = ROWS.get(_ast_qualified(view, call.func.func) or "")
        return row if row is not None and row.instance_call else None
    row = ROWS.get(_ast_qualified(view, call.func) or "")
    return row if row is not None and not row.instance_call else None


def _ast_matches(view: AstView, row: Change, call: ast.Call) -> bool:
    """``matches`` for an ``ast`` call (``ast`` keeps positional arguments and keywords apart; a ``*args`` after
    a keyword is still a star)."""
    if any(type(arg) is ast.Starred for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        return False
    keywords = {kw.arg: kw for kw in call.keywords}
    positional = call.args
    if row.requires_positional is not None and len(positional) < row.requires_positional:
        return False
    if row.absent is not None and row.absent in keywords:
        return False
    if row.unless_flat_argument and positional and _ast_flat_literal(view, positional[0]):
        return False
    if row.match == "positional-count":
        return True
    if row.match == "keyword-absent":
        return row.keyword not in keywords
    if row.match == "keyword-present":
        return row.keyword in keywords
    if row.match == "keyword-value":
        return any(keyword is not None and _ast_value_text(view, keyword) in row.values
                   for keyword in map(keywords.get, row.keywords))
    if row.match == "argument-value":
        if row.position is None or len(positional) <= row.position:
            return False
        value = positional[row.position]
        if "number" in row.values and _ast_number(value):
            return True
        # libcst's ``Name``: ``None``, ``True`` and ``False`` are names there, constants here
        if type(value) is ast.Constant and (value.value is None or type(value.value) is bool):
            return repr(value.value) in row.values
        return type(value) is ast.Name and value.id in row.values
    return False


def _ast_value_text(view: AstView, keyword: ast.keyword) -> str:
    """``"".join(code_for(value).split())`` of a keyword's value: the text after its ``=`` (the keyword's span
    holds the value's own parentheses), where no comment or line continuation can lie between (``Undecidable``)."""
    text = view.text(keyword)
    if "#" in text or "\\" in text:
        raise Undecidable("a comment or a backslash in a keyword's value")
    return "".join(text.partition("=")[2].split())


def _ast_flat_literal(view: AstView, node: ast.expr) -> bool:
    """``_flat_literal`` for an ``ast`` expression."""
    if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in _ARRAY_MAKERS \
            and node.args and type(node.args[0]) is not ast.Starred:
        node = node.args[0]  # no keyword comes before a positional argument
    if type(node) not in (ast.List, ast.Tuple) or not node.elts:
        return False
    return all(type(element) is not ast.Starred and (_ast_number(element) or _ast_simple_string(view, element))
               for element in node.elts)


def _ast_simple_string(view: AstView, node: ast.expr) -> bool:
    """libcst's ``SimpleString``: one string or bytes literal, not implicitly joined, not an f-string."""
    return type(node) is ast.Constant and type(node.value) in (str, bytes) and simple_string(view.text(node))


def _ast_number(node: ast.expr) -> bool:
    """``_number``: an int or float literal (not a bool, not imaginary), maybe after one unary ``-``/``+``."""
    if type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant and type(node.value) in (int, float)


def _row_of(call: cst.Call, qualified_name) -> Change | None:
    """The row about this call: its callee's, or, for the call of an instance built in the same expression
    (``nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask)``), the class's row about such calls."""
    if isinstance(call.func, cst.Call):
        row = ROWS.get(qualified_name(call.func.func) or "")
        return row if row is not None and row.instance_call else None
    row = ROWS.get(qualified_name(call.func) or "")
    return row if row is not None and not row.instance_call else None


def matches(row: Change, call: cst.Call, code_for) -> bool:
    """Whether the call has the shape the change is about (a ``*args``/``**kwargs`` call: unknown, not reported)."""
    if any(arg.star for arg in call.args):
        return False
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if row.requires_positional is not None and len(positional) < row.requires_positional:
        return False
    if row.absent is not None and row.absent in keywords:
        return False
    if row.unless_flat_argument and positional and _flat_literal(positional[0]):
        return False
    if row.match == "positional-count":
        return True  # the count was checked above
    if row.match == "keyword-absent":
        return row.keyword not in keywords
    if row.match == "keyword-present":
        return row.keyword in keywords
    if row.match == "keyword-value":
        return any(value is not None and "".join(code_for(value).split()) in row.values
                   for value in map(keywords.get, row.keywords))
    if row.match == "argument-value":
        if row.position is None or len(positional) <= row.position:
            return False
        value = positional[row.position]
        if "number" in row.values and _number(value):
            return True
        return isinstance(value, cst.Name) and value.value in row.values
    return False


def _value_words(row: Change) -> frozenset[str]:
    """The last word of each value a ``keyword-value`` row looks for: ``bfloat16`` of ``jnp.bfloat16``."""
    return frozenset(re.findall(r"\w+", value)[-1] for value in row.values)


def _needed_text(row: Change) -> tuple[frozenset[str], frozenset[str], re.Pattern | None]:
    """What the text of a file with a use the row reports holds: every word of the first set, one word of the second
    (when not empty), and a match of the pattern (when not None)."""
    if row.match == "keyword-present":
        return frozenset({row.keyword}), frozenset(), re.compile(rf"\b{re.escape(row.keyword)}\s*=")
    if row.match == "keyword-value":
        keyword = re.compile(rf"\b(?:{'|'.join(map(re.escape, row.keywords))})\s*=")
        return frozenset(), _value_words(row), keyword
    if row.match == "complex-argument":  # a complex literal, a complex dtype, ``jax.lax.complex``, an FFT
        return frozenset(), frozenset(), _COMPLEX_TEXT
    if row.match == "argument-value" and row.position == 0:
        if "number" in row.values:
            return frozenset(), frozenset(), re.compile(r"\(\s*[-+(\s]*[.\d]")
        # the value itself is read from each call's first argument (``_call_shape``): a pattern such as ``\(\s*None``
        # missed ``jnp.array(  # a comment`` then ``None)`` on the next line
        return frozenset(row.values), frozenset(), None
    return frozenset(), frozenset(), None


_COMPLEX_TEXT = re.compile(r"\d[jJ]\b|complex|c8|c16|fft")

def _call_shape(row: Change) -> tuple[str, int | None, frozenset[str] | None, frozenset[str] | None, bool]:
    """What ``_may_match_ast_call`` needs of a call of the row's API that the text gate can read (``read_call``):
    more positional arguments than a count (its ``requires_positional``, or an ``argument-value`` row's position),
    one of some keywords passed by name, a first argument spelled so (``None``: the only value its ast test reads,
    for a row that is not about numbers), and, for a row about numbers, a first argument that may be a literal; None
    (False) where it needs nothing of the kind. For an instance row, these are of the instance's call."""
    first = None
    number_first = row.match == "argument-value" and row.position == 0 and "number" in row.values
    if row.match == "argument-value" and row.position == 0 and not number_first:
        first = frozenset({"None"}) & frozenset(row.values)
    more_than = row.requires_positional - 1 if row.requires_positional is not None else None
    if row.match == "argument-value" and row.position is not None:
        more_than = max(more_than if more_than is not None else -1, row.position)
    keywords = None
    if row.match == "keyword-value":
        keywords = frozenset(row.keywords)
    elif row.match == "keyword-present":
        keywords = frozenset({row.keyword})
    return row.api, more_than, keywords, first, number_first


def _may_call_so(facts, api: str, more_than: int | None, keywords: frozenset[str] | None,
                 first: frozenset[str] | None, number_first: bool, instance: bool) -> bool:
    """Whether the text may hold a call of ``api`` with the shape ``_call_shape`` asks for, all of it in one call (an
    over-estimate: the text gate's call reading answers "maybe" for any call it cannot read). A call there must be:
    the ast gate reads ``calls_to`` only. ``instance``: the shape is of the call of what ``api``'s call returns (the
    text after its parentheses), as the ast gate reads an instance row."""
    least = -1 if more_than is None else more_than

    def shaped(call) -> bool:
        return (call.positional > least and (first is None or call.first in first)
                and (not number_first or _may_be_a_literal(call.first))
                and (keywords is None or not call.keywords.isdisjoint(keywords))
                and not call.double_star)

    if instance:
        return facts.may_call_such(api, lambda call: call.positional >= 0 and (
            (outer := call_of_result(facts.source, call, facts.strings())) is None or shaped(outer)))
    return facts.may_call_such(api, shaped)


def _may_be_a_literal(first: str) -> bool:
    """Whether a first argument read from the text (``CallText.first``: blanks, comments and parentheses taken out)
    may be what ``_may_match_ast_call`` reads as a number: an ``ast.Constant`` or ``ast.UnaryOp``. One that starts
    with an ASCII letter or ``_`` and holds no quote is a name, an attribute, a call, a subscript or an operation of
    those, unless it is ``not ...`` (a ``UnaryOp``) or a constant's keyword (``None``, ``True``, ``False``)."""
    head = first[:1]
    if not (head.isascii() and (head.isalpha() or head == "_")) or "'" in first or '"' in first:
        return True
    return first.startswith(("not", "None", "True", "False"))


_TEXT_GATE = tuple((*_needed_text(row), names_by_last(frozenset({row.api})), (*_call_shape(row), row.instance_call))
                   for row in ROWS.values())


_VALUE_WORDS = {api: _value_words(row) for api, row in ROWS.items()}


def _last_word(node: ast.expr) -> str | None:
    if type(node) is ast.Attribute:
        return node.attr
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Constant:
        words = re.findall(r"\w+", str(node.value))
        return words[-1] if words else None
    return None


def _may_match_ast_call(row: Change, call: ast.Call) -> bool:
    """``matches`` on an ``ast`` call, over-approximated only in the values of keywords (their spelling is libcst's
    text): the keywords the row needs or excludes, the count of positional arguments, the literal. For an instance
    row, ``call`` is the instance's call (``nn.MultiHeadDotProductAttention(num_heads=8)(q, kv, mask)``'s outer one)."""
    keywords = {keyword.arg for keyword in call.keywords}
    if None in keywords or any(type(arg) is ast.Starred for arg in call.args):
        return False  # ``matches`` reports no call with ``*args`` or ``**kwargs``
    if row.requires_positional is not None and len(call.args) < row.requires_positional:
        return False
    if row.absent is not None and row.absent in keywords:
        return False
    if row.match == "keyword-absent":
        return row.keyword not in keywords
    if row.match == "keyword-present":
        return row.keyword in keywords
    if row.match == "keyword-value":
        return any(keyword.arg in row.keywords and _last_word(keyword.value) in _VALUE_WORDS[row.api]
                   for keyword in call.keywords)
    if row.match == "argument-value":
        if row.position is None or len(call.args) <= row.position:
            return False
        value = call.args[row.position]
        if "number" in row.values and type(value) in (ast.Constant, ast.UnaryOp):
            return True
        return type(value) is ast.Constant and value.value is None and "None" in row.values
    return True


# Calls that make an array of their one argument's elements (``jnp.array([1, 2])`` is as flat as ``[1, 2]``).
_ARRAY_MAKERS = frozenset({"array", "asarray"})


def _flat_literal(node: cst.BaseExpression) -> bool:
    """A list or tuple literal of scalars (numbers, names of scalars cannot be told apart: only numbers and strings),
    bare or inside ``<module>.array(...)``/``asarray(...)``: an array of one dimension."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _ARRAY_MAKERS \
            and node.args and node.args[0].keyword is None and not node.args[0].star:
        node = node.args[0].value
    if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements:
        return False
    return all(not isinstance(element, cst.StarredElement) and
               (_number(element.value) or isinstance(element.value, cst.SimpleString)) for element in node.elements)


def _number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def message(row: Change) -> str:
    return f"`{row.api}` changed in {row.release}: {row.what}; to keep the old behaviour, {row.keep_old}."
