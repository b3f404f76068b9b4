"""Read a cache file that jaxlint signed (``jaxlint.project.cache_key``), checking its signature as jaxlint does."""
from __future__ import annotations

import json
from pathlib import Path

from jaxlint.project.cache_key import unseal
from jaxlint.project.fingerprint import engine_fingerprint


def signed_json(path: Path, kind: str) -> object:
    """The JSON a results (``kind="results"``) or index (``"index"``) cache file holds; fails when it is not
    signed with this session's key."""
    payload = unseal(kind, engine_fingerprint(), Path(path).read_bytes())
    assert payload is not None, f"{path} is not signed with the cache key"
    return json.loads(payload)
