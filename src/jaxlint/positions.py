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
from typing import Iterator, Mapping, Optional

import libcst as cst
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
    """The spans of ``node_spans``, generated one top-level statement at a time, only for the statements asked about.

    A file with one finding in a 5 MB module needs the spans of one statement, not of millions of nodes (their
    codegen costs about as much as the parse, and their table as much memory as a tenth of the tree). Each top-level
    statement starts at the first line of its leading comments and blank lines, which ``ast``'s line numbers give
    without any codegen. Every statement generated is compared with the source at that offset; if one differs
    (a layout where the lines do not add up, a file ``ast`` cannot read, the last line of a file without a final
    newline), the spans of the whole module are generated as ``node_spans`` does.
    """

    def __init__(self, module: cst.Module, source: str) -> None:
        self._module = module
        self._source = source
        self._spans: dict[cst.CSTNode, tuple[int, int]] = {}
        self._starts: list[int] | None = None  # start offset of each top-level statement, once computed
        self._generated: set[int] = set()  # indices of the statements whose spans are in ``_spans``
        self._whole: Mapping[cst.CSTNode, tuple[int, int]] | None = None
        self.statements_generated = 0  # how many top-level statements were generated (for tests)

    def __getitem__(self, node: cst.CSTNode) -> tuple[int, int]:
        if self._whole is not None:
            return self._whole[node]
        span = self._spans.get(node)
        if span is not None:
            return span
        for index in range(len(self._module.body)):  # a node no hint led to: search statement by statement
            if index not in self._generated:
                if not self._generate(index):
                    return self._whole_module()[node]
                span = self._spans.get(node)
                if span is not None:
                    return span
        return self._whole_module()[node]  # the module itself, its header or its footer

    def include(self, statement: cst.CSTNode) -> None:
        """Generate the spans of ``statement`` if it is one of the module's top-level statements (a hint)."""
        if self._whole is not None or statement in self._spans:
            return
        for index, candidate in enumerate(self._module.body):
            if candidate is statement:
                if not self._generate(index):
                    self._whole_module()
                return

    def _whole_module(self) -> Mapping[cst.CSTNode, tuple[int, int]]:
        if self._whole is None:
            self._whole = node_spans(self._module, self._source)
            self._spans.clear()
        return self._whole

    def _generate(self, index: int) -> bool:
        starts = self._statement_starts()
        if starts is None:
            return False
        if index == len(starts) - 1 and not self._module.has_trailing_newline:
            return False  # the whole module's codegen drops the last newline: let it give the spans, as before
        module = self._module
        state = _OffsetCodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
        state.offset = starts[index]
        module.body[index]._codegen(state)
        code = "".join(state.tokens)
        end = starts[index + 1] if index + 1 < len(starts) else len(self._source) - self._footer_length()
        if starts[index] + len(code) != end or not self._source.startswith(code, starts[index]):
            return False
        self._spans.update(state.spans)
        self._generated.add(index)
        self.statements_generated += 1
        return True

    def _statement_starts(self) -> list[int] | None:
        if self._starts is None:
            starts = _statement_starts(self._module, self._source) or []
            # The first statement must start right after the module's header (its leading comment lines).
            self._starts = starts if starts and starts[0] == len(_code_of(self._module, self._module.header)) else []
        return self._starts or None

    def _footer_length(self) -> int:
        return len(_code_of(self._module, self._module.footer))


def _code_of(module: cst.Module, nodes) -> str:
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    for node in nodes:
        node._codegen(state)
    return "".join(state.tokens)


_NEWLINE = re.compile(r"\r\n|\r|\n")


def _statement_starts(module: cst.Module, source: str) -> list[int] | None:
    """Offset of each top-level statement's first line (its leading blank and comment lines included), from ``ast``.

    A libcst ``SimpleStatementLine`` holds every statement of its line (``a; b``), ``ast`` lists them one by one;
    a decorated definition starts at its first decorator. None when ``ast`` cannot parse the source or the two
    disagree on the number of statements.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    # ``ast`` counts lines as Python does: a lone "\r" ends one too.
    line_starts = [0, *(match.end() for match in _NEWLINE.finditer(source))]
    body = tree.body
    starts: list[int] = []
    cursor = 0
    for statement in module.body:
        if cursor >= len(body):
            return None
        first = body[cursor]
        row = first.lineno
        leading = len(statement.leading_lines)
        decorators = getattr(statement, "decorators", ())
        if decorators:
            row = min([row, *(decorator.lineno for decorator in getattr(first, "decorator_list", ()))])
            leading += len(decorators[0].leading_lines)
        row -= leading
        if not 1 <= row <= len(line_starts):
            return None
        starts.append(line_starts[row - 1])
        cursor += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return starts if cursor == len(body) else None
