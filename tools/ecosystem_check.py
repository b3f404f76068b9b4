"""The ecosystem check: jaxlint over every project of a corpus folder, then what appeared or vanished between two runs.

    python tools/ecosystem_check.py run .corpus OUT [-- extra jaxlint options]
    python tools/ecosystem_check.py diff BEFORE AFTER

``run`` lints each project from its own folder (as its users would: the pins there set the version range) with
``--output-format json --no-cache --exit-zero``, writing ``OUT/<project>.json`` and ``OUT/<project>.stderr``.
``diff`` prints findings per rule before and after, and every finding that appeared or vanished (by file, position,
code and message), so each can be read.
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path


def run(corpus: Path, out: Path, extra: list[str]) -> int:
    out.mkdir(parents=True, exist_ok=True)
    projects = sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not projects:
        print(f"no project folders under {corpus}", file=sys.stderr)
        return 2
    for project in projects:
        proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", ".", "--output-format", "json", "--no-cache",
                               "--exit-zero", *extra], cwd=project, capture_output=True, text=True)
        (out / f"{project.name}.json").write_text(proc.stdout)
        (out / f"{project.name}.stderr").write_text(proc.stderr)
        try:
            count = len(json.loads(proc.stdout))
        except ValueError:
            count = "unreadable output"
        print(f"{project.name}: {count} findings, exit {proc.returncode}" + (", stderr!" if proc.stderr else ""))
    return 0


def _findings(folder: Path) -> dict[str, list[dict]]:
    return {f.stem: json.loads(f.read_text() or "[]") for f in sorted(folder.glob("*.json"))}


def _key(project: str, item: dict) -> tuple:
    return (project, item["filename"].split(project, 1)[-1], item.get("cell"), item["location"]["row"],
            item["location"]["column"], item["code"], item["message"])


def diff(before: Path, after: Path) -> int:
    old, new = _findings(before), _findings(after)
    counts = collections.defaultdict(lambda: [0, 0])
    fixable = collections.defaultdict(lambda: [0, 0, 0, 0])
    old_keys, new_keys = set(), set()
    for side, data, keys in ((0, old, old_keys), (1, new, new_keys)):
        for project, items in data.items():
            for item in items:
                counts[item["code"]][side] += 1
                keys.add(_key(project, item))
                safe = item["fix"] is not None and item["fix"]["applicability"] == "safe"
                fixable[project][2 * side] += safe
                fixable[project][2 * side + 1] += bool(item.get("fix_withheld"))
    print("rule      before  after")
    for code in sorted(counts):
        print(f"{code:8} {counts[code][0]:7} {counts[code][1]:6}")
    print(f"{'total':8} {sum(c[0] for c in counts.values()):7} {sum(c[1] for c in counts.values()):6}")
    print("\nproject: safe fixes before/after, withheld before/after")
    for project in sorted(fixable):
        b_safe, b_held, a_safe, a_held = fixable[project]
        if any(fixable[project]):
            print(f"  {project}: {b_safe} -> {a_safe} safe; {b_held} -> {a_held} withheld")
    for title, keys in (("vanished", old_keys - new_keys), ("appeared", new_keys - old_keys)):
        print(f"\n{title}: {len(keys)}")
        for key in sorted(keys, key=str):
            print("  " + " ".join(str(k) for k in key))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run")
    run_parser.add_argument("corpus", type=Path)
    run_parser.add_argument("out", type=Path)
    run_parser.add_argument("extra", nargs="*")
    diff_parser = sub.add_parser("diff")
    diff_parser.add_argument("before", type=Path)
    diff_parser.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "run":
        return run(args.corpus.resolve(), args.out.resolve(), args.extra)
    return diff(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
