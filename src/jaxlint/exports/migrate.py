"""``jaxlint exports migrate``: re-serialize at-risk artifacts through a baseline JAX and prove they compute the same.

For each artifact the target would refuse (or read only with the expired-versions flag):
1. the baseline JAX (one that can still read it) deserializes it and serializes it again;
2. our own decoder checks that the target will read the new bytes without crutches;
3. the old artifact runs in the baseline and the new one in the target, on the same deterministic inputs, and the
   outputs are compared (exactly for integers and booleans, with a tolerance for floats);
4. only then is the new artifact written to the output folder, beside a JSON record of what was done.
Input files are never written to.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from jaxlint.exports.header import ArtifactHeader, CorruptArtifact, read_artifact
from jaxlint.exports.inventory import ArtifactReport, Inventory
from jaxlint.exports.jaxrun import WorkerError, run_worker, worker_env
from jaxlint.exports.verdict import LOADS, predict
from jaxlint.project.versions import Version

RECORD_SUFFIX = ".migration.json"
FAILED_SUFFIX = ".migration-failed.json"


@dataclass
class MigrationOptions:
    out_dir: Path
    baseline_python: Path
    target_python: Path
    target: Version
    mesh: list[tuple[str, int]] | None = None
    dims: dict[str, int] = field(default_factory=dict)
    rtol: float = 1e-5
    atol: float = 1e-6
    imports: tuple[str, ...] = ()  # the user's modules to import in every JAX subprocess (--import)


@dataclass
class Outcome:
    source: Path
    status: str  # migrated | already-loads | failed
    reason: str
    written: Path | None = None
    record: Path | None = None


class MigrationFailed(Exception):
    pass


def migrate_inventory(inventory: Inventory, roots: list[Path], options: MigrationOptions,
                      on_outcome: Callable[[Outcome], None] = lambda outcome: None) -> list[Outcome]:
    """Each artifact's outcome, in the inventory's order; ``on_outcome`` hears of each as soon as it is known (a
    migration takes minutes: the user sees the progress, and what was done before an interruption)."""
    inputs = {r.path.resolve() for r in inventory.reports}
    destinations = plan_destinations([r.path for r in inventory.reports], roots, options.out_dir)
    outcomes = []
    for report in inventory.reports:
        dst, clash = destinations[report.path]
        if clash:
            # Never written, and no record either: it would be taken for the other input's.
            outcome = Outcome(report.path, "failed", f"not migrated: its output {dst} would also be the output of "
                              f"{', '.join(str(p) for p in clash)}; migrate them in separate runs or name folders "
                              "whose names differ")
        else:
            outcome = _migrate_or_explain(report, dst, inputs, options)
        outcomes.append(outcome)
        on_outcome(outcome)
    return outcomes


def outputs_in_the_way(inventory: Inventory, roots: list[Path], out_dir: Path) -> list[Path]:
    """The files already in ``out_dir`` that migrating ``inventory`` would write over or remove (the migrated
    artifact and both records of each artifact that is not already loading), in a stable order."""
    inputs = {r.path.resolve() for r in inventory.reports}
    destinations = plan_destinations([r.path for r in inventory.reports], roots, out_dir)
    found = []
    for report in inventory.reports:
        dst, clash = destinations[report.path]
        if clash or (report.header is not None and report.verdict.kind == LOADS) or dst.resolve() in inputs:
            continue  # nothing of these is written (see _migrate_or_explain)
        for path in (dst, dst.with_name(dst.name + RECORD_SUFFIX), dst.with_name(dst.name + FAILED_SUFFIX)):
            if os.path.lexists(path) and path not in found:
                found.append(path)
    return found


def plan_destinations(sources: list[Path], roots: list[Path], out_dir: Path) -> dict[Path, tuple[Path, list[Path]]]:
    """Each source's output path, and the other sources that would be written to the same path (refused).

    One input folder: its layout is mirrored under ``out_dir``. Several inputs: each is mirrored under its own name
    (``--out OUT a/ b/`` writes ``OUT/a/...`` and ``OUT/b/...``), so that ``a/model.bin`` and ``b/model.bin`` both
    survive. What still collides (two folders of the same name, a file named twice) is refused, never overwritten.
    """
    several = len(roots) > 1
    planned = {source: _destination(source, roots, out_dir, several) for source in sources}
    by_destination: dict[Path, list[Path]] = {}
    for source, dst in planned.items():
        by_destination.setdefault(dst, []).append(source)
    return {source: (dst, [other for other in by_destination[dst] if other != source])
            for source, dst in planned.items()}


def _destination(source: Path, roots: list[Path], out_dir: Path, several: bool) -> Path:
    for root in roots:
        root = Path(os.path.abspath(root))
        if root.is_dir() and source.is_relative_to(root):
            relative = source.relative_to(root)
            return out_dir / root.name / relative if several and root.name else out_dir / relative
    return out_dir / source.name


def _migrate_or_explain(report: ArtifactReport, dst: Path, inputs: set[Path], options: MigrationOptions) -> Outcome:
    if report.header is not None and report.verdict.kind == LOADS:
        return Outcome(report.path, "already-loads", f"already loads on JAX {options.target}; nothing to do")
    try:
        if report.header is None:
            raise MigrationFailed(report.verdict.reason.rstrip("."))
        if dst.resolve() in inputs:
            # No record either: it would sit next to (and be taken for part of) the input.
            return Outcome(report.path, "failed", f"not migrated: the output {dst} would overwrite an input file")
        record = _migrate(report, dst, options)
    except (MigrationFailed, WorkerError) as err:
        _remove(dst, dst.with_name(dst.name + RECORD_SUFFIX))  # a stale success from an earlier run must not stay
        failed = _write_record(dst.with_name(dst.name + FAILED_SUFFIX), {
            "status": "failed", "reason": str(err), "source": _file_facts(report.path, report.header),
            "target_jax": str(options.target)})
        return Outcome(report.path, "failed", f"not migrated: {err}", record=failed)
    _remove(dst.with_name(dst.name + FAILED_SUFFIX))
    return Outcome(report.path, "migrated", "; ".join(record["changes"]), dst,
                   dst.with_name(dst.name + RECORD_SUFFIX))


def _migrate(report: ArtifactReport, dst: Path, options: MigrationOptions) -> dict:
    header = report.header
    devices, platforms = header.device_count, header.platforms
    with tempfile.TemporaryDirectory(prefix="jaxlint-migrate-") as scratch_name:
        scratch = Path(scratch_name)
        candidate = scratch / "migrated.jaxexport"
        # The mesh only matters where the file lacks one: named shardings carry their own abstract mesh.
        mesh = [list(axis) for axis in options.mesh] if options.mesh and header.shardings == "hlo-only" else None
        rewritten = run_worker(options.baseline_python, "reserialize.py",
                               {"src": str(report.path), "dst": str(candidate), "mesh": mesh,
                                "imports": list(options.imports)},
                               env=worker_env(devices, platforms))
        if not rewritten["ok"]:
            raise MigrationFailed(f"JAX {rewritten['jax_version']} (baseline) could not re-serialize it: "
                                  f"{rewritten['error']}")
        try:
            with candidate.open("rb") as handle:
                new_header = read_artifact(handle)
        except CorruptArtifact as err:
            raise MigrationFailed(f"the re-serialized artifact does not decode: {err}") from err
        after = predict(new_header, options.target)
        if after.kind != LOADS:
            raise MigrationFailed(f"the re-serialized artifact would still not load on JAX {options.target} "
                                  f"({after.kind}: {after.reason})")
        verification = _verify(report.path, candidate, scratch, mesh, options, devices, platforms)
        dst.parent.mkdir(parents=True, exist_ok=True)
        _copy_into_place(candidate, dst)
    record = {
        "status": "migrated",
        "source": _file_facts(report.path, header),
        "migrated": _file_facts(dst, new_header),
        "writers": {"original": header.jax_version or "not recorded (JAX < 0.11.1)",
                    "re-serialized by": rewritten["jax_version"],
                    "recorded in the new file": new_header.jax_version},
        "target_jax": str(options.target),
        "verdict_before": report.verdict.kind,
        "verdict_after": after.kind,
        "expired_versions_flag_used_to_read": rewritten["used_flag"],
        "mesh": dict(mesh) if mesh else None,
        "rebuilt_shardings": rewritten["rebuilt_shardings"],
        "changes": describe_changes(header, new_header, rewritten["rebuilt_shardings"]),
        "verification": verification,
    }
    _write_record(dst.with_name(dst.name + RECORD_SUFFIX), record)
    return record


def _verify(old: Path, new: Path, scratch: Path, mesh, options: MigrationOptions, devices: int,
            platforms: list[str]) -> dict:
    for sub in ("inputs", "old-outputs", "new-outputs"):
        (scratch / sub).mkdir()
    common = {"mesh": mesh, "dims": options.dims, "inputs_dir": str(scratch / "inputs"), "rtol": options.rtol,
              "atol": options.atol, "imports": list(options.imports)}
    env = worker_env(devices, platforms)
    before = run_worker(options.baseline_python, "call_artifact.py",
                        {**common, "artifact": str(old), "make_inputs": True,
                         "outputs_dir": str(scratch / "old-outputs"), "compare_with": None}, env=env)
    if not before["ok"]:
        raise MigrationFailed(f"the original artifact could not be run in JAX {before['jax_version']} "
                              f"(baseline): {before['error']}")
    # The new artifact gets the symbolic dimensions the baseline chose, so both see identical shapes.
    after = run_worker(options.target_python, "call_artifact.py",
                       {**common, "dims": before["dims"], "artifact": str(new), "make_inputs": False,
                        "outputs_dir": str(scratch / "new-outputs"), "compare_with": str(scratch / "old-outputs")},
                       env=env)
    if not after["ok"]:
        raise MigrationFailed(f"the re-serialized artifact could not be run in JAX {after['jax_version']} "
                              f"(target): {after['error']}")
    if after["used_flag"]:
        raise MigrationFailed("the re-serialized artifact still needs the expired-versions flag on the target")
    mismatched = [i for i, out in enumerate(after["outputs"]) if not out["match"]]
    if mismatched:
        details = ", ".join(f"output {i} (max abs diff {after['outputs'][i]['max_abs_diff']})" for i in mismatched)
        raise MigrationFailed(f"outputs differ between JAX {before['jax_version']} (original) and "
                              f"JAX {after['jax_version']} (migrated): {details}")
    return {"baseline_jax": before["jax_version"], "target_jax": after["jax_version"],
            "symbolic_dims": before["dims"], "inputs": before["inputs"], "outputs": after["outputs"],
            "rtol": options.rtol, "atol": options.atol, "outputs_equal": True}


def describe_changes(old: ArtifactHeader, new: ArtifactHeader, rebuilt: list[str]) -> list[str]:
    changes = []
    if old.serialization_version != new.serialization_version:
        changes.append(f"serialization version {old.serialization_version} -> {new.serialization_version}")
    if old.nr_devices != new.nr_devices or old.nr_devices_short != new.nr_devices_short:
        changes.append(f"device count fields (nr_devices, legacy nr_devices_short) ({old.nr_devices}, "
                       f"{old.nr_devices_short}) -> ({new.nr_devices}, {new.nr_devices_short})")
    if old.shardings != new.shardings:
        changes.append(f"shardings {old.shardings} -> {new.shardings}"
                       + (f" (rebuilt as {rebuilt[0]})" if rebuilt else ""))
    if old.jax_version != new.jax_version:
        changes.append(f"writer JAX recorded: {old.jax_version} -> {new.jax_version}")
    if old.stablehlo_producer != new.stablehlo_producer:
        changes.append(f"StableHLO producer {old.stablehlo_producer} -> {new.stablehlo_producer}")
    return changes or ["re-serialized without visible header changes"]


def _file_facts(path: Path, header: ArtifactHeader | None) -> dict:
    try:
        digest, size = _sha256(path)
    except OSError as err:
        return {"path": str(path), "unreadable": err.strerror or str(err)}
    facts = {"path": str(path), "sha256": digest, "size": size}
    if header is None:
        return facts
    return {**facts,
            "serialization_version": header.serialization_version, "nr_devices": header.nr_devices,
            "nr_devices_short": header.nr_devices_short, "jax_version": header.jax_version,
            "shardings": header.shardings, "in_avals": header.in_avals, "out_avals": header.out_avals,
            "ordered_effects": header.ordered_effects, "unordered_effects": header.unordered_effects}


HASH_CHUNK = 1 << 20


def _sha256(path: Path) -> tuple[str, int]:
    """(hex digest, size), read by chunks: an artifact of gigabytes must not be held in memory."""
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        while chunk := handle.read(HASH_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _copy_into_place(source: Path, dst: Path) -> None:
    """Never a partly written artifact in --out (a copy of gigabytes interrupted by Ctrl-C): copied beside it under
    a hidden name, then renamed."""
    partial = dst.with_name(f".{dst.name}.jaxlint-partial")
    try:
        shutil.copyfile(source, partial)
        os.replace(partial, dst)
    finally:
        partial.unlink(missing_ok=True)


def _remove(*paths: Path) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _write_record(path: Path, record: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path
