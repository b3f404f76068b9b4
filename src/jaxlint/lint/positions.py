"""Character spans of CST nodes, for the few modules that have findings (and there for the reported statements only).

libcst's ``PositionProvider`` regenerates the module while keeping line/column pairs for every token and node (about
a third of a second for a 2,000-line file, more than parsing it). jaxlint needs character offsets into the source,
so this codegen state keeps one running offset instead: same traversal and the same rule for what a node's span is
(``record_syntactic_position`` leaves out the whitespace a node owns), a fraction of the work.
"""
from __future__ import annotations

import ast
import os
import re
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Mapping, Optional, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst
from libcst._nodes.internal import CodegenState


@dataclass(frozen=False)
class _OffsetCodegenState(CodegenState):
    spans: dict = field(default_factory=dict)
    offset: int = 0
    _stack: list = field(default_factory=list)

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        for token in self.indent_tokens:
            self.offset += len(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.offset += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append(self.offset)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        if node not in self.spans:  # a syntactic position recorded inside wins, as in libcst
            self.spans[node] = (start, self.offset)

    @contextmanager
    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> Iterator[None]:
        start = self.offset
        try:
            yield
        finally:
            end = self.offset
            if start_node is not None:
                start = self.spans[start_node][0]
            if end_node is not None:
                end = self.spans[end_node][1]
            self.spans[node] = (start, end)


class SpanError(Exception):
    """A span was asked for a node past the text the regenerated module shares with its source."""


class _Spans(dict):
    def __missing__(self, node: cst.CSTNode) -> tuple[int, int]:
        raise SpanError(f"no reliable position for a {type(node).__name__} node")


def node_spans(module: cst.Module, source: str) -> dict[cst.CSTNode, tuple[int, int]]:
    """``node -> (start, end)`` character offsets into ``source`` for every node, as ``PositionProvider`` has them.

    libcst regenerates its input exactly, except that whitespace-only lines at the very end of a file without a
    final newline are dropped (``"A\\n\\n "`` comes back as ``"A\\n "``). So only spans that end within the text
    common to both are kept; asking for another raises ``SpanError`` rather than giving a wrong position.
    """
    state = _OffsetCodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    code = "".join(state.tokens)
    if state.offset > len(code):  # the final newline libcst adds for codegen and pops again (no newline at EOF)
        end = len(code)
        state.spans = {node: (min(start, end), min(stop, end)) for node, (start, stop) in state.spans.items()}
    if code == source:
        return state.spans
    common = len(os.path.commonprefix([code, source]))
    return _Spans((node, span) for node, span in state.spans.items() if span[1] <= common)


class StatementSpans:
    """The spans of ``node_spans``, generated one statement at a time, only for the statements asked about.

    A file with one finding in a 5 MB module needs the spans of one statement, not of millions of nodes (their
    codegen costs about as much as the parse, and their table as much memory as a tenth of the tree). A statement
    starts at the first line of its leading comments and blank lines, which ``ast``'s line numbers give without any
    codegen: for the top-level statements, and for the statements in the bodies of functions and classes (a method
    of a large class is generated alone). Every statement generated must equal the source at its offset and end
    where the next one starts; when one does not (a layout where the lines do not add up, a file ``ast`` cannot
    read, the last line of a file without a final newline), the spans of the whole module are generated as
    ``node_spans`` does.
    """

    def __init__(self, module: cst.Module, source: str, tree: ast.Module | None = None) -> None:
        self._module = module
        self._source = source
        self._tree = tree  # ``ast``'s tree of ``source`` when the caller has one (the ast gate's): not parsed again
        self._spans: dict[cst.CSTNode, tuple[int, int]] = {}
        self._layout: list[tuple[int, list | None]] | None = None  # once computed; [] when unknown
        self._top_index: dict[int, int] = {}  # id of a top-level statement -> its index
        self._generated: set[int] = set()  # ids of the statements whose spans are in ``_spans``
        self._whole: Mapping[cst.CSTNode, tuple[int, int]] | None = None
        self.statements_generated = 0  # how many statements were generated (for tests and benchmarks)
        self.characters_generated = 0  # and how much of the source they cover

    def __getitem__(self, node: cst.CSTNode) -> tuple[int, int]:
        if self._whole is not None:
            return self._whole[node]
        span = self._spans.get(node)
        if span is not None:
            return span
        for index in range(len(self._module.body)):  # a node no hint led to: search statement by statement
            if id(self._module.body[index]) not in self._generated:
                target = self._top_target(index)
                if target is None or not self._generate(*target):
                    return self._whole_module()[node]
                span = self._spans.get(node)
                if span is not None:
                    return span
        return self._whole_module()[node]  # the module itself, its header or its footer

    def include(self, ancestors: Sequence[cst.CSTNode]) -> None:
        """Generate the spans of the innermost statement of ``ancestors`` (the module first, as a report holds them)
        whose place is known: a top-level statement, or a statement in the body of a function or class that has a
        next sibling (the last one's end is not known without generating what follows)."""
        if self._whole is not None or len(ancestors) < 2 or ancestors[0] is not self._module:
            return
        if self._known_layout() is None:
            self._whole_module()
            return
        index = self._top_index.get(id(ancestors[1]))
        if index is None:
            return
        top = self._top_target(index)
        if top is None:
            self._whole_module()
            return
        inner = self._inner_target(ancestors, index, top[2])
        if inner is not None and self._generate(*inner):
            return
        if not self._generate(*top):
            self._whole_module()

    def _top_target(self, index: int) -> tuple | None:
        layout = self._known_layout()
        if layout is None or (index == len(layout) - 1 and not self._module.has_trailing_newline):
            return None  # the whole module's codegen drops the last newline: let it give the spans, as before
        end = layout[index + 1][0] if index + 1 < len(layout) else len(self._source) - self._footer_length()
        return self._module.body[index], layout[index][0], end, ()

    def _inner_target(self, ancestors: Sequence[cst.CSTNode], index: int, end: int) -> tuple | None:
        """The innermost statement of ``ancestors`` in a body of a function or class, with its offsets (``end``:
        where the top-level statement ends). The last statement of a block ends where the statement holding the
        block ends, less the block's footer (its trailing comment lines); ``_generate`` checks every guess."""
        statement, inner = ancestors[1], self._known_layout()[index][1]
        found = None
        indents: tuple[str, ...] = ()
        depth = 2
        while inner is not None and depth + 1 < len(ancestors) and ancestors[depth] is statement.body:
            block = statement.body
            child = ancestors[depth + 1]
            position = next((i for i, sibling in enumerate(block.body) if sibling is child), None)
            if position is None:
                break
            indents = (*indents, block.indent if block.indent is not None else self._module.default_indent)
            start, child_inner = inner[position]
            if position + 1 < len(block.body):
                end = inner[position + 1][0]
            else:
                end -= len(_code_of(self._module, block.footer, indents))
            found = (child, start, end, indents)
            statement, inner = child, child_inner
            depth += 2
        return found

    def _generate(self, statement: cst.CSTNode, start: int, end: int, indents: tuple[str, ...]) -> bool:
        if id(statement) in self._generated:
            return True
        module = self._module
        state = _OffsetCodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
        state.offset = start
        state.indent_tokens = list(indents)
        statement._codegen(state)
        code = "".join(state.tokens)
        if start + len(code) != end or not self._source.startswith(code, start):
            return False
        self._spans.update(state.spans)
        self._generated.add(id(statement))
        self.statements_generated += 1
        self.characters_generated += len(code)
        return True

    def _whole_module(self) -> Mapping[cst.CSTNode, tuple[int, int]]:
        if self._whole is None:
            self._whole = node_spans(self._module, self._source)
            self._spans.clear()
        return self._whole

    def _known_layout(self) -> list | None:
        if self._layout is None:
            layout = _statement_layout(self._module, self._source, self._tree) or []
            # The first statement must start right after the module's header (its leading comment lines).
            if layout and layout[0][0] != len(_code_of(self._module, self._module.header)):
                layout = []
            self._layout = layout
            self._top_index = {id(statement): index for index, statement in enumerate(self._module.body)}
        return self._layout or None

    def _footer_length(self) -> int:
        return len(_code_of(self._module, self._module.footer))


def _code_of(module: cst.Module, nodes, indents: tuple[str, ...] = ()) -> str:
    """The code of ``nodes`` (a header, a footer), generated at the indentation ``indents``."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens = list(indents)
    for node in nodes:
        node._codegen(state)
    return "".join(state.tokens)


_NEWLINE = re.compile(r"\r\n|\r|\n")
_AST_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _statement_layout(module: cst.Module, source: str,
                      tree: ast.Module | None = None) -> list[tuple[int, list | None]] | None:
    """Per top-level statement: the offset of its first line (leading blank and comment lines included), from
    ``ast`` (``tree``, or a parse of ``source``), and the same layout for the body of a function or class (None
    where not known). None when ``ast`` cannot parse the source or the two disagree on the number of top-level
    statements."""
    if tree is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    # ``ast`` counts lines as Python does: a lone "\r" ends one too.
    line_starts = [0, *(match.end() for match in _NEWLINE.finditer(source))]
    return _layout_of(module.body, tree.body, line_starts)


def _layout_of(statements, ast_body: list, line_starts: list[int]) -> list[tuple[int, list | None]] | None:
    """A libcst ``SimpleStatementLine`` holds every statement of its line (``a; b``), ``ast`` lists them one by one;
    a decorated definition starts at its first decorator."""
    layout = []
    cursor = 0
    for statement in statements:
        if cursor >= len(ast_body):
            return None
        first = ast_body[cursor]
        row = first.lineno
        leading = len(statement.leading_lines)
        decorators = getattr(statement, "decorators", ())
        if decorators:
            row = min([row, *(decorator.lineno for decorator in getattr(first, "decorator_list", ()))])
            leading += len(decorators[0].leading_lines)
        row -= leading
        if not 1 <= row <= len(line_starts):
            return None
        inner = None
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and isinstance(statement.body, cst.IndentedBlock) \
                and isinstance(first, _AST_DEFINITIONS):
            inner = _layout_of(statement.body.body, first.body, line_starts)
        layout.append((line_starts[row - 1], inner))
        cursor += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return layout if cursor == len(ast_body) else None
