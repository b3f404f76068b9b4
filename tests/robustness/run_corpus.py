"""Ecosystem run: jaxlint check and --fix over real projects (not collected by pytest; a tool for engineers).

    .venv/bin/python tests/robustness/run_corpus.py .corpus [--unsafe-fixes] [-j N]

For every project folder under the corpus directory: ``jaxlint check`` (counts findings per code, internal errors
and tracebacks), then on a scratch copy ``jaxlint --fix`` (every changed file must parse again) and a second
``--fix`` (must change nothing). Prints one line per project and the totals; exits 1 on any crash or corruption.
"""
from __future__ import annotations

import argparse
import collections
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jaxlint.lint.engine import ParseFailure, parse

JAXLINT = [sys.executable, "-m", "jaxlint"]


def snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in (".py", ".ipynb")}


def run(args, cwd):
    return subprocess.run(JAXLINT + args, cwd=cwd, capture_output=True, text=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--unsafe-fixes", action="store_true")
    parser.add_argument("-j", "--jobs", default="2")
    args = parser.parse_args()
    totals = collections.Counter()
    codes_total = collections.Counter()
    problems = []
    for project in sorted(p for p in args.corpus.iterdir() if p.is_dir() and not p.name.startswith(".")):
        files = [p for p in project.rglob("*.py")]
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        check = run([".", "--isolated", "--no-cache", "-j", args.jobs, "--output-format", "json", "--exit-zero"],
                    project)
        crashed = check.returncode not in (0, 1) or "Traceback" in check.stderr or "jaxlint: error" in check.stderr
        try:
            findings = json.loads(check.stdout or "[]")
        except ValueError:
            findings, crashed = [], True
        codes = collections.Counter(item["code"] for item in findings)
        codes_total.update(codes)
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / project.name
            shutil.copytree(project, copy)
            before = snapshot(copy)
            extra = ["--unsafe-fixes"] if args.unsafe_fixes else []
            fix = run([".", "--isolated", "--no-cache", "-j", args.jobs, "--fix", "--exit-zero", *extra], copy)
            crashed = crashed or "Traceback" in fix.stderr or "jaxlint: error" in fix.stderr
            after = snapshot(copy)
            changed = [p for p in after if after[p] != before.get(p)]
            unparseable = []
            for path in changed:
                if path.suffix == ".py":
                    try:
                        parse(after[path].decode("utf-8", "replace"))
                    except ParseFailure as failure:
                        unparseable.append(f"{path.relative_to(copy)}: {failure.message}")
            again = run([".", "--isolated", "--no-cache", "-j", args.jobs, "--fix", "--exit-zero", *extra], copy)
            crashed = crashed or "Traceback" in again.stderr
            third = snapshot(copy)
            not_idempotent = [str(p.relative_to(copy)) for p in third if third[p] != after.get(p)]
        if crashed:
            problems.append(f"{project.name}: crash\n{check.stderr[-2000:]}\n{fix.stderr[-2000:]}")
        problems += [f"{project.name}: unparseable after fix: {u}" for u in unparseable]
        problems += [f"{project.name}: second --fix changed {p}" for p in not_idempotent]
        totals.update(projects=1, files=len(files), lines=lines, crashes=int(crashed), fixed_files=len(changed),
                      unparseable=len(unparseable), not_idempotent=len(not_idempotent))
        print(f"{project.name:40} {len(files):5} files {lines:7} lines  findings {dict(codes)}  fixed {len(changed)}"
              f"  crash {int(crashed)}  unparseable {len(unparseable)}  non-idempotent {len(not_idempotent)}",
              flush=True)
    print("TOTAL", dict(totals), dict(codes_total))
    for problem in problems:
        print("PROBLEM", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
