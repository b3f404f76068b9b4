"""The tool that builds jaxlint's JAX environments (``verify --baseline-jax``, ``exports``): uv when it is there, pip
otherwise.

uv installs from a cache by hard links, so twelve environments share one copy of jaxlib, NumPy and SciPy, and a
build takes seconds instead of minutes (docs/verify.md has the numbers measured here). It is found as the ``uv``
package in jaxlint's own environment (``pip install 'jaxlint[fast-envs]'``) or as ``uv`` on ``PATH``.
``JAXLINT_INSTALLER=pip`` forces pip, ``JAXLINT_INSTALLER=uv`` requires uv, and a path names the uv executable.
Both tools read their own configuration for the package index (pip: pip.conf, ``PIP_INDEX_URL``; uv: uv.toml,
``UV_INDEX_URL``).
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "JAXLINT_INSTALLER"


class InstallerError(RuntimeError):
    pass


def _importable_uv() -> str | None:
    """The executable of the ``uv`` package installed beside jaxlint (the ``fast-envs`` extra)."""
    try:
        import uv  # type: ignore[import-not-found]

        found = uv.find_uv_bin()
    except (ImportError, FileNotFoundError, AttributeError):
        return None
    return str(found) if found and os.access(found, os.X_OK) else None


def find_uv() -> str | None:
    return _importable_uv() or shutil.which("uv")


@dataclass(frozen=True)
class Installer:
    """Command lines for one tool. ``uv`` is the executable when the tool is uv, None for pip."""

    uv: str | None = None

    @property
    def name(self) -> str:
        return "uv" if self.uv else "pip"

    def create_venv(self, base_python: str, path: Path) -> list[str]:
        # uv's venv has no pip in it: every later step goes through ``uv pip ... --python``. The folder exists
        # already, holding jaxlint's marker (``verify.env_store``), which uv must keep.
        if self.uv:
            return [self.uv, "venv", "--quiet", "--allow-existing", "--python", base_python, str(path)]
        return [base_python, "-m", "venv", str(path)]

    def install(self, python: Path, args: list[str]) -> list[str]:
        if self.uv:
            return [self.uv, "pip", "install", "--python", str(python), *args]
        return [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", *args]

    def check(self, python: Path) -> list[str]:
        if self.uv:
            return [self.uv, "pip", "check", "--python", str(python)]
        return [str(python), "-m", "pip", "check", "--disable-pip-version-check"]

    def freeze(self, python: Path | str) -> list[str]:
        if self.uv:
            return [self.uv, "pip", "freeze", "--exclude-editable", "--python", str(python)]
        return [str(python), "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"]

    def shows(self, line: str) -> bool:
        """The progress lines worth echoing while it installs (what is fetched, what got installed)."""
        if self.uv:
            return line.startswith(("Resolved", "Prepared", "Installed", "Uninstalled", " + ", " - "))
        return line.startswith(("Collecting", "Installing", "Successfully"))

    def failure_start(self, lines: list[str]) -> int:
        """Where its explanation of a failure starts (pip: the first ERROR line; uv: ``×`` or ``error:``); the
        last 15 lines when there is no such line."""
        marks = ("ERROR",) if not self.uv else ("×", "error:", "  ×")
        return next((i for i, line in enumerate(lines) if line.startswith(marks)), max(0, len(lines) - 15))

    def check_problems(self, lines: list[str]) -> list[tuple[str, str]]:
        """(package, line) for each problem in a failed check's output (uv adds a count and a summary line)."""
        problems = []
        for line in lines:
            if self.uv:
                match = re.search(r"The package `([^`]+)`", line)
                if match:
                    problems.append((match.group(1), line.strip()))
            elif line.strip():
                problems.append((line.split(" ", 1)[0], line.strip()))
        return problems


def choose() -> Installer:
    """uv when available (or required by ``JAXLINT_INSTALLER``), else pip."""
    wanted = os.environ.get(ENV_VAR, "").strip()
    if wanted == "pip":
        return Installer()
    if wanted in ("", "auto"):
        return Installer(find_uv())
    if wanted == "uv":
        found = find_uv()
        if not found:
            raise InstallerError(f"{ENV_VAR}=uv but uv is neither installed beside jaxlint (pip install "
                                 "'jaxlint[fast-envs]') nor on PATH")
        return Installer(found)
    if os.path.isfile(wanted) and os.access(wanted, os.X_OK):
        return Installer(wanted)
    raise InstallerError(f"{ENV_VAR}={wanted!r}: expected pip, uv, auto or the path of a uv executable")
