"""The dev corpus that the differential tests also read when ``$JAXLINT_DEV_CORPUS`` names it (it is not in the
repository: opt-in)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator

import pytest

needs_dev_corpus = pytest.mark.skipif(not os.environ.get("JAXLINT_DEV_CORPUS"),
                                      reason="JAXLINT_DEV_CORPUS names no corpus")


def python_texts() -> Iterator[str]:
    """Every .py file of the projects under $JAXLINT_DEV_CORPUS."""
    for path in sorted(Path(os.environ["JAXLINT_DEV_CORPUS"]).rglob("*.py")):
        yield path.read_text(encoding="utf-8", errors="surrogateescape")


def notebook_cells() -> Iterator[list[str]]:
    """The cells' sources of every notebook there that reads as JSON, one list per notebook."""
    for path in sorted(Path(os.environ["JAXLINT_DEV_CORPUS"]).rglob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except (ValueError, KeyError):
            continue
        yield [source if isinstance(source, str) else "".join(source)
               for source in (cell.get("source", "") for cell in cells)]
