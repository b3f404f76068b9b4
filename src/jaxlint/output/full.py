"""``concise`` (one line per finding) and ``full`` (the source line, a caret range and the fix as a diff)."""
from __future__ import annotations

from typing import Sequence

from jaxlint.lint.diagnostics import Applicability, LineIndex
from jaxlint.output.common import apply_fix, source_text
from jaxlint.output.text import format_diagnostics, summary
from jaxlint.run.results import FileResult


def format_concise(results: Sequence[FileResult], *, unsafe: bool, fixing: bool, quiet: bool = False) -> str:
    body = format_diagnostics(results, unsafe=unsafe)
    if quiet:
        return body
    tail = summary(results, fixing=fixing, unsafe=unsafe)
    return f"{body}\n{tail}" if body else tail


def _snippet(text: str, diagnostic) -> list[str]:
    index = LineIndex(text)
    rows = len(index.starts)
    first, last = diagnostic.start.row, min(diagnostic.end.row, rows)
    if first > rows:
        return []
    shown = list(range(max(first - 1, 1), min(last + 1, rows) + 1))
    width = len(str(shown[-1]))
    gutter = " " * width + " |"
    out = [gutter]
    for row in shown:
        line = index.line_text(row).expandtabs(1)
        out.append(f"{row:>{width}} | {line}".rstrip())
        if first <= row <= last:
            start = diagnostic.start.column if row == first else 1 + len(line) - len(line.lstrip())
            end = diagnostic.end.column if row == last else len(line) + 1
            if row == first and row == last and end <= start:
                end = start + 1
            carets = "^" * max(end - start, 1)
            label = f" {diagnostic.code}" if row == last else ""
            out.append(f"{gutter} {' ' * (start - 1)}{carets}{label}")
    out.append(gutter)
    return out


def _fix_diff(text: str, diagnostic, unsafe: bool) -> list[str]:
    fixed = apply_fix(text, diagnostic)
    if fixed is None:
        return []
    import difflib

    fix = diagnostic.fix
    kind = "Safe fix" if fix.applicability is Applicability.SAFE else "Unsafe fix"
    out = [f"  = help: {fix.message}", "", f"  {kind}" + ("" if fix.applicability is Applicability.SAFE or unsafe
                                                       else " (needs --unsafe-fixes)")]
    old, new = text.splitlines(), fixed.splitlines()
    for line in difflib.unified_diff(old, new, lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        out.append(f"  {line}")
    return out


def format_full(results: Sequence[FileResult], *, unsafe: bool, fixing: bool, quiet: bool = False) -> str:
    blocks = []
    for result in results:
        for d in result.diagnostics:
            cell = f"cell {d.cell}:" if d.cell is not None else ""
            marker = "[*] " if d.fix is not None and (d.fix.applicability is Applicability.SAFE or unsafe) else ""
            lines = [f"{d.path}:{cell}{d.start.row}:{d.start.column}: {d.code} {marker}{d.message}"]
            if d.detail:
                lines.append(f"  = note: {d.detail}")
            if d.unevaluated_annotation:
                lines.append("  = note: in an annotation Python never evaluates: it cannot fail at run time")
            if d.fix_withheld is not None and d.fix is None:
                lines.append(f"  = fix withheld: {d.fix_withheld.reason}")
            text = source_text(d)
            if text is not None:
                lines += _snippet(text, d)
                lines += _fix_diff(text, d, unsafe)
            blocks.append("\n".join(lines))
    if quiet:
        return "\n\n".join(blocks)
    tail = summary(results, fixing=fixing, unsafe=unsafe)
    return "\n\n".join(blocks) + ("\n\n" if blocks else "") + tail
