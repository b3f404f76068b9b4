"""The effective floor: the oldest JAX a package's code can run on, from the first releases of the JAX names it
uses (``jaxlint.catalogue.first_release``), where that is newer than the floor its pins declare.

A project that pins ``jax>=0.4.0`` but calls ``jax.set_mesh`` cannot run below that name's first release (0.7.1);
taking 0.4.0 as the floor withholds fixes the project could take. Conservative by construction, since the answer
raises a floor: only names resolved through the file's imports to ``jax`` (``AstView.qualified_name``: a name it
cannot resolve for certain is skipped), only names the generated table dates, never in compat code (``try``/
``except ImportError``, ``hasattr(jax, ...)``, version branches: ``AstView.in_compat_code``, plus a ``try`` that
catches ``Exception`` and the code after such an ``if`` in its block), never in annotations that are not
evaluated. Test files and notebooks count as code
too: they run on the package's pins.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Iterable

from jaxlint.catalogue.first_release import first_release, first_releases
from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.ast_gate import parse_module
from jaxlint.lint.text_gate import NamesByLast, names_by_last, reading
from jaxlint.project.versions import Version

# Handlers that make a ``try`` a guard around what its body uses (beyond ``ast_findings``' missing-name ones).
_BROAD = frozenset({"Exception", "BaseException"})


@dataclass(frozen=True)
class FloorUse:
    """The use of a JAX name that needs ``since``: ``name`` as the table records it, at ``path:row``."""

    name: str
    since: Version
    path: str
    row: int
    column: int


@dataclass(frozen=True)
class EffectiveFloor:
    """A package whose code needs a newer JAX than its pins' floor (``pinned``, written at ``pinned_where`` as
    ``requirement``): ``needs`` is the newest first release among its uses, ``use`` the first such use."""

    package: Path
    pinned: Version
    pinned_where: str
    requirement: str
    needs: Version
    use: FloorUse

    def note(self, cwd: Path) -> str:
        where = f"{_shown(self.use.path, cwd)}:{self.use.row}"
        return (f"pins say {self.requirement} ({self.pinned_where}); the code needs {self.needs} for "
                f"`{self.use.name}` at {where}")

    def as_json(self, cwd: Path) -> dict:
        return {"package": _shown(str(self.package), cwd), "pinned": str(self.pinned),
                "pinned_where": self.pinned_where, "needs": str(self.needs), "name": self.use.name,
                "where": f"{_shown(self.use.path, cwd)}:{self.use.row}"}


def pinned_floor(settings) -> Version | None:
    """The floor a file's package pins, when its min version is that floor (None otherwise: no pinned floor, or
    ``--min-version`` / the config set it, and the user said what they support)."""
    pinned = settings.pinned
    if pinned is None or pinned.lower is None or settings.min_version_source != str(pinned.lower):
        return None
    return pinned.lower.version


def file_uses(data: bytes, path: str, floor: Version, text: str | None = None,
              tree: ast.Module | None = None, utf8: str | None = None) -> list[FloorUse]:
    """``uses_above`` of a ``.py`` file's bytes, read as ``effective_floors`` reads the file (UTF-8, universal
    newlines; a file that is not UTF-8 has none). The lint's worker calls it with what it has already: ``text``,
    the file's text as the lint decoded it, and ``tree``, ``ast``'s parse of that text: reused when the two reads
    agree (no carriage return, no BOM); ``utf8``: ``data.decode("utf-8")``, when it knows it (the lint decoded the
    bytes as UTF-8, without a BOM)."""
    if utf8 is not None:
        source = utf8
    else:
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError:
            return []
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    return uses_above(source, path, floor, tree if tree is not None and text == source else None)


def uses_above(source: str, path: str, floor: Version, tree: ast.Module | None = None) -> list[FloorUse]:
    """Every use in ``source`` of a JAX name first released after ``floor``, in source order (``tree``: ``ast``'s
    parse of ``source``, when the caller has it)."""
    if "jax" not in source or not _mentions_a_dated_name(source, floor):
        return []
    source = source.replace("\r\n", "\n")  # CRLF files: the rows stay the same
    if tree is None:
        tree = parse_module(source)  # the lint's own parse of this text, when it made one (the last one)
        if tree is None:
            return []
    try:
        view = AstView(source, tree)
    except Undecidable:
        return []
    if view.star_import:
        return []
    found = []
    for node, qualified in _jax_names(view):
        dated = first_release(qualified)
        if dated is None or not dated[1] > floor:
            continue
        try:
            ancestors = view.ancestors(node)
            if view.in_compat_code(ancestors, node) or _broadly_guarded(ancestors) or view.is_unevaluated(ancestors) \
                    or _after_a_feature_test(view, ancestors, node):
                continue
        except Undecidable:
            continue
        found.append(FloorUse(dated[0], dated[1], path, node.lineno, node.col_offset + 1))
    return found


class _DatedNames:
    """The names the table dates after one floor, read through tables of every dated name built once per process
    (``_every_dated_name``): nothing is built per floor but the names filtered on first look-up of each last part.
    A research monorepo meets a dozen floors (one per pin file), and each worker used to build a table of the 3,000
    names per floor (then per set of releases): 2-4 ms each, in every worker."""

    def __init__(self, floor: Version) -> None:
        self.floor = floor

    @cached_property
    def words(self) -> frozenset[str]:
        """The last parts of the names dated after the floor: one pass over the table's last parts (an
        intersection with each file's words cost more than this set's early exit)."""
        floor = self.floor.key
        return frozenset(word for word, newest in _every_dated_name()[1].items() if newest > floor)

    def spelled_in(self, words: set[str]) -> bool:
        """Whether ``words`` hold the last part of a name dated after the floor: every part of a qualified name
        is spelled in the file (in an import or an attribute), so a file without one needs no parse."""
        return not self.words.isdisjoint(words)

    @cached_property
    def by_last(self) -> NamesByLast:
        every = _every_dated_name()[0]
        return NamesByLast(_NamesAfter(every.index, self.floor), every.lasts, every.parts)


class _NamesAfter(dict):
    """``NamesByLast.index`` of the names dated after ``floor``, each last part's names filtered on first look-up
    (the text gate looks up only the last parts a file spells)."""

    def __init__(self, index: dict[str, list[str]], floor: Version) -> None:
        super().__init__()
        self._all, self._floor = index, floor.key

    def __missing__(self, last: str) -> list[str]:
        since, floor = first_releases(), self._floor
        found = self[last] = [name for name in self._all.get(last, ()) if since[name].key > floor]
        return found


@lru_cache(maxsize=1)
def _every_dated_name() -> tuple[NamesByLast, dict[str, tuple]]:
    """The text gate's table of every dated name, and for each last part the newest first release (its
    ``Version.key``) among the names that end in it: a floor dates a name ending in the word exactly when it is
    below that release."""
    every = names_by_last(frozenset(first_releases()))
    since = first_releases()
    newest = {last: max(since[name].key for name in names) for last, names in every.index.items()}
    return every, newest


@lru_cache(maxsize=64)
def _dated(floor: Version) -> _DatedNames:
    return _DatedNames(floor)


def warm_up(floors: Iterable[Version]) -> None:
    """Build, before a run forks its workers, what every worker would otherwise build for itself: each floor's
    words and the table its look-ups fill."""
    for floor in floors:
        dated = _dated(floor)
        dated.words, dated.by_last  # built here (cached on the object), read by the workers


def _mentions_a_dated_name(source: str, floor: Version) -> bool:
    """Whether the file may use a name dated after ``floor``: first among its ASCII words (the prefilter's split: a
    name bounded by non-word characters is one of them), then as the rules' text gate reads references (an
    import or a chain that may resolve to one of the names: ``text_gate``, which over-approximates the references
    an ``ast`` reading finds). About one file in three that spells a dated name's last part refers to one."""
    dated = _dated(floor)
    scan, facts = reading(source)  # the lint's own, when it read this very text last
    spelled = scan.words
    return dated.spelled_in(spelled) and facts.refers_to_any(dated.by_last, spelled)


def _jax_names(view: AstView) -> Iterable[tuple[ast.AST, str]]:
    """(node, qualified name) of each outermost name or attribute chain, and each name an import binds, that
    resolves to ``jax``."""
    # The names and attributes that are an attribute's ``value`` (not the outermost part of their chain), in one
    # pass over the attributes: asking each node's parent maps the parents of the whole file.
    inner = {id(attribute.value) for attribute in view.nodes_of((ast.Attribute,))}
    for node in view.nodes:
        kind = type(node)
        if kind is ast.ImportFrom:
            if node.module and not node.level and node.module.split(".")[0] == "jax":
                yield node, node.module
                for alias in node.names:
                    if alias.name != "*":
                        yield node, f"{node.module}.{alias.name}"
        elif kind is ast.Import:
            for alias in node.names:
                if alias.name.split(".")[0] == "jax":
                    yield node, alias.name
        elif kind is ast.Attribute or kind is ast.Name:
            if id(node) in inner or (kind is ast.Name and type(node.ctx) is not ast.Load):
                continue  # the outermost chain only; a binding is no use
            try:
                qualified = view.qualified_name(node)
            except Undecidable:
                continue
            if qualified and qualified.split(".")[0] == "jax":
                yield node, qualified


def _broadly_guarded(ancestors) -> bool:
    """Inside the body of a ``try`` whose handlers catch ``Exception`` (the shims that fall back on any failure)."""
    for index, (ancestor, field) in enumerate(ancestors):
        if type(ancestor) is ast.Try and field == "body":
            for handler in ancestor.handlers:
                types = handler.type.elts if type(handler.type) is ast.Tuple else [handler.type]
                if any(type(t) in (ast.Name, ast.Attribute) and ast.unparse(t).split(".")[-1] in _BROAD
                       for t in types):
                    return True
    return False


def _after_a_feature_test(view: AstView, ancestors, node: ast.AST) -> bool:
    """After an ``if`` that tests JAX's version or features in the same block or an enclosing one: ``if
    version("jax") < (0, 8, 2): return old(x)`` then ``return new(x)`` (the early return of a shim)."""
    chain = [ancestor for ancestor, _ in ancestors] + [node]
    for index, (ancestor, field) in enumerate(ancestors):
        block = getattr(ancestor, field, None)
        if type(block) is not list:
            continue
        below = chain[index + 1]
        for statement in block:
            if statement is below:
                break
            if type(statement) is ast.If and view.is_feature_test(statement.test):
                return True
    return False


def effective_floors(files: Iterable, known: "dict[str, tuple[Version, list[FloorUse]]] | None" = None
                     ) -> list[EffectiveFloor]:
    """One ``EffectiveFloor`` per package whose min version is its pins' floor and whose code needs a newer JAX
    (``files``: ``SourceFile``s, each with its settings). ``known``: the uses of the files the lint's workers
    found already (``FileResult.floor_uses``: the floor they were found above and the uses, by path); any other
    file is read here. Files that cannot be read are
    skipped."""
    by_package: dict[Path, list] = {}
    for file in files:
        if pinned_floor(file.settings) is None or file.path.suffix != ".py":
            continue
        by_package.setdefault(file.settings.pinned.package, []).append(file)
    known = known or {}
    floors = []
    for package, package_files in sorted(by_package.items()):
        lower = package_files[0].settings.pinned.lower
        best: FloorUse | None = None
        for file in sorted(package_files, key=lambda f: str(f.path)):
            floor, uses = known.get(str(file.path), (None, None))
            if floor != lower.version:
                try:
                    data = file.path.read_bytes()
                except OSError:
                    continue
                uses = file_uses(data, str(file.path), lower.version)
            for use in uses:
                if best is None or use.since > best.since:
                    best = use
        if best is not None:
            floors.append(EffectiveFloor(package, lower.version, lower.where, lower.requirement, best.since, best))
    return floors


def _shown(path: str, cwd: Path) -> str:
    relative = os.path.relpath(path, cwd)
    return Path(path).as_posix() if relative.startswith("..") else Path(relative).as_posix()
