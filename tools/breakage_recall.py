"""jaxlint's recall on breakages re-created from public reports, and its silence on look-alike controls.

    python tools/breakage_recall.py [--json]                 # lint every case, report recall per kind
    python tools/breakage_recall.py --execute [--record]     # run every case on both sides (needs the JAX envs)

Each case is a folder under tests/data/breakages/ (controls under its controls/ folder) holding ``case.py`` and
``case.toml``: the source URL, the kind of break, the two sides (a venv name under ``$JAXLINT_JAXENVS`` and the
jax/flax/optax releases in it), ``expected`` (the rule that catches it today, or "miss"; "silent" for a control),
``needs`` (for a miss: what jaxlint would need) and ``[executed]`` (the outcome on each side, written by
``--execute --record``, never by hand). The lines that break carry a ``# breaks`` comment: a case counts as caught
when jaxlint reports a finding on one of them. A control counts as flagged when jaxlint reports anything.

jaxlint runs as a user runs it: ``jaxlint check`` over a copy of the case with a requirements.txt that pins the old
side (``jax>=``, ``flax>=``, ``optax>=``) and ``--min-version``/``--target-version`` set to the two JAX releases.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "data" / "breakages"
ENVS = Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs"))
KINDS = ("signature", "behaviour", "return-type", "flax", "optax", "jaxlib", "removed")
LIBRARIES = ("jax", "flax", "optax")
BREAKS = "# breaks"
# The last "SomeError: message" line of a traceback (JAX appends a note about filtered frames after it).
ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit)): ?(.*)$")


@dataclass
class Case:
    name: str
    folder: Path
    meta: dict
    codes: list[str] = field(default_factory=list)  # rules reported on a ``# breaks`` line (controls: anywhere)

    @property
    def kind(self) -> str:
        return self.meta["kind"]

    @property
    def is_control(self) -> bool:
        return self.kind == "control"

    @property
    def source(self) -> str:
        return (self.folder / "case.py").read_text(encoding="utf-8")

    def breaking_rows(self) -> set[int]:
        return {n for n, line in enumerate(self.source.splitlines(), 1) if line.rstrip().endswith(BREAKS)}


def load_cases(root: Path = CASES) -> list[Case]:
    folders = sorted(p.parent for p in root.glob("*/case.toml")) + \
        sorted(p.parent for p in (root / "controls").glob("*/case.toml"))
    return [Case(folder.name, folder, tomllib.loads((folder / "case.toml").read_text(encoding="utf-8")))
            for folder in folders]


def requirements(case: Case) -> str:
    return "".join(f"{lib}>={case.meta['old'][lib]}\n" for lib in LIBRARIES if lib in case.meta["old"])


def lint(cases: list[Case], jaxlint: list[str] | None = None) -> None:
    """Fill ``case.codes``: one ``jaxlint check`` per (min, target) pair over copies of the cases."""
    command = jaxlint or [sys.executable, "-m", "jaxlint"]
    groups = collections.defaultdict(list)
    for case in cases:
        groups[(case.meta["old"]["jax"], case.meta["new"]["jax"])].append(case)
    with tempfile.TemporaryDirectory(prefix="breakage-recall-") as tmp:
        for (low, high), members in groups.items():
            root = Path(tmp) / f"{low}-{high}"
            for case in members:
                folder = root / ("control-" if case.is_control else "case-") / case.name
                folder.mkdir(parents=True)
                shutil.copy(case.folder / "case.py", folder / "case.py")
                (folder / "requirements.txt").write_text(requirements(case))
            proc = subprocess.run(
                [*command, "check", str(root), "--isolated", "--no-cache", "--exit-zero", "--output-format", "json",
                 "--min-version", low, "--target-version", high],
                capture_output=True, text=True, cwd=tmp)
            if proc.returncode != 0:
                raise RuntimeError(f"jaxlint failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
            by_case = collections.defaultdict(list)
            for finding in json.loads(proc.stdout or "[]"):
                by_case[Path(finding["filename"]).parent.name].append(finding)
            for case in members:
                rows = case.breaking_rows()
                case.codes = sorted({f["code"] for f in by_case[case.name]
                                     if case.is_control or f["location"]["row"] in rows})


def execute(case: Case, side: str, timeout: int = 240) -> str:
    """``ok: <last line printed>`` or ``error: <ExceptionType>: <message>`` of case.py on one side's venv."""
    python = ENVS / case.meta[side]["env"] / "bin" / "python"
    if not python.exists():
        raise FileNotFoundError(f"no venv {python} (see tests/data/breakages/README.md)")
    proc = subprocess.run([str(python), "-W", "ignore", "case.py"], cwd=case.folder, capture_output=True, text=True,
                          timeout=timeout, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    if proc.returncode == 0:
        lines = proc.stdout.strip().splitlines()
        return "ok: " + (lines[-1].strip() if lines else "")
    errors = [m for line in proc.stderr.splitlines() if (m := ERROR_LINE.match(line))]
    if not errors:
        return f"error: exit {proc.returncode}"
    kind, message = errors[-1].groups()
    message = message.replace(str(ENVS), "$JAXLINT_JAXENVS")
    return f"error: {kind.split('.')[-1]}: {message[:160]}".rstrip()


def outcome_matches(recorded: str, now: str) -> bool:
    """The same value, or the same exception type (messages may reword between runs)."""
    if recorded.startswith("error:") and now.startswith("error:"):
        return recorded.split(":")[1] == now.split(":")[1]
    return recorded == now


def proves_break(old: str, new: str) -> bool:
    return old.startswith("ok:") and old != new


def record_executed(case: Case, old: str, new: str) -> None:
    path = case.folder / "case.toml"
    text = path.read_text(encoding="utf-8")
    head = text[:text.index("[executed]")]
    path.write_text(head + f"[executed]\nold = {json.dumps(old)}\nnew = {json.dumps(new)}\n", encoding="utf-8")


def summarise(cases: list[Case]) -> dict:
    kinds = {}
    for kind in KINDS:
        members = [c for c in cases if c.kind == kind]
        kinds[kind] = {"flagged": sum(bool(c.codes) for c in members), "cases": len(members)}
    real = [c for c in cases if not c.is_control]
    controls = [c for c in cases if c.is_control]
    misses = collections.defaultdict(list)
    for case in real:
        if not case.codes:
            misses[case.meta.get("needs") or "unclassified"].append(case.name)
    return {
        "kinds": kinds,
        "total": {"flagged": sum(bool(c.codes) for c in real), "cases": len(real)},
        "controls": {"flagged": sorted(c.name for c in controls if c.codes), "count": len(controls)},
        "caught": {c.name: c.codes for c in real if c.codes},
        "misses": dict(sorted(misses.items())),
    }


def render(summary: dict) -> str:
    lines = ["kind          flagged / cases"]
    for kind, row in summary["kinds"].items():
        lines.append(f"{kind:13s} {row['flagged']:3d} / {row['cases']}")
    total = summary["total"]
    lines.append(f"{'all':13s} {total['flagged']:3d} / {total['cases']}")
    controls = summary["controls"]
    lines.append(f"controls flagged: {len(controls['flagged'])} of {controls['count']} {controls['flagged'] or ''}")
    lines.append("misses, by what jaxlint would need:")
    for need, names in summary["misses"].items():
        lines.append(f"  {need}: {', '.join(names)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--execute", action="store_true", help="run every case on both sides instead of linting")
    parser.add_argument("--record", action="store_true", help="with --execute: write the outcomes into case.toml")
    parser.add_argument("--only", nargs="*", help="case names to run")
    args = parser.parse_args(argv)
    cases = [c for c in load_cases() if not args.only or c.name in args.only]
    if args.execute:
        failures = 0
        for case in cases:
            old, new = execute(case, "old"), execute(case, "new")
            ok = (old.startswith("ok:") and new.startswith("ok:")) if case.is_control else proves_break(old, new)
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {case.name:36s} old={old[:60]!r} new={new[:70]!r}", flush=True)
            if args.record:
                record_executed(case, old, new)
        return 1 if failures else 0
    lint(cases)
    summary = summarise(cases)
    print(json.dumps(summary, indent=2) if args.json else render(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
