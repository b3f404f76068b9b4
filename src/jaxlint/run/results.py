"""What processing one file produces (``FileResult``) and how (``Mode``): shared by the runner, the notebook
support and the output formats, so that none of them imports another to get these."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from jaxlint.lint.diagnostics import Diagnostic

if TYPE_CHECKING:
    from jaxlint.lint.engine import AppliedFix


class Mode(Enum):
    CHECK = "check"
    FIX = "fix"  # write the fixed files
    DIFF = "diff"  # compute fixes, report them as a diff, write nothing


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)  # what remains to report
    applied: list[AppliedFix] = field(default_factory=list)
    diff: str = ""
    fixed_source: str | None = None  # set when fixes changed the text
    # Fixes that would have produced unparseable code: dropped, never written (a bug in a rule).
    rejected: list[Diagnostic] = field(default_factory=list)
    internal_error: str | None = None
    # The fixes could not be written (a read-only file, a full disk): the file is unchanged, every finding is
    # reported, and the run exits 2.
    write_error: str | None = None
    # The file's min version and, briefly, where it comes from (``("0.4.6", "requirements.txt:1")``): for the
    # summary of fixes the version range withholds.
    version_floor: tuple[str, str] | None = None
    # For a ``.py`` file of a package whose min version is its pins' floor: that floor and the uses of JAX names
    # first released above it (``run.effective_floor``), found by the worker that read the file; None when not
    # computed (the note's pass then reads the file itself).
    floor_uses: tuple | None = None


def unwritten(unchanged: FileResult, error: OSError) -> FileResult:
    """The result of a file whose fixes could not be written: nothing was fixed, so every finding remains."""
    unchanged.write_error = f"{error.strerror or error} (os error {error.errno})" if error.errno else str(error)
    return unchanged
