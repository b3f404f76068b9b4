"""Shared by ``tests/robustness/test_fuzz.py`` and ``tools/fuzz_corpus.py``: JAX snippets from the rules' own
must-flag examples, insertion points in real code, and the property every (mutated) program must satisfy."""
from __future__ import annotations

import ast
import re
import difflib
import traceback
import warnings
from dataclasses import dataclass, replace

import libcst as cst

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.rules import all_rules
from jaxlint.rules.base import Example
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version

PATH = "fuzz.py"


# -- snippets ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Snippet:
    code: str
    imports: tuple[str, ...]  # the example's import lines (so that they can be put at the top of the module)
    body: str  # the rest of the example
    settings: Settings
    origin: str


def _settings(example: Example) -> Settings:
    settings = Settings(select=("ALL",))
    if example.target_version:
        settings = replace(settings, target_version=Version(example.target_version))
    if example.min_version:
        settings = replace(settings, explicit_min_version=Version(example.min_version), min_version_source="example")
    return settings


def _split_imports(code: str) -> tuple[tuple[str, ...], str]:
    lines = code.splitlines(keepends=True)
    imports = []
    while lines and lines[0].startswith(("import ", "from ")) and not lines[0].rstrip().endswith(("(", "\\")):
        imports.append(lines.pop(0))
    return tuple(imports), "".join(lines)


def snippets() -> list[Snippet]:
    found = []
    for rule in all_rules():
        for i, example in enumerate(rule.INVALID):
            imports, body = _split_imports(example.code)
            found.append(Snippet(example.code, imports, body, _settings(example), f"{rule.code}-{i}"))
    return found


# -- insertion points -------------------------------------------------------------------------------------------
def _bodies(tree: ast.AST):
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body
        for handler in getattr(node, "handlers", ()):
            yield handler.body
        for case in getattr(node, "cases", ()):
            yield case.body


def insertion_points(source: str) -> list[tuple[int, str]]:
    """(line index, indentation) pairs before which a whole statement of that indentation can be inserted.

    Before every statement that starts its own line (decorators included), plus the end of the module."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.splitlines(keepends=True)
    points = {(len(lines), "")}
    for body in _bodies(tree):
        for statement in body:
            decorators = getattr(statement, "decorator_list", [])
            first = min([statement.lineno] + [d.lineno for d in decorators]) - 1
            column = min([statement.col_offset] + [d.col_offset - 1 for d in decorators])  # "@" precedes
            if first >= len(lines):
                continue
            line = lines[first]
            indentation = line[:len(line) - len(line.lstrip(" \t"))]
            if len(indentation.encode()) != column or re.match(r"\f|elif\b", line[len(indentation):]):
                continue  # a second statement after ";", one on its compound header's line, or an ``elif``
            if first and lines[first - 1].rstrip("\r\n").endswith("\\"):
                continue
            points.add((first, indentation))
    return sorted(points)


def indent(code: str, indentation: str) -> str:
    return "".join(indentation + line if line.strip() else line for line in code.splitlines(keepends=True))


def insert(source: str, point: tuple[int, str], code: str) -> tuple[str, tuple[int, int]]:
    """``code`` indented to the point's indentation before its line; returns the text and the inserted line range."""
    row, indentation = point
    lines = source.splitlines(keepends=True)
    if row == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    block = indent(code, indentation).splitlines(keepends=True)
    return "".join(lines[:row] + block + lines[row:]), (row, row + len(block))


# -- the property ------------------------------------------------------------------------------------------------
@dataclass
class Failure:
    kind: str  # crash | unparseable | rejected | not-idempotent | outside-region | input-unparseable
    detail: str


def _libcst_parses(source: str) -> str | None:
    try:
        cst.parse_module(source)
    except Exception as error:  # noqa: BLE001 - any failure is a finding of the fuzzer
        return f"{type(error).__name__}: {error}"
    return None


def _ast_parses(source: str) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (SyntaxError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def changed_outside(before: str, after: str, regions: list[tuple[int, int]]) -> list[str]:
    """Lines of ``before`` outside ``regions`` (line ranges) that ``after`` changed or removed.

    Pure insertions count as inside when they touch a region; elsewhere only added import lines are allowed, with
    the blank line that sets a new import section apart (``import jax`` after a block of standard-library ones)."""
    a, b = before.splitlines(), after.splitlines()
    merged: list[tuple[int, int]] = []
    for r0, r1 in sorted(regions):  # touching regions (imports right before the body) are one
        if merged and r0 <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(r1, merged[-1][1]))
        else:
            merged.append((r0, r1))
    regions = merged
    problems = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if any(i1 >= r0 and i2 <= r1 for r0, r1 in regions):
            continue
        imports = [line for line in b[j1:j2] if line.strip()]
        if tag == "insert" and (any(r0 <= i1 <= r1 for r0, r1 in regions)
                                or imports and all(line.lstrip().startswith(("import ", "from ")) for line in imports)):
            continue
        problems.append(f"{tag} {i1 + 1}-{i2}: {a[i1:i2]!r} -> {b[j1:j2]!r}")
    return problems


def _finding_keys(diagnostics) -> set[tuple[str, int, int]]:
    return {(d.code, d.start.row, d.start.column) for d in diagnostics}


def check_program(source: str, settings: Settings, regions: list[tuple[int, int]] | None = None) -> list[Failure]:
    """lint and fix (safe and unsafe) never raise, the prefilter loses no finding, the fix parses (libcst, and ast when the input did), was not
    rejected, is idempotent, and (with ``regions``: pass them only when the unmutated file had nothing to fix)
    leaves the lines outside the inserted regions alone."""
    failures: list[Failure] = []
    input_ast_ok = _ast_parses(source) is None
    error = _libcst_parses(source)
    if error:  # a broken mutation (or a program libcst cannot read): nothing to say about jaxlint
        return [Failure("input-unparseable", error)]
    try:
        filtered = lint_source(source, PATH, settings).diagnostics
        unfiltered = lint_source(source, PATH, settings, prefilter=False).diagnostics
    except Exception:  # noqa: BLE001
        return [Failure("crash", "lint_source: " + traceback.format_exc())]
    lost = _finding_keys(unfiltered) - _finding_keys(filtered)
    if lost:  # the prefilter (words, text gate, ast gate) skipped a file that has findings
        failures.append(Failure("prefilter-lost", "; ".join(f"{code} {row}:{column}" for code, row, column in
                                                             sorted(lost))))
    for unsafe in (False, True):
        label = "unsafe" if unsafe else "safe"
        try:
            outcome = fix_source(source, PATH, settings, unsafe=unsafe)
        except Exception:  # noqa: BLE001
            failures.append(Failure("crash", f"fix_source ({label}): " + traceback.format_exc()))
            continue
        fixed = outcome.source
        error = _libcst_parses(fixed) or (_ast_parses(fixed) if input_ast_ok else None)
        if error:
            failures.append(Failure("unparseable", f"{label} fix: {error}"))
            continue
        if outcome.rejected:
            failures.append(Failure("rejected", f"{label}: a rule's fix did not parse and was dropped: "
                                    + "; ".join(f"{d.code} {d.start.row}:{d.start.column} {d.message}"
                                                for d in outcome.rejected)))
        try:
            again = fix_source(fixed, PATH, settings, unsafe=unsafe).source
        except Exception:  # noqa: BLE001
            failures.append(Failure("crash", f"second fix_source ({label}): " + traceback.format_exc()))
            continue
        if again != fixed:
            diff = "".join(difflib.unified_diff(fixed.splitlines(True), again.splitlines(True), "first", "second"))
            failures.append(Failure("not-idempotent", f"{label}:\n{diff}"))
        if regions is not None:
            outside = changed_outside(source, fixed, regions)
            if outside:
                failures.append(Failure("outside-region", f"{label}: " + "; ".join(outside[:5])))
    return failures


def is_clean(source: str, settings: Settings) -> bool:
    """Whether fixing (safe and unsafe) leaves the source as it is."""
    return all(fix_source(source, PATH, settings, unsafe=unsafe).source == source for unsafe in (False, True))


def mutate(source: str, snippet: Snippet, body_point: tuple[int, str],
           import_point: tuple[int, str] | None) -> tuple[str, list[tuple[int, int]]]:
    """Insert the snippet at ``body_point``; with ``import_point`` (a module-level point) its imports go there and
    only the rest of the example at ``body_point``. Returns the program and the inserted line ranges."""
    if import_point is None or not snippet.imports or not snippet.body.strip():
        text, region = insert(source, body_point, snippet.code)
        return text, [region]
    blocks = sorted([(body_point, snippet.body), (import_point, "".join(snippet.imports))],
                    key=lambda item: item[0][0], reverse=True)
    text = source
    regions = []
    for point, code in blocks:  # the later one first: the earlier line numbers stay valid
        text, region = insert(text, point, code)
        size = region[1] - region[0]
        regions = [(r0 + size, r1 + size) for r0, r1 in regions] + [region]
    return text, regions
