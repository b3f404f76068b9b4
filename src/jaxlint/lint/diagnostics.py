"""What a rule reports: diagnostics, fixes made of text edits, and their applicability."""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from enum import Enum

# Codes the engine reports itself, not a rule (every file can get them); jaxlint.lint.engine_codes documents them.
PARSE_ERROR = "JAX000"  # the file could not be parsed or decoded
IO_ERROR = "JAX002"  # the file could not be read (ruff's E902)


class Applicability(str, Enum):
    """Contract: ``safe`` fixes are applied by ``--fix``; ``unsafe`` ones need ``--unsafe-fixes``."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Location:
    """1-based row and column, as in ruff's JSON output."""

    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace ``source[start:end]`` (character offsets) with ``content``."""

    start: int
    end: int
    content: str
    # 1-based positions of start/end in the same source (filled in by the engine, for JSON output).
    location: "Location | None" = field(default=None, compare=False)
    end_location: "Location | None" = field(default=None, compare=False)


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]
    # Character span, in the source the fix applies to, of the expression whose value the fix must preserve.
    # The runtime verifier probes it before and after; None when there is no value (e.g. a deleted statement).
    probe: tuple[int, int] | None = None


@dataclass(frozen=True)
class WithheldFix:
    """Why a finding that could be fixed has no fix here (JSON ``fix_withheld``, ``full``'s "= fix withheld" line).

    ``needs_min_version``: the lowest min version at which the fix would be offered, when the project's version range
    is the only obstacle (the summary counts these per version); None for other reasons (code in another module, a
    call the replacement does not accept, ...)."""

    reason: str
    needs_min_version: str | None = None


@dataclass
class Diagnostic:
    code: str
    message: str
    path: str
    start: Location
    end: Location
    start_offset: int = 0
    end_offset: int = 0
    fix: Fix | None = None
    noqa_row: int | None = None
    cell: int | None = None
    url: str | None = None
    # More than the one-line message (``--output-format full`` prints it); not part of the JSON contract.
    detail: str | None = None
    # Set when a fix exists in principle but is not offered in this file's version range or context.
    fix_withheld: WithheldFix | None = None
    # The finding sits in an annotation Python never evaluates (``from __future__ import annotations``, a string
    # annotation, ``if TYPE_CHECKING:``): it cannot fail at run time, but type checkers and readers still see it.
    unevaluated_annotation: bool = False

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.start.row, self.start.column, self.code)


@dataclass
class LineIndex:
    """Maps between character offsets and 1-based (row, column) in one source text."""

    source: str
    starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        starts = [0]
        find = self.source.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self.starts = starts

    def offset(self, line: int, column: int) -> int:
        """Offset of a 1-based line and a 0-based column (libcst's convention)."""
        return self.starts[line - 1] + column

    def location(self, offset: int) -> Location:
        line = bisect.bisect_right(self.starts, offset) - 1
        return Location(line + 1, offset - self.starts[line] + 1)

    def line_text(self, row: int) -> str:
        start = self.starts[row - 1]
        end = self.starts[row] if row < len(self.starts) else len(self.source)
        return self.source[start:end].rstrip("\r\n")


def io_error(path: str, error: OSError) -> Diagnostic:
    """An ordinary I/O error (permission denied, a symlink loop, a missing path) as a finding at 1:1, worded as
    ruff's E902: ``Permission denied (os error 13)``."""
    text = error.strerror or str(error) or type(error).__name__
    if error.errno is not None:
        text = f"{text} (os error {error.errno})"
    location = Location(1, 1)
    return Diagnostic(IO_ERROR, text, path, location, location)
