"""What the corpus tools share (``ast_findings_check.py``, ``gate_recall.py``): the ``.py`` files of some folders, read
as UTF-8, and the settings of a run with ``--min-version``."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterator

from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version


def python_sources(folders: list[str]) -> Iterator[tuple[Path, str]]:
    """(path, text) of every ``.py`` file under ``folders``, in order; a file that cannot be read as UTF-8 is left out."""
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.py")):
            try:
                yield path, path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue


def settings_with_min_version(min_version: str | None) -> Settings:
    """The default settings, linted as if the projects pinned ``min_version`` (as ``--min-version`` does)."""
    settings = Settings()
    if min_version:
        settings = replace(settings, explicit_min_version=Version(min_version), min_version_source="--min-version")
    return settings
