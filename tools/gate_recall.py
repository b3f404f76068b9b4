"""Do the gates ever drop a finding? Each rule's findings on a corpus, found without any gate, against its gates.

    python tools/gate_recall.py [--min-version X] [--rule JAXNNN ...] FOLDER [FOLDER...]

The pipeline skips a rule on a file when the word prefilter, the rule's text gate or its ``ast`` gate says it cannot
fire there (``engine._prefiltered``). Each gate is meant to over-approximate the rule's findings; the differential
tests check each one against the next on their cases. This is the end-to-end oracle on real code: for every ``.py``
file and every rule that applies under the settings (opt-in rules included), the rule's findings are computed with
no gate at all (``ast_findings.decide`` on the file's whole tree, one rule at a time; libcst's visit of the whole
file where ``ast`` cannot decide), and every stage must keep each rule that has a finding. Prints the files, rules
and findings compared, and every finding a gate would drop; exit 1 if any is dropped, or if no finding was compared
(a check that compared nothing does not pass).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter

from corpus_sources import python_sources, settings_with_min_version

from jaxlint.lint import ast_findings, engine
from jaxlint.lint.ast_gate import collect_facts
from jaxlint.lint.prefilter import Scan, rules_matching_scan
from jaxlint.lint.text_gate import TextFacts
from jaxlint.project.settings import Settings
from jaxlint.rules import all_rules


def findings_without_gates(source: str, path: str, rule, settings: Settings, facts) -> list:
    """The rule's findings on the whole file, no gate asked: from ``ast`` where it decides, else from libcst."""
    found = None
    if facts is not None and facts.tree is not None:
        found = ast_findings.decide(source, path, [rule], facts.tree, settings=settings, facts=facts)
    if found is None:
        found = engine.lint_source(source, path, settings, rules=[rule], prefilter=False, whole=True).diagnostics
    return [diagnostic for diagnostic in found if diagnostic.code == rule.code]  # not the engine's JAX000


def dropped_by(source: str, rule, facts) -> str | None:
    """The first stage that drops ``rule`` on ``source`` (None when every stage keeps it)."""
    scan = Scan(source)
    if not rules_matching_scan(scan, [rule]):
        return "words"
    if not rule.may_match_text(TextFacts(source), scan.words):
        return "text gate"
    if facts is not None and rule.has_ast_gate() and not rule.may_match_ast(facts):
        return "ast gate"
    return None


def check(folders: list[str], settings: Settings, codes: set[str] | None = None, echo=print) -> Counter:
    """Counts: files, findings compared (per rule too, as ``findings JAXNNN``) and findings dropped."""
    rules = [rule for rule in all_rules() if (codes is None or rule.code in codes)
             and rule.applies_to(settings) and rule.may_report_under(settings)]
    counts: Counter = Counter()
    for path, source in python_sources(folders):
        counts["files"] += 1
        facts = collect_facts(source)
        for rule in rules:
            found = findings_without_gates(source, str(path), rule, settings, facts)
            if not found:
                continue
            counts["findings"] += len(found)
            counts[f"findings {rule.code}"] += len(found)
            stage = dropped_by(source, rule, facts)
            if stage is not None:
                counts["dropped"] += len(found)
                echo(f"DROPPED by the {stage}: {rule.code} at {path}:{found[0].start.row} ({len(found)})")
    return counts


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--min-version", help="lint as if the projects pinned this minimum JAX")
    parser.add_argument("--rule", action="append", help="only this rule (repeat for more)")
    options = parser.parse_args(arguments)
    settings = settings_with_min_version(options.min_version)
    counts = check(options.folders, settings, set(options.rule) if options.rule else None)
    per_rule = ", ".join(f"{key.split()[1]} {value}" for key, value in sorted(counts.items())
                         if key.startswith("findings "))
    print(f"files: {counts['files']}; findings without gates: {counts['findings']} ({per_rule}); "
          f"dropped by a gate: {counts['dropped']}")
    return 1 if counts["dropped"] or not counts["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
