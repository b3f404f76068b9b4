"""The codes jaxlint reports itself, not through a rule module: one table, read by ``jaxlint rules``,
``jaxlint rule CODE``, the output formats and the selector validation."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineCode:
    code: str
    name: str
    summary: str
    documentation: str
    fix: str = "none"
    opt_in: bool = False


ENGINE_CODES: dict[str, EngineCode] = {entry.code: entry for entry in (
    EngineCode(
        "JAX000", "parse-error", "the file could not be parsed or decoded",
        "# JAX000 parse-error\n\nThe file could not be parsed (or decoded): one finding with the parser's message "
        "and line; the run goes on. In a notebook, each cell that does not parse is one JAX000 and the other cells "
        "are still checked. Not suppressible by rule selection. No fix.\n"),
    EngineCode(
        "JAX001", "unused-noqa", "opt-in: a `# noqa: JAX...` code that matches nothing",
        "# JAX001 unused-noqa\n\nOpt-in (`--extend-select JAX001`), like ruff's RUF100: a `# noqa: JAX...` code "
        "that no longer matches a finding on its line. Fix (safe): remove the unused code, or the whole comment. "
        "See docs/integrations.md.\n", fix="safe", opt_in=True),
    EngineCode(
        "JAX002", "io-error", "a path could not be read (missing, permission denied, a symlink loop)",
        "# JAX002 io-error\n\nA path given or found could not be read: it does not exist, permission is denied, "
        "it is a symlink loop or a dangling link. One finding at 1:1 with the system's message, worded as ruff's "
        "E902 (`Permission denied (os error 13)`); the other paths are still checked. Not suppressible by rule "
        "selection. No fix.\n"),
)}
