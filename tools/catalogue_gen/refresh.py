"""``--only-successors``: the successor and advice steps (``successors``, ``module_advice``) applied to the rows of
an existing ``generated.toml`` (its earlier successors and advice undone first), from snapshots without signatures
or flags (a third of a full snapshot's time).

The rows are those a full run wrote; both steps only fill rows that have neither replacement nor advice, so this
writes what a full run with the same wheels writes, and confirms the new "same object" answers at run time
in the venvs of ``--jaxenvs`` that exist (``runtime_check``, as a full run does; none is built).
"""
from __future__ import annotations

import concurrent.futures
import os
import tomllib
from pathlib import Path

from catalogue_gen.exports import load_exports
from catalogue_gen.module_advice import add_module_advice
from catalogue_gen.name_diff import Entry
from catalogue_gen.parameter_diff import Parameter
from catalogue_gen.releases import download
from catalogue_gen.runtime_check import previous_runtime_answers, runtime_check
from catalogue_gen.snapshot import load_origins_snapshot
from catalogue_gen.successors import add_successors
from catalogue_gen.toml_writer import write

KINDS = ("symbol", "module", "config")


def read_rows(path: Path) -> tuple[list[str], list[Entry], list[Parameter]]:
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    entries = [Entry(kind=kind, **row) for kind in KINDS for row in data.get(kind, [])]
    return data["versions"], entries, [Parameter(**row) for row in data.get("parameter", [])]


def undo(entries: list[Entry]) -> None:
    """Back to the rows as the diff left them: a previous refresh's successors and advice are recomputed (advice in
    generated.toml comes only from ``module_advice``)."""
    for e in entries:
        e.advice = None
        if e.source.endswith("+origin"):
            e.source = e.source.removesuffix("+origin")
            e.replacement = e.replacement_since = e.same_object = e.same_object_checked = None


def refresh(python: str, cache: Path, out: Path, jaxenvs: Path | None) -> tuple[int, int]:
    """Rewrite ``out`` with successors and advice; (successors found, advice given)."""
    versions, entries, parameters = read_rows(out)
    undo(entries)
    wheels = {v: download(python, cache, v) for v in versions}
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        futures = {v: pool.submit(load_origins_snapshot, cache, v, wheels[v]) for v in versions}
        snaps = {v: futures[v].result() for v in versions}
    found = add_successors(entries, versions, snaps, load_exports(cache, versions[-1], wheels[versions[-1]]))
    advised = add_module_advice(entries)
    runtime_check([e for e in entries if e.source.endswith("+origin")], jaxenvs, False, previous_runtime_answers(out))
    write(entries, versions, out, parameters)
    return found, advised
