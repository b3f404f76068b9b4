"""The signature rows of flax, optax and jaxlib: ``signature_snapshot``'s reader and ``signature_diff``'s diff, run
over each library's own releases, each row tagged with its library (``[[signature]]`` ``library = "flax"``).

- flax from 0.6.0 and optax from 0.1.0 (every release with a wheel; ``ecosystem.download`` caches them where the
  flax/optax catalogue does), their versions the rows' ``changed_in``/``last_seen``;
- jaxlib: its ``.py`` modules (``xla_client``, ``mosaic``, ``hlo_helpers``...; an extension's names are not read),
  for the releases of jax the jax rows read that have a jaxlib wheel of the same number. jaxlib's numbers are jax's,
  so its rows are judged against the project's JAX range.
"""
from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path

from catalogue_gen import ecosystem
from catalogue_gen.releases import download_jaxlib, index_versions, jaxlib_wheel, vkey
from catalogue_gen.signature_diff import SignatureRow, signature_diff
from catalogue_gen.signature_snapshot import load_signature_snapshot

LIBRARIES = ("flax", "optax", "jaxlib")
# The oldest release read: the oldest the flax/optax rules consider (docs/catalogue.md).
FIRST = {"flax": "0.6.0", "optax": "0.1.0"}


def library_versions(python: str, cache: Path, library: str, jax_versions: list[str], offline: bool) -> dict[str, Path]:
    """Version -> wheel, oldest first. ``offline``: only the wheels already in ``cache``."""
    found: dict[str, Path] = {}
    if library == "jaxlib":
        folder = cache / "jaxlib"
        folder.mkdir(parents=True, exist_ok=True)
        for version in jax_versions:
            if jaxlib_wheel(folder, version) is None and not offline:
                download_jaxlib(folder, version)
            if (wheel := jaxlib_wheel(folder, version)) is not None:
                found[version] = wheel
        return found
    folder = cache / "ecosystem"
    if offline:
        versions = sorted({p.name.split("-")[1] for p in folder.glob(f"{library}-*.whl")}, key=vkey)
    else:
        versions = [v for v in index_versions(python, library) if vkey(v) >= vkey(FIRST[library])]
    for version in versions:
        wheel = ecosystem.wheel_path(folder, library, version) if offline else \
            ecosystem.download(python, folder, library, version)
        if wheel is not None:
            found[version] = wheel
    return found


def library_rows(python: str, cache: Path, jax_versions: list[str], libraries=LIBRARIES, offline: bool = False,
                 workers: int = 2) -> tuple[list[SignatureRow], dict[str, dict]]:
    """The rows of every library, and per library what was read (``versions``, ``classes``, ``methods``)."""
    rows: list[SignatureRow] = []
    read: dict[str, dict] = {}
    for library in libraries:
        wheels = library_versions(python, cache, library, jax_versions, offline)
        if len(wheels) < 2:
            read[library] = {"versions": list(wheels), "classes": 0, "methods": 0}
            continue
        versions = list(wheels)
        snaps_folder = cache / "signatures"
        snaps_folder.mkdir(parents=True, exist_ok=True)
        with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, min(workers, os.cpu_count() or 1))) as pool:
            futures = {v: pool.submit(load_signature_snapshot, snaps_folder, v, wheels[v], library) for v in versions}
            snaps = {v: futures[v].result() for v in versions}
        found = signature_diff(versions, snaps)
        for row in found:
            row.library = library
        rows += found
        newest = snaps[versions[-1]]
        origins = {entry["origin"]: entry for entry in newest["classes"].values()}
        read[library] = {"versions": versions, "classes": len(origins),
                         "methods": sum(len(entry["members"]) for entry in origins.values())}
    return rows, read
