#!/usr/bin/env python3
"""Generate ``rules/generated.toml`` from JAX's own wheels.

For every ``jax`` release on the package index (0.1.x to the newest) this script:

1. downloads the (pure-Python) wheel, or the source archive of releases before 0.4.14, with
   ``pip download --no-deps jax==V`` into a cache folder (``tools/.wheels``);
2. reads, statically (``ast``, nothing is imported), every public module of the wheel: its public names, its
   ``_deprecations`` table (``name -> (message, object or None)``), a module-level ``DeprecationWarning``, and the
   config flags defined anywhere in the package (``jax/_src/config.py``, old ``flags.DEFINE_*`` calls, the
   host_callback options...), and the signature of every public function;
3. diffs consecutive releases to find, per symbol / module / config flag / function parameter, when it was
   deprecated (first release whose table returns the object with a warning) and removed (first release where it
   raises or is gone);
4. extracts the replacement named in JAX's own message, checks that it exists, since which release, and whether it
   is the very same object as the deprecated name (statically, by following imports to the defining module, and at
   run time by importing both names in a venv of the last release where both exist, when such a venv is available;
   ``--build-venvs`` creates the missing ones, Python 3.12 + CPU jaxlib from PyPI, one at a time).
5. writes the first release of every public name of the newest release (``first_release.py``) to
   ``rules/first_release.toml``.

Supporting a new JAX release is: ``python tools/generate_catalogue.py --jaxenvs DIR --build-venvs`` (see
``docs/catalogue.md``).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import sys
import time
from pathlib import Path

from catalogue_gen.exports import load_exports
from catalogue_gen.library_signatures import LIBRARIES, library_rows
from catalogue_gen.first_release import first_releases, load_names_snapshot, write_first_releases
from catalogue_gen.module_advice import add_module_advice
from catalogue_gen.name_diff import diff
from catalogue_gen.parameter_diff import parameter_diff
from catalogue_gen.refresh import refresh
from catalogue_gen.releases import download, list_versions, vkey
from catalogue_gen.runtime_check import previous_runtime_answers, runtime_check
from catalogue_gen.signature_diff import signature_diff
from catalogue_gen.signature_snapshot import load_signature_snapshot
from catalogue_gen.snapshot import load_snapshot
from catalogue_gen.successors import add_successors
from catalogue_gen.toml_writer import write, write_signatures

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CACHE = REPO / "tools" / ".wheels"
DEFAULT_OUT = REPO / "rules" / "generated.toml"
# The signature rows start where the project's supported range does: jax 0.4.1 (see docs/catalogue.md).
SIGNATURES_FIRST = "0.4.1"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=os.environ.get("JAXLINT_PIP_PYTHON", sys.executable),
                    help="interpreter whose pip downloads the wheels (needs a Python that sees every release)")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="wheel and snapshot cache (gitignored)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--versions", nargs="*", help="explicit versions (default: every release >= 0.4.20)")
    ap.add_argument("--jaxenvs", type=Path, default=Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs")),
                    help="folder of jax-<version> venvs used to confirm 'same object' at run time")
    ap.add_argument("--build-venvs", action="store_true",
                    help="create the missing jax-<version> venvs the run-time check needs (Python 3.12, CPU jaxlib "
                         "from PyPI, one pip at a time; ~600 MB each) in --jaxenvs before checking")
    ap.add_argument("--first-releases-out", type=Path,
                    help="where the first release of each public name is written (default: first_release.toml "
                         "beside --out)")
    ap.add_argument("--only-first-releases", action="store_true",
                    help="write only --first-releases-out (no diffs, no run-time check, generated.toml untouched)")
    ap.add_argument("--only-signatures", action="store_true",
                    help="write only --signatures-out: the methods and constructors of public classes, the "
                         "required parameters and defaults of functions, diffed from 0.4.1 on (no run-time check)")
    ap.add_argument("--libraries", nargs="*", default=list(LIBRARIES), choices=LIBRARIES,
                    help="with --only-signatures: the other libraries whose releases are read too (default: all; "
                         "see catalogue_gen/library_signatures.py)")
    ap.add_argument("--offline", action="store_true",
                    help="with --only-signatures: read only the library wheels already in --cache (no index)")
    ap.add_argument("--signatures-out", type=Path,
                    help="where the signature rows are written (default: signatures_generated.toml beside --out)")
    ap.add_argument("--only-successors", action="store_true",
                    help="add the public successors and per-family advice to the rows of --out (no diffs, no "
                         "run-time check; see catalogue_gen/refresh.py)")
    args = ap.parse_args(argv)
    if args.only_successors:
        found, advised = refresh(args.python, args.cache, args.out,
                                 args.jaxenvs if args.jaxenvs.exists() else None)
        print(f"{found} successors, {advised} advice -> {args.out}")
        return 0
    t0 = time.perf_counter()
    versions = sorted(args.versions, key=vkey) if args.versions else list_versions(args.python)
    if args.only_signatures:
        return signatures(args, versions, t0)
    wheels = {v: download(args.python, args.cache, v) for v in versions}
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        load = load_names_snapshot if args.only_first_releases else load_snapshot
        futures = {v: pool.submit(load, args.cache, v, wheels[v]) for v in versions}
        snaps = {v: futures[v].result() for v in versions}
    t1 = time.perf_counter()
    first_releases_out = args.first_releases_out or args.out.parent / "first_release.toml"
    write_first_releases(first_releases(versions, snaps), versions, first_releases_out)
    if args.only_first_releases:
        print(f"{len(versions)} releases {versions[0]}..{versions[-1]} -> {first_releases_out} "
              f"({t1 - t0:.1f}s)")
        return 0
    entries = diff(versions, snaps)
    # names JAX's messages give no replacement for: the public same-origin successor, else the family's advice
    exported = load_exports(args.cache, versions[-1], wheels[versions[-1]])
    successors = add_successors(entries, versions, snaps, exported)
    advised = add_module_advice(entries)
    previous = previous_runtime_answers(args.out)
    built = runtime_check(entries, args.jaxenvs if args.jaxenvs.exists() or args.build_venvs else None,
                          args.build_venvs, previous)
    parameters = parameter_diff(versions, snaps)
    write(entries, versions, args.out, parameters)
    counts: dict[str, int] = {}
    for e in entries:
        k = f"{e.kind}/{'removed' if e.removed_in else 'deprecated'}"
        counts[k] = counts.get(k, 0) + 1
    counts["parameter"] = len(parameters)
    counts["successor"], counts["advice"] = successors, advised
    print(f"{len(versions)} releases {versions[0]}..{versions[-1]}; {len(entries)} entries {counts}; "
          f"wheels+snapshots {t1 - t0:.1f}s, venv building {built:.1f}s, "
          f"total {time.perf_counter() - t0:.1f}s (without venv building {time.perf_counter() - t0 - built:.1f}s) "
          f"-> {args.out}")
    return 0


def signatures(args, versions: list[str], t0: float) -> int:
    """``--only-signatures``: class and function signature rows (``signature_diff.py``)."""
    if not args.versions:
        versions = [v for v in versions if vkey(v) >= vkey(SIGNATURES_FIRST)]
    wheels = {v: download(args.python, args.cache, v) for v in versions}
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        futures = {v: pool.submit(load_signature_snapshot, args.cache, v, wheels[v]) for v in versions}
        snaps = {v: futures[v].result() for v in versions}
    rows = signature_diff(versions, snaps)
    report = {"jax": {"versions": versions}}
    if args.libraries:
        more, read = library_rows(args.python, args.cache, versions, args.libraries, args.offline)
        rows += more
        report.update(read)
    out = args.signatures_out or args.out.parent / "signatures_generated.toml"
    write_signatures(rows, versions, out, {lib: r["versions"] for lib, r in report.items()
                                           if lib != "jax" and len(r["versions"]) > 1})
    for library, read in report.items():
        mine = [row for row in rows if row.library == library]
        counts: dict[str, int] = {}
        for row in mine:
            counts[row.change] = counts.get(row.change, 0) + 1
        owners = len({row.owner for row in mine if row.member})
        seen = read["versions"]
        span = f"{seen[0]}..{seen[-1]}" if seen else "-"
        extra = f"; newest release: {read['classes']} classes, {read['methods']} public members" \
            if "classes" in read else ""
        print(f"{library}: {len(seen)} releases {span}{extra}; {len(mine)} rows {counts} over {owners} classes")
    print(f"{len(rows)} rows ({time.perf_counter() - t0:.1f}s) -> {out}")
    return 0
