"""The candidate rules each prefilter stage keeps, per file, over a real run: to prove a speed change kept them.

    python tools/stage_candidates.py record OUT.json [jaxlint check options and paths]
    python tools/stage_candidates.py compare BEFORE.json AFTER.json

``record`` runs ``jaxlint check`` in this process and, at every ``engine._prefiltered`` call, records the rules the
word prefilter, the text gate and the ast gate keep (and what the engine got), keyed by the text's hash and the rules
asked about. Run it with the code before and after a change (``PYTHONPATH``), with ``-j 1 --no-cache`` and every
opt-in rule selected, then ``compare``: it prints every key whose candidates differ and exits 1 if any does (or if
the two runs saw different texts). A stage may keep a superset only if the final output stays identical; this tool
reports either way.
"""
from __future__ import annotations

import hashlib
import json
import sys


def record(out: str, check_args: list[str]) -> int:
    from jaxlint.lint import engine
    from jaxlint.lint.ast_gate import gate
    from jaxlint.lint.prefilter import Scan, rules_matching_scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.ui import cli

    seen: dict[str, list[list[str]]] = {}
    prefiltered = engine._prefiltered

    def recorded(source, rules, *, ast_gate=True):
        result = prefiltered(source, rules, ast_gate=ast_gate)
        digest = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()
        scan = Scan(source)
        words = rules_matching_scan(scan, rules)
        facts = TextFacts(source)
        text = [rule for rule in words if rule.may_match_text(facts, scan.words)] if words else []
        ast = gate(source, text)[0] if text and ast_gate else text
        seen[f"{digest}|{','.join(rule.code for rule in rules)}"] = [
            [rule.code for rule in stage] for stage in (words, text, ast, result[0])]
        return result

    engine._prefiltered = recorded
    sys.argv = ["jaxlint", "check", *check_args]
    try:
        cli.main()
    except SystemExit:
        pass
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(seen, handle, sort_keys=True)
    print(f"{len(seen)} texts recorded", file=sys.stderr)
    return 0


def compare(before_path: str, after_path: str) -> int:
    with open(before_path, encoding="utf-8") as handle:
        before = json.load(handle)
    with open(after_path, encoding="utf-8") as handle:
        after = json.load(handle)
    differ = sorted(key for key in before.keys() & after.keys() if before[key] != after[key])
    for key in differ:
        print(f"{key}: {before[key]} -> {after[key]}")
    only = (before.keys() ^ after.keys())
    print(f"{len(before.keys() & after.keys())} texts in both, {len(differ)} differ, {len(only)} in one run only")
    return 1 if differ or only else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "record":
        sys.exit(record(sys.argv[2], sys.argv[3:]))
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
