#!/usr/bin/env python3
"""Generate ``rules/ecosystem_generated.toml`` from every flax and optax wheel (see tools/catalogue_gen/ecosystem.py).

Usage: ``python tools/generate_ecosystem_catalogue.py [--versions flax=0.5.3,0.6.0 ...] [--parameters FILE]``.
Wheels and snapshots are cached in ``tools/.wheels/ecosystem`` (gitignored).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalogue_gen import ecosystem  # noqa: E402
from catalogue_gen.releases import index_versions  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=os.environ.get("JAXLINT_PIP_PYTHON", sys.executable),
                    help="interpreter whose pip lists and downloads the releases")
    ap.add_argument("--cache", type=Path, default=ecosystem.DEFAULT_CACHE, help="wheel and snapshot cache")
    ap.add_argument("--out", type=Path, default=ecosystem.DEFAULT_OUT)
    ap.add_argument("--versions", action="append", default=[], metavar="LIB=V1,V2",
                    help="explicit releases of a library (default: every release on the index)")
    ap.add_argument("--parameters", type=Path, help="also write the parameter rows as JSON here")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    explicit = dict(item.split("=", 1) for item in args.versions)
    wheels: dict[str, dict[str, Path]] = {}
    for library in ecosystem.LIBRARIES:
        versions = explicit[library].split(",") if library in explicit else \
            index_versions(args.python, library)
        found = {v: ecosystem.download(args.python, args.cache, library, v) for v in versions}
        missing = sorted(v for v, path in found.items() if path is None)
        if missing:
            print(f"{library}: no wheel for {', '.join(missing)} (skipped)", file=sys.stderr)
        wheels[library] = {v: path for v, path in found.items() if path is not None}
    t1 = time.perf_counter()
    text, parameters = ecosystem.generate(wheels, args.cache, args.workers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    if args.parameters:
        args.parameters.write_text(json.dumps({lib: [vars(p) for p in rows] for lib, rows in parameters.items()},
                                              indent=1))
    counts = {lib: len(v) for lib, v in wheels.items()}
    print(f"releases {counts}; {text.count('[[symbol]]')} symbol rows, {text.count('[[module]]')} module rows, "
          f"{sum(map(len, parameters.values()))} parameter rows; wheels {t1 - t0:.1f}s, "
          f"analysis {time.perf_counter() - t1:.1f}s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
