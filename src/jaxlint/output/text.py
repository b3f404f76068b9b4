"""``path:row:col: CODE [*] message`` lines and ruff's summary."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from jaxlint.lint.diagnostics import Applicability
from jaxlint.output.common import rule_name
from jaxlint.output.withheld import withheld_line
from jaxlint.run.results import FileResult



def _marker(diagnostic, unsafe: bool) -> str:
    fix = diagnostic.fix
    if fix is None:
        return ""
    if fix.applicability is Applicability.SAFE or unsafe:
        return "[*] "
    return ""


def format_diagnostics(results: Sequence[FileResult], *, unsafe: bool) -> str:
    lines = []
    for result in results:
        for d in result.diagnostics:
            cell = f"cell {d.cell}:" if d.cell is not None else ""
            lines.append(f"{d.path}:{cell}{d.start.row}:{d.start.column}: {d.code} {_marker(d, unsafe)}{d.message}")
    return "\n".join(lines)


def summary(results: Sequence[FileResult], *, fixing: bool, unsafe: bool) -> str:
    remaining = [d for r in results for d in r.diagnostics]
    fixed = sum(len(r.applied) for r in results)
    safe_fixable = sum(1 for d in remaining if d.fix is not None and d.fix.applicability is Applicability.SAFE)
    unsafe_fixable = sum(1 for d in remaining if d.fix is not None and d.fix.applicability is Applicability.UNSAFE)
    total = len(remaining) + fixed
    if total == 0:
        return "All checks passed!"
    noun = "error" if total == 1 else "errors"
    if fixing:
        text = f"Found {total} {noun} ({fixed} fixed, {len(remaining)} remaining)."
    else:
        text = f"Found {total} {noun}."
        fixable = safe_fixable + (unsafe_fixable if unsafe else 0)
        if fixable:
            text += f"\n[*] {fixable} fixable with the `--fix` option."
    if unsafe_fixable and not unsafe:
        text += f" {unsafe_fixable} more fixable with --unsafe-fixes."
    withheld = withheld_line(results)
    return f"{text}\n{withheld}" if withheld else text


def statistics(results: Sequence[FileResult], *, unsafe: bool) -> str:
    counts: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    names: dict[str, str] = {}
    from jaxlint.rules import rule_by_code

    for result in results:
        for d in result.diagnostics:
            counts[d.code] += 1
            if d.fix is not None and (d.fix.applicability is Applicability.SAFE or unsafe):
                fixable[d.code] += 1
            rule = rule_by_code(d.code)
            names[d.code] = rule.name if rule else rule_name(d.code)
    width = max((len(str(c)) for c in counts.values()), default=1)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        mark = "[*]" if fixable[code] == count else "[ ]" if not fixable[code] else "[-]"
        lines.append(f"{count:>{width}}\t{code}\t{mark} {names[code]}")
    return "\n".join(lines)


def fix_summary(results: Sequence[FileResult]) -> str:
    """``--show-fixes``: the fixes applied, per file and rule, as ruff lists them."""
    fixed = [r for r in results if r.applied]
    total = sum(len(r.applied) for r in fixed)
    lines = [f"Fixed {total} error{'s' if total != 1 else ''}:"]
    for result in fixed:
        lines.append(f"- {result.path}:")
        for code, count in sorted(Counter(a.code for a in result.applied).items()):
            lines.append(f"    {count} × {code} ({rule_name(code)})")
    return "\n".join(lines)
