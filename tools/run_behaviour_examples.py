#!/usr/bin/env python3
"""Run the example of every row of ``rules/behaviour.toml`` on both sides of its change, and record what it printed.

Each row's ``example`` runs with ``$JAXLINT_JAXENVS/jax-<example_old_version>/bin/python`` and the same for
``example_new_version`` (on the CPU), or in the environments ``example_old_env`` and ``example_new_env`` that the row
names (a flax or optax row: ``flax-0.7.0-jax-0.4.20``, both sides on one JAX); its last printed line is the result.
``--write`` records the results in the rows (``example_old_result``, ``example_new_result``, ``executed = true``);
without it, the tool compares them with the recorded ones and exits 1 on a difference. A row whose environments are
missing is skipped (``executed`` stays as it is). The two results of an executed row must differ: the example shows the change.

Usage: ``JAXLINT_JAXENVS=/work/jaxenvs-shared python tools/run_behaviour_examples.py [--write]``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FILE = REPO / "rules" / "behaviour.toml"


def run_example(python: Path, code: str) -> str:
    """The last line the example printed, or ``FAILED: <last line of stderr>``."""
    env = {"JAX_PLATFORMS": "cpu", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    result = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if result.returncode != 0:
        return "FAILED: " + ((result.stderr.strip().splitlines() or [""])[-1])[:150]
    return (result.stdout.strip().splitlines() or [""])[-1]


def env_names(row: dict) -> tuple[str, str]:
    """The folders of ``$JAXLINT_JAXENVS`` that run the row's example: the ones it names, else ``jax-<version>``."""
    return (row.get("example_old_env") or f"jax-{row['example_old_version']}",
            row.get("example_new_env") or f"jax-{row['example_new_version']}")


def run_rows(rows: list[dict], envs: Path) -> list[tuple[str, str] | None]:
    found: list[tuple[str, str] | None] = []
    for row in rows:
        pythons = [envs / name / "bin" / "python" for name in env_names(row)]
        if not all(python.exists() for python in pythons):
            found.append(None)
            continue
        found.append((run_example(pythons[0], row["example"]), run_example(pythons[1], row["example"])))
    return found


def write(text: str, results: list[tuple[str, str] | None]) -> str:
    """``text`` with each executed row's results and ``executed = true`` (the n-th ``[[change]]`` block is row n)."""
    blocks = re.split(r"(?m)^(?=\[\[change\]\]$)", text)
    head, blocks = blocks[0], blocks[1:]
    assert len(blocks) == len(results), "one result per [[change]] block"
    for index, result in enumerate(results):
        if result is None:
            continue
        old, new = result
        if not re.search(r"(?m)^example_old_result = ", blocks[index]):  # a new row: its result lines go first
            blocks[index] = re.sub(r"(?m)^executed = ", "example_old_result = \"\"\nexample_new_result = \"\"\nexecuted = ",
                                   blocks[index])
        block = re.sub(r"(?m)^example_old_result = .*$", lambda _: f"example_old_result = {json.dumps(old)}",
                       blocks[index])
        block = re.sub(r"(?m)^example_new_result = .*$", lambda _: f"example_new_result = {json.dumps(new)}", block)
        blocks[index] = re.sub(r"(?m)^executed = .*$", "executed = true", block)
    return head + "".join(blocks)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--envs", type=Path, default=Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs")))
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    text = args.file.read_text()
    rows = tomllib.loads(text)["change"]
    results = run_rows(rows, args.envs)
    problems = []
    for row, result in zip(rows, results):
        if result is None:
            print(f"{row['api']}: skipped (no env {' or '.join(env_names(row))})")
            continue
        print(f"{row['api']}: {row['example_old_version']} -> {result[0]!r}; "
              f"{row['example_new_version']} -> {result[1]!r}")
        if result[0] == result[1]:
            problems.append(f"{row['api']}: the example prints the same on both sides")
        if not args.write and row.get("executed") and (row["example_old_result"], row["example_new_result"]) != result:
            recorded = (row["example_old_result"], row["example_new_result"])
            problems.append(f"{row['api']}: recorded {recorded}, got {result}")
    if args.write:
        args.file.write_text(write(text, results))
    print("\n".join(problems) or f"{sum(r is not None for r in results)} of {len(rows)} rows executed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
