"""Shared machinery of the catalogue-driven rules JAX101 (removed-symbol) and JAX402 (deprecated-symbol).

Not a rule module itself (the name does not match ``jaxNNN_*``). A rule subclass says which entries it is about
(``_applies``); this class finds their uses: attribute chains (``jax.tree_map``, ``jnp.X``, ``core.X`` after
``from jax import core``), ``from M import name`` statements, ``import`` of listed modules, and builds the fixes:

- a symbol rename is safe only when ``Entry.safe_replacement(min_version)`` names a spelling (same object or a
  documented equivalent, existing at the min version); the replacement is spelled through the user's own alias when
  it lies under it (``jnp.X``), fully otherwise (``jax....``, only when the chain starts at ``jax``), and
  ``import <module>`` is added where isort would put it (``added_imports``) when no import of the file loads
  that module;
- ``from M import a, b`` is rewritten when every imported name maps to the same new module; the local names are kept
  (``from jax.errors import JaxprTypeError``; ``... import new as old`` when the name changed);
- importing ``jax.cloud_tpu_init`` is deleted (``import jax`` kept when the statement was what bound ``jax``);
- an entry with ``fix = "positional-call"`` (``jax.tree_multimap`` -> ``jax.tree_util.tree_map``) is renamed only
  where every use is a call passing the function and the trees positionally (``is_leaf=`` allowed): at the call
  for an attribute chain, at every reference of the imported name for ``from M import name``.
"""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Iterator

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.diagnostics import WithheldFix
from jaxlint.lint.context import in_compat_code, silent_import_guard
from jaxlint.lint.import_bindings import with_prefixes
from jaxlint.lint.walk import iter_children
from jaxlint.catalogue import Catalogue, Entry, load
from jaxlint.catalogue.floors import call_limit_problem, range_withheld
from jaxlint.analysis import added_imports, unused_imports
from jaxlint.catalogue import messages as catalogue_messages, rewrites as catalogue_rewrites, symbols_ast
from jaxlint.catalogue.rewrites import (DELETE_IMPORT, POSITIONAL_CALL, annotation_only_withheld,
                                        positional_call_arguments_problem)
from jaxlint.project.versions import Version
from jaxlint.rules.base import DeleteStatement, Replace, Rule, safe_fix

# Modules that ``import jax`` loads in every release of the window (measured in 0.4.23, 0.10.2 and 0.12.0.1):
# ``jax.<these>.name`` needs no extra import.
LOADED_BY_IMPORT_JAX = frozenset({
    "jax", "jax.api_util", "jax.core", "jax.custom_batching", "jax.custom_derivatives", "jax.debug",
    "jax.distributed", "jax.dlpack", "jax.dtypes", "jax.errors", "jax.experimental",
    "jax.experimental.compilation_cache", "jax.image", "jax.interpreters", "jax.interpreters.ad",
    "jax.interpreters.batching", "jax.interpreters.mlir", "jax.interpreters.partial_eval", "jax.interpreters.pxla",
    "jax.interpreters.xla", "jax.lax", "jax.lax.linalg", "jax.lib", "jax.monitoring", "jax.nn",
    "jax.nn.initializers", "jax.numpy", "jax.numpy.fft", "jax.numpy.linalg", "jax.ops", "jax.profiler",
    "jax.random", "jax.scipy", "jax.sharding", "jax.stages", "jax.tree_util", "jax.typing", "jax.version",
    "jax.tree",  # loaded by ``import jax`` in every release that has it (0.4.25+); only used from there
})
# Handled by their own rules.
OWNED_ELSEWHERE = ("jax.experimental.export",)
# Other paths to the ``jax.config`` object (``from jax.config import config``, ``from jax._src.config import
# config``): a member read through them is the ``jax.config.<member>`` of the catalogue's rows.
CONFIG_OBJECT_PATHS = ("jax.config.config.", "jax._src.config.config.")


def config_member(qualified: str) -> str:
    """``jax.config.config.FLAGS`` -> ``jax.config.FLAGS``: a member of the one config object, however reached."""
    for path in CONFIG_OBJECT_PATHS:
        if qualified.startswith(path):
            return "jax.config." + qualified[len(path):]
    return qualified


def config_member_paths(names) -> frozenset[str]:
    """The other spellings of the ``jax.config.<member>`` rows among ``names``, for the gates."""
    return frozenset(path + name[len("jax.config."):] for name in names if name.startswith("jax.config.")
                     for path in CONFIG_OBJECT_PATHS)


def _full(node: cst.CSTNode | None) -> str:
    return (cst.helpers.get_full_name_for_node(node) or "") if node is not None else ""


def positional_call_problem(node: cst.CSTNode, parent: cst.CSTNode | None, shown: str) -> str | None:
    """Why renaming ``node`` (a ``fix = "positional-call"`` name) could change the call; None: it cannot."""
    called = isinstance(parent, cst.Call) and parent.func is node
    return positional_call_arguments_problem(
        [(arg.keyword.value if arg.keyword is not None else None, arg.star) for arg in parent.args] if called
        else None, shown)


def _has_star_import(scope) -> bool:
    while scope is not None:
        if scope.star_imports:
            return True
        scope = scope.parent
    return False


@functools.cache
def _import_nodes() -> frozenset[type[cst.CSTNode]]:
    return frozenset({cst.Import, cst.ImportFrom})


def _imported_modules(imports: list) -> Iterator[str]:
    """The modules the ``ast`` import statements import as modules: ``import a.b`` and ``from a.b import c``'s
    ``a.b`` (not ``a.b.c``, which may be any attribute of it); relative imports never resolve to a catalogue name."""
    for node in imports:
        if type(node) is ast.Import:
            yield from (alias.name for alias in node.names)
        elif node.module and not node.level:
            yield node.module


class CatalogueSymbolRule(Rule):
    verb: ClassVar[str] = "was removed"
    # The gates: symbols and modules are found as attribute chains (``jax.experimental.maps.xmap`` after
    # ``import jax``), in ``from M import name`` and, for modules, in import statements.
    ast_modules: ClassVar[frozenset[str]] = frozenset(e.name for e in load().entries if e.kind == "module")
    # Modules whose name survives as an attribute (``jax.config`` is an object): ``from jax import config`` is no
    # finding, only an import of the module itself (``import jax.config``, ``from jax.config import config``) is.
    ast_surviving_modules: ClassVar[frozenset[str]] = frozenset(
        e.name for e in load().entries if e.kind == "module" and e.attribute_survives)
    ast_names = frozenset(e.name for e in load().entries
                          if e.kind == "symbol" or (e.kind == "module" and not e.attribute_survives)) \
        | config_member_paths(e.name for e in load().entries if e.kind == "symbol")
    # The catalogue read, and the top-level packages its names start with; ``with_catalogue`` (``extend-rules``)
    # makes a subclass reading an extended one.
    CATALOGUE: ClassVar[Catalogue | None] = None
    ROOTS: ClassVar[tuple[str, ...]] = ("jax",)
    statement_gated = True  # every finding is at a name, import or call its own statement spells
    # A file whose findings have no fix is decided from the ast gate's tree (``catalogue.symbols_ast``); a site that
    # may have a fix sends the file to libcst.
    decides_from_ast = True

    @classmethod
    def with_catalogue(cls, catalogue: Catalogue) -> type["CatalogueSymbolRule"]:
        names = [e.name for e in catalogue.entries if e.kind in ("symbol", "module")]
        return type(cls.__name__, (cls,), {
            "__module__": cls.__module__, "__doc__": cls.__doc__, "CATALOGUE": catalogue,
            "ROOTS": tuple(sorted({name.split(".")[0] for name in names})),
            "ast_names": frozenset(e.name for e in catalogue.entries
                                   if e.kind == "symbol" or (e.kind == "module" and not e.attribute_survives))
            | config_member_paths(e.name for e in catalogue.entries if e.kind == "symbol"),
            "ast_modules": frozenset(e.name for e in catalogue.entries if e.kind == "module"),
            "ast_surviving_modules": frozenset(e.name for e in catalogue.entries
                                               if e.kind == "module" and e.attribute_survives),
            "required_words": catalogue.required_words_for(("symbol", "module")),
        })

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        # ``import_names`` holds every prefix of an imported module, as ``Catalogue.module_of`` tests prefixes, and
        # each name a ``from`` import binds (``jax.config`` for ``from jax import config``).
        if facts.refers_to_any(cls.ast_names):
            return True
        imported = cls.ast_modules & facts.import_names
        return bool(imported) and (not imported <= cls.ast_surviving_modules or any(
            not imported.isdisjoint(with_prefixes(module)) for module in _imported_modules(facts.imports)))

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        if facts.may_import(cls.ast_modules, words):
            imported = cls.ast_modules & facts.imports.import_names
            if not imported <= cls.ast_surviving_modules or not imported.isdisjoint(facts.imports.module_names):
                return True
        return super().may_match_text(facts, words)

    def __init__(self, context) -> None:
        super().__init__(context)
        self.catalogue = self.CATALOGUE or load()

    @classmethod
    def findings_from_ast(cls, view):
        return symbols_ast.findings(cls, view)

    # -- what the subclass decides -----------------------------------------------------------------------------
    def _applies(self, entry: Entry) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _entry(self, entry: Entry | None) -> Entry | None:
        if entry is None or entry.kind == "config" or entry.name.startswith(OWNED_ELSEWHERE):
            return None
        return entry if self._applies(entry) else None

    # -- messages ----------------------------------------------------------------------------------------------
    def _message(self, entry: Entry, shown: str | None = None, fixed_to: str | None = None) -> str:
        """One sentence (``catalogue.messages.headline``); the rest goes to ``_detail``."""
        return catalogue_messages.headline(self.catalogue, entry, self.settings.target_version,
                                           self.settings.min_version, shown=shown, fixed_to=fixed_to)

    def _grouped_message(self, items: list[tuple[Entry, str | None]]) -> str:
        """Several names of one import statement, in one sentence grouped by release: ``Removed in JAX 0.3.16:
        `a` (use `x`), `b`; deprecated since JAX 0.4.26: `c```."""
        target = self.settings.target_version
        groups: dict[str, list[str]] = {}
        for entry, fixed_to in items:
            removed = bool(entry.removed_in and entry.removed_at(target))
            if entry.source == "extend-rules":
                state = catalogue_messages.team_state(entry.removed_in, entry.deprecated_in, removed)
            elif removed:
                state = f"removed in JAX {entry.removed_in}"
            else:
                state = f"deprecated since JAX {entry.deprecated_in}" if entry.deprecated_in else "deprecated"
            if entry.source == "extend-rules" and entry.message and not fixed_to:
                advice = entry.message.strip().rstrip(".")
            elif entry.advice and not fixed_to:
                advice = entry.advice
            else:
                replacement = fixed_to or catalogue_messages.usable_replacement(self.catalogue, entry, target)
                advice = f"use `{replacement}`" if replacement else None
            groups.setdefault(state, []).append(f"`{entry.name}`" + (f" ({advice})" if advice else ""))
        text = "; ".join(f"{state}: {', '.join(names)}" for state, names in groups.items())
        return text[0].upper() + text[1:]

    def _detail(self, entry: Entry, not_fixed: str | None = None) -> str | None:
        return catalogue_messages.details(entry, not_fixed=not_fixed, catalogue=self.catalogue,
                                          target=self.settings.target_version)

    # -- helpers -----------------------------------------------------------------------------------------------
    def _in_import(self) -> bool:
        # exact types, not ``isinstance``: libcst's classes are ABCs (a Python-level check each), and this runs
        # over the ancestors of every attribute chain
        import_nodes = _import_nodes()
        return any(type(n) in import_nodes for n in self.context.ancestors)

    def _imports_module(self, module: str) -> bool:
        # Cached per file: a search of the whole text per finding made large files quadratic.
        cache = self.__dict__.setdefault("_imported_modules", {})
        if module not in cache:
            cache[module] = re.search(rf"^[ \t]*import {re.escape(module)}[ \t]*(#.*)?$", self.context.file_text,
                                      re.M) is not None
        return cache[module]

    def loaded_without_import(self, module: str, replaces: str | None = None) -> bool:
        """What the text alone says needs no ``import module``: the file imports it, ``import jax`` loads it, or it
        imports ``replaces`` (which JAX101 rewrites into ``import module``). ``symbols_ast`` asks this too."""
        return self._imports_module(module) or module in LOADED_BY_IMPORT_JAX or (
            replaces is not None and self._imports_module(replaces))

    def _import_edit(self, module: str, replaces: str | None = None, force: bool = False):
        """``import module`` where isort would put it (None: already there or not needed: ``import jax`` or
        another import of the file loads it, or ``import <replaces>`` is there: JAX101 rewrites that statement into
        ``import module``). ``force``: the import is what binds ``jax`` (needed even for a loaded module)."""
        if self._imports_module(module) or (not force and (self.loaded_without_import(module, replaces)
                                                             or added_imports.loads(self.context.module, module))):
            return None
        roots = (self.settings.root,) + ((Path(self.context.path).parent,) if self.context.path else ())
        edit = added_imports.placement(self.context.module, module, roots)
        return False if edit is None else edit  # no import block: do not guess where to put one

    # -- attribute chains ----------------------------------------------------------------------------------------
    def _site(self, node: cst.Attribute) -> tuple[cst.Attribute, Entry] | None:
        """The one entry a whole attribute chain is reported for, and the attribute node that names it.

        Every prefix of ``jax.util.cache`` is an attribute of its own (``jax.util`` is listed too): the chain is
        reported once, for the longest prefix that the target removed (else the longest it deprecates), so that
        the user sees the most specific advice. None: nothing listed, or another rule's entry."""
        root_q = self._root_qualified(node)
        if root_q is None:
            return None
        chain: list[tuple[cst.Attribute, str]] = []  # (attribute, the name it adds), the longest first
        current: cst.BaseExpression = node
        while isinstance(current, cst.Attribute):
            chain.append((current, current.attr.value))
            current = current.value
        return self.chosen_site(root_q, chain)

    def chosen_site(self, root_q: str, chain: list[tuple[object, str]]) -> tuple[object, Entry] | None:
        """``_site`` for a chain given as (its attribute node, the name that attribute adds), the longest first,
        below a root that qualifies to ``root_q``: any kind of node (the ast view reuses it)."""
        named: list[tuple[object, str]] = []  # (attribute, its qualified name), the longest first
        dotted = root_q
        for attribute, name in reversed(chain):
            dotted = f"{dotted}.{name}"
            named.append((attribute, dotted))
        named.reverse()
        target = self.settings.target_version
        listed = [(attribute, entry) for attribute, qualified in named
                  if (entry := self._listed(qualified)) is not None]
        chosen = next(((a, e) for a, e in listed if e.removed_at(target)), None) or next(
            ((a, e) for a, e in listed if e.deprecated_at(target)), None)
        if chosen is None or self._entry(chosen[1]) is None:
            return None
        return chosen

    def _listed(self, qualified: str) -> Entry | None:
        if not qualified.startswith(self.ROOTS):
            return None
        entry = self.catalogue.symbol(qualified) or self.catalogue.symbol(config_member(qualified))
        if entry is None:
            module = self.catalogue.module(qualified)
            entry = module if module is not None and not module.attribute_survives else None
        return entry

    def _root_qualified(self, node: cst.Attribute) -> str | None:
        root: cst.BaseExpression = node
        while type(root) is cst.Attribute:
            root = root.value
        if type(root) is not cst.Name:
            return None
        return self.qualified_name(root) or self._rebound_import(root)

    def _rebound_import(self, root: cst.Name) -> str | None:
        """``shard_map = shard_map.shard_map`` after ``from jax.experimental import shard_map``: the right-hand
        side still reads the import (the assignment rebinds the name only after it), though the name, bound twice,
        resolves to nothing. Only the narrow form: every earlier binding imports the same thing, and the last one
        is this very assignment to the bare name."""
        statement = next((n for n in reversed(self.context.ancestors) if type(n) is cst.Assign), None)
        if statement is None or len(statement.targets) != 1:
            return None
        target = statement.targets[0].target
        if not isinstance(target, cst.Name) or target.value != root.value:
            return None
        bindings = self.context.resolver.bindings(root)
        if len(bindings) < 2 or bindings[-1].node is not statement:
            return None
        imported = {binding.qualified for binding in bindings[:-1]}
        return imported.pop() if len(imported) == 1 and None not in imported else None

    def visit_Attribute(self, node: cst.Attribute) -> None:
        parent = self.context.parent
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return  # an inner prefix: the whole chain is handled once, at its outermost attribute
        if self._in_import():
            return
        site = self._site(node)
        if site is None:
            return
        outermost = node
        node, entry = site
        shown = entry.name
        if node is outermost:
            special = catalogue_rewrites.rewrite(self, node, entry)
        elif entry.fix in catalogue_rewrites.KINDS:
            special = catalogue_rewrites.Rewrite(problem=f"`{entry.name}` is used through an attribute of it")
        else:
            special = None
        if special is not None and special.silent:
            return
        if special is not None:
            message = self._message(entry, shown=shown, fixed_to=special.replacement if special.fix else None)
            self.report(node, message + (f"; {special.advice}" if special.advice else ""),
                        special.fix, self._detail(entry, special.problem), withheld=special.withheld)
            return
        rep = entry.safe_replacement(self.settings.min_version)
        fix = None
        not_fixed = None
        withheld = None if rep else self._range_withheld(entry)
        if rep and entry.fix == POSITIONAL_CALL:
            not_fixed = positional_call_problem(node, self.context.parent if node is outermost else None,
                                                self.code_for(node))
            rep = None if not_fixed else rep
        written = rep or (entry.fix_floor() or (None,))[0]
        if written and node is outermost and not not_fixed:
            # ``jax.core.Var("", aval)`` -> ``jax.extend.core.Var("", aval)`` fails where Var takes only ``aval``:
            # no min version makes that rename a fix
            call = self.context.parent
            if isinstance(call, cst.Call) and call.func is node and not any(arg.star for arg in call.args):
                not_fixed = call_limit_problem(written, sum(arg.keyword is None for arg in call.args),
                                               self.settings.target_version)
                if not_fixed:
                    rep, withheld = None, WithheldFix(not_fixed)
        if rep:
            fix = self._rename_fix(node, entry, rep)
        self.report(node, self._message(entry, shown=shown, fixed_to=rep if fix else None), fix,
                    self._detail(entry, not_fixed), withheld=withheld)

    def _range_withheld(self, *entries: Entry) -> WithheldFix | None:
        """Why no rename is offered when only the min version stands in the way: each entry has a spelling, from a
        release above the min version (the newest such release is the one the fix needs)."""
        needed: tuple[str, str] | None = None
        several_trees = False
        for entry in entries:
            floor = entry.fix_floor()
            if floor is None:
                return None
            if needed is None or Version(floor[1]) > Version(needed[1]):
                needed = floor
                # tree_multimap -> tree_map: the name is older than its several-trees form, which the fix needs
                several_trees = entry.fix == POSITIONAL_CALL
        if needed is None or self.settings.min_version >= Version(needed[1]):
            return None
        what = f"`{needed[0]}(f, tree, *rest)` (several trees)" if several_trees else f"`{needed[0]}`"
        return range_withheld(what, needed[1], self.settings)

    def _rename_fix(self, node: cst.Attribute, entry: Entry, rep: str):
        """``jax.X`` -> ``jax.Y`` spelled through the chain's own root (``jnp.X`` -> ``jnp.Y``), else through a
        ``jax`` bound by ``import jax`` where the node is; ``import <module>`` added when ``import jax`` does not
        load the replacement's module. None: no spelling reaches the replacement from here."""
        root = node
        while isinstance(root, cst.Attribute):
            root = root.value
        root_q = self.qualified_name(root) if isinstance(root, cst.Name) else None
        needed = rep if entry.kind == "module" else rep.rpartition(".")[0]
        binds_jax = False
        if root_q and rep.startswith(root_q + "."):
            text = root.value + rep[len(root_q):]
        elif rep.startswith("jax.") and isinstance(root, cst.Name) and (reach := self._jax_at(root)):
            # ``from jax import core; core.Primitive``: spelled from ``jax``, bound by the added import if need be
            root_q, text, binds_jax = "jax", rep, reach == "free"
        elif not rep.startswith(self.ROOTS) and isinstance(root, cst.Name) \
                and (reach := self._jax_at(root, package := rep.partition(".")[0])):
            # outside JAX (``jax.partial`` -> ``functools.partial``): spelled from that package, imported if need be
            root_q, text, binds_jax = package, rep, reach == "free"
        else:
            return None
        edits = [Replace(node, text)]
        if binds_jax:
            extra = self._import_edit(needed, force=True)
        else:
            extra = None if needed == root_q else self._import_edit(needed, replaces=entry.name)
        if extra is False:
            return None
        if extra is not None:
            edits.insert(0, extra)
        return safe_fix(f"Use `{rep}`", *edits)

    def _jax_at(self, name: cst.Name, package: str = "jax") -> str | None:
        """How ``package`` (``jax``) can be written where ``name`` stands: "bound" (``import jax`` reaches it,
        nothing shadows it), "free" (nothing binds it in reach: an added ``import jax...`` will), None (taken by
        something else)."""
        resolver = self.context.resolver
        scope = resolver.scope_of(name)
        if scope is None:
            return None
        qualified = resolver.qualified_in_scope(package, scope)
        if qualified == package:
            return "bound"
        if qualified is None and not resolver.is_bound_in_scope(package, scope) and not _has_star_import(scope):
            return "free"
        return None

    # -- import statements ---------------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = _full(alias.name)
            entry = self._entry(self.catalogue.module_of(full)) if full.startswith(self.ROOTS) else None
            if entry is None:
                continue
            fix = None
            if entry.name in DELETE_IMPORT and len(node.names) == 1:
                binds_jax = alias.asname is None and not re.search(
                    r"^\s*(import jax\s*(#.*)?|import jax,.*|from jax import .*)$", self.context.file_text, re.M)
                fix = safe_fix("Delete the import" if not binds_jax else "Keep only `import jax`",
                               Replace(node, "import jax") if binds_jax else DeleteStatement(node))
            rep = entry.safe_replacement(self.settings.min_version) if entry.kind == "module" else None
            if fix is None and rep and full == entry.name:  # a renamed module: ``import old [as x]`` -> ``import new``
                fix = safe_fix(f"Import `{rep}`", Replace(alias.name, rep))
            withheld = self._range_withheld(entry) if fix is None and entry.kind == "module" and full == entry.name \
                else None
            self.report(node, self._message(entry, shown=full, fixed_to=rep if fix and rep else None), fix,
                        self._detail(entry), withheld=withheld)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        module = _full(node.module)
        if not module.startswith(self.ROOTS):
            return
        mod_entry = self._entry(self.catalogue.module_of(module))
        if mod_entry is not None and not self._names_own_entries(module, node):
            fix = None
            rep = mod_entry.safe_replacement(self.settings.min_version) if module == mod_entry.name else None
            if mod_entry.name in DELETE_IMPORT:
                fix = safe_fix("Delete the import", DeleteStatement(node))
            elif catalogue_rewrites.from_import_survives(mod_entry, node):
                # ``from jax.config import config`` -> ``from jax import config``: the same object
                parent = module.rpartition(".")[0]
                fix = safe_fix(f"Import it from `{parent}`", Replace(node.module, parent))
                rep = None
            elif rep:
                fix = safe_fix(f"Import from `{rep}`", Replace(node.module, rep))
            withheld = self._range_withheld(mod_entry) if fix is None and module == mod_entry.name else None
            self.report(node, self._message(mod_entry, shown=module, fixed_to=rep if fix and rep else None), fix,
                        self._detail(mod_entry), withheld=withheld)
            return
        if isinstance(node.names, cst.ImportStar):
            return
        found: list[tuple[cst.ImportAlias, Entry]] = []
        for alias in node.names:
            name = _full(alias.name)
            qualified = f"{module}.{name}"
            sub = self.catalogue.module(qualified)
            entry = self._entry(sub) if sub is not None and not sub.attribute_survives else None
            entry = entry or self._entry(self.catalogue.symbol(qualified))
            if entry is not None:
                found.append((alias, entry))
        if not found:
            return
        guard = silent_import_guard(self.context.ancestors)
        if guard is not None:
            self._report_unguarded_uses(guard, module, found)
        not_fixed = {id(alias): self._references_problem(f"{module}.{_full(alias.name)}", alias)
                     for alias, entry in found if entry.fix == POSITIONAL_CALL}
        fix = None if any(not_fixed.values()) else self._from_import_fix(node, module, found)
        if fix is None:
            fix = self._unused_import_fix(node, found)
        fixed = {id(alias): e.safe_replacement(self.settings.min_version) if fix else None for alias, e in found}
        if len(found) == 1:
            ((alias, entry),) = found
            message = self._message(entry, fixed_to=fixed[id(alias)])
        else:
            message = self._grouped_message([(e, fixed[id(alias)]) for alias, e in found])
        advice = [text for alias, e in found if (text := catalogue_rewrites.import_advice(self, alias, e))]
        message += "".join(f"; {text}" for text in advice)
        detail = " ".join(filter(None, (self._detail(e, not_fixed.get(id(alias))) for alias, e in found))) or None
        withheld = annotation_only_withheld([e for _, e in found]) if fix is None else None
        if fix is None and withheld is None and not any(not_fixed.values()):
            withheld = self._range_withheld(*(e for _, e in found if not e.safe_replacement(self.settings.min_version)))
        self.report(node, message, fix, detail or None, withheld=withheld)

    def _unused_import_fix(self, node: cst.ImportFrom, found):
        """Remove removed modules that ``from M import name`` binds and nothing in the file uses any more (their
        uses were rewritten: ``abstract_arrays.ShapedArray`` -> ``jax.core.ShapedArray``), or the whole statement
        when it imports nothing else. None while a use, another removed name, or a possible re-export remains."""
        if any(entry.kind != "module" for _, entry in found) or self.context.path.endswith("__init__.py"):
            return None
        if not all(unused_imports.is_unreferenced(self.context.file_text, unused_imports.local_name(alias))
                   for alias, _ in found):
            return None
        if len(found) == len(node.names):
            return safe_fix(unused_imports.REMOVE_STATEMENT, DeleteStatement(node))
        dropped = {id(alias) for alias, _ in found}
        return safe_fix(unused_imports.REMOVE_NAMES,
                        Replace(node, unused_imports.without_names(self.context.module, node, dropped,
                                                                   self.context.ancestors)))

    def _report_unguarded_uses(self, guard: cst.Try, module: str, found) -> None:
        """``try: from jax import tree_map`` / ``except ImportError: pass``: the import is compat code (not reported),
        but where it fails every later use of the name raises ``NameError``. Each use outside the ``try`` and outside
        other compat code is reported, without a fix (the import stays the project's choice)."""
        wanted = {}
        for alias, entry in found:
            if entry.removed_in and entry.removed_at(self.settings.target_version):
                local = alias.asname.name.value if alias.asname is not None \
                    and isinstance(alias.asname.name, cst.Name) else _full(alias.name)
                wanted[local] = (f"{module}.{_full(alias.name)}", entry)
        if not wanted:
            return
        resolver = self.context.resolver
        stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(self.context.module, ())]
        while stack:
            current, ancestors = stack.pop()
            if current is guard:
                continue
            ancestors = (*ancestors, current)
            if isinstance(current, cst.Name):
                qualified, entry = wanted.get(current.value, (None, None))
                if entry is not None and self.qualified_name(current) == qualified \
                        and not in_compat_code(ancestors, resolver):
                    self.report(current, (
                        f"{self._message(entry)}; `{current.value}` is imported in a `try` whose `except "
                        f"ImportError` binds nothing: this use raises `NameError` where the import fails"),
                        detail=self._detail(entry), ancestors=ancestors)
                continue
            stack.extend((child, ancestors) for child in reversed(list(iter_children(current))))

    def _names_own_entries(self, module: str, node: cst.ImportFrom) -> bool:
        """``from jax.experimental.maps import Mesh``: every imported name has advice of its own (a symbol entry)."""
        if isinstance(node.names, cst.ImportStar):
            return False
        return all(self._entry(self.catalogue.symbol(f"{module}.{_full(alias.name)}")) is not None
                   for alias in node.names)

    def _references_problem(self, qualified: str, alias: cst.ImportAlias) -> str | None:
        """Why the names bound by ``alias`` cannot all be renamed (``fix = "positional-call"``); None: they can."""
        local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) \
            else _full(alias.name)
        stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(self.context.module, None)]
        while stack:
            current, parent = stack.pop()
            if isinstance(current, cst.Name):
                if current.value == local and self.qualified_name(current) == qualified:
                    problem = positional_call_problem(current, parent, local)
                    if problem:
                        return problem
                continue
            stack.extend((child, current) for child in iter_children(current))
        return None

    def _from_import_fix(self, node: cst.ImportFrom, module: str, found):
        plan = self.from_import_plan(module, [(_full(alias.name), _full(alias.asname.name) if alias.asname is not None
                                               else None, entry) for alias, entry in found], len(node.names))
        if plan is None:
            return None
        new_module, renamed, message = plan
        edits = [Replace(found[index][0] if whole else found[index][0].name, text)
                 for index, whole, text in renamed]
        if new_module is not None:
            edits.insert(0, Replace(node.module, new_module))
        return safe_fix(message, *edits)

    def from_import_plan(self, module: str, found: list[tuple[str, str | None, Entry]], names: int):
        """``from M import a, b`` rewritten to the replacements' module, for either tree: ``found`` holds each
        found name as (its name, its ``as`` name or None, its entry), ``names`` how many the statement imports.
        (the new module or None where it stays, [(index in ``found``, whether the edit replaces the whole alias,
        its text)], the fix's message); None: no fix (other names stay in the old module: the split is the user's;
        a name without a safe replacement; two new modules)."""
        min_version = self.settings.min_version
        same_module = all((e.safe_replacement(min_version) or "").rpartition(".")[0] == module for *_, e in found)
        if len(found) != names and not same_module:
            return None
        renamed = []
        new_module = None
        for index, (old_name, asname, entry) in enumerate(found):
            rep = entry.safe_replacement(min_version)
            if not rep:
                return None
            rep_module, _, rep_name = rep.rpartition(".")
            if new_module not in (None, rep_module):
                return None
            new_module = rep_module
            bound = asname if asname is not None else old_name
            if rep_name != old_name:
                # never ``leaves as leaves``: the alias goes when the new name is the one it bound
                renamed.append((index, True, rep_name) if bound == rep_name else
                               (index, False, rep_name if asname is not None else f"{rep_name} as {old_name}"))
        reps = ", ".join(f"`{e.safe_replacement(min_version)}`" for *_, e in found)
        return (new_module if new_module != module else None), renamed, f"Import {reps}"
