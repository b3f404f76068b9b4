"""JAX103's text gate on its own: CPU time over the files that reach it, and how many it keeps that its ast gate
rules out (``python benchmarks/jax103_text_gate.py /work/main/.corpus/*``).

The files are those the engine hands to ``may_match_text`` (``Scan`` + ``rules_matching_scan`` first, as
``lint.engine._prefiltered`` does); the time is the least of three runs of the gate alone, a fresh ``TextFacts``
per file each run (its caches are part of the cost)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from jaxlint.lint.ast_gate import collect_facts
from jaxlint.lint.prefilter import Scan, rules_matching_scan
from jaxlint.lint.text_gate import TextFacts
from jaxlint.rules.jax103_changed_signature import ChangedSignature


def reaching(roots: list[str]) -> list[tuple[Path, str, set[str]]]:
    files = []
    for root in roots:
        for path in sorted(Path(root).rglob("*.py")):
            try:
                source = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            scan = Scan(source)
            if rules_matching_scan(scan, [ChangedSignature]):
                files.append((path, source, scan.words))
    return files


def main() -> None:
    files = reaching(sys.argv[1:])
    times = []
    for _ in range(3):
        start = time.process_time()
        kept = [path for path, source, words in files if ChangedSignature.may_match_text(TextFacts(source), words)]
        times.append(time.process_time() - start)
    kept_set = set(kept)
    ast_kept = 0
    text_only = []
    for path, source, _ in files:
        facts = collect_facts(source)
        by_ast = facts is None or ChangedSignature.may_match_ast(facts)
        ast_kept += by_ast
        if path in kept_set and not by_ast:
            text_only.append(path)
        if by_ast and path not in kept_set and facts is not None:
            # (main has 7 on the corpus: kept by the ast gate through a ``**kwargs`` helper or an alias only)
            print(f"ast gate keeps, text gate does not: {path}")
    print(f"files reaching the text gate: {len(files)}")
    print(f"text gate CPU-s (min of 3): {min(times):.3f}  (runs: {', '.join(f'{t:.3f}' for t in times)})")
    print(f"kept by the text gate: {len(kept)}; by the ast gate: {ast_kept}; text keeps, ast rejects: {len(text_only)}")
    for path in text_only:
        print("  ", path)


if __name__ == "__main__":
    main()
