"""Walk the user's paths, pick out the artifacts and give each a verdict for the target version."""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from jaxlint.exports.header import ArtifactHeader, CorruptArtifact, read_artifact
from jaxlint.exports.recognize import SNIFF_BYTES, has_artifact_suffix, looks_like_exported, \
    looks_like_truncated_exported
from jaxlint.exports.verdict import LOADS, UNKNOWN, Verdict, predict
from jaxlint.project.versions import Version

_SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__"}


@dataclass
class ArtifactReport:
    path: Path  # absolute
    verdict: Verdict
    header: ArtifactHeader | None = None  # None when the file could not be decoded
    checked: str | None = None  # the verdict observed by --check-load, if run
    checked_detail: str | None = None

    @property
    def ok(self) -> bool:
        return (self.checked or self.verdict.kind) == LOADS


@dataclass
class Inventory:
    target: Version
    reports: list[ArtifactReport] = field(default_factory=list)
    files_looked_at: int = 0
    unreadable: list[tuple[Path, str]] = field(default_factory=list)  # permission errors and the like

    @property
    def ok(self) -> bool:
        return not self.unreadable and all(r.ok for r in self.reports)


def distinct_inputs(paths: Iterable[Path]) -> list[Path]:
    """The paths as given, less those already covered: a path named twice, or a file or folder inside another
    folder given (``migrate models/ models/m.bin`` is one input, whose artifacts are each written once)."""
    given = list(paths)
    real = [Path(os.path.realpath(path)) for path in given]
    kept = []
    for i, (path, where) in enumerate(zip(given, real)):
        covered = any(where == other and j < i or where != other and other.is_dir() and where.is_relative_to(other)
                      for j, other in enumerate(real) if j != i)
        if not covered:
            kept.append(path)
    return kept


def walk(paths: Iterable[Path], unreadable: list[tuple[Path, str]] | None = None) -> Iterator[tuple[Path, bool]]:
    """Yield (file, named_explicitly) in a stable order; symlinked directories are not followed (loops).

    A folder that cannot be listed is added to ``unreadable`` (it may hold artifacts: never skipped silently).
    """
    def on_error(error: OSError) -> None:
        if unreadable is not None:
            unreadable.append((Path(os.path.abspath(error.filename or "?")), error.strerror or str(error)))

    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path, onerror=on_error):
                dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
                for name in sorted(files):
                    yield Path(root, name), False
        else:
            yield path, True


def inspect_file(path: Path, target: Version, *, explicit: bool) -> ArtifactReport | None:
    """A report for an artifact, or None for a file that is not one (unless the user clearly meant it as one).

    Only regular files are opened: reading a FIFO or a device found in a folder would block or never end.
    """
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        if explicit:
            return ArtifactReport(path, Verdict(UNKNOWN, "not a jax.export artifact: not a regular file (a pipe, "
                                                         "socket or device is never opened)."))
        return None
    size = info.st_size
    with path.open("rb") as handle:
        prefix = handle.read(SNIFF_BYTES)
        if not looks_like_exported(prefix, size):
            if explicit or has_artifact_suffix(path.name) or looks_like_truncated_exported(prefix, size):
                return ArtifactReport(path, Verdict(UNKNOWN, _not_an_artifact(prefix, size)))
            return None
        try:
            header = read_artifact(handle)  # never the whole file in memory: artifacts of gigabytes exist
        except CorruptArtifact as err:
            return ArtifactReport(path, Verdict(UNKNOWN, f"{err}."))
    return ArtifactReport(path, predict(header, target), header)


def _not_an_artifact(prefix: bytes, size: int) -> str:
    if looks_like_truncated_exported(prefix, size):
        return (f"truncated artifact: the file ends after {size} bytes, inside the header of what starts as an "
                "Exported flatbuffer.")
    if size < 16:
        return f"not a jax.export artifact: the file is only {size} bytes (empty or truncated)."
    return "not a jax.export artifact: its first bytes are not an Exported flatbuffer (corrupt, or another format)."


def build_inventory(paths: Iterable[Path], target: Version) -> Inventory:
    inventory = Inventory(target)
    for path, explicit in walk(paths, inventory.unreadable):
        inventory.files_looked_at += 1
        try:
            report = inspect_file(Path(os.path.abspath(path)), target, explicit=explicit)
        except OSError as err:
            inventory.unreadable.append((Path(os.path.abspath(path)), err.strerror or str(err)))
            continue
        if report is not None:
            inventory.reports.append(report)
    return inventory


def count(inventory: Inventory, kind: str) -> int:
    return sum(1 for r in inventory.reports if (r.checked or r.verdict.kind) == kind)

