"""Where a cold ``jaxlint check`` spends its CPU time, by stage, in one process (``-j 1``, an empty cache folder).

    .venv/bin/python benchmarks/profile_stages.py FOLDER [FOLDER...] [--markdown] [--top 15] [--json OUT]
        [--extend-select JAX203,JAX206]

Each stage's time is exclusive (a stage's time does not include the stages it calls), from ``time.process_time``
around the functions that do the stage's work, so the stages add up to the run (the rest is "other": start-up,
discovery, settings, output). Also counts the files the check parsed with libcst, those of them that had no finding
(the work the ``ast`` path should have saved), and which rules were left for those files after the gates. A
profile, not a benchmark: the wrappers cost a little; compare stages within one run, and CPU totals with
``bench.py``.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


class Stages:
    """Exclusive CPU time per stage: a stack of (stage, start, time of the children)."""

    def __init__(self) -> None:
        self.totals: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.stack: list[list] = []

    def wrap(self, owner, attribute: str, stage: str) -> None:
        original = getattr(owner, attribute)
        stages = self

        def timed(*args, **kwargs):
            stages.stack.append([stage, time.process_time(), 0.0])
            try:
                return original(*args, **kwargs)
            finally:
                name, start, children = stages.stack.pop()
                spent = time.process_time() - start
                stages.totals[name] += spent - children
                stages.calls[name] += 1
                if stages.stack:
                    stages.stack[-1][2] += spent

        timed.__wrapped__ = original  # type: ignore[attr-defined]
        setattr(owner, attribute, timed)


class LibcstFiles:
    """Per top-level ``lint_source`` call (one file, or one notebook cell set): did it parse with libcst, which
    rules were left after the gates, how many findings."""

    def __init__(self) -> None:
        self.depth = 0
        self.parsed = False
        self.rules: tuple[str, ...] = ()
        self.files = 0
        self.with_libcst = 0
        self.without_finding = 0
        self.bytes_without_finding = 0
        self.time_without_finding = 0.0
        self.rules_without_finding: Counter[str] = Counter()
        self.rules_with_libcst: Counter[str] = Counter()
        # Per libcst file without a finding, what kept it from the ``ast`` path: each rule left that does not
        # decide from ``ast``, or "Undecidable" when every rule left does (one raised it, or a focus plan was used).
        self.blockers_without_finding: Counter[str] = Counter()
        self.deciding: dict[str, bool] = {}
        # Every file parsed with libcst: (path, findings, rules left, the last ``Undecidable`` raised for it).
        self.listed: list[tuple[str, int, tuple[str, ...], str]] = []
        self.undecidable = ""

    def install(self, engine) -> None:
        from jaxlint.lint import ast_findings

        watch = self

        def recorded_init(exception, *args) -> None:
            Exception.__init__(exception, *args)
            watch.undecidable = str(args[0]) if args else ""

        ast_findings.Undecidable.__init__ = recorded_init  # type: ignore[method-assign]
        lint_source, parse, prefiltered = engine.lint_source, engine.parse, engine._prefiltered

        def watched_lint(source, *args, **kwargs):
            top = watch.depth == 0
            if top:
                watch.parsed, watch.rules, watch.undecidable = False, (), ""
                started = time.process_time()
            watch.depth += 1
            try:
                result = lint_source(source, *args, **kwargs)
            finally:
                watch.depth -= 1
            if top:
                watch.files += 1
                if watch.parsed:
                    watch.listed.append((str(args[0]) if args else "", len(result.diagnostics), watch.rules,
                                         watch.undecidable))
                    watch.with_libcst += 1
                    watch.rules_with_libcst.update(watch.rules)
                    if not result.diagnostics:
                        watch.without_finding += 1
                        watch.bytes_without_finding += len(source)
                        watch.time_without_finding += time.process_time() - started
                        watch.rules_without_finding.update(watch.rules)
                        blockers = [code for code in watch.rules if not watch.deciding.get(code)]
                        watch.blockers_without_finding.update(blockers or ["(all decide from ast: Undecidable)"])
            return result

        def watched_parse(*args, **kwargs):
            watch.parsed = True
            return parse(*args, **kwargs)

        def watched_prefiltered(*args, **kwargs):
            rules, facts = prefiltered(*args, **kwargs)
            if watch.depth == 1 and not watch.rules:
                watch.rules = tuple(rule.code for rule in rules)
                for rule in rules:
                    watch.deciding[rule.code] = bool(getattr(rule, "decides_from_ast", False))
            return rules, facts

        engine.lint_source, engine.parse, engine._prefiltered = watched_lint, watched_parse, watched_prefiltered


def instrument() -> tuple[Stages, LibcstFiles]:
    import ast

    import libcst

    from jaxlint.lint import ast_findings, context, engine, focus, prefilter, text_gate
    from jaxlint.project import cache, files, index, module_facts
    from jaxlint.run import runner, sources

    files_seen = LibcstFiles()
    files_seen.install(engine)  # first, so that the stage timers sit inside its wrappers
    stages = Stages()
    stages.wrap(ast, "parse", "ast.parse")
    stages.wrap(engine, "reading", "words (prefilter)")  # the scan and text facts (each read lazily)
    stages.wrap(engine, "rules_matching_scan", "words (prefilter)")
    stages.wrap(engine, "_prefiltered", "text gate")  # its own time: the rules' may_match_text calls
    stages.wrap(engine, "gate", "ast gate (facts, may_match_ast)")
    stages.wrap(ast_findings, "decide", "ast decide")
    stages.wrap(focus, "plan", "focus plan")
    stages.wrap(focus, "lint_focused", "focus cut")
    stages.wrap(engine, "parse", "libcst parse")
    stages.wrap(engine, "FileContext", "libcst rule visit")
    stages.wrap(context.BatchedVisitor, "run", "libcst rule visit")
    stages.wrap(engine, "_diagnostics_from_reports", "libcst diagnostics")
    stages.wrap(engine, "file_suppression", "read, decode, hash, results")
    stages.wrap(runner, "process_file", "read, decode, hash, results")
    stages.wrap(runner, "_process_one", "read, decode, hash, results")
    stages.wrap(runner, "content_hash", "read, decode, hash, results")
    stages.wrap(runner, "_floor_uses", "effective-floor uses (in the worker)")
    stages.wrap(runner, "module_facts", "module facts (project index)")
    stages.wrap(runner, "build_index", "project index build")
    stages.wrap(runner._ColdFacts, "digest", "project index digest")
    stages.wrap(files, "project_modules", "discovery (project modules)")
    from jaxlint.run import effective_floor
    stages.wrap(effective_floor, "effective_floors", "effective floors (serial, after the lint)")
    del libcst, cache, files, index, module_facts, prefilter, sources, text_gate
    return stages, files_seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--top", type=int, default=15, help="rules listed for the libcst files without a finding")
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON")
    parser.add_argument("--extend-exclude", default="*.ipynb",
                        help="what to leave out (default: notebooks, so that ruff's side reads the same files)")
    parser.add_argument("--isolated", action="store_true",
                        help="ignore configuration files and pins, as bench.py and ab.py run jaxlint by default")
    parser.add_argument("--extend-select", help="opt-in rules to add (their libcst files are counted too)")
    options = parser.parse_args()
    import libcst  # noqa: F401 - for the libcst stages' wrappers; a check never imports it, so it is not counted

    started = time.process_time()
    stages, files_seen = instrument()
    from jaxlint.rules import all_rules

    all_rules()  # as a parallel run's warm-up does before it forks: the rule modules and the catalogue they read
    stages.totals["start-up (imports of the engine and rules, the catalogue)"] += time.process_time() - started
    from jaxlint.ui import cli as cli_module
    from jaxlint.ui.cli import main as cli

    cli_module._collect_garbage_rarely()  # as the ``jaxlint`` command sets the cycle collector (``entry_point``)

    with tempfile.TemporaryDirectory() as cache_dir:
        arguments = ["check", *options.folders, "-j", "1", "--cache-dir", cache_dir, "--exit-zero",
                     "--output-format", "json", "-o", str(Path(cache_dir) / "out.json")]
        if options.isolated:
            arguments.append("--isolated")
        if options.extend_exclude:
            arguments += ["--extend-exclude", options.extend_exclude]
        if options.extend_select:
            arguments += ["--extend-select", options.extend_select]
        try:
            cli.main(arguments, standalone_mode=False)
        except SystemExit:
            pass
        findings = len(json.loads((Path(cache_dir) / "out.json").read_text()))
    total = time.process_time() - started
    rows = sorted(stages.totals.items(), key=lambda item: -item[1])
    other = total - sum(stages.totals.values())
    report = {
        "cpu_seconds": round(total, 3), "findings": findings, "files_linted": files_seen.files,
        "files_with_libcst": files_seen.with_libcst, "libcst_files_without_finding": files_seen.without_finding,
        "libcst_bytes_without_finding": files_seen.bytes_without_finding,
        "libcst_seconds_without_finding": round(files_seen.time_without_finding, 3),
        "stages": {name: round(seconds, 3) for name, seconds in rows} | {"other": round(other, 3)},
        "rules_left_without_finding": dict(files_seen.rules_without_finding.most_common()),
        "rules_left_with_libcst": dict(files_seen.rules_with_libcst.most_common()),
        "blockers_without_finding": dict(files_seen.blockers_without_finding.most_common()),
        "libcst_files": [{"path": path, "findings": count, "rules": list(rules), "undecidable": reason}
                         for path, count, rules, reason in files_seen.listed],
    }
    if options.json:
        options.json.write_text(json.dumps(report, indent=1) + "\n")
    if options.markdown:
        print(f"{total:.2f} CPU-s, {files_seen.files} files linted, {findings} findings\n")
        print("| stage | CPU s | share | calls |\n|---|---|---|---|")
        for name, seconds in rows + [("other (start-up, discovery, settings, output)", other)]:
            print(f"| {name} | {seconds:.2f} | {100 * seconds / total:.1f}% | {stages.calls.get(name, '')} |")
        print(f"\nParsed with libcst: {files_seen.with_libcst} files; {files_seen.without_finding} of them with no "
              f"finding ({files_seen.bytes_without_finding:,} characters, {files_seen.time_without_finding:.2f} "
              "CPU-s from their lint's start to its end)\n")
        print("| rule left after the gates | libcst files without a finding | all libcst files |\n|---|---|---|")
        for code, count in files_seen.rules_without_finding.most_common(options.top):
            print(f"| {code} | {count} | {files_seen.rules_with_libcst[code]} |")
        print("\n| what sent a libcst file without a finding (a rule left that does not decide from ast) | files |"
              "\n|---|---|")
        for code, count in files_seen.blockers_without_finding.most_common(options.top):
            print(f"| {code} | {count} |")
    else:
        json.dump(report, sys.stdout, indent=1)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
