"""Interleaved A/B timing of two checkouts, for a machine whose speed drifts between minutes (a shared VM).

    .venv/bin/python benchmarks/ab.py --before OTHER_CHECKOUT/src --pairs 5 FOLDER [FOLDER...]

``bench.py`` measures one checkout row after row; on a machine whose speed drifts, a comparison of two such tables
can show a change that is only the drift. Here every pair runs the start (``--before``, with ``PYTHONPATH``) and
this checkout back to back, for each of: cold (an empty ``--cache-dir``), warm (the same cache, a third run: a
replay where the checkout has one) and ``-j 1 --no-cache``. Then ruff (``--select NPY201 --no-cache``) on the same
files (notebooks included) and on the ``.py`` files only, in the same pair (the ratio to ruff is of runs minutes
apart at most). Prints the minimum and median wall and CPU seconds of each, the peak memory, cold over ruff by
minimums, and cold CPU over ruff pair by pair (each pair's jaxlint run over the ruff runs right after it: the spread of
these ratios is the sitting's noise, which a ratio of minimums taken minutes apart hides). Both checkouts' bytecode is written first, as an installed jaxlint has it (``bench.compile_jaxlint``).
"""
from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(sys.executable).parent
THIS_SOURCE = str(Path(__file__).resolve().parents[1] / "src")
RUFF_RUNS_PER_PAIR = 2  # each pair ends with this many ruff runs per row (the ratios pair by pair read them)


def measure(command: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, workers included) and peak MiB of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def summary(label: str, values: list[tuple[float, float, float]]) -> str:
    walls, cpus, peaks = zip(*values)
    return (f"{label:22} wall min {min(walls):6.2f} med {statistics.median(walls):6.2f}   "
            f"CPU min {min(cpus):6.2f} med {statistics.median(cpus):6.2f}   peak {max(peaks):4.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--before", required=True, help="the other checkout's src folder")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--py-only", action="store_true",
                        help="leave the notebooks out of jaxlint's runs too, and divide by ruff's .py-only row")
    parser.add_argument("--with-config", action="store_true",
                        help="read each project's configuration and pins (not --isolated), as a user's run does")
    parser.add_argument("--no-serial", action="store_true", help="leave out the -j 1 row")
    args = parser.parse_args()
    sides = {"before": args.before, "after": THIS_SOURCE}
    for source in sides.values():
        compileall.compile_dir(str(Path(source) / "jaxlint"), quiet=1)
    ruff = str(HERE / "ruff") if (HERE / "ruff").exists() else shutil.which("ruff")
    ruff_rows = {"ruff, same files": [], "ruff, .py only": ["--extend-exclude", "*.ipynb"]}
    workdir = Path(tempfile.mkdtemp(prefix="jaxlint-ab-"))
    rows = ("cold", "warm") if args.no_serial else ("cold", "warm", "-j 1")
    results: dict[tuple[str, str], list] = {(side, row): [] for side in sides for row in rows}
    scope = (["--extend-exclude", "*.ipynb"] if args.py_only else []) + ([] if args.with_config else ["--isolated"])
    ruff_results: dict[str, list] = {label: [] for label in ruff_rows}
    for _ in range(args.pairs):
        for side, source in sides.items():
            env = dict(os.environ, PYTHONPATH=source)
            cache = workdir / f"cache-{side}"
            shutil.rmtree(cache, ignore_errors=True)

            def jaxlint(*options: str, output: str = str(workdir / f"{side}.json")) -> list[str]:
                return [sys.executable, "-m", "jaxlint", "check", *args.folders, *options, *scope,
                        "--exit-zero", "--output-format", "json", "-o", output]

            results[(side, "cold")].append(measure(jaxlint("--cache-dir", str(cache)), env))
            measure(jaxlint("--cache-dir", str(cache)), env)  # the second run may record a replay
            results[(side, "warm")].append(measure(jaxlint("--cache-dir", str(cache)), env))
            if "-j 1" in rows:
                results[(side, "-j 1")].append(measure(jaxlint("--no-cache", "-j", "1"), env))
        for label, extra in ruff_rows.items() if ruff else ():
            command = [ruff, "check", "--select", "NPY201", "--no-cache", "--isolated", "--exit-zero", "-q", *extra,
                       *args.folders]
            ruff_results[label] += [measure(command) for _ in range(RUFF_RUNS_PER_PAIR)]
    for (side, row), values in results.items():
        print(summary(f"jaxlint {side} {row}", values))
    for label, values in ruff_results.items():
        if values:
            print(summary(label, values))
    if ruff:
        reference = ruff_results["ruff, .py only" if args.py_only else "ruff, same files"]
        ruff_wall = min(wall for wall, _, _ in reference)
        ruff_cpu = min(cpu for _, cpu, _ in reference)
        for side in sides:
            for row in ("cold", "warm"):
                wall = min(wall for wall, _, _ in results[(side, row)])
                cpu = min(cpu for _, cpu, _ in results[(side, row)])
                print(f"jaxlint {side} {row} / ruff (minimums): wall {wall / ruff_wall:.1f}x, CPU {cpu / ruff_cpu:.1f}x")
        # Each pair's cold run over the same pair's ruff (the faster of its two runs): runs seconds apart, so the
        # machine's drift between minutes cancels out of each ratio; their spread is the sitting's noise.
        per_pair = RUFF_RUNS_PER_PAIR
        for side in sides:
            ratios = sorted(cold[1] / min(cpu for _, cpu, _ in reference[pair * per_pair:(pair + 1) * per_pair])
                            for pair, cold in enumerate(results[(side, "cold")]))
            print(f"jaxlint {side} cold / ruff, CPU, pair by pair: min {ratios[0]:.1f}x, "
                  f"median {statistics.median(ratios):.1f}x, max {ratios[-1]:.1f}x")
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
