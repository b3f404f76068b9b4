"""JAX101/JAX402's findings from the ast gate's tree (``jaxlint.lint.ast_findings``), fixes included.

Mirrors ``CatalogueSymbolRule``'s three visits (attribute chains, ``import``, ``from ... import``) and answers with
the rule's own lookups, messages, details and withheld fixes (an instance of the rule reads them). Fixes are written
as offset edits from the functions the libcst path asks too: a rename (``_rename_fix``, with the import it adds),
the special rewrites (``rewrites_ast``), ``from M import name`` (``from_import_plan``), the removal of a removed
module's import that nothing uses (``unused_imports_ast``). A site that needs libcst to know (an index-update
rewrite, a name imported in a ``try``, a ``positional-call`` from-import whose references decide, an unused import
on a line it shares, ``jax`` bound other than by module imports, a type check through an ``isinstance``
that may not be the builtin) is ``Undecidable``: the file goes to libcst.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from jaxlint.analysis import added_imports_ast, unused_imports, unused_imports_ast
from jaxlint.catalogue import Entry
from jaxlint.catalogue import rewrites as catalogue_rewrites, rewrites_ast
from jaxlint.catalogue.floors import call_limit_problem
from jaxlint.catalogue.rewrites import (DELETE_IMPORT, POSITIONAL_CALL, annotation_only_withheld,
                                        positional_call_arguments_problem)
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, walk
from jaxlint.lint.diagnostics import Applicability, Edit, WithheldFix

_TRIES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))
_TYPE_CHECKS = frozenset({"isinstance", "issubclass"})


def findings(rule_class, view: AstView) -> list[AstFinding]:
    """What ``rule_class`` (a ``CatalogueSymbolRule``) reports on the view's file, or ``Undecidable``."""
    rule = view.rule(rule_class)
    found: list[AstFinding] = []
    # names through a star import as the resolver has them: the one builtin asked (``isinstance`` in
    # ``_is_type_check_argument``) is undecidable there, and so is ``jax`` in a star import's file (``_jax_reach``)
    with view.star_names():
        for node in walk(view, (ast.Import, ast.ImportFrom, ast.Attribute)):
            kind = type(node)
            if kind is ast.Import:
                found += _import(rule, node)
            elif kind is ast.ImportFrom:
                found += _import_from(rule, view, node)
            else:
                finding = _attribute(rule, view, node)
                if finding is not None:
                    found.append(finding)
    return found


# -- attribute chains (``visit_Attribute``) -----------------------------------------------------------------------
def _rebound_import(view: AstView, root: ast.Name) -> str | None:
    """``SymbolRule._rebound_import``: ``shard_map = shard_map.shard_map`` after ``from jax.experimental import
    shard_map`` reads the import on its right-hand side (every earlier binding imports the same thing, and the last
    one is this very assignment to the bare name)."""
    statement = next((ancestor for ancestor, _ in reversed(view.ancestors(root)) if type(ancestor) is ast.Assign),
                     None)
    if statement is None or len(statement.targets) != 1:
        return None
    target = statement.targets[0]
    if type(target) is not ast.Name or target.id != root.id:
        return None
    bindings = view.names().bindings(root)
    if len(bindings) < 2 or bindings[-1].node is not statement:
        return None
    imported = {binding.qualified for binding in bindings[:-1]}
    return imported.pop() if len(imported) == 1 and None not in imported else None


def _attribute(rule, view: AstView, node: ast.Attribute) -> AstFinding | None:
    if view.is_attribute_value(node):
        return None  # an inner prefix: the chain is handled at its outermost attribute
    chain: list[tuple[ast.Attribute, str]] = []
    root: ast.AST = node
    while type(root) is ast.Attribute:
        chain.append((root, root.attr))
        root = root.value
    if rule.catalogue.last_names().isdisjoint([name for _, name in chain]):
        return None  # no prefix of the chain can be listed (``chosen_site``): its root need not be resolved
    if type(root) is not ast.Name or not (view.star_import or any(
            bound.startswith(rule.ROOTS) for bound in view.may_import(root.id))):
        return None  # the resolver qualifies the root to nothing under the catalogue's packages
    root_q = view.qualified_name(root) or _rebound_import(view, root)
    site = rule.chosen_site(root_q, chain) if root_q is not None else None
    if site is None:
        return None
    site_node, entry = site
    outermost = site_node is node
    parent, field = view.parent(node)
    ancestors = view.ancestors(node)
    if entry.fix in catalogue_rewrites.KINDS:
        if not outermost:
            return _finding(rule, site_node, entry, f"`{entry.name}` is used through an attribute of it")
        if entry.fix == "array-type":
            return _array_type(rule, view, node, root, root_q, entry, ancestors)
        rename = lambda rep: _rename_fix(rule, view, node, root, root_q, entry, rep)  # noqa: E731
        if entry.fix == "x64-switch":
            return rewrites_ast.x64_switch(rule, view, node, entry, rename)
        if entry.fix == "pallas-dot":
            return rewrites_ast.pallas_dot(rule, view, node, entry, rename)
        if entry.fix == "ref-index":
            return rewrites_ast.ref_index(rule, view, node, entry)
        if entry.fix == "stacked-device-put":
            return rewrites_ast.stacked_device_put(rule, view, node, entry)
        if entry.fix == "shard-map-call":
            return rewrites_ast.shard_map(rule, view, node, entry, rename)
        if entry.fix == "annotation-type" and view.in_annotation(ancestors):
            return _annotation_type(rule, view, node, root, root_q, entry)
        if entry.fix != "annotation-type":
            raise Undecidable("a special rewrite")
    rep = entry.safe_replacement(rule.settings.min_version)
    withheld = None if rep else rule._range_withheld(entry)
    not_fixed = None
    if rep and entry.fix == POSITIONAL_CALL:
        called = outermost and type(parent) is ast.Call and field == "func"
        not_fixed = positional_call_arguments_problem(_call_shape(parent) if called else None, view.text(site_node))
        rep = None if not_fixed else rep
    written = rep or (entry.fix_floor() or (None,))[0]
    if written and outermost and not not_fixed and type(parent) is ast.Call and field == "func" \
            and not _has_star(parent):
        not_fixed = call_limit_problem(written, len(parent.args), rule.settings.target_version)
        if not_fixed:
            rep, withheld = None, WithheldFix(not_fixed)  # the renamed call would fail too: no fix
    if rep:
        fix = _rename_fix(rule, view, site_node, root, root_q, entry, rep)
        message = rule._message(entry, shown=entry.name, fixed_to=rep)
        return AstFinding(rule.code, site_node, message, rule._detail(entry, not_fixed), None, fix)
    return _finding(rule, site_node, entry, not_fixed, withheld)


def _rename_fix(rule, view: AstView, node: ast.Attribute, root: ast.Name, root_q: str, entry: Entry,
                rep: str) -> AstFix:
    """``CatalogueSymbolRule._rename_fix`` where it spells the replacement through the chain's own root
    (``jnp.X`` -> ``jnp.Y``), or from ``jax`` where only module-level imports of ``jax`` itself bind that name
    (``_jax_at``'s "bound") or nothing binds it ("free": the added import will); ``import <module>`` is added
    where isort would put it (``added_imports_ast``). Anything else (``jax`` bound elsewhere, no import block) is
    ``Undecidable``. The rename is the fix's last edit (``ast_findings._fix`` checks its line)."""
    binds_jax = False
    if rep.startswith(root_q + "."):
        text = root.id + rep[len(root_q):]
    elif rep.startswith("jax.") and (reach := _jax_reach(view)):
        root_q, text, binds_jax = "jax", rep, reach == "free"
    else:
        raise Undecidable("a rename spelled from another root: may need libcst's scopes")
    needed = rep if entry.kind == "module" else rep.rpartition(".")[0]
    edits = []
    if binds_jax:  # ``_import_edit(force=True)``: the import is what binds ``jax``
        if not rule._imports_module(needed):
            edits.append(_import_edit(rule, view, needed))
    elif not (needed == root_q or rule.loaded_without_import(needed, replaces=entry.name)
              or added_imports_ast.loads(view, needed)):
        edits.append(_import_edit(rule, view, needed))
    start, end = view.span(node)
    edits.append(Edit(start, end, text))
    return AstFix(Applicability.SAFE, f"Use `{rep}`", tuple(edits))


def _import_edit(rule, view: AstView, module: str) -> Edit:
    roots = (rule.settings.root,) + ((Path(view.path).parent,) if view.path else ())
    return added_imports_ast.placement(view, module, roots)


def _jax_reach(view: AstView) -> str | None:
    """``_jax_at`` where the file says it for every place: "bound" where only module-level imports of ``jax``
    itself bind the name, "free" where nothing binds it; None otherwise (undecided: libcst's scopes)."""
    if view.star_import or view.bound_in_file("jax"):
        return None
    imported = view.may_import("jax")
    if not imported:
        return "free"
    return "bound" if imported == {"jax"} and view.module_imports("jax") == {"jax"} else None


def _array_type(rule, view: AstView, node: ast.Attribute, root: ast.Name, root_q: str, entry: Entry,
                ancestors) -> AstFinding:
    """``catalogue.rewrites._array_type``: ``jax.Array`` written in annotations and ``isinstance``/``issubclass``
    checks (unsafe in a check below the old name's removal), the release it needs withheld there below the
    replacement's; elsewhere no fix."""
    replacement = entry.safe_replacement(rule.settings.min_version)
    in_annotation = AstView.in_annotation(ancestors)
    in_check = _is_type_check_argument(view, node)
    if replacement is None:
        problem = f"`{entry.replacement}` needs JAX {entry.replacement_since}"
        withheld = catalogue_rewrites.below_range_withheld(entry, rule.settings) if in_annotation or in_check \
            else None
        return _finding(rule, node, entry, problem, withheld)
    if not (in_annotation or in_check):
        return _finding(rule, node, entry, f"`{replacement}` is another class: only annotations and isinstance "
                                           f"checks are rewritten")
    fix = _rename_fix(rule, view, node, root, root_q, entry, replacement)
    if in_check and not in_annotation and not rule.min_version_at_least(entry.removed_in or "0"):
        fix = AstFix(Applicability.UNSAFE, f"{fix.message} (unsafe below JAX {entry.removed_in}: a tracer is a "
                                           f"`jax.Array`, never a `DeviceArray`)", fix.edits)
    message = rule._message(entry, shown=entry.name, fixed_to=replacement)
    return AstFinding(rule.code, node, message, rule._detail(entry), None, fix)


def _annotation_type(rule, view: AstView, node: ast.Attribute, root: ast.Name, root_q: str,
                     entry: Entry) -> AstFinding:
    """``catalogue.rewrites._annotation_type`` in an annotation: ``jax.Array`` from its release on, else the
    release it needs (withheld) or no fix where the entry has no replacement."""
    replacement, since = entry.replacement, entry.replacement_since
    if not replacement or not since or not rule.min_version_at_least(since):
        withheld = catalogue_rewrites.below_range_withheld(entry, rule.settings) if replacement and since else None
        return _finding(rule, node, entry, f"`{replacement}` needs JAX {since}", withheld)
    fix = _rename_fix(rule, view, node, root, root_q, entry, replacement)
    message = rule._message(entry, shown=entry.name, fixed_to=replacement)
    return AstFinding(rule.code, node, message, rule._detail(entry), None, fix)


def _is_type_check_argument(view: AstView, node: ast.AST) -> bool:
    """``rewrites._is_type_check_argument``: ``node`` is the class argument of the builtin ``isinstance`` or
    ``issubclass``, alone or in (nested) tuples. A check called with a keyword or a star (libcst counts those among
    its arguments), or with the name bound in the file (a shadowed builtin), is ``Undecidable``."""
    child, (parent, field) = node, view.parent(node)
    while type(parent) is ast.Tuple:
        child, (parent, field) = parent, view.parent(parent)
    if type(parent) is ast.Starred or type(parent) is ast.keyword:
        child, (parent, field) = parent, view.parent(parent)
    if type(parent) is not ast.Call or field not in ("args", "keywords"):
        return False
    func = parent.func
    if type(func) is not ast.Name or func.id not in _TYPE_CHECKS:
        return False
    if parent.keywords or any(type(arg) is ast.Starred for arg in parent.args):
        raise Undecidable("a type check with a keyword or a star: libcst's argument positions")
    if view.star_import or view.bound_in_file(func.id) or view.may_import(func.id):
        raise Undecidable(f"`{func.id}` may not be the builtin")
    return len(parent.args) == 2 and parent.args[1] is child


def _finding(rule, node: ast.AST, entry: Entry, not_fixed: str | None = None,
             withheld: WithheldFix | None = None) -> AstFinding:
    return AstFinding(rule.code, node, rule._message(entry, shown=entry.name), rule._detail(entry, not_fixed),
                      withheld)


def _call_shape(call: ast.Call) -> list[tuple[str | None, str]]:
    """The call's arguments as ``positional_call_arguments_problem`` reads them: (keyword or None, star)."""
    return [*((None, "*" if type(arg) is ast.Starred else "") for arg in call.args),
            *((kw.arg, "" if kw.arg is not None else "**") for kw in call.keywords)]


def _has_star(call: ast.Call) -> bool:
    return any(type(arg) is ast.Starred for arg in call.args) or any(kw.arg is None for kw in call.keywords)


# -- import statements (``visit_Import``, ``visit_ImportFrom``) ---------------------------------------------------
def _import(rule, node: ast.Import) -> list[AstFinding]:
    found = []
    for alias in node.names:
        full = alias.name
        entry = rule._entry(rule.catalogue.module_of(full)) if full.startswith(rule.ROOTS) else None
        if entry is None:
            continue
        if entry.name in DELETE_IMPORT:
            raise Undecidable("an import the fix deletes")
        own_module = entry.kind == "module" and full == entry.name
        if own_module and entry.safe_replacement(rule.settings.min_version):
            raise Undecidable("a renamed module: a fix")
        withheld = rule._range_withheld(entry) if own_module else None
        found.append(AstFinding(rule.code, node, rule._message(entry, shown=full), rule._detail(entry), withheld))
    return found


def _import_from(rule, view: AstView, node: ast.ImportFrom) -> list[AstFinding]:
    if node.level or node.module is None or not node.module.startswith(rule.ROOTS):
        return []
    module = node.module
    names = None if any(alias.name == "*" for alias in node.names) else [alias.name for alias in node.names]
    catalogue = rule.catalogue
    mod_entry = rule._entry(catalogue.module_of(module))
    if mod_entry is not None and not (names is not None and all(
            rule._entry(catalogue.symbol(f"{module}.{name}")) is not None for name in names)):
        if mod_entry.name in DELETE_IMPORT or catalogue_rewrites.names_survive(mod_entry, names) or (
                module == mod_entry.name and mod_entry.safe_replacement(rule.settings.min_version)):
            raise Undecidable("a module import with a fix")
        withheld = rule._range_withheld(mod_entry) if module == mod_entry.name else None
        return [AstFinding(rule.code, node, rule._message(mod_entry, shown=module), rule._detail(mod_entry),
                           withheld)]
    if names is None:
        return []
    found: list[Entry] = []
    bound: list[str] = []  # the local names of the found imports
    aliases: list[ast.alias] = []
    for alias in node.names:
        name = alias.name
        qualified = f"{module}.{name}"
        sub = catalogue.module(qualified)
        entry = rule._entry(sub) if sub is not None and not sub.attribute_survives else None
        entry = entry or rule._entry(catalogue.symbol(qualified))
        if entry is not None:
            found.append(entry)
            bound.append(alias.asname or name)
            aliases.append(alias)
    if not found:
        return []
    if any(type(ancestor) in _TRIES and field == "body" and any(_does_nothing(handler.body)
                                                                for handler in ancestor.handlers)
           for ancestor, field in view.ancestors(node)):
        raise Undecidable("an import in a `try` whose `except` may bind nothing: its uses may be reported")
    if not rule.check_compat_code and view.in_compat_code(view.ancestors(node), node):
        return []  # the libcst path drops what is found here, fix and all (``try: ... except ImportError:``)
    min_version = rule.settings.min_version
    if any(entry.fix == POSITIONAL_CALL for entry in found):
        raise Undecidable("a rename: may have a fix")
    plan = rule.from_import_plan(module, [(alias.name, alias.asname, entry) for alias, entry in zip(aliases, found)],
                                 len(node.names))
    detail = " ".join(filter(None, (rule._detail(entry, None) for entry in found))) or None
    advice = "".join(f"; {text}" for alias, entry in zip(aliases, found)
                     if (text := rewrites_ast.import_advice(view, alias, entry)))
    if plan is not None:
        fix = _from_import_fix(view, node, aliases, plan)
        return [AstFinding(rule.code, node, _fixed_message(rule, found) + advice, detail, None, fix)]
    if all(entry.kind == "module" for entry in found) and not view.path.endswith("__init__.py") and all(
            unused_imports.is_unreferenced(view.file_text, local) for local in bound):
        fix = _unused_import_fix(view, node, aliases)
        return [AstFinding(rule.code, node, _fixed_message(rule, found) + advice, detail, None, fix)]
    message = rule._message(found[0]) if len(found) == 1 else rule._grouped_message([(e, None) for e in found])
    withheld = annotation_only_withheld(found) or rule._range_withheld(
        *(entry for entry in found if not entry.safe_replacement(min_version)))
    return [AstFinding(rule.code, node, message + advice, detail, withheld)]


def _fixed_message(rule, found: list[Entry]) -> str:
    """The message of a from-import whose finding carries a fix: each name with its replacement, if any."""
    fixed = [entry.safe_replacement(rule.settings.min_version) for entry in found]
    return rule._message(found[0], fixed_to=fixed[0]) if len(found) == 1 else rule._grouped_message(
        list(zip(found, fixed)))


def _unused_import_fix(view: AstView, node: ast.ImportFrom, aliases: list[ast.alias]) -> AstFix:
    """``CatalogueSymbolRule._unused_import_fix`` where it applies: the statement goes, or the names that nothing
    uses any more go from it."""
    if len(aliases) == len(node.names):
        return AstFix(Applicability.SAFE, unused_imports.REMOVE_STATEMENT,
                      (unused_imports_ast.delete_statement(view, node),))
    dropped = {index for index, alias in enumerate(node.names) if alias in aliases}
    return AstFix(Applicability.SAFE, unused_imports.REMOVE_NAMES,
                  (unused_imports_ast.without_names(view, node, dropped),))


def _from_import_fix(view: AstView, node: ast.ImportFrom, aliases: list[ast.alias], plan) -> AstFix:
    """``CatalogueSymbolRule._from_import_fix``'s edits (``from_import_plan``) as offsets."""
    new_module, renamed, message = plan
    edits = []
    if new_module is not None:
        start = view.offset_of(node)
        spelled = _FROM_MODULE.match(view.source, start)
        if spelled is None or spelled.group(1) != node.module:
            raise Undecidable("the module is not spelled plainly")
        edits.append(Edit(spelled.start(1), spelled.end(1), new_module))
    for index, whole, text in renamed:
        alias = aliases[index]
        start = view.offset_of(alias)
        end = view.offset_of(alias, end=True) if whole else start + len(alias.name)
        if view.source[start:start + len(alias.name)] != alias.name:
            raise Undecidable("the name is not spelled plainly")
        edits.append(Edit(start, end, text))
    return AstFix(Applicability.SAFE, message, tuple(edits))


_FROM_MODULE = re.compile(r"from[ \t]+([A-Za-z_][A-Za-z0-9_.]*)[ \t]+import\b")


def _does_nothing(body: list[ast.stmt]) -> bool:
    """Over-approximates ``context.silent_import_guard``'s handler that binds nothing (``pass``, ``...``, a call)."""
    return all(type(statement) is ast.Pass or type(statement) is ast.Expr for statement in body)
