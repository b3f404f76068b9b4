"""Project-level facts: the first analysis that crosses modules (bump-pydantic's shape, see DESIGN.md).

A pass over every module of a run's projects (``build_index``: the linted files and the other modules of their
project roots, ``files.project_modules``, so that the facts do not depend on which paths were named) collects each
module's facts (``module_facts``): its
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

Cached next to the results (``index-<engine fingerprint>/``, shards of plain JSON: ``project.shards``): per file its
size, modification time, content hash and facts. A file whose size and time are unchanged is not read again. A cold
run (no cached result could hit) skips the serial pass: its workers compute each module's facts from the bytes they
lint and read the others' on first use, as without a cache, and ``complete_index`` computes the digest and writes
the cache. Only a result whose rules asked for the index (``active_index``) is keyed by the digest: a run none of
whose files asked reads no other module at all (``save_facts`` caches the facts its workers computed), and does not
even walk the project for them (``ProjectIndex.paths`` finds the other modules on first use).
"""
from __future__ import annotations

import bisect
import hashlib
import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from jaxlint.project.module_facts import Facts, module_facts

READS_THREAD_RESOURCES = "reads the legacy `thread_resources`, which `jax.set_mesh` leaves empty (`KeyError`)"
RUNS_PJIT_WITH_SPECS = ("runs a `pjit` whose shardings are (or may be) bare `PartitionSpec`s, which raises "
                        "`RuntimeError: pjit requires a non-empty mesh in context` under `jax.set_mesh`")
FORMAT = 1


@dataclass
class ProjectIndex:
    """The modules of a run, by absolute path; each one's facts read on first use (``facts_of``), or all at once
    (``read_all``, when the results are cached: their key needs every module's)."""

    _known: frozenset[str] = frozenset()  # the linted modules, and the others once found (``paths``)
    facts: dict[str, Facts] = field(default_factory=dict)
    # The project's other modules, found when first asked for (``paths``): a walk of the project roots, which a
    # one-file check none of whose rules asks about other modules never needs (0.25 s in a 30,000-module tree).
    _find_others: Callable[[], frozenset[str]] | None = None
    _risky: dict[str, bool] = field(default_factory=dict)  # what the searches found so far
    _chains: dict[str, list[str]] = field(default_factory=dict)  # a risky module -> the modules to a risky one
    _by_suffix: dict[str, list[str]] | None = None
    _sorted_names: list[str] | None = None  # the keys of ``_by_suffix``, sorted (``modules_named_from``)
    _root_names: frozenset[str] | None = None  # their first components (``resolve``'s quick "none of ours")
    _nearest: dict[tuple[str, str], str] = field(default_factory=dict)
    _targets: dict[str, list[str]] = field(default_factory=dict)  # a module -> the project modules it imports
    _answers: dict[tuple, str | None] = field(default_factory=dict)  # (folder, level, module, name) -> resolve's
    _digest: str | None = None
    # A cold run with a cache (``track_reads``): the facts read from disk here, which the results depend on.
    _reads: dict[str, Facts] | None = None
    # Whether a rule read other modules' sources since ``take_source_dependency`` (``analysis.construction_sites``):
    # what it found is no fact of the index, so the digest does not cover it.
    _sources_read: bool = False
    # Whether a rule asked for the index (``active_index``) since ``take_consultation``: the findings of a file whose
    # rules never did depend on no other module, so no project digest need key them.
    _consulted: bool = False

    @property
    def paths(self) -> frozenset[str]:
        """Every module of the run's projects (the walk for the others happens here, once)."""
        if self._find_others is not None:
            find, self._find_others = self._find_others, None
            self._known = self._known | find()
        return self._known

    def __getstate__(self) -> dict:
        """For a spawned worker: the modules found before pickling (a walk is no plain data)."""
        state = dict(self.__dict__)
        state["_known"], state["_find_others"] = self.paths, None
        return state

    def facts_of(self, path: str) -> Facts | None:
        if path not in self.paths:
            return None
        facts = self.facts.get(path)
        if facts is None:
            try:
                with open(path, "rb") as handle:
                    facts = module_facts(handle.read())
            except OSError:
                facts = module_facts(b"")
            self.facts[path] = facts
            if self._reads is not None:
                self._reads[path] = facts
        return facts

    def track_reads(self) -> None:
        """Record every module's facts read from disk from now on (``take_reads``): a cold run caches a result only
        if what its process read equals the facts the project digest is computed from."""
        self._reads = {}

    def take_reads(self) -> dict[str, Facts]:
        """The facts read from disk since the last call (the searches remember what they found from them)."""
        reads = self._reads or {}
        if self._reads is not None:
            self._reads = {}
        return reads

    def depend_on_sources(self) -> None:
        """The findings being computed depend on other modules' code beyond their facts (constructions of a class
        anywhere in the project): the runner does not cache them."""
        self._sources_read = True

    def take_source_dependency(self) -> bool:
        """Whether ``depend_on_sources`` was called since the last call."""
        found, self._sources_read = self._sources_read, False
        return found

    def take_consultation(self) -> bool:
        """Whether a rule asked for the index (``active_index``) since the last call."""
        found, self._consulted = self._consulted, False
        return found

    def install(self, path: str, facts: Facts) -> None:
        """A module's facts, computed by its own worker from the bytes it hashed (so not read again here). A linted
        module is known without the walk for the others."""
        if path in self._known or path in self.paths:
            self.facts[path] = facts

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
                    if path in self.paths:
                        return path
            return None
        if not parts or parts[0] not in self._roots():
            return None  # ``import numpy``: no project module's dotted name starts so (most imports: one set test)
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

    def modules_named_from(self, qualified: str) -> set[str]:
        """Every project file ``resolve(importer, 0, name)`` may return for a name that ``qualified`` starts (an
        import's name, with any attributes after it): a module named by a prefix of it, or by it and more."""
        suffixes = self._suffixes()
        parts = qualified.split(".")
        found = {path for end in range(1, len(parts) + 1) for path in suffixes.get(".".join(parts[:end]), ())}
        # The names that start with ``qualified.`` lie together in sorted order (a scan of every name cost JAX401's
        # ast path a second on a large tree).
        names = self._sorted_suffixes()
        head = qualified + "."
        for position in range(bisect.bisect_left(names, head), len(names)):
            if not names[position].startswith(head):
                break
            found.update(suffixes[names[position]])
        return found

    def risk_of(self, path: str, root: str | None = None) -> str | None:
        """Why running code of this module under ``jax.set_mesh`` may break (a phrase after "which"), or None;
        paths shown relative to ``root``. The same answer whatever was asked before (worker processes ask in
        any order; cached results are keyed by it)."""
        if not self._is_risky(path):
            return None
        chain = self._chains.get(path)
        if chain is None:
            chain = self._chains[path] = self._search(path, shortcuts=False) or [path]
        own = self._own_risk(chain[-1])
        if len(chain) == 1:
            return own
        shown = ", which imports ".join(f"`{self.display(step, root)}`" for step in chain[1:])
        return f"imports {shown}, which {own or 'imports more such modules'}"

    def hlo_classes(self, path: str) -> list[str]:
        facts = self.facts_of(path)
        return list(facts["hlo_classes"]) if facts else []

    def read_all(self) -> None:
        for path in self.paths:
            self.facts_of(path)

    def digest(self) -> str:
        """What the findings of any file may depend on: the risky modules and the classes with such attributes.

        Searching every module's imports costs a third of a warm run; the result depends only on the modules and
        their facts, so ``build_index`` keeps it in the cache under a hash of those (``facts_key``)."""
        if self._digest is not None:
            return self._digest
        self.read_all()
        summary = [(path, self.risk_of(path, os.sep)) for path in sorted(self.paths) if self._is_risky(path)]
        classes = sorted((path, facts["hlo_classes"]) for path, facts in self.facts.items() if facts["hlo_classes"])
        self._digest = hashlib.blake2b(repr((summary, classes)).encode(), digest_size=12).hexdigest()
        return self._digest

    def facts_key(self) -> str:
        """A hash of every module's path and facts: equal keys, equal ``digest()``."""
        self.read_all()
        text = json.dumps(sorted(self.facts.items()), separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

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
        name = ".".join(parts)
        matches = self._suffixes().get(name)
        if not matches:
            return None
        if len(matches) == 1:
            return matches[0]
        key = (os.path.dirname(importer), name)
        if key not in self._nearest:
            self._nearest[key] = max(matches, key=lambda path: (_shared_length(path, importer), path))
        return self._nearest[key]

    def _suffixes(self) -> dict[str, list[str]]:
        """Every dotted name a file may be imported as: ``/p/src/a/b.py`` with ``a/__init__.py`` is ``a.b``, and
        ``src.a.b`` when ``src`` has no ``__init__.py`` either, and so on up; never ``b`` alone (inside a package a
        module is not top-level: ``netket/jax/__init__.py`` is no ``jax``). Without ``__init__.py`` files (namespace
        packages, scripts importing their neighbours) every folder above may be on ``sys.path``."""
        if self._by_suffix is None:
            suffixes: dict[str, list[str]] = {}
            packages = _packages(self.paths)
            ups: dict[str, list[tuple[str, bool]]] = {}  # a folder's ``_folders_up``: its files share them
            for path in self.paths:
                folder, file_name = os.path.split(path)
                stem = file_name.rsplit(".", 1)[0]
                if stem == "__init__":
                    folder, stem = os.path.split(folder)
                if not stem.isidentifier():
                    continue
                levels = ups.get(folder)
                if levels is None:
                    levels = ups[folder] = _folders_up(folder, packages)
                for prefix, importable in levels:
                    if importable:
                        suffixes.setdefault(prefix + stem, []).append(path)
            self._by_suffix = suffixes
        return self._by_suffix

    def _roots(self) -> frozenset[str]:
        """The first component of every dotted name a project file may be imported as (``_suffixes``)."""
        if self._root_names is None:
            self._root_names = frozenset(name.partition(".")[0] for name in self._suffixes())
        return self._root_names

    def _sorted_suffixes(self) -> list[str]:
        if self._sorted_names is None:
            self._sorted_names = sorted(self._suffixes())
        return self._sorted_names

    def _is_risky(self, path: str) -> bool:
        if path not in self._risky:
            chain = self._search(path, shortcuts=True)
            if chain is not None:
                self._risky.update((step, True) for step in chain)
        return self._risky.get(path, False)

    def _search(self, path: str, shortcuts: bool) -> list[str] | None:
        """Breadth first over the imports from ``path`` (in their order) to the nearest module that is risky
        itself: the chain of modules, or None. A search that finds none proves every module it saw harmless (what
        they reach, it reached). ``shortcuts``: a module already known to be risky ends the search too (what
        ``_is_risky`` needs; the chain shown must not depend on earlier searches)."""
        parent: dict[str, str | None] = {path: None}
        frontier = [path]
        while frontier:
            following = []
            for current in frontier:
                known = self._risky.get(current)
                if known is False:
                    continue  # proven harmless by an earlier search
                if (shortcuts and known) or self._own_risk(current):
                    chain = [current]
                    while parent[chain[-1]] is not None:
                        chain.append(parent[chain[-1]])
                    return chain[::-1]
                for target in self._imported_modules(current):
                    if target not in parent:
                        parent[target] = current
                        following.append(target)
            frontier = following
        self._risky.update((seen, False) for seen in parent)
        return None

    def _own_risk(self, path: str) -> str | None:
        facts = self.facts_of(path)
        if facts is None:
            return None
        if facts["thread_resources"]:
            return READS_THREAD_RESOURCES
        if facts["pjit_specs"]:
            return RUNS_PJIT_WITH_SPECS
        return None

    def _imported_modules(self, path: str) -> list[str]:
        """The project modules ``path`` imports, in the order of its imports (each search asks again: kept)."""
        targets = self._targets.get(path)
        if targets is None:
            facts = self.facts_of(path)
            targets = self._targets[path] = [] if facts is None else self._import_targets(path, facts["imports"])
        return targets

    def _import_targets(self, importer: str, imports: list) -> list[str]:
        """What ``resolve`` answers for each name of each import. It answers alike for every module of a folder
        (``_nearest`` is kept per folder too): the answers are kept per folder, as many modules import alike."""
        folder = os.path.dirname(importer)
        answers, roots = self._answers, self._roots()
        targets = []
        for level, module, names in imports:
            if not level and module.lstrip(".").partition(".")[0] not in roots:
                continue  # ``import numpy``: ``resolve``'s quick "none of ours", for every name
            for name in names or (None,):
                key = (folder, level, module, name)
                found = answers.get(key, _UNKNOWN)
                if found is _UNKNOWN:
                    found = answers[key] = self.resolve(importer, level, module, name)
                if found is not None:
                    targets.append(found)
        return targets


_UNKNOWN = object()


def _shared_length(one: str, other: str) -> int:
    """``len(os.path.commonprefix([one, other]))``, by halving on slices (``commonprefix`` compares a character at a
    time in Python)."""
    low, high = 0, min(len(one), len(other))
    while low < high:
        middle = (low + high + 1) // 2
        if one[:middle] == other[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _packages(paths: frozenset[str]) -> frozenset[str]:
    """The folders ``f`` with ``os.path.join(f, "__init__.py")`` among ``paths``."""
    found = set()
    for path in paths:
        folder, name = os.path.split(path)
        if name == "__init__.py" and os.path.join(folder, name) == path:
            found.add(folder)
    return frozenset(found)


def _folders_up(folder: str, packages: frozenset[str]) -> list[tuple[str, bool]]:
    """From ``folder`` up, while each folder's name is an identifier: the dotted prefix a module of ``folder`` is
    imported under from there (``""``, ``"b."``, ``"a.b."``...) and whether that folder may be on ``sys.path`` (it
    is no package: no ``__init__.py``)."""
    levels = []
    prefix = ""
    while True:
        levels.append((prefix, folder not in packages))
        folder, stem = os.path.split(folder)
        if not stem or not stem.isidentifier():
            return levels
        prefix = f"{stem}.{prefix}"


# -- building it -------------------------------------------------------------------------------------------------
def build_index(paths: Iterable[Path], cache_directory: Path | None = None, *,
                others: Callable[[], Iterable[Path]] | None = None) -> ProjectIndex:
    """The index of the ``.py``/``.pyi`` files among ``paths`` and, when first asked for, those ``others`` gives
    (the rest of the project: ``files.project_modules``); notebooks are never imported. Without a cache directory
    nothing is read here: each worker reads the modules its files reach, when they ask. With one, every module's
    facts are read now (the results' key needs them), from the cache where a file is unchanged."""
    cwd = os.getcwd()  # os.path.abspath reads it again for every path

    def modules(found: Iterable[Path]) -> frozenset[str]:
        return frozenset(os.path.normpath(text if os.path.isabs(text) else os.path.join(cwd, text))
                         for text in map(str, found) if is_module(text))

    index = ProjectIndex(modules(paths), _find_others=None if others is None else lambda: modules(others()))
    if cache_directory is None:
        return index
    store = _store(cache_directory)
    cached, stored_digest = _stored_entries(store, index.paths), _stored_digest(cache_directory)
    entries: dict[str, list] = {}
    _read_facts(index, index.paths, cached, entries)
    key = index.facts_key()
    _reuse_digest(index, key, stored_digest)
    _save(store, cached, entries, cache_directory, stored_digest, [key, index.digest()])
    return index


def _read_facts(index: ProjectIndex, paths: Iterable[str], cached: dict[str, list], entries: dict[str, list]) -> None:
    """Each module's facts into ``index``, from its cache entry where its size and time are unchanged (else from its
    bytes, or from the entry when its content hash is unchanged); its entry into ``entries``."""
    from jaxlint.project.cache import content_hash

    for path in paths:
        entry = cached.get(path)
        started = time.time_ns()
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
        digest = content_hash(data)
        facts = entry[3] if entry is not None and entry[2] == digest else module_facts(data)
        index.facts[path] = facts
        entries[path] = cache_entry(status, started, digest, facts)


def cache_entry(status: os.stat_result, read_started_ns: int, digest: str, facts: Facts) -> list:
    """A module's entry in the index cache: ``[size, modification time or None, content hash, facts]``. A file
    modified in the tick it was read could change again under the same time: its entry keeps no time, so the next
    run compares the hash (the results cache's racy rule, ``cache.trusted_stamp``)."""
    from jaxlint.project.cache import trusted_stamp

    trusted = trusted_stamp(status, read_started_ns) is not None
    return [status.st_size, status.st_mtime_ns if trusted else None, digest, facts]


def complete_index(paths: frozenset[str], facts: dict[str, Facts], entries: dict[str, list],
                   cache_directory: Path) -> ProjectIndex:
    """A cold run's index once every worker has returned its module's facts (``facts``; any module missing is read
    now, from the index cache where it is unchanged: a one-file run's project is mostly modules it did not lint)
    and ``entries`` for the index cache (``[size, time or None, hash, facts]``, as ``build_index`` writes them):
    computes the project digest once, and caches the facts and the digest for the next, warm run."""
    index = ProjectIndex(paths, dict(facts))
    store = _store(cache_directory)
    cached, stored_digest = _stored_entries(store, paths), _stored_digest(cache_directory)
    entries = dict(entries)
    _read_facts(index, sorted(paths - index.facts.keys()), cached, entries)
    key = index.facts_key()  # reads any module that could not be read above
    _reuse_digest(index, key, stored_digest)
    _save(store, cached, entries, cache_directory, stored_digest, [key, index.digest()])
    return index


def save_facts(entries: dict[str, list], cache_directory: Path) -> None:
    """A cold run's module facts (``entries``, as ``complete_index`` takes them) into the index cache, where no
    result needed the project digest: no other module is read, and only the shards of these modules
    (``project.shards``). The digest stored there stays; it is reused only under the facts it was computed from
    (``_reuse_digest``)."""
    if not entries:
        return
    store = _store(cache_directory)
    _save(store, {path: store.get(path) for path in entries}, entries, cache_directory)


def _reuse_digest(index: ProjectIndex, key: str, stored_digest: object) -> None:
    """The digest the cache keeps for these facts (``facts_key``), instead of searching every module again."""
    if isinstance(stored_digest, list) and len(stored_digest) == 2 and stored_digest[0] == key \
            and isinstance(stored_digest[1], str):
        index._digest = stored_digest[1]


def _store(directory: Path):
    """The index cache of this jaxlint in ``directory`` (one per engine fingerprint, as the results cache), in
    shards: a run reads the shards of the modules it asks about, and all of them only for the project digest."""
    from jaxlint.project.fingerprint import engine_fingerprint
    from jaxlint.project.shards import ShardedEntries

    engine = engine_fingerprint()
    return ShardedEntries(directory / f"index-{engine}", "index", engine, _valid)


def _stored_entries(store, paths: Iterable[str]) -> dict[str, list]:
    """The cached entries of these modules: only their shards are read (a run whose index holds a few modules of a
    large cache, such as a one-file check in a tree too large to walk, reads a few shards)."""
    found = {}
    for path in paths:
        entry = store.get(path)
        if entry is not None:
            found[path] = entry
    return found


def _digest_file(directory: Path) -> Path:
    from jaxlint.project.fingerprint import engine_fingerprint

    return directory / f"index-{engine_fingerprint()}" / "digest.json"


def _stored_digest(directory: Path) -> object:
    """``[facts_key, digest]`` as the last run that computed the project digest stored it (anything else when it is
    missing, damaged or not ours: ``_reuse_digest`` then ignores it)."""
    from jaxlint.project.fingerprint import engine_fingerprint
    from jaxlint.project.cache_key import read_signed

    data = read_signed(_digest_file(directory), "index digest", engine_fingerprint())
    return data.get("digest") if isinstance(data, dict) and data.get("format") == FORMAT else None


def _save(store, cached: dict, entries: dict[str, list], directory: Path, stored_digest: object = None,
          digest: list | None = None) -> None:
    """The entries that differ from what is stored (``cached``), and the digest when it changed."""
    from jaxlint.project.fingerprint import engine_fingerprint
    from jaxlint.project.cache_key import write_signed

    for path, entry in entries.items():
        if cached.get(path) != entry:
            store.put(path, entry)
    try:
        store.save()
        if digest is not None and digest != stored_digest:
            write_signed(_digest_file(directory), "index digest", engine_fingerprint(),
                         {"format": FORMAT, "digest": digest})
    except OSError:
        pass  # the cache is an optimisation, never an error


def is_module(path: str) -> bool:
    """Whether a file of the run is a module of the index (``.py``/``.pyi``: notebooks are never imported).
    ``Path(path).suffix in (".py", ".pyi")`` without a Path: a name that is only the suffix (``.py``) has none."""
    name = os.path.basename(path)
    return name.endswith((".py", ".pyi")) and name.rfind(".") > 0


def _valid(entry) -> bool:
    return isinstance(entry, list) and len(entry) == 4 and isinstance(entry[3], dict) \
        and {"imports", "thread_resources", "pjit_specs", "hlo_classes"} <= set(entry[3])


# -- the index of the current run --------------------------------------------------------------------------------
_ACTIVE: ProjectIndex | None = None


def active_index() -> ProjectIndex | None:
    """The index of the run in progress, for a rule (None when linting without one: a single text, the language
    server). Every question a rule asks about other modules starts here, so asking marks the file being linted as
    depending on them (``ProjectIndex.take_consultation``): only such a file's cached result is keyed by the
    project digest, and a run whose files never ask needs no digest, nor any other module's facts."""
    if _ACTIVE is not None:
        _ACTIVE._consulted = True
    return _ACTIVE


def running_index() -> ProjectIndex | None:
    """The index of the run in progress, for the runner (which installs facts and takes what the rules did):
    ``active_index`` without marking a consultation."""
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
