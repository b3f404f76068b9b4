"""Cross-check the findings decided from ``ast`` (``jaxlint.lint.ast_findings``) against the libcst visit on a corpus.

    python tools/ast_findings_check.py [--min-version X] FOLDER [FOLDER...]

For every ``.py`` file whose rules left after the gates all decide from ``ast``, the findings are computed both ways
(the ast view, and libcst's visit of the whole file with no gate) and compared field by field, fixes included (their
edits, located, as JAX503 decides them). Prints how many files
were decided, how many were undecidable (sent to libcst), and every file where the two differ; exit 1 if any does,
or if no file was decided at all (a check that compared nothing does not pass). ``--min-version``: lint as if the
projects pinned that minimum JAX (a low one withholds fixes, so more files decide: JAX401's and JAX103's withheld
findings are compared too).
"""
from __future__ import annotations

import sys
from dataclasses import asdict

from corpus_sources import python_sources, settings_with_min_version

from jaxlint.lint import ast_findings, engine
from jaxlint.rules import enabled_rules


def main(folders: list[str], min_version: str | None = None) -> int:
    settings = settings_with_min_version(min_version)
    rules = [rule for rule in enabled_rules(settings, ()) if rule.applies_to(settings)]  # as ``lint_source``
    decided = undecidable = differ = 0
    for path, source in python_sources(folders):
        left, facts = engine._prefiltered(source, rules)
        if not left or facts is None or facts.tree is None \
                or not all(getattr(rule, "decides_from_ast", False) for rule in left):
            continue
        found = ast_findings.decide(source, str(path), left, facts.tree, settings=settings)
        if found is None:
            undecidable += 1
            continue
        decided += 1
        reference = engine.lint_source(source, str(path), settings, rules=left, prefilter=False, whole=True)
        if [asdict(d) for d in found] != [asdict(d) for d in reference.diagnostics]:
            differ += 1
            print(f"DIFFERS {path}: {len(found)} from ast, {len(reference.diagnostics)} from libcst")
    print(f"decided from ast: {decided} files; undecidable: {undecidable}; differ: {differ}")
    return 1 if differ or not decided else 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    minimum = None
    if arguments[:1] == ["--min-version"]:
        minimum, arguments = arguments[1], arguments[2:]
    sys.exit(main(arguments, minimum))
