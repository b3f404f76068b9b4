"""Character spans of CST nodes, for the few modules that have findings.

libcst's ``PositionProvider`` regenerates the module while keeping line/column pairs for every token and node (about
a third of a second for a 2,000-line file, more than parsing it). jaxlint needs character offsets into the source,
so this codegen state keeps one running offset instead: same traversal and the same rule for what a node's span is
(``record_syntactic_position`` leaves out the whitespace a node owns), a fraction of the work.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Optional

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
