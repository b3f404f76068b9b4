"""JAX105 changed-method-signature: a call of a JAX, jaxlib, flax or optax class's method or constructor that a
release inside the project's range changed (keyword removed, renamed or made positional-only, method removed,
parameter newly required, default value changed), read from every wheel (``rules/signatures_generated.toml``)."""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue.floors import range_withheld
from jaxlint.catalogue.ecosystem import library_may_reach
from jaxlint.catalogue.signatures import INIT, KEYWORD_CHANGES, OWN_RANGE, SignatureRow, class_rows, function_rows
from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, walk
from jaxlint.lint.ast_values import may_be_instance
from jaxlint.lint.code_map import line_start
from jaxlint.lint.diagnostics import WithheldFix
from jaxlint.lint.text_gate import NamesByLast, names_by_last
from jaxlint.project.versions import parse_version
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix
from jaxlint.analysis.signature_calls import omits, omitted_clause

# What the value inference follows to a JAX class besides the class itself (``instance_classes._RETURNS``): the
# callables whose results (or their results' results: ``jit(f).lower(x).compile()``) are instances of it.
_PRODUCED_BY = {
    "jax.stages.Wrapped": ("jax.jit",), "jax.stages.Traced": ("jax.jit",), "jax.stages.Lowered": ("jax.jit",),
    "jax.stages.Compiled": ("jax.jit",), "jax.export.Exported": ("jax.export.export", "jax.export.deserialize"),
    "jax.sharding.Mesh": ("jax.make_mesh",),
}
_PRODUCERS = frozenset(name for names in _PRODUCED_BY.values() for name in names)


def _members() -> dict[str, frozenset[str] | None]:
    """Method name -> the keywords its keyword rows name; None when a row fires without a keyword (a method
    removed, a parameter newly required, a default changed): the gates' over-approximation."""
    out: dict[str, frozenset[str] | None] = {}
    for members in class_rows().values():
        for member, rows in members.items():
            if member == INIT:
                continue
            for row in rows:
                if row.change in KEYWORD_CHANGES and out.get(member, frozenset()) is not None:
                    out[member] = out.get(member, frozenset()) | {row.parameter}
                else:
                    out[member] = None
    return out


_MEMBERS = _members()
_MEMBER_NAMES = frozenset(_MEMBERS)  # as a set: ``words & _MEMBER_NAMES`` walks the smaller of the two


def _member_rows_by_shape() -> dict[str, dict[object, SignatureRow]]:
    """Method name -> one row of each shape its rows take (``_shape_of``: the key), over every class with rows for
    it: the rows ``_ast_may_fire`` must try on a call of the method, and the shapes the text gate reads."""
    out: dict[str, dict[object, SignatureRow]] = {}
    for members in class_rows().values():
        for member, rows in members.items():
            if member != INIT:
                for row in rows:
                    out.setdefault(member, {}).setdefault(_shape_of(row), row)
    return out


def _member_owners() -> dict[str, frozenset[str]]:
    """Method name -> the names a file must refer to for a receiver of a class with rows for it to be known: the
    classes' public names and what produces their instances (the gates' test; ``tree_flatten`` on anything else
    is not even parsed)."""
    produced: dict[str, set[str]] = {}
    for cls, producers in _PRODUCED_BY.items():
        for member_rows in class_rows().get(cls, {}).values():
            produced.setdefault(member_rows[0].owner, set()).update(producers)
    out: dict[str, set[str]] = {}
    for name, members in class_rows().items():
        for member, rows in members.items():
            out.setdefault(member, set()).update({name, *produced.get(rows[0].owner, ())})
    return {member: frozenset(names) for member, names in out.items()}


_MEMBER_OWNERS = _member_owners()


def _called_names() -> frozenset[str]:
    """Every qualified name a call ``may_match_ast`` keeps for its callee may have: a function with rows, a class
    with constructor rows, and ``Class.method`` of a class with rows for the method (``__init__`` included)."""
    names = set(function_rows())
    for cls, members in class_rows().items():
        names.update(f"{cls}.{member}" for member in members)
        if INIT in members:
            names.add(cls)
    return frozenset(names)


def _rows_of_callee(name: str) -> list[SignatureRow]:
    """The rows ``may_match_ast`` tries for a call whose callee may be ``name``."""
    owner, _, method = name.rpartition(".")
    return function_rows().get(name, []) + class_rows().get(name, {}).get(INIT, []) + \
        class_rows().get(owner, {}).get(method, [])


# What a call must show for ``_ast_may_fire`` to keep it under a row, read from the text: a keyword passed by name
# (a keyword row), or at most so many positional arguments without the parameter passed by name (an omitted one).
CallShape = tuple[str, object]


def _shape_of(row: SignatureRow) -> CallShape | None:
    """The row's ``CallShape``; None where any call (or a mere reference) may fire it: a removed member, or an
    omitted parameter without a position."""
    if row.change in KEYWORD_CHANGES:
        return ("keyword", row.parameter)
    if row.change == "member-removed" or row.position is None or row.position < 0:
        return None
    return ("omits", (row.position, row.parameter))


# Read with ``_MEMBERS``, at import: the same rows (a test may swap the rows' files between two imports).
_MEMBER_ROWS_BY_SHAPE = _member_rows_by_shape()
_MEMBER_ROWS = {member: tuple(rows.values()) for member, rows in _MEMBER_ROWS_BY_SHAPE.items()}
# Method name -> the shapes a call of it must take to be kept; None when a row needs none (a removed method, an
# omitted parameter without a position): ``self.make_rng("dropout")`` passes the parameter whose default flax 0.8.2
# changed, and 61 files of code nobody tuned on call only that.
_MEMBER_SHAPES = {member: None if None in rows else tuple(rows) for member, rows in _MEMBER_ROWS_BY_SHAPE.items()}


def _root_only_imported(node: ast.expr, facts) -> bool:
    """Whether ``node`` is a name, or an attribute chain from one, that nothing but an import binds anywhere in the
    file (``AstFacts.bound``): ``jax.eval_shape(f, x)``, ``hk.eval_shape``. The visit's resolver qualifies such a
    callee (every binding of its root is an import), or its inference gives it no class: no method row reports it."""
    while type(node) is ast.Attribute:
        node = node.value
    return type(node) is ast.Name and node.id not in facts.bound


def _only_imported(facts, word: str) -> bool:
    """``_root_only_imported`` read from the text, as ``TextFacts.may_call_method``'s ``not_on``: every occurrence
    of ``word`` in code stands before a dot or on a line that starts with ``import``/``from`` (no assignment,
    parameter, definition or loop can bind it there); False where the strings cannot be read."""
    code = facts.masked_code()
    if code is None:
        return False
    for end, _ in facts.occurrences(word):
        start = end - len(word)
        if code[start:end] != word:
            continue  # in a string or a comment
        after = end
        while after < len(code) and code[after] in " \t":
            after += 1
        if code[after:after + 1] == ".":
            continue
        head = code[line_start(code, start):start]
        if head.split()[:1] not in (["import"], ["from"]) or ";" in head:  # ``import a; jax = b``: no import's
            return False
    return True


def _any_use(call) -> bool:
    """Any occurrence of a method that a row removed, called or not (the gates' reading before the shapes)."""
    return True


def _call_may_take(call, shapes: tuple[CallShape, ...]) -> bool:
    """Whether a method call read from the text (``text_gate.CallText``) may take one of ``shapes`` (``_ast_may_fire``
    on its ``ast``): pass a keyword, or omit a parameter (a ``lambda`` in it reads as arguments: a "maybe")."""
    if call.positional < 0:
        return False  # no call follows: ``visit_Call`` reports calls only
    for kind, value in shapes:
        if kind == "keyword" and value in call.keywords:
            return True
        if kind == "omits":
            position, parameter = value
            if call.lambdas or (call.positional <= position and parameter not in call.keywords
                                and not call.double_star):
                return True
    return False


def _shapes_of_callee(name: str) -> tuple[CallShape, ...] | None:
    """The shapes a call of ``name`` may take to be kept, one per row; None when one row needs no particular shape."""
    shapes = tuple(_shape_of(row) for row in _rows_of_callee(name))
    return None if not shapes or None in shapes else shapes


def _may_call_so(facts, name: str, shapes: tuple[CallShape, ...], words: set[str]) -> bool:
    """Whether the text may hold a call of ``name`` in one of ``shapes`` (``TextFacts`` reads each call; a call it
    cannot read is a "maybe")."""
    keywords = frozenset(value for kind, value in shapes if kind == "keyword")
    if not keywords.isdisjoint(words) and facts.may_call_with_keyword(name, keywords):
        return True
    return any(facts.may_call_with_at_most(name, position, frozenset({parameter}))
               for kind, (position, parameter) in ((k, v) for k, v in shapes if k == "omits"))


@dataclass(frozen=True)
class _TextGateTables:
    """The text gate's questions (``names_by_last``): the callees any call of which may be reported, those whose call
    must take a shape (by last name, with their shapes and components), and each method's owners."""

    called_by_last: NamesByLast
    shaped_callees: dict[str, list[tuple[str, tuple[CallShape, ...], frozenset[str]]]]
    owners_by_last: dict[str, NamesByLast]
    # ``shaped_callees`` indexed by each name's longest component (the rare one: ``ShapeDtypeStruct``, not
    # ``__init__`` or ``update``), and those keys as a set (``words & shaped_keys`` walks the smaller of the two)
    shaped_by_key: dict[str, list[tuple[str, tuple[CallShape, ...], frozenset[str]]]]
    shaped_keys: frozenset[str]


@functools.cache
def _text_gate_tables() -> _TextGateTables:
    """Built at the first text gate asked (6 ms: a run whose files never reach JAX105's gate, one file without JAX
    names, builds none)."""
    shapes_by_name = {name: _shapes_of_callee(name) for name in _called_names()}
    shaped: dict[str, list[tuple[str, tuple[CallShape, ...], frozenset[str]]]] = {}
    for name, shapes in shapes_by_name.items():
        if shapes is not None:
            shaped.setdefault(name.rpartition(".")[2], []).append((name, shapes, frozenset(name.split("."))))
    by_key: dict[str, list[tuple[str, tuple[CallShape, ...], frozenset[str]]]] = {}
    for callees in shaped.values():
        for callee in callees:
            by_key.setdefault(max(sorted(callee[2], reverse=True), key=len), []).append(callee)
    return _TextGateTables(
        names_by_last(frozenset(name for name, shapes in shapes_by_name.items() if shapes is None)), shaped,
        {member: names_by_last(owners) for member, owners in _MEMBER_OWNERS.items()}, by_key, frozenset(by_key))


def _may_call_a_callee(facts, words: set[str]) -> bool:
    """The text gate's half for calls of a callee with rows: one the file may refer to, called in the shape one of
    its rows needs where each needs one (``jax.ShapeDtypeStruct`` is referred to by 105 dev-corpus files and has
    rows for two removed keywords only; ``jax.lax.with_sharding_constraint``'s row needs its second argument
    omitted)."""
    tables = _text_gate_tables()
    if facts.refers_to_any(tables.called_by_last, words):
        return True
    for key in words & tables.shaped_keys:
        for name, shapes, parts in tables.shaped_by_key[key]:
            # a component the file never spells: no chain or import can build the name
            if parts <= words and _may_call_so(facts, name, shapes, words):
                return True
    return False


def _ast_may_fire(call: ast.Call, row: SignatureRow) -> bool:
    """Whether ``row`` may report ``call`` (whatever the version range): the keyword is passed, the member is
    called, or the parameter omitted."""
    if row.change in KEYWORD_CHANGES:
        return any(k.arg == row.parameter for k in call.keywords)
    return row.change == "member-removed" or _ast_omits(call, row)


def _ast_omits(call: ast.Call, row: SignatureRow) -> bool:
    """``signature_calls.omits`` on the ``ast`` of the call (the gate's over-approximation: no version range)."""
    if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    if any(k.arg == row.parameter for k in call.keywords):
        return False
    return row.position is None or row.position < 0 or len(call.args) <= row.position


class ChangedMethodSignature(Rule):
    code = "JAX105"
    name = "changed-method-signature"
    summary = ("a call of a JAX, jaxlib, flax or optax class's method or constructor whose signature changed in the "
               "project's range")
    since = "0.4.1"
    triggers = ("jax", "flax", "optax")
    ast_names = frozenset(class_rows()) | frozenset(function_rows()) | _PRODUCERS
    # Decided from ``ast`` (``findings_from_ast``) where a finding has no fix and a method call's receiver is
    # certainly of no class with a row that may report it.
    decides_from_ast = True
    explanation = """
## What it does
Reads the `[[signature]]` rows of `rules/signatures_generated.toml` (`tools/generate_catalogue.py
--only-signatures`: every public class of every jax wheel from 0.4.1, its constructor and its instance, class and
static methods and properties, read with `ast` through its bases and `**kwargs` that the body pops and rejects;
consecutive releases diffed; the same for every jaxlib wheel's `.py` modules, flax from 0.6.0 and optax from 0.1.0,
with constructors written as `__new__`, `functools.wraps` decorators, the fields of dataclasses, linen `Module`s,
`struct.PyTreeNode`s and `NamedTuple` states) and reports a call that one of them breaks or changes (and, for a function, the rows
JAX103's keyword rows do not have: a parameter newly required, a literal default changed):

- a keyword the method or constructor no longer takes (removed, renamed, made positional-only), from the release
  that rejects it;
- a method the class no longer has (`AttributeError`);
- a parameter the call omits and that became required (`TypeError`), or whose literal default changed (same call,
  another value: a notice), where the project's range `[min version, target]` crosses the change.

A method call counts only where the receiver's class is plain to see (`jaxlint.lint.instance_classes`): a name
bound only to the class's constructor or annotated with it, `jax.jit(f)` or a function decorated with `@jax.jit`
(`jax.stages.Wrapped`), its `.lower(...)` (`Lowered`) and that one's `.compile()` (`Compiled`),
`jax.export.export(f)(...)` and `jax.export.deserialize(...)` (`Exported`), `jax.make_mesh(...)` (`Mesh`). A
constructor call counts where its callee resolves to the class. Positional arguments beyond the parameter's
position, `*args` and `**kwargs` are taken to pass it.

A flax or optax row counts against the project's flax or optax pins (from the release it names up to the pinned
upper bound; with no lower bound pinned, the newest release: a newly required parameter is reported, a changed
default is not). Rows that JAX505, JAX507 or JAX509 report already (the same class's keyword, a `now-required`
method) are theirs. jaxlib's releases are numbered as jax's: its rows count against the JAX range.

## Why
A keyword or method that is gone fails with `TypeError` or `AttributeError`; a default that changed gives the same
call another result.

## Example
```python
import jax
lowered = jax.jit(f).lower(x)
text = lowered.as_text(dialect="hlo", debug_info=True)
```

## Fix safety
A renamed keyword is renamed where the new keyword exists at the project's min version (the rows say from which
release); otherwise `fix_withheld` says which release it needs. Every row is checked by execution
(`rules/signatures_confirmed.toml`): a row execution contradicts is not reported, and a rename is fixed only where
the new keyword was bound at the bottom of the fix's range and at the newest release, annotated as the old one was.
Nothing else is fixed.

## JAX version
Per row: the release that made the change (of jax, jaxlib, flax or optax).
"""

    VALID = [
        Valid("""
            import jax
            def run(f, x):
                compiled = jax.jit(f).lower(x).compile()
                return compiled(x)
        """, note="no argument that changed"),
        Valid("""
            import jax
            class Lowered:
                def compile(self, legacy=True):
                    return self
            lowered = Lowered()
            lowered.compile(legacy=False)
        """, note="a look-alike class of the project"),
        Valid("""
            import jax
            def run(lowered, x):
                return lowered.compile(x)
        """, note="an unannotated parameter: the class is not known"),
        Valid("""
            from flax import linen as nn
            cell = nn.LSTMCell(features=8)
            other = nn.LSTMCell(8)
        """, note="flax: the parameter required since 0.7.0 passed, by keyword or position"),
        Valid("""
            from flax import linen as nn
            class LSTMCell:
                pass
            cell = LSTMCell()
        """, note="flax: a look-alike class of the project"),
        Valid("""
            import optax
            state = optax.contrib.DoGState(is_init_step=True, init_params=p, max_dist=d, sum_dist_grad=g)
        """, note="optax: the new keywords"),
    ]

    INVALID = [
        Invalid("""
            import jax
            def hlo(f, x):
                compiled = jax.jit(f).lower(x).compile()
                return compiled.compiler_ir()
        """, note="a method removed in JAX 0.4.14, on jit(f).lower(x).compile()"),
        Invalid("""
            import jax
            import jax.numpy as jnp
            spec = jax.ShapeDtypeStruct((8,), jnp.float32, named_shape={"batch": 8})
        """, note="a constructor keyword removed in JAX 0.4.34"),
        Invalid("""
            from jax.experimental.layout import Format
            fmt = Format(device_local_layout=dll, sharding=sharding)
        """, fixed="""
            from jax.experimental.layout import Format
            fmt = Format(layout=dll, sharding=sharding)
        """, note="renamed in JAX 0.7.0, the new keyword there at the min version"),
        Invalid("""
            from jax.experimental.layout import Format
            fmt = Format(device_local_layout=dll, sharding=sharding)
        """, min_version="0.6.2", note="renamed, but the min version predates `layout=`: the fix is withheld"),
        Invalid("""
            from jax.experimental.pallas import tpu as pltpu
            params = pltpu.CompilerParams(dimension_semantics=("parallel",))
        """, min_version="0.8.0", note="a default changed in JAX 0.8.1 inside the range: a notice"),
        Invalid("""
            import jax
            mesh = jax.sharding.AbstractMesh(shape_tuple=(("x", 2),))
        """, note="a keyword of a constructor written as `__new__`, removed in JAX 0.5.3"),
        Invalid("""
            from flax import linen as nn
            cell = nn.LSTMCell()
        """, note="flax 0.7.0 made the linen field `features` required (a dataclass field read from the wheel)"),
        Invalid("""
            import optax
            state = optax.contrib.DoGState(first_step=True, init_params=p, estim_dist=d, sum_dist_grad=g)
        """, fixed="""
            import optax
            state = optax.contrib.DoGState(is_init_step=True, init_params=p, max_dist=d, sum_dist_grad=g)
        """, count=1, note="optax 0.2.6 renamed two fields of a NamedTuple state; no optax pin: the newest release"),
    ]

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        """``may_match_ast`` from the text: a method the file spells (with, for a keyword row, one of its keywords)
        whose owners it may refer to, or a callee with rows it may refer to. Both sound: an attribute's and a
        keyword's names are words of the text, and the text gate's ``refers_to_any`` keeps every name the ast
        gate's ``qualified_names`` can give. (The base gate, any of ``ast_names``, kept 751 of the dev corpus's
        files, for 35 that the ast gate keeps: every file of a flax ``Module`` refers to a class with rows.)"""
        only_imported = functools.cache(functools.partial(_only_imported, facts))  # each root read once a file
        for member in words & _MEMBER_NAMES:
            keywords = _MEMBERS[member]
            if (keywords is None or not keywords.isdisjoint(words)) \
                    and facts.refers_to_any(_text_gate_tables().owners_by_last[member], words):
                shapes = _MEMBER_SHAPES[member]
                if facts.may_call_method(member, _any_use if shapes is None else
                                         lambda call, shapes=shapes: _call_may_take(call, shapes),
                                         not_on=only_imported):
                    return True
        return _may_call_a_callee(facts, words)

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        if not super().may_match_ast(facts):
            return False
        whole = facts.file or facts
        for call in whole.calls:
            func = call.func
            if type(func) is ast.Attribute and func.attr in _MEMBERS and not _root_only_imported(func.value, whole):
                if any(_ast_may_fire(call, row) for row in _MEMBER_ROWS[func.attr]) \
                        and whole.refers_to_any(_MEMBER_OWNERS[func.attr]):
                    return True
            for name in whole.qualified_names(func) if type(func) in (ast.Name, ast.Attribute) else ():
                owner, _, method = name.rpartition(".")
                rows = function_rows().get(name, []) + class_rows().get(name, {}).get(INIT, []) + \
                    class_rows().get(owner, {}).get(method, [])
                if any(_ast_may_fire(call, row) for row in rows):
                    return True
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        qualified = self.qualified_name(func)
        if qualified is not None:
            if qualified in function_rows():
                self._check(node, function_rows()[qualified], self.code_for(func))
            members = class_rows().get(qualified)
            if members and INIT in members:
                self._check(node, members[INIT], self.code_for(func))
            owner, _, method = qualified.rpartition(".")
            if owner in class_rows() and method in class_rows()[owner]:  # ``Cls.classmethod(...)``
                self._check(node, class_rows()[owner][method], self.code_for(func))
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in _MEMBERS:
            return
        owner = self.context.inference.classes.instance_class(func.value)
        rows = class_rows().get(owner, {}).get(func.attr.value) if isinstance(owner, str) else None
        if rows:
            self._check(node, rows, f"{self.code_for(func)}", f" (`{owner}.{func.attr.value}`)")

    def _check(self, node: cst.Call, rows: list[SignatureRow], shown: str, owner: str = "") -> None:
        passed = {arg.keyword.value: arg for arg in node.args if arg.keyword is not None}
        outcome = self._outcome(rows, passed, lambda row: omits(node, row), shown, owner)
        if outcome is None:
            return
        message, rename, withheld = outcome
        if rename is not None:
            self.report(node, message, safe_fix(f"Rename `{rename.parameter}=` -> `{rename.replacement}=`",
                                                Replace(passed[rename.parameter].keyword, rename.replacement)))
        else:
            self.report(node, message, withheld=withheld)

    def _outcome(self, rows: list[SignatureRow], passed, omitted, shown: str, owner: str
                 ) -> tuple[str, SignatureRow | None, WithheldFix | None] | None:
        """The first row that reports the call (``passed``: the keywords it passes; ``omitted(row)``: whether it
        omits the row's parameter): the message, the row whose rename is the fix (or None), why a fix is withheld;
        None when no row reports it."""
        # a keyword the call passes first: a rename also shows as its new name newly required
        for row in sorted(rows, key=lambda r: r.change not in KEYWORD_CHANGES):
            changed = parse_version(row.changed_in)
            reached, low = self._range(row)
            if not reached:
                continue
            if row.change == "member-removed":
                return (f"`{shown}(...)`{owner}: the method was removed in {row.release} "
                        f"(`AttributeError` from there; last in {row.last_seen})."), None, None
            if row.change in KEYWORD_CHANGES and row.parameter in passed:
                return self._keyword(row, passed, shown, owner)
            crosses = row.change == "newly-required" if low is None else low < changed
            if row.change not in KEYWORD_CHANGES and crosses and omitted(row):
                return f"`{shown}(...)`{owner}: {omitted_clause(row)}.", None, None
        return None

    def _range(self, row: SignatureRow) -> tuple[bool, object]:
        """Whether the project's range reaches the row's release, and the range's floor: JAX's for jax and jaxlib
        (numbered as jax), the library's own pins for flax and optax: None where no floor is pinned, read as the
        JAX5xx rules read it, a project on the newest release (a call that omits a newly required parameter fails
        there; a changed default is no notice, nothing says an older release runs)."""
        if row.library in OWN_RANGE:
            return library_may_reach(self.settings, row.library, row.changed_in), \
                self.settings.library_range(row.library)[0]
        return parse_version(row.changed_in) <= self.settings.target_version, self.settings.min_version

    def _keyword(self, row: SignatureRow, passed, shown: str, owner: str
                 ) -> tuple[str, SignatureRow | None, WithheldFix | None]:
        head = f"`{shown}({row.parameter}=...)`{owner}: "
        if row.change == "positional-only":
            return head + (f"the parameter is positional-only from {row.release}; pass it "
                           "positionally."), None, None
        if row.change != "renamed" and row.replacement:
            return head + (f"the keyword was removed in {row.release} (`TypeError` from there); "
                           f"that release took `{row.replacement}=` in its place, which is no plain "
                           "rename (other values or meaning): port the argument by hand."), None, None
        if row.change != "renamed":
            return head + (f"the keyword was removed in {row.release} (`TypeError` from there); "
                           "no replacement keyword is known."), None, None
        label = "JAX" if row.library == "jax" else row.library
        message = head + (f"{row.release} renamed the keyword to `{row.replacement}=` (`TypeError` from "
                          f"there; `{row.replacement}=` exists from {label} {row.replacement_since}).")
        if row.replacement in passed:
            return message, None, None
        if row.library in OWN_RANGE:
            # the library's own floor; none pinned: the newest release, as JAX507 reads it
            low = self.settings.library_range(row.library)[0]
            return message, (row if low is None or low >= parse_version(row.replacement_since) else None), None
        if self.settings.min_version >= parse_version(row.replacement_since):
            return message, row, None
        return message, None, range_withheld(f"`{row.replacement}=`", row.replacement_since, self.settings)

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) -------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` reports, from the ``ast`` tree: a call of a function, constructor or class method the
        rows name (its callee's qualified name; ``Undecidable`` where a rename is the fix), and a method call whose
        receiver ``ast_values.may_be_instance`` finds of no class with a row that may report it (otherwise
        ``Undecidable``: libcst's inference decides)."""
        rule = view.rule(cls)
        found = []
        for node in walk(view, (ast.Call,)):
            func = node.func
            qualified = _ast_qualified(view, func)
            if qualified is not None:
                shown = view.text(func)
                if qualified in function_rows():
                    found += rule._check_ast(node, function_rows()[qualified], shown)
                members = class_rows().get(qualified)
                if members and INIT in members:
                    found += rule._check_ast(node, members[INIT], shown)
                owner, _, method = qualified.rpartition(".")
                if owner in class_rows() and method in class_rows()[owner]:
                    found += rule._check_ast(node, class_rows()[owner][method], shown)
                continue
            if type(func) is not ast.Attribute or func.attr not in _MEMBERS:
                continue
            classes = [owner for owner, members in class_rows().items()
                       if func.attr in members and rule._ast_outcome(node, members[func.attr], "") is not None]
            if may_be_instance(view, func.value, classes):
                raise Undecidable("a method call whose receiver may be of a class with a row for it")
        return found

    def _ast_outcome(self, node: ast.Call, rows: list[SignatureRow], shown: str):
        """``_outcome`` for an ``ast`` call."""
        passed = {kw.arg for kw in node.keywords if kw.arg is not None}
        return self._outcome(rows, passed, lambda row: _ast_omits(node, row), shown, "")

    def _check_ast(self, node: ast.Call, rows: list[SignatureRow], shown: str) -> list[AstFinding]:
        """``_check`` for an ``ast`` call: its finding (``Undecidable`` where a rename is its fix)."""
        outcome = self._ast_outcome(node, rows, shown)
        if outcome is None:
            return []
        message, rename, withheld = outcome
        if rename is not None:
            raise Undecidable("a renamed keyword: the fix needs libcst")
        return [AstFinding(self.code, node, message, withheld=withheld)]


def _relevant(qualified: str) -> bool:
    """Whether a callee named ``qualified`` has rows (``visit_Call``'s first branch may report it)."""
    owner, _, method = qualified.rpartition(".")
    return qualified in function_rows() or INIT in class_rows().get(qualified, {}) or \
        method in class_rows().get(owner, {})


def _ast_qualified(view: AstView, func: ast.expr) -> str | None:
    """The resolver's name for a callee where it may have rows; None where it has none, or where the resolver
    gives none: a callee whose root is never imported (no row names a builtin)."""
    return view.imported_name(func, _relevant)
