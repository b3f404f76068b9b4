"""Shared machinery of the catalogue-driven rules JAX101 (removed-symbol) and JAX402 (deprecated-symbol).

Not a rule module itself (the name does not match ``jaxNNN_*``). A rule subclass says which entries it is about
(``_applies``); this class finds their uses: attribute chains (``jax.tree_map``, ``jnp.X``, ``core.X`` after
``from jax import core``), ``from M import name`` statements, ``import`` of listed modules, and builds the fixes:

- a symbol rename is safe only when ``Entry.safe_replacement(min_version)`` names a spelling (same object or a
  documented equivalent, existing at the min version); the replacement is spelled through the user's own alias when
  it lies under it (``jnp.X``), fully otherwise (``jax....``, only when the chain starts at ``jax``), and
  ``import <module>`` is added at the top of the import block when ``import jax`` does not load that module;
- ``from M import a, b`` is rewritten when every imported name maps to the same new module; the local names are kept
  (``from jax.errors import JaxprTypeError``; ``... import new as old`` when the name changed);
- importing ``jax.cloud_tpu_init`` is deleted (``import jax`` kept when the statement was what bound ``jax``);
- an entry with ``fix = "positional-call"`` (``jax.tree_multimap`` -> ``jax.tree_util.tree_map``) is renamed only
  where every use is a call passing the function and the trees positionally (``is_leaf=`` allowed): at the call
  for an attribute chain, at every reference of the imported name for ``from M import name``.
"""
from __future__ import annotations

import re
from typing import ClassVar

import libcst as cst

from jaxlint.catalogue import Catalogue, Entry, load
from jaxlint.rules.base import DeleteStatement, InsertBefore, Replace, Rule, safe_fix

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
DELETE_IMPORT = frozenset({"jax.cloud_tpu_init"})
# Overlay ``fix`` value: the rename is exact only at a call ``name(f, tree, *rest[, is_leaf=...])``.
POSITIONAL_CALL = "positional-call"
POSITIONAL_CALL_KEYWORDS = frozenset({"is_leaf"})


def _full(node: cst.CSTNode | None) -> str:
    return (cst.helpers.get_full_name_for_node(node) or "") if node is not None else ""


def positional_call_problem(node: cst.CSTNode, parent: cst.CSTNode | None, shown: str) -> str | None:
    """Why renaming ``node`` (a ``fix = "positional-call"`` name) could change the call; None: it cannot."""
    if not (isinstance(parent, cst.Call) and parent.func is node):
        return f"`{shown}` is used other than by calling it"
    if any(arg.star == "**" for arg in parent.args):
        return "the call passes `**kwargs`"
    for arg in parent.args:
        if arg.keyword is not None and arg.keyword.value not in POSITIONAL_CALL_KEYWORDS:
            return f"the call passes `{arg.keyword.value}=` by keyword (pass the function and the trees positionally)"
    if not any(arg.star == "*" for arg in parent.args) and sum(arg.keyword is None for arg in parent.args) < 2:
        return "the call passes no tree"
    return None


class CatalogueSymbolRule(Rule):
    verb: ClassVar[str] = "was removed"
    # The ast gate: symbols are found as attribute chains and ``from M import name``; modules only in imports.
    ast_names = frozenset(e.name for e in load().entries if e.kind == "symbol")
    ast_modules: ClassVar[frozenset[str]] = frozenset(e.name for e in load().entries if e.kind == "module")
    # The catalogue read, and the top-level packages its names start with; ``with_catalogue`` (``extend-rules``)
    # makes a subclass reading an extended one.
    CATALOGUE: ClassVar[Catalogue | None] = None
    ROOTS: ClassVar[tuple[str, ...]] = ("jax",)

    @classmethod
    def with_catalogue(cls, catalogue: Catalogue) -> type["CatalogueSymbolRule"]:
        names = [e.name for e in catalogue.entries if e.kind in ("symbol", "module")]
        return type(cls.__name__, (cls,), {
            "__module__": cls.__module__, "__doc__": cls.__doc__, "CATALOGUE": catalogue,
            "ROOTS": tuple(sorted({name.split(".")[0] for name in names})),
            "ast_names": frozenset(e.name for e in catalogue.entries if e.kind == "symbol"),
            "ast_modules": frozenset(e.name for e in catalogue.entries if e.kind == "module"),
            "required_words": catalogue.required_words_for(("symbol", "module")),
        })

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        # ``import_names`` holds every prefix of an imported module, as ``Catalogue.module_of`` tests prefixes.
        return facts.refers_to_any(cls.ast_names) or not cls.ast_modules.isdisjoint(facts.import_names)

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        return facts.may_import(cls.ast_modules) or super().may_match_text(facts, words)

    def __init__(self, context) -> None:
        super().__init__(context)
        self.catalogue = self.CATALOGUE or load()

    # -- what the subclass decides -----------------------------------------------------------------------------
    def _applies(self, entry: Entry) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _entry(self, entry: Entry | None) -> Entry | None:
        if entry is None or entry.kind == "config" or entry.name.startswith(OWNED_ELSEWHERE):
            return None
        return entry if self._applies(entry) else None

    # -- messages ----------------------------------------------------------------------------------------------
    def _message(self, entry: Entry, shown: str | None = None, fixed_to: str | None = None,
                 not_fixed: str | None = None) -> str:
        name = shown or entry.name
        if entry.removed_in and self._applies_removed(entry):
            head = f"`{name}` was removed in JAX {entry.removed_in}"
        else:
            head = f"`{name}` is deprecated since JAX {entry.deprecated_in}"
        rep = fixed_to or entry.replacement
        if rep:
            head += f"; use `{rep}`"
            if not fixed_to and entry.replacement_since:
                head += f" (JAX {entry.replacement_since}+)"
        if entry.note:
            head += f". {entry.note}"
        if entry.message and not fixed_to:
            head += f" (JAX: \"{entry.message}\")"
        if not_fixed and not fixed_to:
            head += f". Not fixed automatically: {not_fixed}"
        return head

    def _applies_removed(self, entry: Entry) -> bool:
        return entry.removed_at(self.settings.target_version)

    # -- helpers -----------------------------------------------------------------------------------------------
    def _in_import(self) -> bool:
        return any(isinstance(n, (cst.Import, cst.ImportFrom)) for n in self.context.ancestors)

    def _imports_module(self, module: str) -> bool:
        return re.search(rf"^\s*import {re.escape(module)}\s*(#.*)?$", self.context.source, re.M) is not None

    def _import_edit(self, module: str):
        """``import module`` before the first import of the module body (None: already there or not needed)."""
        if module in LOADED_BY_IMPORT_JAX or self._imports_module(module):
            return None
        for statement in self.context.module.body:
            if isinstance(statement, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Import, cst.ImportFrom)) and not (
                        isinstance(s, cst.ImportFrom) and _full(s.module) == "__future__") for s in statement.body):
                return InsertBefore(statement, f"import {module}\n")
        return False  # no import block: do not guess where to put one

    # -- attribute chains ----------------------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._in_import():
            return
        qualified = self.qualified_name(node)
        if not qualified or not qualified.startswith(self.ROOTS):
            return
        entry = self._entry(self.catalogue.symbol(qualified))
        if entry is None:
            return
        rep = entry.safe_replacement(self.settings.min_version)
        fix = None
        not_fixed = None
        if rep and entry.fix == POSITIONAL_CALL:
            not_fixed = positional_call_problem(node, self.context.parent, self.code_for(node))
            rep = None if not_fixed else rep
        if rep:
            root = node
            while isinstance(root, cst.Attribute):
                root = root.value
            root_q = self.qualified_name(root) if isinstance(root, cst.Name) else None
            if root_q and (rep.startswith(root_q + ".")):
                text = root.value + rep[len(root_q):]
                edits = [Replace(node, text)]
                parent_module = rep.rpartition(".")[0]
                extra = None if parent_module == root_q else self._import_edit(parent_module)
                if extra is not False:
                    if extra is not None:
                        edits.insert(0, extra)
                    fix = safe_fix(f"Use `{rep}`", *edits)
        self.report(node, self._message(entry, fixed_to=rep if fix else None, not_fixed=not_fixed), fix)

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
                    r"^\s*(import jax\s*(#.*)?|import jax,.*|from jax import .*)$", self.context.source, re.M)
                fix = safe_fix("Delete the import" if not binds_jax else "Keep only `import jax`",
                               Replace(node, "import jax") if binds_jax else DeleteStatement(node))
            self.report(node, self._message(entry, shown=full), fix)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        module = _full(node.module)
        if not module.startswith(self.ROOTS):
            return
        mod_entry = self._entry(self.catalogue.module_of(module))
        if mod_entry is not None:
            fix = None
            if mod_entry.name in DELETE_IMPORT:
                fix = safe_fix("Delete the import", DeleteStatement(node))
            self.report(node, self._message(mod_entry, shown=module), fix)
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
        not_fixed = {id(alias): self._references_problem(f"{module}.{_full(alias.name)}", alias)
                     for alias, entry in found if entry.fix == POSITIONAL_CALL}
        fix = None if any(not_fixed.values()) else self._from_import_fix(node, module, found)
        message = "; ".join(self._message(e, fixed_to=e.safe_replacement(self.settings.min_version) if fix else None,
                                          not_fixed=not_fixed.get(id(alias))) for alias, e in found)
        self.report(node, message, fix)

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
            stack.extend((child, current) for child in current.children)
        return None

    def _from_import_fix(self, node: cst.ImportFrom, module: str, found):
        same_module = all(
            (e.safe_replacement(self.settings.min_version) or "").rpartition(".")[0] == module for _, e in found)
        if len(found) != len(node.names) and not same_module:
            return None  # other names stay in the old module: leave the split to the user
        edits = []
        new_module = None
        for alias, entry in found:
            if entry.kind != "symbol":
                return None
            rep = entry.safe_replacement(self.settings.min_version)
            if not rep:
                return None
            rep_module, _, rep_name = rep.rpartition(".")
            if new_module not in (None, rep_module):
                return None
            new_module = rep_module
            old_name = _full(alias.name)
            if rep_name != old_name:
                edits.append(Replace(alias.name, rep_name if alias.asname else f"{rep_name} as {old_name}"))
        if new_module != module:
            edits.insert(0, Replace(node.module, new_module))
        reps = ", ".join(f"`{e.safe_replacement(self.settings.min_version)}`" for _, e in found)
        return safe_fix(f"Import {reps}", *edits)
