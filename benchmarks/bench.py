"""Benchmark jaxlint against parsers and ruff on folders of real code, all measured in the same sitting.

    .venv/bin/python benchmarks/bench.py FOLDER [FOLDER...] [--runs 3] [--jobs N] [--markdown] [--no-parsers]
    .venv/bin/python benchmarks/bench.py --one-file FILE [FILE...] [--runs 9] [--markdown]
    .venv/bin/python benchmarks/bench.py --big-file 5 [--runs 1] [--markdown]

Prints one table: jaxlint cold (empty cache), jaxlint warm (same cache, unchanged tree: a replay), jaxlint warm with
one file touched before each run (no replay: the results cache), jaxlint with one process,
``ast.parse`` of the same files, libcst's parser alone (``--no-parsers`` leaves these two out), and
``ruff check --select NPY201`` (a Rust reference) on the same files, notebooks included (the "x ruff" columns), and
on the ``.py`` files only; each row is the minimum wall time of ``--runs`` runs, with the
peak memory (max RSS of the process and of its largest worker). A last line compares the peak memory of
``jaxlint -j 1`` on a quarter of the files and on all of them (it should be flat in the number of files). Needs ruff
on PATH or next to this Python (``pip install ruff``).

``--one-file FILE [FILE...]`` measures pre-commit's case instead: ``jaxlint check FILE`` on each file alone (the
results cache empty: a changed file), then again with the cache that run filled (an unchanged file), with
``ruff check FILE`` beside it; the median and the minimum CPU time of ``--runs`` runs per file.

``--big-file MB`` measures one generated module of that size instead (``big_file.py``, written to a temporary folder
and deleted): libcst's parse of it alone, then ``jaxlint check`` and ``jaxlint --fix`` on the version with a finding
in every block and on the version with one finding.

jaxlint's bytecode is written first (``compileall``), so that every row measures jaxlint as installed.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(sys.executable).parent
SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", ".jaxlint_cache", "build", "dist", "node_modules"}


def python_files(folder: Path) -> list[Path]:
    found = []
    for directory, subdirectories, filenames in os.walk(folder):
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIP_DIRS and not d.startswith("."))
        found.extend(Path(directory) / name for name in sorted(filenames) if name.endswith(".py"))
    return found


def run_command(command: list[str]) -> tuple[float, int, float]:
    """Wall seconds, peak RSS in KiB (the process itself or its largest child, whichever is larger) and CPU seconds
    (user + system, the process and its workers: less sensitive than wall time to other work on the machine)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"command failed ({status}): {' '.join(command)}")
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def in_subprocess(code: str, files_list: Path) -> list[str]:
    return [sys.executable, "-c", code, str(files_list)]


AST_CODE = """
import ast, sys, warnings
warnings.simplefilter("ignore")
for path in open(sys.argv[1]).read().splitlines():
    try:
        ast.parse(open(path, 'rb').read())
    except (SyntaxError, ValueError):
        pass
"""
LIBCST_CODE = """
import sys, libcst
config = libcst.PartialParserConfig(python_version="3.12")
for path in open(sys.argv[1]).read().splitlines():
    try:
        libcst.parse_module(open(path, 'rb').read(), config=config)
    except Exception:
        pass
"""


def best(command_factory, runs: int, before=None) -> tuple[float, int, float]:
    """The minimum wall time, the maximum peak RSS and the minimum CPU time of ``runs`` runs."""
    times, peaks, cpus = [], [], []
    for _ in range(runs):
        if before is not None:
            before()
        elapsed, peak, cpu = run_command(command_factory())
        times.append(elapsed)
        peaks.append(peak)
        cpus.append(cpu)
    return min(times), max(peaks), min(cpus)


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}; "
            f"load average now {os.getloadavg()[0]:.1f}")


def print_table(header: tuple[str, ...], table: list[tuple[str, ...]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in table:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        for row in table:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)))


def jaxlint_command(module: bool) -> list[str]:
    return [str(HERE / "jaxlint")] if (HERE / "jaxlint").exists() and not module else [sys.executable, "-m", "jaxlint"]


def big_file_table(megabytes: float, runs: int, markdown: bool, module: bool = False) -> None:
    """libcst's parse, ``jaxlint check`` and ``jaxlint --fix`` (one process, no cache) on generated modules."""
    sys.path.insert(0, str(Path(__file__).parent))
    from big_file import generate

    jaxlint = jaxlint_command(module)
    workdir = Path(tempfile.mkdtemp(prefix="jaxlint-bench-big-"))
    common = ["--isolated", "--no-cache", "-j", "1", "--exit-zero"]
    table = []
    try:
        for kind in ("many", "one"):
            source = workdir / f"big_{kind}.py"
            source.write_text(generate(int(megabytes * 1_000_000), kind), encoding="utf-8")
            files_list = workdir / "files.txt"
            files_list.write_text(str(source))
            out = workdir / "out.json"
            run_command(jaxlint + [str(source), *common, "--output-format", "json", "-o", str(out)])
            findings = len(json.loads(out.read_text()))
            parse_time, parse_peak, parse_cpu = best(lambda: in_subprocess(LIBCST_CODE, files_list), runs)
            copy = workdir / f"fixed_{kind}.py"

            def fresh_copy():
                shutil.copyfile(source, copy)

            rows = [("libcst parse alone", parse_time, parse_peak, parse_cpu),
                    ("jaxlint check", *best(lambda: jaxlint + [str(source), *common], runs)),
                    ("jaxlint --fix", *best(lambda: jaxlint + [str(copy), *common, "--fix"], runs, fresh_copy))]
            for name, seconds, peak, cpu in rows:
                table.append((f"{name} ({kind})", f"{source.stat().st_size:,}", str(findings), f"{seconds:.1f}",
                              f"{seconds / parse_time:.2f}", f"{cpu:.1f}", f"{peak / 1024:.0f}"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(machine_line())
    print(f"generated modules of {megabytes:g} MB (benchmarks/big_file.py); minimum of {runs} runs")
    print_table(("run", "bytes", "findings", "seconds", "x libcst parse", "CPU s", "peak MiB"), table, markdown)


def one_file_table(files: list[Path], runs: int, markdown: bool, module: bool = False) -> None:
    """pre-commit's case: one process per file, as a hook that was given one changed file runs it."""
    import statistics

    jaxlint = jaxlint_command(module)
    ruff = str(HERE / "ruff") if (HERE / "ruff").exists() else shutil.which("ruff")
    workdir = Path(tempfile.mkdtemp(prefix="jaxlint-bench-one-"))
    cache = workdir / "cache"
    common = ["--isolated", "--exit-zero", "-q"]
    table = []
    try:
        for source in files:
            lines = source.read_bytes().count(b"\n")
            cold, warm, ruffs = [], [], []
            for _ in range(runs):
                shutil.rmtree(cache, ignore_errors=True)
                cold.append(run_command(jaxlint + [str(source), "--cache-dir", str(cache), *common])[2])
                warm.append(run_command(jaxlint + [str(source), "--cache-dir", str(cache), *common])[2])
                if ruff:
                    ruffs.append(run_command([ruff, "check", "--select", "NPY201", "--no-cache", "--isolated",
                                              "--exit-zero", "-q", str(source)])[2])
            for name, cpus in (("jaxlint check, empty cache", cold), ("jaxlint check, cache filled", warm),
                               ("ruff check", ruffs)):
                if cpus:
                    table.append((source.name, str(lines), name, f"{statistics.median(cpus):.3f}",
                                  f"{min(cpus):.3f}"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(machine_line())
    print(f"one file per process; median and minimum CPU seconds (user + system) of {runs} runs")
    print_table(("file", "lines", "run", "CPU s median", "CPU s min"), table, markdown)


def compile_jaxlint() -> None:
    """Write the bytecode of the jaxlint the commands import, as an installed one has it. Without it (an editable
    install under ``PYTHONDONTWRITEBYTECODE=1``) every process compiles each changed module again, which adds tens
    of milliseconds per process to jaxlint's rows (and more to a tree that was never compiled)."""
    import compileall

    where = subprocess.run([sys.executable, "-c", "import jaxlint, os; print(os.path.dirname(jaxlint.__file__))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    compileall.compile_dir(where, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", type=Path, nargs="*")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="jaxlint -j for the parallel rows (default: cores)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--no-parsers", action="store_true", help="leave out the ast.parse and libcst rows")
    parser.add_argument("--py-only", action="store_true",
                        help="leave the notebooks out on both sides (jaxlint --extend-exclude '*.ipynb'); the "
                             "x ruff columns then divide by ruff's .py-only row")
    parser.add_argument("--no-serial", action="store_true",
                        help="leave out the -j 1 row and the peak-memory line (minutes on a large corpus)")
    parser.add_argument("--one-file", action="store_true",
                        help="the FOLDER arguments are files: measure `jaxlint check FILE` on each alone")
    parser.add_argument("--big-file", type=float, metavar="MB", help="measure one generated module of MB megabytes")
    parser.add_argument("--module", action="store_true",
                        help="run `python -m jaxlint` rather than the console script (to measure another checkout "
                             "with PYTHONPATH=<its src>, whose script may differ)")
    args = parser.parse_args()
    compile_jaxlint()
    if args.big_file:
        big_file_table(args.big_file, args.runs, args.markdown, args.module)
        return
    if args.one_file:
        one_file_table([path.resolve() for path in args.folders], args.runs, args.markdown, args.module)
        return
    if not args.folders:
        parser.error("give at least one FOLDER (or --big-file MB)")
    folders = [folder.resolve() for folder in args.folders]
    files = [path for folder in folders for path in python_files(folder)]
    paths = list(map(str, folders))
    lines = 0
    for path in files:
        with open(path, "rb") as handle:
            lines += handle.read().count(b"\n")
    jaxlint = jaxlint_command(args.module)
    ruff = str(HERE / "ruff") if (HERE / "ruff").exists() else shutil.which("ruff")
    workdir = Path(tempfile.mkdtemp(prefix="jaxlint-bench-"))
    files_list = workdir / "files.txt"
    files_list.write_text("\n".join(map(str, files)))
    cache = workdir / "cache"
    common = ["--isolated", "--exit-zero", "--output-format", "json", "-o", str(workdir / "out.json")]
    if args.py_only:
        common += ["--extend-exclude", "*.ipynb"]
    jobs = ["-j", str(args.jobs)] if args.jobs else []

    def clear_cache():
        shutil.rmtree(cache, ignore_errors=True)

    rows = []
    rows.append(("jaxlint cold", *best(lambda: jaxlint + [*paths, "--cache-dir", str(cache), *jobs, *common],
                                       args.runs, clear_cache)))
    run_command(jaxlint + [*paths, "--cache-dir", str(cache), *jobs, *common])  # fill the cache
    run_command(jaxlint + [*paths, "--cache-dir", str(cache), *jobs, *common])  # the second run records a replay
    rows.append(("jaxlint warm", *best(lambda: jaxlint + [*paths, "--cache-dir", str(cache), *jobs, *common],
                                       args.runs)))

    def touch_one_file():  # a changed stamp: no replay, the results cache hashes that file (docs/performance.md)
        os.utime(files[0])

    rows.append(("jaxlint warm, 1 file touched", *best(
        lambda: jaxlint + [*paths, "--cache-dir", str(cache), *jobs, *common], args.runs, touch_one_file)))
    if not args.no_serial:
        rows.append(("jaxlint -j 1 (no cache)", *best(
            lambda: jaxlint + [*paths, "--no-cache", "-j", "1", *common], args.runs)))
    if not args.no_parsers:
        rows.append(("ast.parse", *best(lambda: in_subprocess(AST_CODE, files_list), args.runs)))
        rows.append(("libcst parse alone", *best(lambda: in_subprocess(LIBCST_CODE, files_list), args.runs)))
    if ruff:  # the first ruff row reads the same files as jaxlint (.py and notebooks): the "x ruff" columns
        rows.append(("ruff --select NPY201", *best(
            lambda: [ruff, "check", "--select", "NPY201", "--no-cache", "--isolated", "--exit-zero", "-q",
                     *paths], args.runs)))
        rows.append(("ruff, .py only", *best(
            lambda: [ruff, "check", "--select", "NPY201", "--no-cache", "--isolated", "--exit-zero", "-q",
                     "--extend-exclude", "*.ipynb", *paths], args.runs)))

    quarter = files[: max(1, len(files) // 4)]
    if not args.no_serial:
        _, peak_quarter, _ = run_command(jaxlint + [*map(str, quarter), "--no-cache", "-j", "1", *common])
        _, peak_all, _ = run_command(jaxlint + [*paths, "--no-cache", "-j", "1", *common])
    shutil.rmtree(workdir, ignore_errors=True)

    reference = "ruff, .py only" if args.py_only else "ruff --"
    ruff_time, ruff_cpu = next(((t, c) for name, t, _, c in rows if name.startswith(reference)), (None, None))
    print(machine_line())
    print(f"corpus: {', '.join(paths)} ({len(files)} files, {lines} lines); minimum of {args.runs} runs")
    header = ("tool", "files", "lines", "seconds", "lines/s", "x ruff", "CPU s", "CPU x ruff", "peak MiB")
    table = []
    for name, seconds, peak, cpu in rows:
        ratio = f"{seconds / ruff_time:.1f}" if ruff_time else "-"
        cpu_ratio = f"{cpu / ruff_cpu:.1f}" if ruff_cpu else "-"
        table.append((name, str(len(files)), str(lines), f"{seconds:.2f}", f"{lines / seconds:,.0f}", ratio,
                      f"{cpu:.2f}", cpu_ratio, f"{peak / 1024:.0f}"))
    print_table(header, table, args.markdown)
    if not args.no_serial:
        print(f"peak memory, jaxlint -j 1: {peak_quarter / 1024:.0f} MiB on {len(quarter)} files, "
              f"{peak_all / 1024:.0f} MiB on {len(files)} files")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main()
