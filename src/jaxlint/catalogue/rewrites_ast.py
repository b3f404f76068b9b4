"""JAX101's special rewrites (``catalogue.rewrites``) decided from the ast gate's tree, fix included.

Each rewrite here asks the very function its libcst twin asks (``rewrites.x64_switch_call``: the problem, the
value), from a description of the call's arguments read off ``ast`` (``arguments``); only the reading of the tree
and the placing of the edits differ. Whatever ``ast`` cannot read for certain (an argument in parentheses of its
own, a comment between arguments, an import to add) is ``Undecidable``: the file goes to libcst.
"""
from __future__ import annotations

import ast
import re
from typing import Callable

from jaxlint.catalogue import Entry
from jaxlint.catalogue import rewrites
from jaxlint.catalogue.rewrites import Argument, x64_switch_call, x64_switch_fix
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable
from jaxlint.lint.ast_names import AstNames
from jaxlint.lint.diagnostics import Applicability, Edit

# libcst's atoms (``rewrites._ATOMS``) as ``ast`` spells them; ``...`` is no atom there, nor is ``-1``.
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set,
          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*=\s*$")


def call_of(view: AstView, node: ast.AST) -> ast.Call | None:
    """The call that calls ``node`` (``rewrites._call_of``)."""
    parent, field = view.parent(node)
    return parent if type(parent) is ast.Call and field == "func" else None


def arguments(view: AstView, call: ast.Call) -> list[Argument]:
    """``rewrites.cst_arguments`` from ``ast``, in source order; ``Undecidable`` where a value may hold parentheses
    of its own (libcst's code for it would include them) or a comment stands between the arguments."""
    source = view.source
    items = _items(call)
    found = []
    previous = view.offset_of(call.func, end=True)
    for index, item in enumerate(items):
        start, end = view.offset_of(item), view.offset_of(item, end=True)
        if source[previous:start].strip() != ("(" if index == 0 else ","):
            raise Undecidable("an argument in parentheses of its own, or a comment")
        if type(item) is ast.keyword:
            value = item.value
            head = source[start:view.offset_of(value)]
            if item.arg is None:
                if head.strip() != "**":
                    raise Undecidable("an argument in parentheses of its own")
                found.append(_argument(view, None, "**", value))
                previous = end
                continue
            if not _KEYWORD.match(head):
                raise Undecidable("an argument in parentheses of its own")
            found.append(_argument(view, item.arg, "", value))
        elif type(item) is ast.Starred:
            if source[start:view.offset_of(item.value)].strip() != "*":
                raise Undecidable("an argument in parentheses of its own")
            found.append(_argument(view, None, "*", item.value))
        else:
            found.append(_argument(view, None, "", item))
        previous = end
    tail = source[previous:view.offset_of(call, end=True)].strip()
    if tail not in ((")", ",)") if items else ("()",)) and not (items and re.fullmatch(r",\s*\)", tail)):
        raise Undecidable("an argument in parentheses of its own, or a comment")
    return found


def _items(call: ast.Call) -> list[ast.expr | ast.keyword]:
    """The call's arguments in source order: ``arguments``' order, the index a plan's edits name."""
    return sorted([*call.args, *call.keywords], key=lambda item: (item.lineno, item.col_offset))


def _argument(view: AstView, keyword: str | None, star: str, value: ast.expr) -> Argument:
    """An argument whose value has no parentheses of its own (``arguments`` checked)."""
    kind = type(value)
    constant = kind is ast.Constant
    name = value.id if kind is ast.Name else (
        repr(value.value) if constant and value.value in (True, False, None) and type(value.value) in (bool, type(None))
        else None)
    if kind is ast.GeneratorExp:
        raise Undecidable("a generator argument: its parentheses may be the call's")
    return Argument(keyword, star, view.text(value).strip(),
                    kind in _ATOMS or (constant and value.value is not Ellipsis),
                    kind is ast.Name or kind is ast.Attribute or name is not None,
                    len(value.elts) if kind is ast.Tuple else None, name)


def _rewritten(rule, view: AstView, node: ast.Attribute, entry: Entry, problem: str | None, call: ast.Call | None,
               text: str | None, applicability: Applicability, fix_message: str, shown: str,
               probe: bool, imports: tuple[Edit, ...] = ()) -> AstFinding:
    """The finding of a rewrite: without a fix where there is a ``problem``, else the call replaced by ``text``."""
    if problem is not None:
        return AstFinding(rule.code, node, rule._message(entry, shown=entry.name), rule._detail(entry, problem))
    start, end = view.offset_of(call), view.offset_of(call, end=True)
    fix = AstFix(applicability, fix_message, (*imports, Edit(start, end, text)), (start, end) if probe else None)
    return AstFinding(rule.code, node, rule._message(entry, shown=entry.name, fixed_to=shown),
                      rule._detail(entry, None), None, fix)


def _call_facts(view: AstView, node: ast.Attribute) -> tuple[ast.Call | None, list[Argument] | None, bool]:
    """(the call of ``node``, its arguments, whether its text holds a ``#``); ``Undecidable`` for a call in
    parentheses of its own (libcst's code for it would hold them)."""
    call = call_of(view, node)
    if call is None:
        return None, None, False
    view.span(call)
    return call, arguments(view, call), "#" in view.text(call)


def ref_index(rule, view: AstView, node: ast.Attribute, entry: Entry) -> AstFinding:
    """``rewrites._ref_index``: ``pl.load(ref, idx)`` -> ``ref[idx]``, ``pl.store(ref, idx, v)`` -> ``ref[idx] = v``."""
    call, args, has_comment = _call_facts(view, node)
    is_statement = call is not None and type(view.parent(call)[0]) is ast.Expr
    problem, text, shown = rewrites.ref_index_call(rule, entry, args, has_comment, is_statement)
    store = entry.name.endswith(".store")
    return _rewritten(rule, view, node, entry, problem, call, text, Applicability.UNSAFE,
                      shown and rewrites.ref_index_fix_message(entry, shown), shown, probe=not store)


def stacked_device_put(rule, view: AstView, node: ast.Attribute, entry: Entry) -> AstFinding:
    """``rewrites._stacked_device_put``: ``jax.device_put_sharded(xs, devices)`` -> ``jax.device_put(...)``."""
    call, args, has_comment = _call_facts(view, node)
    jax_code = view.text(node.value).strip() if view.qualified_name(node.value) == "jax" else None
    problem, text = rewrites.stacked_device_put_call(rule, entry, args, has_comment, jax_code)
    return _rewritten(rule, view, node, entry, problem, call, text, Applicability.UNSAFE,
                      rewrites.STACKED_DEVICE_PUT_FIX, rewrites.STACKED_DEVICE_PUT_SHOWN, probe=True)


def pallas_dot(rule, view: AstView, node: ast.Attribute, entry: Entry,
               rename: Callable[[str], AstFix]) -> AstFinding:
    """``rewrites._pallas_dot``: ``pl.dot(a, b, ...)`` -> ``jax.lax.dot(a, b, ..., preferred_element_type=...)``."""
    call, args, has_comment = _call_facts(view, node)
    problem, given = rewrites.pallas_dot_call(args, has_comment)
    text, imports = None, ()
    if problem is None:
        *imports, renamed = rename(rewrites.PALLAS_DOT).edits
        text = rewrites.pallas_dot_text(renamed.content, given)
    return _rewritten(rule, view, node, entry, problem, call, text, Applicability.UNSAFE, rewrites.PALLAS_DOT_FIX,
                      rewrites.PALLAS_DOT_SHOWN, probe=True, imports=tuple(imports))


def x64_switch(rule, view: AstView, node: ast.Attribute, entry: Entry,
               rename: Callable[[str], AstFix]) -> AstFinding:
    """``rewrites._x64_switch``: ``with jax.experimental.enable_x64(v):`` -> ``with jax.enable_x64(v):``.
    ``rename``: the node's rename fix (``symbols_ast._rename_fix``: ``Undecidable`` when it needs an import)."""
    call = call_of(view, node)
    if call is not None:
        view.span(call)  # ``Undecidable`` for a call in parentheses of its own
    problem, value = x64_switch_call(rule, entry, arguments(view, call) if call is not None else None,
                                     call is not None and "#" in view.text(call))
    if problem is not None:
        return AstFinding(rule.code, node, rule._message(entry, shown=entry.name), rule._detail(entry, problem))
    replacement = entry.replacement
    *imports, renamed = rename(replacement).edits
    parent, field = view.parent(call)
    text, safe = x64_switch_fix(replacement, value, type(parent) is ast.withitem and field == "context_expr")
    edit = Edit(view.offset_of(call), view.offset_of(call, end=True), f"{renamed.content}({value})")
    fix = AstFix(Applicability.SAFE if safe else Applicability.UNSAFE, text, (*imports, edit))
    message = rule._message(entry, shown=entry.name, fixed_to=f"{replacement}({value})")
    return AstFinding(rule.code, node, message, rule._detail(entry, None), None, fix)


def shard_map(rule, view: AstView, node: ast.Attribute, entry: Entry,
              rename: Callable[[str], AstFix]) -> AstFinding:
    """``rewrites._shard_map_call``: ``shard_map(f, mesh, in_specs, out_specs[, check_rep])`` -> ``jax.shard_map(f,
    mesh=..., ...[, check_vma=...])``. ``rename``: the node's rename fix (``Undecidable`` where libcst's
    ``_rename_fix`` may find no spelling: its finding would say so)."""
    call = call_of(view, node)
    if call is not None:
        view.span(call)  # ``Undecidable`` for a call in parentheses of its own
    plan = rewrites.shard_map_call(rule, arguments(view, call) if call is not None else None)
    advice = f"; {plan.advice}" if plan.advice else ""
    if plan.problem is not None:
        return AstFinding(rule.code, node, rule._message(entry, shown=entry.name) + advice,
                          rule._detail(entry, plan.problem), plan.withheld)
    edits = list(rename(rewrites.SHARD_MAP).edits)
    items = _items(call)
    for index, text in plan.inserts:
        start = view.offset_of(items[index])  # a positional argument: its value, without parentheses (``arguments``)
        edits.append(Edit(start, start, text))
    for index in plan.renamed:
        start = view.offset_of(items[index])
        if view.source[start:start + len("check_rep")] != "check_rep":
            raise Undecidable("the keyword is not spelled plainly")
        edits.append(Edit(start, start + len("check_rep"), "check_vma"))
    start, end = view.offset_of(call), view.offset_of(call, end=True)
    fix = AstFix(Applicability.SAFE, rewrites.shard_map_fix_message(plan), tuple(edits), (start, end))
    message = rule._message(entry, shown=entry.name, fixed_to=rewrites.SHARD_MAP) + advice
    return AstFinding(rule.code, node, message, rule._detail(entry, None), None, fix)


def import_advice(view: AstView, alias: ast.alias, entry: Entry) -> str | None:
    """``rewrites.import_advice``: for ``from M import shard_map``, whether a call of the imported name that resolves
    to it passes ``check_rep``."""
    if entry.fix != "shard-map-call":
        return None
    local = alias.asname or alias.name
    for node in view.nodes:
        if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == local and \
                rewrites.passes_check_rep([keyword.arg for keyword in node.keywords],
                                          sum(type(arg) is not ast.Starred for arg in node.args)) \
                and _resolved(view, node.func) == entry.name:
            return rewrites.CHECK_REP_ADVICE
    return None


def _resolved(view: AstView, name: ast.Name) -> str | None:
    """The resolver's answer for ``name``: the view's where it is certain, else the resolver's port's, which follows
    the file's scopes as libcst's does (a parameter or a local of the same name)."""
    try:
        return view.qualified_name(name)
    except Undecidable:
        names = view.__dict__.get("_ast_names")
        if names is None:
            names = view.__dict__["_ast_names"] = AstNames(view.tree)
        return names.qualified_name(name)
