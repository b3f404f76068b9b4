"""JAX207 changed-return-type: a use of a member that an API's old result had and its new result lacks, or has with
another meaning, where the project's range crosses the change (``rules/return_types.toml``)."""
from __future__ import annotations

import ast
import bisect
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.result_chains import ResultChains, may_form, producers, word_sets_forming
from jaxlint.catalogue.return_types import INDEX, KEY, ReturnType, return_types
from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, walk
from jaxlint.lint.ast_gate import parse_module
from jaxlint.lint.prefilter import Scan
from jaxlint.lint.text_gate import BARE
from jaxlint.project.settings import Settings
from jaxlint.project.versions import parse_version
from jaxlint.rules.base import Invalid, Rule, Valid

ROWS: dict[str, ReturnType] = return_types()
_TYPE_NAMES = frozenset({"__name__", "__qualname__"})
_ITERATED_KINDS = (ast.Name, ast.Call, ast.Attribute, ast.Subscript)


def crossed(row: ReturnType, settings: Settings) -> bool:
    """JAX's ``(min, target]`` holds a JAX row's release; for a flax or optax row, the project's pins of that library
    hold no lower bound at or above it and no upper bound at or below it (unpinned: it may run either side, as
    JAX508 reads flax's pins)."""
    changed = parse_version(row.changed_in)
    if row.library == "jax":
        return settings.min_version < changed <= settings.target_version
    lower, upper = settings.library_range(row.library)
    return (lower is None or lower < changed) and (upper is None or upper > changed)


def _rows_table() -> str:
    lines = ["| API | changed in | old result | new result | missing or different | drop-in |", "|---|---|---|---|---|---|"]
    for row in ROWS.values():
        members = ", ".join(f"`{m}`" for m in (*row.missing, *row.differs))
        lines.append(f"| `{row.api}` | {row.library} {row.changed_in} | `{row.old_type}` | `{row.new_type}` | "
                     f"{members} | {f'`{row.drop_in}`' if row.drop_in else '-'} |")
    return "\n".join(lines)


class ChangedReturnType(Rule):
    code = "JAX207"
    name = "changed-return-type"
    summary = "a member of an API's old result that its new result lacks or means otherwise, in the project's range"
    since = "0.4.1"  # per row: JAX's range for a JAX row, the library's pins for a flax or optax row
    # the last name of the API, or of the producers of a ``Class[key]`` row (``state`` of ``nnx.state``)
    triggers = ()
    ast_names = frozenset(name for row in ROWS.values() for name in producers(row.api))
    # A row's last name (or its producers'), with the root of a name the gates ask the file to refer to (an import
    # spells it): ``init`` and ``state`` alone are words of nearly every file.
    required_words = frozenset(
        frozenset({root, word})
        for root in {name.partition(".")[0] for name in ast_names}
        for word in {row.api.rstrip("()").rpartition(".")[2] for row in ROWS.values() if "[" not in row.api}
        | {name.rpartition(".")[2] for row in ROWS.values() if "[" in row.api for name in producers(row.api)})
    decides_from_ast = True
    explanation = f"""
## What it does
Reads the `[[return_type]]` rows of `rules/return_types.toml` (`tools/generate_return_types.py`: each row's example
run in a venv on each side of the change; the members are the difference of the two results' `dir()`, indexing,
mapping and iteration) and reports, on the result of such an API where the project's range crosses the change:

- an attribute or method the old result had and the new one lacks (`AttributeError`);
- a subscript by position (`r[0]`, `[index]`) or by key (`r["flops"]`, `r[("kernel",)]`, `[key]`) that the old
  result took and the new one does not;
- a `for` loop or comprehension over it, where iterating gives other items (`iteration`);
- `type(r).__name__` or `r.__class__.__name__`, where the class's name changed (`type-name`).

The result is followed through a name whose every binding in its scope is a plain assignment of it (`flat =
nnx.state(model).flat_state()`), and a method's receiver through the value inference: `jax.jit(f).lower(x).compile()`
is a `jax.stages.Compiled`, `nnx.state(model)` an `nnx.State`. A row `Class[key]` is about a subscript by a literal
key: `nnx.state(model)["kernel"]`, by one of the keys under which nnx's own layers hold a variable (`kernel`, `bias`,
`scale`, `embedding`, `mean`, `var`, read from the wheels): another key may be a nested `State`, whose class did not
change. The range is JAX's `[min version, target]` for a JAX
row, the project's own flax or optax pins for theirs (an unpinned library may be on either side: reported,
as JAX508 does).

{_rows_table()}

## Why
The code still imports and calls the API; what it gets back has another type, and the first use of the old type's
member fails (`KeyError: 0`, `AttributeError: 'FlatState' object has no attribute 'keys'`) or silently gives
something else (`type(state).__name__ == 'MultiTransformState'` becomes False).

## Example
```python
import jax
compiled = jax.jit(f).lower(x).compile()
flops = compiled.cost_analysis()[0]["flops"]
```

## Fix safety
No fix. The message names the drop-in where one spelling works on both sides (`dict(flat_state)`,
`isinstance(state, optax.MultiTransformState)`), and otherwise what to do.

## Library version
Per row: the release that changed the result, measured in the wheels and by execution on both sides.
"""

    VALID = [
        Valid("""
            import jax
            compiled = jax.jit(f).lower(x).compile()
            flops = compiled.cost_analysis()["flops"]
        """, min_version="0.5.0", note="new-API code on a range that starts at the change"),
        Valid("""
            import jax
            compiled = jax.jit(f).lower(x).compile()
            costs = compiled.cost_analysis()
            costs = costs[0] if isinstance(costs, list) else costs
            flops = costs["flops"]
        """, min_version="0.4.20", note="a name bound to two different values: not followed"),
        Valid("""
            import jax
            def flops(compiled):
                return compiled.cost_analysis()[0]["flops"]
        """, min_version="0.4.20", note="a parameter: the class is not known"),
        Valid("""
            from flax import nnx
            class Model:
                def flat_state(self):
                    return {}
            print(Model().flat_state().keys())
        """, note="the project's own flat_state"),
        Valid("""
            from flax import nnx
            flat = dict(nnx.state(model).flat_state())
            print(flat.keys())
        """, note="the drop-in"),
        Valid("""
            from flax import nnx
            shape = nnx.state(model)["kernel"].value.shape
            name = type(nnx.state(model)["encoder"]).__name__
        """, note="a variable read through `.value`; a key that is no variable of nnx's layers (a nested State)"),
        Valid("""
            import optax
            state = optax.adam(1e-3).init(params)
            print(type(state).__name__ == "MultiTransformState")
        """, note="another transformation's state"),
    ]

    INVALID = [
        Invalid("""
            import jax
            compiled = jax.jit(f).lower(x).compile()
            flops = compiled.cost_analysis()[0]["flops"]
        """, min_version="0.4.20", note="a subscript by position of a JAX result"),
        Invalid("""
            import jax
            costs = jax.jit(f).lower(x).compile().cost_analysis()
            for cost in costs:
                print(cost["flops"])
        """, min_version="0.4.20", note="iteration, through a name"),
        Invalid("""
            from flax import nnx
            flat = nnx.state(model).flat_state()
            print(sorted(flat.keys()))
        """, note="a dict method on a flax result, flax unpinned"),
        Invalid("""
            from flax import nnx
            kernel = nnx.state(model).flat_state()[("kernel",)]
        """, note="a subscript by key"),
        Invalid("""
            from flax import nnx
            leaf = nnx.state(model)["kernel"]
            print(type(leaf).__name__)
        """, note="a variable of a State: a `VariableState` up to flax 0.10.7, the `Param` itself from 0.11.0"),
        Invalid("""
            import optax
            tx = optax.multi_transform(transforms, labels)
            state = tx.init(params)
            print(type(state).__name__ == "MultiTransformState")
        """, note="the class's name changed"),
    ]

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        """Also: the file spells what some row's chain is made of (``may_form``): ``jax.jit`` alone, in a file that
        never says ``cost_analysis``, cannot reach ``jax.stages.Compiled.cost_analysis()``."""
        # the words first (a few subset tests; the names' test reads the text): 9 in 10 files of the dev corpus that
        # refer to ``jax.jit`` spell no chain's words
        # a use is an attribute (``.to_variable``, ``.__name__``): one spelled only as a name (``if __name__ ==``)
        # is none; in the NFKC words of a text that is not ASCII, any spelling is a "maybe"
        if not _may_form_a_use(words, lambda word: _after_a_dot(facts, word)) \
                and not _may_form_a_use(_spelled_beyond_words(facts.source, words)):
            return False
        return super().may_match_text(facts, words)

    # -- libcst: the ast findings, placed on the libcst nodes at the same spans ----------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._targets: dict[tuple[int, int, type], str] = {}
        self._spans = None
        source = self.context.source
        # ``AstView`` refuses ``\r`` (``ast`` ends a line there, libcst not): read CRLF lines as LF, place back
        text = source.replace("\r\n", "\n")
        if "\r" in text:
            return
        tree = parse_module(text)  # the gate's tree when it parsed this text; warnings silenced as there
        if tree is None:
            return
        try:
            view = AstView(text, tree, self.context.file_text, settings=self.settings, path=self.context.path)
        except Undecidable:
            return
        place = _offsets_back(text, source)
        # ast node kinds a finding sits on, and the libcst node kind at the same place
        cst_kind = {ast.Attribute: cst.Attribute, ast.Subscript: cst.Subscript, ast.Call: cst.Call, ast.Name: cst.Name}
        for node_, message in _findings(view):
            key = (place(view.offset_of(node_)), place(view.offset_of(node_, end=True)), cst_kind[type(node_)])
            self._targets[key] = message
        if self._targets:
            from jaxlint.lint.positions import node_spans  # libcst's code generator

            self._spans = node_spans(node, source)

    def _place(self, node: cst.CSTNode) -> None:
        if not self._targets:
            return
        from jaxlint.lint.positions import SpanError

        try:
            start, end = self._spans[node]
        except (KeyError, SpanError):
            return
        message = self._targets.get((start, end, type(node)))
        if message is not None:
            self.report(node, message)

    visit_Attribute = visit_Subscript = visit_Call = visit_Name = _place

    # -- ast ---------------------------------------------------------------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        return [AstFinding(cls.code, node, message) for node, message in _findings(view)]


def _findings(view: AstView) -> list[tuple[ast.AST, str]]:
    rows = [row for row in ROWS.values() if crossed(row, view.settings)]
    if rows:  # only the rows whose chain the file can make: most files that call ``jax.jit`` make none
        spelled = _spelled(view.source, Scan(view.source).words).__contains__
        rows = [row for row in rows if may_form(row.api, spelled)]
    if not rows:
        return []
    by_chain = {row.api: row for row in rows}
    subscripts = {row.api.partition("[")[0]: frozenset(row.keys) for row in rows if row.keys}
    chains = ResultChains(view, subscripts)
    found = []

    def row_of(node: ast.AST) -> ReturnType | None:
        chain = chains.chain(node)
        return by_chain.get(chain) if chain is not None else None

    # what any crossed row may report: the cheap tests first, the chains only for those nodes
    attributes = frozenset().union(*(row.attributes for row in rows))
    facets = frozenset(m for row in rows for m in row.missing if m in (INDEX, KEY))
    iteration = any("iteration" in row.differs for row in rows)
    type_names = any("type-name" in row.differs for row in rows)
    for node in walk(view, (ast.Attribute, ast.Subscript, ast.For, ast.AsyncFor, ast.comprehension)):
        kind = type(node)
        if kind is ast.Attribute:
            if node.attr in attributes:
                row = row_of(node.value)
                if row is not None and node.attr in row.attributes:
                    found.append((node, _message(row, f"it has no `.{node.attr}` (`AttributeError`)")))
            elif type_names and node.attr in _TYPE_NAMES:
                owner = _type_of(view, node.value)
                row = row_of(owner) if owner is not None else None
                if row is not None and "type-name" in row.differs:
                    found.append((node, _message(row, f"its class's `{node.attr}` is `'{row.new_name}'` there, "
                                                      f"not `'{row.old_name}'`")))
        elif kind is ast.Subscript:
            facet = _subscript_facet(node.slice)
            row = row_of(node.value) if facet in facets else None
            if row is not None and facet in row.missing:
                how = "by position" if facet == INDEX else "by key"
                found.append((node, _message(row, f"it takes no subscript {how} (`[{view.text(node.slice)}]`)")))
        elif iteration and type(node.iter) in _ITERATED_KINDS:
            row = row_of(node.iter)
            if row is not None and "iteration" in row.differs:
                found.append((node.iter, _message(row, f"iterating it gives {_items(row.new_iterates)} there, not "
                                                       f"{_items(row.old_iterates)}")))
    return found


def _use_words(row: ReturnType) -> frozenset[str] | None:
    """The words one of the row's uses that ``_findings`` reports must spell: a member it lacks now, or
    ``__name__``/``__qualname__`` for its class's name; None where one needs no word (a subscript, iteration)."""
    if "iteration" in row.differs or any(member in (INDEX, KEY) for member in row.missing):
        return None
    return frozenset(row.attributes) | (_TYPE_NAMES if "type-name" in row.differs else frozenset())


@lru_cache(maxsize=1)
def _forming_and_use_words() -> tuple[tuple[frozenset[str], frozenset[str] | None], ...]:
    """For each row, each word set its chain may be formed from (``word_sets_forming``) with its ``_use_words``:
    ``nnx.state(model)`` in a file that never spells ``to_variable`` or ``__name__`` makes no finding of
    ``nnx.State[key]`` (18 files of code nobody tuned on form that chain and use it otherwise)."""
    return tuple(dict.fromkeys((required, _use_words(row)) for row in ROWS.values()
                               for required in word_sets_forming(row.api)))


def _may_form_a_use(spelled: set[str], attribute=None) -> bool:
    """Whether a text whose identifiers spell ``spelled`` may form some row's chain and use it as the row reports
    (``attribute``: whether a spelled word may stand as an attribute; every one may, without it)."""
    return any(required <= spelled and (uses is None or any(
        word in spelled and (attribute is None or attribute(word)) for word in uses))
        for required, uses in _forming_and_use_words())


def _after_a_dot(facts, word: str) -> bool:
    """Whether an occurrence of ``word`` may stand after a dot (an attribute: ``ast.Attribute.attr``)."""
    return any(context != BARE for _, context in facts.occurrences(word))


def _spelled_beyond_words(source: str, words: set[str]) -> set[str]:
    """``_spelled``, or no words for a text whose NFKC form is itself (most texts that are not ASCII: a dash or an
    accented letter already composed): ``_spelled`` is then ``words``, which the caller has already tried."""
    if source.isascii() or unicodedata.is_normalized("NFKC", source):
        return set()
    return _spelled(source, words)


def _spelled(source: str, words: set[str]) -> set[str]:
    """The words ``source``'s identifiers may spell: its ASCII words (``words``), and for a non-ASCII text those of its
    NFKC form too (``ast`` reads a fullwidth letter of an identifier as the ASCII one; an identifier only touches
    ASCII code, which NFKC keeps as it is, so it normalizes in the text as on its own)."""
    if source.isascii():
        return words
    return words | Scan(unicodedata.normalize("NFKC", source)).words


def _offsets_back(text: str, source: str):
    """Offset in ``text`` (``source`` with CRLF read as LF) -> offset in ``source``."""
    if text == source:
        return lambda offset: offset
    starts_text = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    starts_source = [0] + [i + 1 for i, c in enumerate(source) if c == "\n"]

    def back(offset: int) -> int:
        line = bisect.bisect_right(starts_text, offset) - 1
        return starts_source[line] + offset - starts_text[line]
    return back


def _type_of(view: AstView, node: ast.AST) -> ast.AST | None:
    """``x`` of ``type(x)`` (the builtin) or ``x.__class__``."""
    if type(node) is ast.Attribute and node.attr == "__class__":
        return node.value
    if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "type" and len(node.args) == 1 \
            and not node.keywords and not view.may_import("type") and not view.bound_in_file("type"):
        return node.args[0]
    return None


def _subscript_facet(index: ast.AST) -> str | None:
    """``[index]`` for a literal integer, ``[key]`` for a literal string or tuple of literals, else None."""
    if type(index) is ast.UnaryOp and type(index.op) is ast.USub:
        index = index.operand
    if type(index) is ast.Constant:
        if type(index.value) is int:
            return INDEX
        if type(index.value) is str:
            return KEY
    if type(index) is ast.Tuple and index.elts and all(type(e) is ast.Constant for e in index.elts):
        return KEY
    return None


def _items(iterates: str) -> str:
    return "its keys" if iterates == "keys" else f"`{iterates}` items"


def _message(row: ReturnType, what: str) -> str:
    release = f"{'JAX' if row.library == 'jax' else row.library} {row.changed_in}"
    return (f"`{row.api}` returns a `{row.new_name}` from {release} (a `{row.old_name}` up to {row.last_old}): "
            f"{what}. {row.advice[0].upper()}{row.advice[1:]}.")
