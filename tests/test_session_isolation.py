"""The test session keeps to its own folders: it never writes the user's jaxlint cache (``tests/conftest.py``)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from jaxlint.catalogue import _cache_file


def test_the_test_session_writes_no_cache_folder_of_the_user():
    """The catalogue copies and replay manifests a test writes land in the session's own temporary folder, beside
    its key; the tools the slow tests run keep their own caches (set before the session's folder replaced the
    user's)."""
    cache = Path(os.environ["XDG_CACHE_HOME"]).resolve()
    assert cache.parent == Path(os.environ["JAXLINT_CACHE_KEY"]).resolve().parent
    assert Path(tempfile.gettempdir()).resolve() in cache.parents
    assert cache in _cache_file().resolve().parents
    for variable in ("UV_CACHE_DIR", "PIP_CACHE_DIR", "PRE_COMMIT_HOME"):
        assert cache not in Path(os.environ[variable]).resolve().parents
