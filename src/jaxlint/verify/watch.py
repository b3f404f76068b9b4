"""Watched sites: findings left without a fix whose rule is about a silent change (a default, a result type or a
value that changed between the two JAX releases). ``jaxlint verify`` probes them as it probes fix sites, on the same
expression in both runs (nothing is rewritten there), so the change becomes a measured difference in the user's own
program. A watched difference is for the user to read, not a failure of the fixes (see ``decide_watched``)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from jaxlint.lint.diagnostics import Diagnostic, Edit, LineIndex
from jaxlint.lint.engine import FixOutcome
from jaxlint.verify.probe_spans import derive_probe

# The rules whose finding sits on the expression whose value changed. JAX206 (fixed-seed streams) is not one: its
# finding is on the key, whose value is the same on both sides; the streams drawn from it differ further on.
WATCHED_CODES = frozenset({
    "JAX201",  # meshgrid/broadcast_arrays/atleast_*d: a list became a tuple
    "JAX202",  # take_along_axis: negative indices wrap or not
    "JAX203",  # jnp.empty: zeros or uninitialized memory
    "JAX207",  # rules/return_types.toml: a use of the old result's member (``r[0]``, ``type(r).__name__``...)
    "JAX601",  # rules/behaviour.toml: a default, a validation or a result type changed
})
WATCHED_STATUSES = ("same", "differs", "not-reached")


@dataclass
class WatchedSite:
    """One finding with no fix, probed in both runs. ``id`` is stable across BEFORE and AFTER."""

    id: str
    file: Path  # absolute, the user's file
    relative: str
    row: int  # 1-based, in the original file
    column: int
    code: str
    message: str
    span_original: tuple[int, int]  # the probed expression in the original text (BEFORE)
    span_fixed: tuple[int, int]  # the same expression in the fixed text (AFTER)
    span_rows: int = 0  # how many lines the expression runs over after its first (to read tracebacks)
    kind: str = "value"


def watched_sites(absolute: Path, relative: str, original: str, outcome: FixOutcome) -> list[WatchedSite]:
    """The findings of ``outcome.remaining`` (located in the fixed text) that are watched and whose expression can
    be probed in both texts."""
    findings = [d for d in outcome.remaining if d.code in WATCHED_CODES and not d.unevaluated_annotation
                and d.end_offset > d.start_offset]
    if not findings:
        return []
    try:  # each text parsed once, not once per finding
        modules = (cst.parse_module(original), cst.parse_module(outcome.source))
    except cst.ParserSyntaxError:
        return []
    index = LineIndex(original)
    ordinals: Counter = Counter()
    sites = []
    for finding in sorted(findings, key=lambda d: d.start_offset):
        spans = _spans(finding, original, outcome, modules)
        if spans is None:
            continue
        location = index.location(spans[0][0])
        ordinals[(location.row, finding.code)] += 1
        site_id = f"watch:{relative}:{location.row}:{finding.code}:{ordinals[(location.row, finding.code)]}"
        sites.append(WatchedSite(site_id, absolute, relative, location.row, location.column, finding.code,
                                 finding.message, spans[0], spans[1], original.count("\n", *spans[0])))
    return sites


def _spans(finding: Diagnostic, original: str, outcome: FixOutcome,
           modules: tuple[cst.Module, cst.Module]) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(span in the original, span in the fixed text) of the value to probe for ``finding``, or None where no value
    can be wrapped (an import, an assignment target...)."""
    fixed = derive_probe(outcome.source, [Edit(finding.start_offset, finding.end_offset, "")], modules[1])
    if fixed is None:
        return None
    mapped = outcome.original_span(*fixed)
    before = derive_probe(original, [Edit(mapped[0], mapped[1], "")], modules[0])
    if before is None:
        return None
    return before, fixed
