#!/usr/bin/env python3
"""Volume fuzzing: insert the rules' must-flag JAX snippets into real code and check lint/fix on the result.

    .venv/bin/python tools/fuzz_corpus.py .corpus -n 2000 [--seed 0] [--save-failures DIR]

The property is that of ``tests/robustness/test_fuzz.py`` (``tests/support/fuzzing.py``), without hypothesis:
a random file of the folder, a random snippet (one of every rule's INVALID examples), inserted as whole
statements before a random statement (at its indentation) or at the end of the module, its imports either kept
with it or moved to a random module-level position. For each program: ``lint_source`` and ``fix_source`` (safe
and unsafe, the snippet example's version settings with every rule selected) never raise, the prefilter loses no
finding (the same findings without it), the fixed source parses (libcst; ast when the input did), no fix was
rejected as unparseable, a second fix changes nothing, and, when the unmutated file had nothing to fix, no line
outside the inserted ones changed (only reported: a new import can legitimately change what a name in the file
means). Exits 1 on a crash, a lost finding, an unparseable, rejected or non-idempotent fix.
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from jaxlint.project.settings import Settings  # noqa: E402
from support.fuzzing import check_program, insertion_points, is_clean, mutate, snippets  # noqa: E402

BUGS = ("crash", "prefilter-lost", "unparseable", "rejected", "not-idempotent")
MAX_BYTES = 200_000  # a very large file makes a program slow without making it more interesting


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("-n", "--programs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save-failures", type=Path, help="write each failing program (and its details) here")
    args = parser.parse_args(argv)

    files = [p for p in sorted(args.folder.rglob("*.py")) if p.is_file() and p.stat().st_size <= MAX_BYTES]
    if not files:
        parser.error(f"no Python files under {args.folder}")
    rng = random.Random(args.seed)
    pool = snippets()
    sources: dict[Path, tuple[str, list, bool | None]] = {}
    counts: collections.Counter[str] = collections.Counter()
    by_snippet: collections.Counter[str] = collections.Counter()
    started = time.monotonic()
    tried = 0
    while tried < args.programs:
        path = rng.choice(files)
        if path not in sources:
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                text = ""
            sources[path] = (text, insertion_points(text), None)
        text, points, clean = sources[path]
        if not points:
            counts["skipped (file does not parse)"] += 1
            continue
        if clean is None:
            clean = is_clean(text, Settings(select=("ALL",)))
            sources[path] = (text, points, clean)
        snippet = rng.choice(pool)
        module_points = [p for p in points if p[1] == ""]
        import_point = rng.choice(module_points) if rng.random() < 0.5 else None
        body_point = rng.choice(points)
        program, regions = mutate(text, snippet, body_point, import_point)
        tried += 1
        failures = check_program(program, snippet.settings, regions if clean else None)
        counts["with outside-region check"] += bool(clean)
        if not failures:
            counts["ok"] += 1
        kinds = sorted({f.kind for f in failures})
        for kind in kinds:
            counts[kind] += 1
            by_snippet[f"{kind} {snippet.origin}"] += 1
        for failure in failures:
            where = f"{path} + {snippet.origin} at line {body_point[0] + 1}" + \
                (f", imports at line {import_point[0] + 1}" if import_point else "")
            print(f"[{tried}] {failure.kind}: {where}\n    {failure.detail[:2000]}", flush=True)
        if failures and args.save_failures:
            args.save_failures.mkdir(parents=True, exist_ok=True)
            (args.save_failures / f"{tried:05d}.py").write_text(program, encoding="utf-8")
            (args.save_failures / f"{tried:05d}.txt").write_text(
                f"{path}\n{snippet.origin}\n" + "\n\n".join(f"{f.kind}: {f.detail}" for f in failures),
                encoding="utf-8")
        if tried % 250 == 0:
            print(f"... {tried} programs, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    elapsed = time.monotonic() - started
    print(f"\nprograms tried: {tried} ({len(sources)} files of {len(files)}, {len(pool)} snippets, seed {args.seed}, "
          f"{elapsed:.0f} s)")
    for key in ("ok", "crash", "prefilter-lost", "unparseable", "rejected", "not-idempotent", "outside-region",
                "input-unparseable",
                "with outside-region check", "skipped (file does not parse)"):
        print(f"  {key}: {counts[key]}")
    for key, count in sorted(by_snippet.items()):
        print(f"    {key}: {count}")
    return 1 if any(counts[kind] for kind in BUGS) else 0


if __name__ == "__main__":
    sys.exit(main())
