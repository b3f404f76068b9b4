"""Lint and fix one source text: the prefilter stages (``prefilter``, ``text_gate``, ``ast_gate``) in order, parse
once, one batched visit for all rules, fixes until stable."""
from __future__ import annotations

import ast
import functools
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst
from jaxlint.lint.lazy_libcst import visitor

from jaxlint.lint import annotations, ast_findings, focus, large_files
from jaxlint.lint.ast_gate import AstFacts, gate
from jaxlint.lint.context import BatchedVisits, FileContext, in_compat_code
from jaxlint.lint.diagnostics import PARSE_ERROR, Applicability, Diagnostic, Edit, LineIndex, Location
from jaxlint.lint.fixes import EditBuilder, OffsetMap, TakenEdits, apply_edits, invert_edits
from jaxlint.lint.noqa import Placements, file_suppression
from jaxlint.lint.prefilter import rules_matching_scan
from jaxlint.rules.base import Rule
from jaxlint.rules import enabled_rules
from jaxlint.rules.cards import loaded
from jaxlint.project.settings import Settings
from jaxlint.project.version_range import below_known_range, fixes_allowed
from jaxlint.lint.text_gate import reading

MAX_FIX_ITERATIONS = 10


@functools.cache
def _parser_config() -> cst.PartialParserConfig:
    return cst.PartialParserConfig(python_version="3.12")


class ParseFailure(Exception):
    def __init__(self, message: str, row: int, column: int) -> None:
        super().__init__(message)
        self.message, self.row, self.column = message, row, column


def parse(source: str, *, valid_python: bool = False) -> cst.Module:
    """libcst's tree of ``source``. ``valid_python``: ``ast`` has parsed it (or the file it was cut from), so
    libcst's check of every node it builds (``CSTNode._validate``, about 14% of the parse) cannot fail and is
    skipped, as libcst's own comment on it suggests for parsing."""
    try:
        if valid_python:
            with _nodes_unchecked():
                return cst.parse_module(source, config=_parser_config())
        return cst.parse_module(source, config=_parser_config())
    except cst.ParserSyntaxError as error:
        raise _describe_syntax_error(source, error.raw_line, error.raw_column + 1, error.message) from None
    except RecursionError:
        raise ParseFailure("the file is nested too deeply to parse", 1, 1) from None
    except Exception as error:  # the native parser reports some failures as plain exceptions
        raise ParseFailure(f"could not parse: {type(error).__name__}: {error}", 1, 1) from None


@contextmanager
def _nodes_unchecked():
    check = cst.CSTNode.__post_init__
    cst.CSTNode.__post_init__ = _no_check  # type: ignore[method-assign]
    try:
        yield
    finally:
        cst.CSTNode.__post_init__ = check  # type: ignore[method-assign]


def _no_check(node: cst.CSTNode) -> None:
    pass


def syntax_failure(source: str) -> ParseFailure | None:
    """Whether ``source`` parses, cheaply: ``ast`` first (about 5x faster than libcst, and a fraction of its
    memory), libcst for the last word and the message when ``ast`` rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
        return None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        parse(source)
    except ParseFailure as failure:
        return failure
    return None


def _describe_syntax_error(source: str, row: int, column: int, fallback: str) -> ParseFailure:
    """Prefer CPython's own wording ("'(' was never closed") when it agrees the file is broken."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except SyntaxError as error:
        if error.lineno:
            return ParseFailure(f"SyntaxError: {error.msg}", error.lineno, max(error.offset or 1, 1))
    except (ValueError, RecursionError, MemoryError):
        pass
    return ParseFailure(f"SyntaxError: {fallback}", row, column)


def rules_for(settings: Settings, path: str) -> tuple[type[Rule], ...]:
    from pathlib import Path

    ignored = settings.ignored_codes_for(Path(path))
    # Asked once per file, nearly always with the same few settings: answered once per settings and ignore list.
    key = (id(settings), ignored)
    cached = _RULES_FOR.get(key)
    if cached is not None and cached[0] is settings:
        return cached[1]
    if len(_RULES_FOR) > 64:
        _RULES_FOR.clear()
    rules = tuple(rule for rule in enabled_rules(settings, ignored) if rule.may_report_under(settings))
    _RULES_FOR[key] = (settings, rules)  # the settings held too: their id cannot be reused while the entry lives
    return rules


_RULES_FOR: dict[tuple[int, tuple[str, ...]], tuple[Settings, tuple[type[Rule], ...]]] = {}


def passes_prefilter(source: str, rules: Sequence[type[Rule]]) -> bool:
    return bool(prefiltered_rules(source, rules))


def prefiltered_rules(source: str, rules: Sequence[type[Rule]]) -> list[type[Rule]]:
    """The rules that may fire on ``source``, by three stages, cheapest first: the words, the text gate
    (``text_gate``: what stands around the names, no parse) and, for the rules left, the ast gate (``ast_gate``: an
    ``ast`` parse, no libcst). Each stage over-approximates each rule's findings on its own, so only these rules
    need to visit the tree."""
    return _prefiltered(source, rules)[0]


def _prefiltered(source: str, rules: Sequence[type[Rule]], *, ast_gate: bool = True, tree: ast.Module | None = None
                 ) -> tuple[list[type[Rule]], AstFacts | None]:
    """``prefiltered_rules`` and the ast gate's facts, when it parsed the file (``tree``: its parse, if known)."""
    scan, facts = reading(source)
    candidates = rules_matching_scan(scan, rules)
    if not candidates:
        return [], None
    candidates = [rule for rule in map(loaded, candidates) if rule.may_match_text(facts, scan.words)]
    if not ast_gate or not candidates:
        return candidates, None
    return gate(source, candidates, tree)


@dataclass
class LintResult:
    diagnostics: list[Diagnostic]
    parsed: bool = True


def lint_source(source: str, path: str, settings: Settings, *, rules: Sequence[type[Rule]] | None = None,
                prefilter: bool = True, module: cst.Module | None = None, whole: bool = False,
                file_text: str | None = None, valid_python: bool = False,
                tree: ast.Module | None = None) -> LintResult:
    """Findings for one source text (``path`` is used for messages and per-file settings only).

    ``module``: the source already parsed (``fix_source`` parses each fixed text to check it, and lints that tree).
    A source of ``large_files.LARGE_FILE`` characters or more is linted in pieces (``large_files``), and a smaller
    one in part when its rules allow (``focus``), unless ``whole``. ``file_text``: the whole file, when ``source``
    is a part of it (what a rule searches the text of the file for). ``valid_python``: ``ast`` parsed it already.
    ``tree``: ``ast.parse(source)``, when the caller has it (the runner parses a module for its project facts).
    """
    chosen_here = rules is None
    if rules is None:
        rules = rules_for(settings, path)  # selected, and applying to the version range (``enabled_rules``)
    suppression = file_suppression(source)
    rules = [rule for rule in rules if not suppression.suppresses(rule.code)
             and (chosen_here or rule.applies_to(settings) and rule.may_report_under(settings))]
    in_pieces = not whole and module is None and len(source) >= large_files.LARGE_FILE
    facts = None
    if rules and prefilter:
        # For a large file the ast gate runs on each piece: ``ast`` of the whole would cost ~160 bytes per byte.
        rules, facts = _prefiltered(source, rules, ast_gate=not in_pieces, tree=tree)
    else:
        rules = [loaded(rule) for rule in rules]  # the classes of the rules' cards (``rules.cards``)
    if not rules:
        return LintResult([], parsed=False)
    if facts is not None and not whole and module is None:
        # Rules that decide from the gate's ``ast`` tree (findings without a fix; JAX503's, fix included) do when they
        # can: no libcst at all.
        decided = ast_findings.decide(source, path, rules, facts.tree, file_text=file_text, settings=settings,
                                      facts=facts) if facts.tree is not None else None
        if decided is not None:
            return LintResult(decided)
        found = _lint_focused(source, path, settings, rules, facts)
        if found is not None:
            return LintResult(found)
    if in_pieces:
        shared = tuple(text for rule in rules for text in rule.whole_module_strings)

        def lint_piece(text: str) -> tuple[list[Diagnostic], bool]:
            result = lint_source(text, path, settings, rules=rules, prefilter=prefilter, whole=True, file_text=source)
            return result.diagnostics, result.parsed

        def syntax_error(text: str) -> Diagnostic | None:
            failure = syntax_failure(text)
            if failure is None:
                return None
            location = Location(failure.row, failure.column)
            return Diagnostic(PARSE_ERROR, failure.message, path, location, location, noqa_row=None)

        found = large_files.lint_in_pieces(source, lint_piece, syntax_error, shared)
        if found is not None:
            found.sort(key=Diagnostic.sort_key)
            return LintResult(found)
    try:
        if module is None:
            module = parse(source, valid_python=valid_python or facts is not None)
    except ParseFailure as failure:
        location = Location(failure.row, failure.column)
        return LintResult([Diagnostic(PARSE_ERROR, failure.message, path, location, location, noqa_row=None)])
    context = FileContext(module, source, path, settings, file_text=file_text)
    instances = [rule(context) for rule in rules]
    visitor(BatchedVisits)(context, instances).run(module)
    if not context.reports:
        return LintResult([])
    tree = facts.tree if facts is not None else None  # the ast gate's tree of this very source
    return LintResult(_diagnostics_from_reports(context, {rule.code: rule for rule in rules}, tree))


def _lint_focused(source: str, path: str, settings: Settings, rules: Sequence[type[Rule]],
                  facts: AstFacts) -> list[Diagnostic] | None:
    """The findings of ``source`` from a libcst parse of only the statements that can hold them (``focus``); None
    when its rules or its layout do not allow it."""
    chosen = focus.plan(source, facts, rules)
    if chosen is None:
        return None

    def lint_module(text: str) -> list[Diagnostic]:
        return lint_source(text, path, settings, rules=rules, prefilter=False, whole=True, file_text=source,
                           valid_python=True).diagnostics

    found = focus.lint_focused(source, chosen, lint_module)
    if found is not None:
        found.sort(key=Diagnostic.sort_key)
    return found


def _diagnostics_from_reports(context: FileContext, rules: dict[str, type[Rule]],
                              tree: ast.Module | None = None) -> list[Diagnostic]:
    # Compat code first: it needs no positions, and a file whose reports are all in compat code needs no spans.
    reports = [report for report in context.reports if rules[report.code].check_compat_code
               or not in_compat_code(report.ancestors, context.resolver)]
    if not reports:
        return []
    from jaxlint.lint.positions import StatementSpans  # libcst's code generator: only once libcst has parsed

    index = LineIndex(context.source)
    # Spans only for the statements that hold a reported node (found through the report's ancestors).
    spans = StatementSpans(context.module, context.source, tree)
    builder = EditBuilder(context.source, index, spans)
    diagnostics = []
    placements = Placements(index)
    fixable = fixes_allowed(context.settings)  # below the oldest known release no rule fixes (version_range)
    future_annotations = annotations.has_future_annotations(context.file_text)
    for report in reports:
        rule = rules[report.code]
        spans.include(report.ancestors)
        start, end = builder.span(report.node)
        placed = placements.place(report.code, report.message, start, end)
        if placed is None:
            continue
        start_location, end_location = placed
        fix = builder.build(report.fix, report.ancestors) if report.fix is not None and fixable else None
        withheld = report.withheld
        if report.fix is not None and not fixable:
            withheld = below_known_range(context.settings)
        diagnostics.append(Diagnostic(
            report.code, report.message, context.path, start_location, end_location,
            start_offset=start, end_offset=end, fix=fix, noqa_row=start_location.row, url=rule.url(),
            detail=report.detail, fix_withheld=withheld,
            unevaluated_annotation=annotations.is_unevaluated(report.ancestors, context.resolver, future_annotations),
        ))
    diagnostics.sort(key=Diagnostic.sort_key)
    return diagnostics


# -- fixing ----------------------------------------------------------------------------------------------------
@dataclass
class AppliedFix:
    """A fix that was applied, located in the original source (for reports and for ``jaxlint verify``)."""

    code: str
    message: str
    row: int
    column: int
    applicability: Applicability
    fix_message: str
    # Character spans [start, end) of the probed expression in the original and in the fixed source.
    probe_original: tuple[int, int] | None
    probe_fixed: tuple[int, int] | None


@dataclass
class FixOutcome:
    source: str
    applied: list[AppliedFix] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    # Fixes that were dropped because the result would not parse (a bug in a rule: reported, never written).
    rejected: list[Diagnostic] = field(default_factory=list)
    # Per fix iteration, the map from its fixed text back to the text before it.
    history: list[OffsetMap] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.applied)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """A ``[start, end)`` span of the fixed text (a remaining finding's) in the original text."""
        for backward in reversed(self.history):
            start, end = backward.map(start, inclusive_end=False), backward.map(end, inclusive_end=True)
        return start, end


def _fixable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    fix = diagnostic.fix
    return fix is not None and (fix.applicability is Applicability.SAFE or unsafe)


def _parsed(source: str) -> cst.Module | None:
    try:
        return parse(source)
    except ParseFailure:
        return None


def _parses(source: str) -> tuple[bool, cst.Module | None]:
    """Whether a fixed text parses, and its tree when it was parsed whole (a large one is parsed in pieces)."""
    if len(source) >= large_files.LARGE_FILE:
        in_pieces = large_files.parses_in_pieces(source, lambda text: _parsed(text) is not None)
        if in_pieces is not None:
            return in_pieces, None
    module = _parsed(source)
    return module is not None, module


def _choose_compatible(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Fixes whose edits do not touch each other (``edits_overlap``); the rest wait for the next iteration."""
    chosen: list[Diagnostic] = []
    taken = TakenEdits()
    for diagnostic in diagnostics:
        if taken.overlaps(diagnostic.fix.edits):
            continue
        chosen.append(diagnostic)
        taken.add(diagnostic.fix.edits)
    return chosen


def fix_source(source: str, path: str, settings: Settings, *, unsafe: bool = False,
               rules: Sequence[type[Rule]] | None = None,
               derive_probe: Callable[[str, Sequence[Edit]], tuple[int, int] | None] | None = None) -> FixOutcome:
    """Apply fixes, re-parse and lint again until nothing changes (bounded). Never returns unparseable code.

    ``derive_probe(text, edits)`` gives a probe span for a fix whose rule named none (``jaxlint verify`` passes it).
    """
    if rules is None:
        rules = rules_for(settings, path)
    current = source
    # Per applied fix: (record, probe span in the *current* text); spans are carried along as the text changes.
    applied: list[tuple[AppliedFix, tuple[int, int] | None]] = []
    rejected: list[Diagnostic] = []
    rejected_keys: set[tuple] = set()
    # Per iteration, the map from its fixed text back to the text before it (to map findings to the original).
    history: list[OffsetMap] = []
    original_index = LineIndex(source)
    result = lint_source(current, path, settings, rules=rules)
    for _ in range(MAX_FIX_ITERATIONS):
        candidates = [d for d in result.diagnostics if _fixable(d, unsafe)
                      and (d.code, d.message, d.start_offset) not in rejected_keys]
        chosen = _choose_compatible(candidates)
        if not chosen:
            break
        new_source, chosen, new_module = _apply_checked(current, chosen, rejected, rejected_keys)
        if not chosen:
            break
        edits = [edit for diagnostic in chosen for edit in diagnostic.fix.edits]
        forward = OffsetMap(edits)
        applied = [(record, forward.map_span(span) if span is not None else None) for record, span in applied]
        for diagnostic in chosen:
            original_offset = _to_original(diagnostic.start_offset, history)
            probe = diagnostic.fix.probe
            if probe is None and derive_probe is not None:
                probe = derive_probe(current, diagnostic.fix.edits)
            probe_original = None
            if probe is not None:
                probe_original = (_to_original(probe[0], history), _to_original(probe[1], history))
            row_col = original_index.location(original_offset)
            record = AppliedFix(diagnostic.code, diagnostic.message, row_col.row, row_col.column,
                                diagnostic.fix.applicability, diagnostic.fix.message, probe_original, None)
            applied.append((record, forward.map_span(probe) if probe is not None else None))
        history.append(OffsetMap(invert_edits(edits, current)))
        current = new_source
        result = lint_source(current, path, settings, rules=rules, module=new_module)
    records = []
    for record, span in applied:
        record.probe_fixed = span
        records.append(record)
    return FixOutcome(current, records, result.diagnostics, rejected, history)


def _apply_checked(source: str, chosen: list[Diagnostic], rejected: list[Diagnostic],
                   rejected_keys: set[tuple]) -> tuple[str, list[Diagnostic], cst.Module | None]:
    """Apply the fixes together if the result parses; otherwise keep only those that parse on their own.

    Returns the new text, the fixes applied and the new text's tree when it was parsed here (None otherwise).
    """
    combined = apply_edits(source, [e for d in chosen for e in d.fix.edits])
    parses, module = _parses(combined)
    if parses:
        return combined, chosen, module
    kept: list[Diagnostic] = []
    for diagnostic in chosen:
        if _parses(apply_edits(source, diagnostic.fix.edits))[0]:
            kept.append(diagnostic)
        else:
            rejected.append(diagnostic)
            rejected_keys.add((diagnostic.code, diagnostic.message, diagnostic.start_offset))
    if not kept:
        return source, [], None
    combined = apply_edits(source, [e for d in kept for e in d.fix.edits])
    parses, module = _parses(combined)
    if parses:
        return combined, kept, module
    # Individually fine but not together: apply only the first this round.
    return apply_edits(source, kept[0].fix.edits), kept[:1], None


def _to_original(offset: int, history: list[OffsetMap]) -> int:
    """Map an offset in the current text back through earlier iterations to the original source."""
    for backward in reversed(history):
        offset = backward.map(offset, inclusive_end=False)
    return offset
