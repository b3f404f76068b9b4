"""Project-level facts: the first analysis that crosses modules (bump-pydantic's shape, see DESIGN.md).

A serial pass over every file of a run (``build_index``) collects each module's facts (``module_facts``): its
imports, whether it reads the legacy ``thread_resources``, runs a ``pjit`` with (maybe) ``PartitionSpec`` shardings,
and which classes define ``*_shardings_hlo`` attributes. The runner makes the index *active* before the files are
linted (worker processes inherit it, or receive it), and rules ask it about the names their file imports:

- ``risk_of(path)``: why a module may break under ``jax.set_mesh`` (it reads ``thread_resources``, runs such a
  ``pjit``, or imports, transitively, a project module that does), or None;
- ``hlo_classes(path)``: the classes of a module that define ``in_shardings_hlo`` / ``out_shardings_hlo``;
- ``resolve(importer, level, module)``: the project file an import names, or None when it is not the project's.

A module name is resolved against the files of the run by its path: ``a.b.c`` is a file ending in ``a/b/c.py`` or
``a/b/c/__init__.py`` (so ``src/`` layouts, namespace packages and scripts importing their neighbours all work);
when several files match, the ones nearest the importer (longest common folder) win. Relative imports are resolved
from the importer's folder.

Cached next to the results (``index-<engine fingerprint>.json``), as plain JSON: per file its size, modification
time, content hash and facts. A file whose size and time are unchanged is not read again.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from jaxlint.project.module_facts import Facts, module_facts

READS_THREAD_RESOURCES = "reads the legacy `thread_resources`, which `jax.set_mesh` leaves empty (`KeyError`)"
RUNS_PJIT_WITH_SPECS = ("runs a `pjit` whose shardings are (or may be) bare `PartitionSpec`s, which raises "
                        "`RuntimeError: pjit requires a non-empty mesh in context` under `jax.set_mesh`")
FORMAT = 1


@dataclass
class ProjectIndex:
    """The facts of every module of a run, by absolute path, and what follows from them across modules."""

    facts: dict[str, Facts] = field(default_factory=dict)
    # path -> (its own reason, or None when it only imports a risky module; the module it imports, or None)
    _risk: dict[str, tuple[str | None, str | None]] | None = None
    _by_stem: dict[str, list[str]] | None = None

    # -- queries -------------------------------------------------------------------------------------------------
    def resolve(self, importer: str, level: int, module: str, name: str | None = None) -> str | None:
        """The project file ``from <level dots><module> import <name>`` (or ``import <module>``) reaches: the
        submodule ``module.name`` when there is one, else ``module``; None when neither is a project file."""
        parts = [part for part in module.split(".") if part]
        if level:
            base = os.path.dirname(os.path.abspath(importer))
            for _ in range(level - 1):
                base = os.path.dirname(base)
            for candidate in ([os.path.join(base, *parts, name)] if name else []) \
                    + ([os.path.join(base, *parts)] if parts else []):
                for path in (candidate + ".py", os.path.join(candidate, "__init__.py")):
                    if path in self.facts:
                        return path
            return None
        if name:
            found = self._absolute(importer, parts + [name])
            if found is not None:
                return found
        # ``import a.b.c`` / a qualified name ``a.b.c.f``: the longest prefix that is a project module.
        for end in range(len(parts), 0, -1):
            found = self._absolute(importer, parts[:end])
            if found is not None:
                return found
        return None

    def risk_of(self, path: str, root: str | None = None) -> str | None:
        """Why running code of this module under ``jax.set_mesh`` may break (a phrase after "which"), or None;
        paths shown relative to ``root``."""
        risk = self._risks().get(path)
        if risk is None:
            return None
        own, via = risk
        if own is not None:
            return own
        chain = []
        seen = {path}
        while via is not None and via not in seen and len(chain) < 4:
            seen.add(via)
            chain.append(via)
            own, via = self._risks()[via]
            if own is not None:
                break
        shown = ", which imports ".join(f"`{self.display(step, root)}`" for step in chain)
        return f"imports {shown}, which {own or 'imports more such modules'}"

    def hlo_classes(self, path: str) -> list[str]:
        facts = self.facts.get(path)
        return list(facts["hlo_classes"]) if facts else []

    def digest(self) -> str:
        """What the findings of any file may depend on: the risky modules and the classes with such attributes."""
        summary = sorted((path, self.risk_of(path, os.sep)) for path in self._risks())
        classes = sorted((path, facts["hlo_classes"]) for path, facts in self.facts.items() if facts["hlo_classes"])
        return hashlib.blake2b(repr((summary, classes)).encode(), digest_size=12).hexdigest()

    @staticmethod
    def display(path: str, root: str | None = None) -> str:
        """``path`` relative to ``root`` (the project root; the working folder when None) when it lies inside."""
        try:
            relative = os.path.relpath(path, root)
        except ValueError:
            return path
        return path if relative.startswith("..") else relative.replace(os.sep, "/")

    # -- internals -----------------------------------------------------------------------------------------------
    def _absolute(self, importer: str, parts: list[str]) -> str | None:
        if not parts:
            return None
        stems = self._stems()
        tails = (os.sep + os.sep.join(parts) + ".py", os.sep + os.sep.join(parts + ["__init__.py"]))
        matches = [path for path in stems.get(parts[-1], []) + stems.get("__init__:" + parts[-1], [])
                   if path.endswith(tails)]
        if not matches:
            return None
        if len(matches) == 1:
            return matches[0]
        return max(matches, key=lambda path: (_common_length(path, importer), path))

    def _stems(self) -> dict[str, list[str]]:
        if self._by_stem is None:
            stems: dict[str, list[str]] = {}
            for path in self.facts:
                folder, name = os.path.split(path)
                if name == "__init__.py":
                    stems.setdefault("__init__:" + os.path.basename(folder), []).append(path)
                else:
                    stems.setdefault(name.rsplit(".", 1)[0], []).append(path)
            self._by_stem = stems
        return self._by_stem

    def _risks(self) -> dict[str, tuple[str | None, str | None]]:
        """Every risky module: its own reason, or the module it imports that is risky (breadth first, so the
        chain shown is a shortest one)."""
        if self._risk is not None:
            return self._risk
        risk: dict[str, tuple[str | None, str | None]] = {}
        for path, facts in self.facts.items():
            if facts["thread_resources"]:
                risk[path] = (READS_THREAD_RESOURCES, None)
            elif facts["pjit_specs"]:
                risk[path] = (RUNS_PJIT_WITH_SPECS, None)
        if risk:
            importers: dict[str, set[str]] = {}
            for path, facts in self.facts.items():
                for level, module, names in facts["imports"]:
                    for target in self._import_targets(path, level, module, names):
                        if target != path:
                            importers.setdefault(target, set()).add(path)
            frontier = list(risk)
            while frontier:
                following = []
                for target in frontier:
                    for importer in sorted(importers.get(target, ())):
                        if importer not in risk:
                            risk[importer] = (None, target)
                            following.append(importer)
                frontier = following
        self._risk = risk
        return risk

    def _import_targets(self, importer: str, level: int, module: str, names: list[str]) -> Iterator[str]:
        if not names:
            found = self.resolve(importer, level, module)
            if found is not None:
                yield found
            return
        for name in names:
            found = self.resolve(importer, level, module, name)
            if found is not None:
                yield found


def _common_length(path: str, other: str) -> int:
    try:
        return len(os.path.commonpath([path, other]))
    except ValueError:
        return 0


# -- building it -------------------------------------------------------------------------------------------------
def build_index(paths: Iterable[Path], cache_directory: Path | None = None) -> ProjectIndex:
    """The facts of every ``.py``/``.pyi`` file among ``paths`` (notebooks are never imported), from the cache in
    ``cache_directory`` where a file is unchanged (None: no cache)."""
    from jaxlint.project.cache import content_hash, engine_fingerprint

    cache_file = cache_directory / f"index-{engine_fingerprint()}.json" if cache_directory is not None else None
    cached = _load(cache_file) if cache_file is not None else {}
    index = ProjectIndex()
    entries: dict[str, list] = {}
    changed = False
    for given in paths:
        if given.suffix not in (".py", ".pyi"):
            continue
        path = os.path.abspath(given)
        entry = cached.get(path)
        try:
            status = os.stat(path)
        except OSError:
            continue
        if entry is not None and entry[0] == status.st_size and entry[1] == status.st_mtime_ns:
            index.facts[path] = entry[3]
            entries[path] = entry
            continue
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        digest = content_hash(data) if cache_file is not None else ""
        if entry is not None and entry[2] == digest:
            facts = entry[3]
        else:
            facts = module_facts(data)
        index.facts[path] = facts
        entries[path] = [status.st_size, status.st_mtime_ns, digest, facts]
        changed = True
    if cache_file is not None and (changed or len(entries) != len(cached)):
        _save(cache_file, {**cached, **entries})
    return index


def _load(file: Path) -> dict[str, list]:
    try:
        data = json.loads(file.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
        return {}
    return {path: entry for path, entry in data["files"].items() if _valid(entry)}


def _valid(entry) -> bool:
    return isinstance(entry, list) and len(entry) == 4 and isinstance(entry[3], dict) \
        and {"imports", "thread_resources", "pjit_specs", "hlo_classes"} <= set(entry[3])


def _save(file: Path, files: dict[str, list]) -> None:
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"format": FORMAT, "files": files}, separators=(",", ":")).encode()
        fd, temporary = tempfile.mkstemp(prefix=".index-", suffix=".tmp", dir=file.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
            os.replace(temporary, file)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
    except OSError:
        pass  # the cache is an optimisation, never an error


# -- the index of the current run --------------------------------------------------------------------------------
_ACTIVE: ProjectIndex | None = None


def active_index() -> ProjectIndex | None:
    """The index of the run in progress (None when linting without one: a single text, the language server)."""
    return _ACTIVE


@contextmanager
def activated(index: ProjectIndex | None):
    global _ACTIVE
    previous, _ACTIVE = _ACTIVE, index
    try:
        yield index
    finally:
        _ACTIVE = previous


def set_active(index: ProjectIndex | None) -> None:
    """For worker processes started with ``spawn`` (a forked one inherits the parent's)."""
    global _ACTIVE
    _ACTIVE = index
