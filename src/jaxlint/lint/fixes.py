"""From node-level fix descriptions to text edits, and applying text edits to a source."""
from __future__ import annotations

import bisect
import io
import tokenize
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.diagnostics import Edit, Fix, LineIndex
from jaxlint.rules.base import DeleteStatement, FixSpec, InsertAfter, InsertAfterLine, InsertBefore, Replace


class EditBuilder:
    """Turns ``Replace``/``InsertBefore``/``InsertAfter``/``DeleteStatement`` into offset-based ``Edit``s."""

    def __init__(self, source: str, index: LineIndex, spans: Mapping[cst.CSTNode, tuple[int, int]]) -> None:
        self.source = source
        self.index = index
        # node -> (start, end) character offsets: ``jaxlint.lint.positions.StatementSpans`` or ``node_spans``.
        self.spans = spans

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        return self.spans[node]

    def build(self, spec: FixSpec, ancestors: Sequence[cst.CSTNode]) -> Fix:
        edits: list[Edit] = []
        for node_edit in spec.edits:
            if isinstance(node_edit, Replace):
                start, end = self.span(node_edit.node)
                edits.append(Edit(start, end, node_edit.content))
            elif isinstance(node_edit, InsertBefore):
                start, _ = self.span(node_edit.node)
                edits.append(Edit(start, start, node_edit.content))
            elif isinstance(node_edit, InsertAfter):
                _, end = self.span(node_edit.node)
                edits.append(Edit(end, end, node_edit.content))
            elif isinstance(node_edit, InsertAfterLine):
                edits.append(self._insert_after_line(node_edit))
            elif isinstance(node_edit, DeleteStatement):
                edits.append(self._delete_statement(node_edit.node, ancestors))
            else:  # pragma: no cover - a programming error in a rule
                raise TypeError(f"unknown edit {node_edit!r}")
        edits += self._realign_continuations(edits, ancestors)
        probe = self.span(spec.probe) if spec.probe is not None else None
        located = [Edit(e.start, e.end, e.content, self.index.location(e.start), self.index.location(e.end))
                   for e in sorted(edits, key=lambda e: (e.start, e.end))]
        return Fix(spec.applicability, spec.message, tuple(located), probe)

    def _realign_continuations(self, edits: Sequence[Edit], ancestors: Sequence[cst.CSTNode]) -> list[Edit]:
        """``realign_continuations`` within the statement the edits are in."""
        if not _shifts(self.source, self.index, edits):
            return []  # no region to look for
        return realign_continuations(self.source, self.index, edits, self._statement_region(ancestors))

    def _statement_region(self, ancestors: Sequence[cst.CSTNode]) -> tuple[int, int] | None:
        """The text of the statement the edits are in: a simple statement line, or a compound statement's header."""
        for node in reversed(ancestors):
            if isinstance(node, cst.SimpleStatementLine):
                return self.span(node)
            if isinstance(node, cst.BaseCompoundStatement):
                body = getattr(node, "body", None)
                if not isinstance(body, cst.BaseSuite):
                    return None
                return self.span(node)[0], self.span(body)[0]
        return None

    def _insert_after_line(self, edit: InsertAfterLine) -> Edit:
        _, end = self.span(edit.node)
        row = self.index.location(end).row
        if row < len(self.index.starts):
            start = self.index.starts[row]
            return Edit(start, start, edit.content)
        # the node ends on the last line, which has no newline: the content starts one
        newline = "\r\n" if "\r\n" in self.source else "\n"
        return Edit(len(self.source), len(self.source), newline + edit.content.rstrip("\r\n"))

    def _delete_statement(self, statement: cst.CSTNode, ancestors: Sequence[cst.CSTNode]) -> Edit:
        line_index = _last_index(ancestors, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
        line = ancestors[line_index]
        siblings = list(line.body)
        position = next(i for i, s in enumerate(siblings) if s is statement)
        if len(siblings) > 1:
            # ``a; b; c``: drop the statement and one separator, keep the rest of the line as written.
            if position < len(siblings) - 1:
                start, _ = self.span(statement)
                next_start, _ = self.span(siblings[position + 1])
                return Edit(start, next_start, "")
            _, previous_end = self.span(siblings[position - 1])
            _, end = self.span(statement)
            return Edit(previous_end, end, "")
        block = ancestors[line_index - 1]
        statement_start, statement_end = self.span(statement)
        if isinstance(line, cst.SimpleStatementSuite) or (
            isinstance(block, cst.IndentedBlock) and len(block.body) == 1
        ):
            # The only statement of a block: the block must keep a body.
            return Edit(statement_start, statement_end, "pass")
        # A statement alone on its lines: remove the whole lines, including the trailing comment and newline.
        line_start, line_end = self.span(line)
        start = self.index.starts[self.index.location(line_start).row - 1]
        end_row = self.index.location(line_end).row
        end = self.index.starts[end_row] if end_row < len(self.index.starts) else len(self.source)
        if self.source[start:line_start].strip():  # something else precedes it on the line: be conservative
            return Edit(statement_start, statement_end, "pass")
        return Edit(start, end, "")


def _shifts(source: str, index: LineIndex, edits: Sequence[Edit]) -> dict[int, list[tuple[int, int]]]:
    """row -> [(0-based column of an edit, its length change)], for the edits within one line that change it."""
    shifts: dict[int, list[tuple[int, int]]] = {}
    for edit in edits:
        old = source[edit.start:edit.end]
        delta = len(edit.content) - len(old)
        if delta and "\n" not in old and "\n" not in edit.content:
            where = index.location(edit.start)
            shifts.setdefault(where.row, []).append((where.column - 1, delta))
    return shifts


def realign_continuations(source: str, index: LineIndex, edits: Sequence[Edit],
                          region: tuple[int, int] | None) -> list[Edit]:
    """Keep continuation lines aligned when an edit changes the length of a line before what they align to:
    ``pjit(f, in_axis_resources=(a,`` then ``b)`` under the ``a``: renamed to ``in_shardings=``, the ``b``
    moves left with it. A line inside brackets follows its innermost open bracket (pycodestyle's model): one
    with text after it on its line aligns the lines below to it, and they move as the bracket moved (its
    line's own move, plus the edits before it); one that ends its line gives them a hanging indent, which moves
    only as the bracket's line moved. Only within ``region`` (the statement: offsets of its start and end, None
    for none), and never where tabs indent."""
    shifts = _shifts(source, index, edits)
    if region is None or not shifts:
        return []
    first_row, last_row = index.location(region[0]).row, index.location(region[1]).row
    if not any(first_row <= row < last_row for row in shifts):
        return []  # the common case: the edits are on the statement's last line (or outside it)
    text = source[index.starts[first_row - 1]:region[1]]
    if "\t" in text:
        return []
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text.lstrip(" ")).readline)
                  if t.type not in (tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return []
    offset = len(text) - len(text.lstrip(" "))  # the first line's indentation, stripped for the tokenizer
    moved: list[Edit] = []
    lead: dict[int, int] = {first_row: 0}  # row -> how far its indentation moved
    brackets: list[tuple[int, int, bool]] = []  # open: (row, column, ends its line)
    previous_end = 1  # the (tokenizer's) row where the previous token ended
    for position, token in enumerate(tokens):
        row = token.start[0] + first_row - 1
        column = token.start[1] + (offset if token.start[0] == 1 else 0)
        starts_line = token.start[0] > previous_end  # not after a string that spans lines
        previous_end = token.end[0]
        if starts_line and token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER):
            move = 0
            if brackets:
                bracket_row, bracket_column, hanging = brackets[-1]
                move = lead.get(bracket_row, 0)
                if not hanging and column > bracket_column:
                    move += sum(delta for at, delta in shifts.get(bracket_row, ()) if at < bracket_column)
            if move and column + move > 0:
                start = index.starts[row - 1]
                moved.append(Edit(start, start + column, " " * (column + move)))
            lead[row] = move if column + move > 0 else 0
        if token.type == tokenize.OP and token.string in "([{":
            following = next((t for t in tokens[position + 1:position + 3] if t.type != tokenize.COMMENT), None)
            ends_line = following is None or following.type in (tokenize.NL, tokenize.NEWLINE)
            brackets.append((row, column, ends_line))
        elif token.type == tokenize.OP and token.string in ")]}" and brackets:
            brackets.pop()
    return moved


def _last_index(nodes: Sequence[cst.CSTNode], types: tuple[type, ...]) -> int:
    for i in range(len(nodes) - 1, -1, -1):
        if isinstance(nodes[i], types):
            return i
    raise ValueError("statement outside a statement line")


def edits_overlap(a: Iterable[Edit], b: Iterable[Edit]) -> bool:
    """Edits conflict when their ranges intersect, or when both touch the same point."""
    for x in a:
        for y in b:
            if x.start < y.end and y.start < x.end:
                return True
            if x.start == y.start or x.end == y.end or x.start == y.end or y.start == x.end:
                return True
    return False


def apply_edits(source: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (any order given)."""
    pieces: list[str] = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < cursor:
            raise ValueError("overlapping edits")
        pieces.append(source[cursor:edit.start])
        pieces.append(edit.content)
        cursor = edit.end
    pieces.append(source[cursor:])
    return "".join(pieces)


def map_offset(offset: int, edits: Sequence[Edit], *, inclusive_end: bool) -> int:
    """Where ``offset`` of the old text lands in the new text after ``edits``.

    An edit touching the offset counts as inside the span being mapped: a span's start moves before text inserted
    at it (``list(`` goes inside), a span's end after text inserted at it (the closing ``)`` goes inside).
    """
    shift = 0
    for edit in edits:
        delta = len(edit.content) - (edit.end - edit.start)
        if inclusive_end:
            if edit.end <= offset or (edit.start == edit.end == offset):
                shift += delta
            elif edit.start < offset < edit.end:
                shift += edit.start + len(edit.content) - offset
        else:
            if edit.end <= offset and not (edit.start == edit.end == offset):
                shift += delta
            elif edit.start < offset < edit.end:
                shift += edit.start - offset
    return offset + shift


def map_span(span: tuple[int, int], edits: Sequence[Edit]) -> tuple[int, int]:
    return map_offset(span[0], edits, inclusive_end=False), map_offset(span[1], edits, inclusive_end=True)


def invert_edits(edits: Sequence[Edit], old_source: str) -> list[Edit]:
    """Edits that turn the new text back into the old one (for mapping positions back to the original)."""
    inverted: list[Edit] = []
    shift = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        new_start = edit.start + shift
        inverted.append(Edit(new_start, new_start + len(edit.content), old_source[edit.start:edit.end]))
        shift += len(edit.content) - (edit.end - edit.start)
    return inverted


class TakenEdits:
    """The edits chosen so far, for ``--fix`` files with thousands of fixes: ``edits_overlap`` against all of them
    is one bisection instead of a pass over every one.

    Two edits conflict exactly when their closed ranges ``[start, end]`` share a point (``edits_overlap``), so the
    chosen edits are kept as the union of their closed ranges: disjoint intervals, sorted, ends strictly increasing.
    """

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def overlaps(self, edits: Iterable[Edit]) -> bool:
        return any(self._touches(edit.start, edit.end) for edit in edits)

    def _touches(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self._ends, start)  # the first interval that does not end before ``start``
        return i < len(self._starts) and self._starts[i] <= end

    def add(self, edits: Iterable[Edit]) -> None:
        for edit in edits:
            start, end = edit.start, edit.end
            first = bisect.bisect_left(self._ends, start)
            last = bisect.bisect_right(self._starts, end)  # intervals first..last-1 touch [start, end]
            if first < last:
                start, end = min(start, self._starts[first]), max(end, self._ends[last - 1])
            self._starts[first:last] = [start]
            self._ends[first:last] = [end]


class OffsetMap:
    """``map_offset`` through one set of non-overlapping edits, for many offsets: a bisection per offset."""

    def __init__(self, edits: Sequence[Edit]) -> None:
        self._edits = sorted(edits, key=lambda e: (e.start, e.end))
        self._ends = [edit.end for edit in self._edits]
        self._shifts = [0]  # _shifts[k]: the total length change of the first k edits
        for edit in self._edits:
            self._shifts.append(self._shifts[-1] + len(edit.content) - (edit.end - edit.start))

    def map(self, offset: int, *, inclusive_end: bool) -> int:
        edits, ends = self._edits, self._ends
        if inclusive_end:
            after = bisect.bisect_right(ends, offset)  # edits ending at or before the offset move it
            shift = self._shifts[after]
        else:
            # Edits ending before it move it; of those ending at it, all but an insertion exactly at it.
            before = bisect.bisect_left(ends, offset)
            after = bisect.bisect_right(ends, offset)
            shift = self._shifts[before] + sum(self._shifts[k + 1] - self._shifts[k] for k in range(before, after)
                                               if edits[k].start != edits[k].end)
        if after < len(edits) and edits[after].start < offset:  # the offset lies inside this edit's range
            edit = edits[after]
            shift += edit.start + (len(edit.content) if inclusive_end else 0) - offset
        return offset + shift

    def map_span(self, span: tuple[int, int]) -> tuple[int, int]:
        return self.map(span[0], inclusive_end=False), self.map(span[1], inclusive_end=True)
