"""A file whose candidate rules only look at names is parsed by libcst in part: the statements that can hold a
finding, and what they need.

In old code nearly every file that reaches libcst has a finding, but few of its statements do: a 90 kB module with
one ``jax.tree_map`` is parsed, walked and indexed whole for one finding. The ast gate has already parsed the file
with ``ast`` (~10x cheaper). For rules marked ``statement_gated`` (a finding lies in a top-level statement that
refers to one of the rule's names itself, as the rule's own gate reads it), this module asks the gate about each
top-level statement on its own and builds a smaller module from the source text:

- the *own* statements: those some rule's gate keeps (with the whole file's import bindings, so ``jnp.clip`` in a
  function counts through ``import jax.numpy as jnp`` at the top);
- every import and compound statement (``if``/``try``/``with``/...: they may import or bind anything), as for
  the pieces of a large file (``large_files``);
- the statements that may bind a name some import binds: a name resolves only when every binding of it in its
  scope is the same import (``jaxlint.lint.names``), so a module-level ``jnp = None`` must be seen.

An own function or class is cut the same way, level by level: its header (decorators, signature, up to its first
body statement) and, of its body, the statements the gate keeps (cut in turn), the compound statements and those
that may bind an imported name (a local ``jax = None`` makes ``jax`` local to the function; ``global jax`` in a
method rebinds the module's). A 19 kB ``main()`` with one removed name is parsed as its header and a few lines.
A definition none of whose body statements is needed (the finding is in a decorator) is kept whole.

The statements that use what an own statement binds are not needed: such a rule's fix of an import depends on the
uses of the imported name (``from jax import tree_multimap`` and its calls), and every use of a listed name is an own
statement itself. What a rule reads as plain text (JAX101: "is ``import jax.extend.core`` anywhere in the file")
it reads in the whole file (``FileContext.file_text``).

That module is one cut of the file (``cuts.Cut``): it is linted whole, and the findings in the own statements
are mapped back to the file. Nothing is focused when the file has a star import (any name may then come from it),
when ``ast`` and the statement layout disagree, when the smaller module would hold most of the file anyway, or
when it does not parse: the file is then linted whole, as before. ``tests/test_focus.py`` compares both ways on
every rule example and fixture, alone, between filler statements and inside a function and a method, and checks
that every plan's module parses.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from jaxlint.lint.ast_gate import AstFacts, facts_of, statement_facts
from jaxlint.lint.cuts import Cut, binds_of
from jaxlint.lint.diagnostics import PARSE_ERROR, Diagnostic, LineIndex

# Above this share of the file the smaller module saves too little to pay for building it.
MAX_SHARE = 0.8
_NEWLINE = re.compile(r"\r\n|\r|\n")  # ``ast`` counts lines as Python does: a lone "\r" ends one too
_ALWAYS = (ast.Import, ast.ImportFrom, ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While,
           ast.Match, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class _Statement:
    start: int
    end: int
    nodes: list[ast.stmt]  # ``a; b`` on one line is one statement here
    binds: frozenset[str]  # for the statements that are not ``always`` kept
    always: bool  # an import or a compound statement


def plan(source: str, facts: AstFacts, rules: Sequence) -> Cut | None:
    """What to parse instead of ``source`` (its ranges, and the own statements'); None to lint it whole."""
    if facts.tree is None or facts.star_modules or not all(rule.statement_gated for rule in rules):
        return None
    cutter = _Cutter(source, facts, rules)
    statements = cutter.statements(facts.tree.body, 0, len(source))
    if statements is None:
        return None
    per_node = iter(statement_facts(facts))
    ranges: list[tuple[int, int]] = []
    own: list[tuple[int, int]] = []
    for statement in statements:
        node_facts = [next(per_node) for _ in statement.nodes]  # every node's, also after an own one
        if any(cutter.may_hold_a_finding(one) for one in node_facts):
            own.append((statement.start, statement.end))
            ranges.extend(cutter.inner_ranges(statement))
        elif cutter.needed(statement):
            ranges.append((statement.start, statement.end))
    if not own:
        return None
    result = Cut(ranges, own)
    return result if result.size <= MAX_SHARE * len(source) else None


class _Cutter:
    """Cuts a body (the module's, a function's or a class's) into statements, and an own definition into the
    parts it needs."""

    def __init__(self, source: str, facts: AstFacts, rules: Sequence) -> None:
        self.source = source
        self.facts = facts
        self.rules = rules
        # also ``fn = jnp.clip``, ``xs = [1, 2]`` and ``def helper(x, **kw): return jnp.clip(x, **kw)``: JAX103
        # follows the alias to its calls, the list to ``jnp.sum(xs)``, a call's keywords into the helper
        self.imported = frozenset(facts.bindings) | frozenset(facts.jax_aliases()) \
            | frozenset(facts.sequence_names) | frozenset(facts.kwargs_forwarders())
        self.line_starts = [0, *(match.end() for match in _NEWLINE.finditer(source))]

    def may_hold_a_finding(self, facts: AstFacts) -> bool:
        return any(rule.may_match_ast(facts) for rule in self.rules)

    def needed(self, statement: _Statement) -> bool:
        """Kept though it holds no finding: it may import or bind anything, or rebind an imported name."""
        return statement.always or not self.imported.isdisjoint(statement.binds)

    def statements(self, body: list[ast.stmt], start: int, end: int) -> list[_Statement] | None:
        """The statements of ``body`` with their text ranges within [start, end): each starts at its first line (its
        first decorator) and runs to the next one's, so comments between two statements belong to the one before;
        the first starts at ``start``. None when a statement does not start on a line of its own
        (``x = (1,\\n2); y = 3``) in a way this cannot cut."""
        groups: list[tuple[int, list[ast.stmt]]] = []  # (first line, nodes)
        last_line = 0
        for node in body:
            first = _first_line(node)
            if groups and first <= last_line:
                if first != groups[-1][0]:
                    return None  # starts on the last line of a statement that began on an earlier line
                groups[-1][1].append(node)  # ``a; b``
            else:
                groups.append((first, [node]))
            last_line = max(last_line, node.end_lineno or node.lineno)
        if not groups or groups[-1][0] > len(self.line_starts):
            return None
        starts = [start] + [self.line_starts[first - 1] for first, _ in groups[1:]]
        statements = []
        for (first, nodes), statement_start, statement_end in zip(groups, starts, starts[1:] + [end]):
            always = any(isinstance(node, _ALWAYS) for node in nodes)
            # What it may bind in its scope, over-estimated from the text (as for large-file pieces).
            text = self.source[statement_start:statement_end].lstrip()
            binds = frozenset() if always else frozenset(binds_of(text))
            statements.append(_Statement(statement_start, statement_end, nodes, binds, always))
        return statements

    def inner_ranges(self, statement: _Statement) -> list[tuple[int, int]]:
        """The parts of an own statement to parse: a function or class keeps its header and, of its body, the
        statements that can hold a finding (cut the same way) and those it needs; anything else is kept whole."""
        whole = [(statement.start, statement.end)]
        if len(statement.nodes) != 1 or not isinstance(statement.nodes[0], _DEFINITIONS):
            return whole
        body = statement.nodes[0].body
        first_line = _first_line(body[0])
        if first_line > len(self.line_starts):
            return whole
        # The header runs to the line of the body's first statement. A body on the header's (last) line
        # (``def f(): return x``) is that line alone: one group, whose range starts where the header's ends.
        body_start = self.line_starts[first_line - 1]
        inner = self.statements(body, body_start, statement.end)
        if inner is None:
            return whole
        chosen: list[tuple[int, int]] = []
        for child in inner:
            if any(self.may_hold_a_finding(facts_of(node, self.facts)) for node in child.nodes):
                chosen.extend(self.inner_ranges(child))
            elif self.needed(child):
                chosen.append((child.start, child.end))
        if not chosen:
            return whole  # the finding is in the header (a decorator, a default): a body is needed anyway
        return [(statement.start, body_start), *chosen]


def _first_line(node: ast.stmt) -> int:
    """Where a statement starts: its first decorator's line, or its own."""
    return min([node.lineno, *(decorator.lineno for decorator in getattr(node, "decorator_list", ()))])


def lint_focused(source: str, focus: Cut,
                 lint_module: Callable[[str], list[Diagnostic]]) -> list[Diagnostic] | None:
    """The findings of ``lint_module`` on the smaller module, in the own statements, placed in ``source``; None
    when that module does not parse (the file is then linted whole, which reports it or not)."""
    diagnostics = lint_module(focus.text(source))
    if any(diagnostic.code == PARSE_ERROR for diagnostic in diagnostics):
        return None
    return focus.findings_in_file(diagnostics, LineIndex(source))
