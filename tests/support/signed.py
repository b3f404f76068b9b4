"""Read a cache file that jaxlint signed (``jaxlint.project.cache_key``), checking its signature as jaxlint does."""
from __future__ import annotations

import json
from pathlib import Path

from jaxlint.project.cache_key import unseal
from jaxlint.project.fingerprint import engine_fingerprint


def signed_json(path: Path, kind: str) -> object:
    """The JSON a results (``kind="results"``) or index (``"index"``) cache file holds: a shard
    (``<kind>-<engine>/<xx>.json``, ``jaxlint.project.shards``) or the index's ``digest.json``; fails when it is not
    signed with this session's key."""
    path = Path(path)
    context = engine_fingerprint()
    if path.name == "digest.json":
        kind = "index digest"
    elif path.parent.name.startswith(f"{kind}-"):
        context = f"{context}/{path.stem}"
    payload = unseal(kind, context, path.read_bytes())
    assert payload is not None, f"{path} is not signed with the cache key"
    return json.loads(payload)


def cache_folder(directory: Path, kind: str) -> Path:
    """The shard folder of this jaxlint's ``kind`` cache (``"results"``, ``"index"``) in a cache directory."""
    return Path(directory) / f"{kind}-{engine_fingerprint()}"


def shard_files(directory: Path, kind: str) -> list[Path]:
    """The shard files of this jaxlint's ``kind`` cache (``<count>-<xx>.json``, ``jaxlint.project.shards``)."""
    import re

    return sorted(path for path in cache_folder(directory, kind).glob("*.json")
                  if re.fullmatch(r"\d+-[0-9a-f]+\.json", path.name))


def cache_entries(directory: Path, kind: str) -> dict:
    """Every entry of this jaxlint's ``kind`` cache in ``directory``, each shard's signature checked."""
    entries: dict = {}
    for shard in shard_files(directory, kind):
        entries.update(signed_json(shard, kind)["entries"])
    return entries


def shard_file(directory: Path, kind: str, key: str) -> Path:
    """The shard that holds (or would hold) the entry of ``key`` (an absolute path), at the shard count there."""
    from jaxlint.project.shards import shard_of

    count = max((int(path.name.partition("-")[0]) for path in shard_files(directory, kind)), default=1)
    return cache_folder(directory, kind) / f"{shard_of(key, count)}.json"


def signed_json_bytes(data: bytes, kind: str, context: str) -> object:
    """The JSON of a signed cache file of any kind (the release cache's ``context`` names the release)."""
    payload = unseal(kind, context, data)
    assert payload is not None, "not signed with the cache key"
    return json.loads(payload)


def unverified(data: bytes) -> bytes:
    """A cache file's payload, signed or not, without checking anything (what an attacker starts from)."""
    return data.split(b"\n", 1)[1] if data.startswith(b"jaxlint-signed-1 ") else data


def signed_with_another_key(kind: str, context: str, payload: bytes) -> bytes:
    """What another user's or machine's jaxlint would write: a signed file, with a key of its own."""
    import os

    from jaxlint.project import cache_key

    mac = cache_key._mac(os.urandom(cache_key.KEY_BYTES), kind, context, payload)
    return b"jaxlint-signed-1 " + mac + b"\n" + payload
