"""The catalogue entries whose fix is not a rename: an overlay ``fix`` kind names the rewrite.

- ``fix = "returns-second"``: ``jax.lax.tie_in(x, y)`` -> ``y`` (a no-op since JAX 0.2.0: it returned ``y``);
- ``fix = "index-update"``: ``jax.ops.index_update(x, jax.ops.index[i], y)`` -> ``x.at[i].set(y)`` (and
  ``index_add`` -> ``.add``, ``index_mul`` -> ``.multiply``, ``index_min`` -> ``.min``, ``index_max`` -> ``.max``).
  Unsafe: the old functions accepted a NumPy array as ``x``, which has no ``.at``;
- ``fix = "index-helper"``: ``jax.ops.index`` is not reported inside such a call (the call's finding covers it);
- ``fix = "array-type"``: ``jnp.DeviceArray`` -> ``jax.Array``, only in annotations and ``isinstance``/
  ``issubclass`` checks (elsewhere the class itself is used: subclassing, construction). In a check, the fix is
  safe when the old name exists nowhere in the range (min version >= its removal); below that it is unsafe: a
  tracer is a ``jax.Array``, never a ``DeviceArray``;
- ``fix = "annotation-type"``: ``jax.random.KeyArray``/``PRNGKeyArray`` -> ``jax.Array`` in annotations only, as
  JAX's message says (a runtime check needs ``jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)``, not a rename);
  elsewhere the entry is reported as any other, without a fix;
- ``fix = "shard-map-call"``: ``jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs, check_rep=c)`` ->
  ``jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=c)``: from JAX 0.8.0 the old
  function is a wrapper that makes exactly that call (``_shard_map(f, mesh=, in_specs=, out_specs=,
  axis_names=set(), check_vma=check_rep)``, read in the 0.8.0 and 0.12.0.1 wheels; 0.6.1-0.7.2 also skip a mesh
  check), so the fix needs a min version of 0.8.0. ``auto=`` has no drop-in (``axis_names=`` is its complement).

Besides, ``from jax.config import config`` -> ``from jax import config`` (``from_import_survives``): the module
is gone, the object it exported is still ``jax.config``.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.catalogue import Entry
from jaxlint.catalogue.floors import FLOORS, floor_withheld
from jaxlint.lint.diagnostics import WithheldFix
from jaxlint.rules.base import FixSpec, InsertBefore, Replace, Rule, safe_fix, unsafe_fix

INDEX_METHODS = {"index_update": "set", "index_add": "add", "index_mul": "multiply", "index_min": "min",
                 "index_max": "max"}
# Imports whose fix deletes them (JAX101).
DELETE_IMPORT = frozenset({"jax.cloud_tpu_init"})
# Overlay ``fix`` value: the rename is exact only at a call ``name(f, tree, *rest[, is_leaf=...])``.
POSITIONAL_CALL = "positional-call"
KINDS = frozenset({"returns-second", "index-update", "index-helper", "array-type", "annotation-type",
                   "shard-map-call"})
# jax.experimental.shard_map.shard_map's parameters in order, and the release from which it is a plain call of
# jax.shard_map with them as keywords (check_rep as check_vma).
SHARD_MAP_PARAMETERS = ("f", "mesh", "in_specs", "out_specs", "check_rep")
SHARD_MAP_CALL = "shard_map.call"  # FLOORS key: the old function is exactly that call from 0.8.0
# Removed modules whose one public attribute ``from M import <it>`` still reads from the parent package.
SURVIVING_FROM_IMPORT = {"jax.config": "config"}
# Expressions that keep their meaning wherever they are pasted (no parentheses needed around them).
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
          cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple, cst.Dict, cst.Set,
          cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


# Parents whose slot takes any expression as it is: ``z = <e>``, ``f(<e>)``, ``return <e>``, ``[<e>]``.
_WHOLE_EXPRESSION_SLOTS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Arg, cst.Expr)


@dataclass(frozen=True)
class Rewrite:
    """What to do with one site of an entry with a ``fix`` kind."""

    fix: FixSpec | None = None
    replacement: str | None = None  # what the message says the code becomes
    problem: str | None = None  # why there is no fix
    advice: str | None = None  # said in the message, fix or not
    withheld: "WithheldFix | None" = None  # only the min version stands in the way
    silent: bool = False  # another finding covers this site


def from_import_survives(entry: Entry, node: cst.ImportFrom) -> bool:
    return names_survive(entry, None if isinstance(node.names, cst.ImportStar) else
                         [cst.helpers.get_full_name_for_node(alias.name) for alias in node.names])


def names_survive(entry: Entry, names: list[str] | None) -> bool:
    """``from_import_survives`` for the imported names (None: a star import)."""
    name = SURVIVING_FROM_IMPORT.get(entry.name)
    return name is not None and names is not None and all(imported == name for imported in names)


def rewrite(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite | None:
    """The rewrite of ``node`` (an attribute chain naming ``entry``); None: the entry is a plain rename."""
    kind = entry.fix
    if kind == "returns-second":
        return _returns_second(rule, node)
    if kind == "index-update":
        return _index_update(rule, node, entry)
    if kind == "index-helper":
        return _index_helper(rule, node)
    if kind == "array-type":
        return _array_type(rule, node, entry)
    if kind == "annotation-type":
        return _annotation_type(rule, node, entry)
    if kind == "shard-map-call":
        return _shard_map_call(rule, node, entry)
    return None


def _call_of(rule: Rule, node: cst.CSTNode) -> cst.Call | None:
    parent = rule.context.parent
    return parent if isinstance(parent, cst.Call) and parent.func is node else None


def _plain_arguments(call: cst.Call, count: int) -> list[cst.BaseExpression] | None:
    if len(call.args) != count or any(arg.star or arg.keyword is not None for arg in call.args):
        return None
    return [arg.value for arg in call.args]


def _has_comment(rule: Rule, node: cst.CSTNode) -> bool:
    return "#" in rule.code_for(node)


def _pasted(rule: Rule, node: cst.BaseExpression, into: cst.CSTNode | None = None) -> str:
    """``node``'s code, parenthesized unless it is an atom or goes where any expression fits (``into``: the parent
    of the expression it replaces)."""
    code = rule.code_for(node).strip()
    whole = isinstance(into, _WHOLE_EXPRESSION_SLOTS)
    return code if whole or isinstance(node, _ATOMS) or node.lpar else f"({code})"


def _returns_second(rule: Rule, node: cst.Attribute) -> Rewrite:
    call = _call_of(rule, node)
    values = _plain_arguments(call, 2) if call is not None else None
    if values is None:
        return Rewrite(problem="only a call `tie_in(x, y)` with two positional arguments is rewritten")
    if _has_comment(rule, call):
        return Rewrite(problem="the call holds a comment")
    y = values[1]
    ancestors = rule.context.ancestors  # ..., the call's parent, the call, this attribute
    into = ancestors[-3] if len(ancestors) >= 3 else None
    return Rewrite(safe_fix("Replace the call with its second argument (`tie_in` returned it)",
                            Replace(call, _pasted(rule, y, into))), replacement=rule.code_for(y).strip())


def _index_update(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite:
    method = INDEX_METHODS.get(entry.attr)
    call = _call_of(rule, node)
    values = _plain_arguments(call, 3) if call is not None and method else None
    if values is None:
        return Rewrite(problem="only a call `index_update(x, idx, y)` with three positional arguments is rewritten")
    if _has_comment(rule, call):
        return Rewrite(problem="the call holds a comment")
    x, index, y = values
    if isinstance(index, cst.Subscript) and rule.qualified_name(index.value) == "jax.ops.index":
        brackets = rule.code_for(index)[len(rule.code_for(index.value)):].strip()
    elif isinstance(index, (cst.NamedExpr, cst.Lambda, cst.Yield, cst.Await)):
        return Rewrite(problem="the index is not a plain expression")
    else:
        brackets = f"[{rule.code_for(index).strip()}]"
    text = f"{_pasted(rule, x)}.at{brackets}.{method}({rule.code_for(y).strip()})"
    return Rewrite(unsafe_fix(f"Use `x.at[...].{method}(...)` (unsafe: a NumPy array `x` has no `.at`)",
                              Replace(call, text), probe=call), replacement=f"x.at[idx].{method}(y)")


def _index_helper(rule: Rule, node: cst.Attribute) -> Rewrite | None:
    ancestors = rule.context.ancestors[:-1]  # the visited node is the last
    if len(ancestors) >= 3 and isinstance(ancestors[-1], cst.Subscript) and ancestors[-1].value is node:
        argument, call = ancestors[-2], ancestors[-3]
        if isinstance(argument, cst.Arg) and isinstance(call, cst.Call) and len(call.args) > 1 \
                and call.args[1] is argument:
            callee = rule.qualified_name(call.func) or ""
            if callee.startswith("jax.ops.") and callee.rpartition(".")[2] in INDEX_METHODS:
                return Rewrite(silent=True)
    return None


def _array_type(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite:
    replacement = entry.safe_replacement(rule.settings.min_version)
    if replacement is None:
        return Rewrite(problem=f"`{entry.replacement}` needs JAX {entry.replacement_since}")
    ancestors = rule.context.ancestors
    in_annotation = any(isinstance(n, cst.Annotation) for n in ancestors)
    in_check = _is_type_check_argument(rule, node)
    if not (in_annotation or in_check):
        return Rewrite(problem=f"`{replacement}` is another class: only annotations and isinstance checks are "
                               f"rewritten")
    fix = rule._rename_fix(node, entry, replacement)
    if fix is None:
        return Rewrite(problem="`import jax` does not reach this line")
    if in_check and not in_annotation and not rule.min_version_at_least(entry.removed_in or "0"):
        fix = unsafe_fix(fix.message + " (unsafe below JAX " + str(entry.removed_in) + ": a tracer is a "
                         "`jax.Array`, never a `DeviceArray`)", *fix.edits)
    return Rewrite(fix, replacement=replacement)


def _annotation_type(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite | None:
    """The replacement in an annotation (None elsewhere: the entry's ordinary finding, without a fix)."""
    if not any(isinstance(n, cst.Annotation) for n in rule.context.ancestors):
        return None
    replacement = entry.replacement
    if not replacement or not entry.replacement_since or not rule.min_version_at_least(entry.replacement_since):
        return Rewrite(problem=f"`{replacement}` needs JAX {entry.replacement_since}")
    fix = rule._rename_fix(node, entry, replacement)
    if fix is None:
        return Rewrite(problem="`import jax` does not reach this line")
    return Rewrite(fix, replacement=replacement)


def _is_type_check_argument(rule: Rule, node: cst.CSTNode) -> bool:
    """``node`` is the class argument of ``isinstance``/``issubclass``, alone or in a tuple of classes."""
    ancestors = rule.context.ancestors[:-1]  # the visited node is the last
    while ancestors:
        parent = ancestors.pop()
        if isinstance(parent, (cst.Tuple, cst.Element)):
            continue
        if isinstance(parent, cst.Arg) and ancestors and isinstance(ancestors[-1], cst.Call):
            call = ancestors[-1]
            return (len(call.args) == 2 and call.args[1] is parent and isinstance(call.func, cst.Name)
                    and (rule.context.resolver.is_builtin(call.func, "isinstance")
                         or rule.context.resolver.is_builtin(call.func, "issubclass")))
        return False
    return False


def import_advice(rule: Rule, alias: cst.ImportAlias, entry: Entry) -> str | None:
    """What the finding at ``from M import <entry>`` says besides the rename: for ``shard_map``, that a call of the
    imported name in the module passes ``check_rep`` (``jax.shard_map`` calls it ``check_vma``)."""
    if entry.fix != "shard-map-call":
        return None
    local = cst.helpers.get_full_name_for_node(alias.asname.name if alias.asname else alias.name)
    finder = _CheckRepCalls(rule, local, entry.name)
    rule.context.module.visit(finder)
    return _CHECK_REP_ADVICE if finder.found else None


_CHECK_REP_ADVICE = "`jax.shard_map` takes `check_rep` as `check_vma=`: rename it when you move"


class _CheckRepCalls(cst.CSTVisitor):
    """Whether a call of ``local`` (resolving to ``qualified``) passes ``check_rep`` (by keyword or 5th)."""

    def __init__(self, rule: Rule, local: str, qualified: str) -> None:
        self.rule, self.local, self.qualified, self.found = rule, local, qualified, False

    def visit_Call(self, node: cst.Call) -> bool:
        if not self.found and isinstance(node.func, cst.Name) and node.func.value == self.local and (
                any(arg.keyword is not None and arg.keyword.value == "check_rep" for arg in node.args)
                or sum(arg.keyword is None and not arg.star for arg in node.args) == 5) \
                and self.rule.qualified_name(node.func) == self.qualified:
            self.found = True
        return not self.found


def _shard_map_call(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite:
    """``shard_map(f, mesh, in_specs, out_specs[, check_rep])`` -> ``jax.shard_map(f, mesh=..., in_specs=...,
    out_specs=...[, check_vma=...])``: the arguments by keyword (``jax.shard_map`` takes only ``f`` positionally),
    ``check_rep`` renamed."""
    call = _call_of(rule, node)
    if call is None:
        return Rewrite(problem="only a call is rewritten")
    keywords = [arg.keyword.value for arg in call.args if arg.keyword is not None]
    advice = None
    if "check_rep" in keywords or len(call.args) - len(keywords) == 5:
        advice = _CHECK_REP_ADVICE
    if any(arg.star for arg in call.args):
        return Rewrite(problem="the call passes `*args`/`**kwargs`", advice=advice)
    if "auto" in keywords:
        return Rewrite(problem="`auto=` has no drop-in: `jax.shard_map`'s `axis_names=` takes the mesh axes that "
                               "are not in `auto`", advice=advice)
    positional = [arg for arg in call.args if arg.keyword is None]
    named = [name for name in SHARD_MAP_PARAMETERS[:len(positional)]] + keywords
    if not positional or len(positional) > len(SHARD_MAP_PARAMETERS) or len(set(named)) != len(named) \
            or set(named) - set(SHARD_MAP_PARAMETERS) or not {"mesh", "in_specs", "out_specs"} <= set(named):
        return Rewrite(problem="only a call that passes `f` positionally and `mesh`, `in_specs`, `out_specs` is "
                               "rewritten", advice=advice)
    exact = FLOORS[SHARD_MAP_CALL].since
    withheld = floor_withheld(SHARD_MAP_CALL, rule.settings)
    if withheld is not None:
        return Rewrite(problem=f"below JAX {exact} the old function also skips `jax.shard_map`'s mesh check",
                       advice=advice, withheld=withheld)
    rename = rule._rename_fix(node, entry, "jax.shard_map")
    if rename is None:
        return Rewrite(problem="`import jax` does not reach this line", advice=advice)
    edits = list(rename.edits)
    for arg, name in zip(positional[1:], SHARD_MAP_PARAMETERS[1:]):
        edits.append(InsertBefore(arg.value, f"{'check_vma' if name == 'check_rep' else name}="))
    edits += [Replace(arg.keyword, "check_vma") for arg in call.args
              if arg.keyword is not None and arg.keyword.value == "check_rep"]
    renamed = " and `check_rep=` as `check_vma=`" if advice else ""
    fix = safe_fix(f"Use `jax.shard_map` with `mesh`/`in_specs`/`out_specs` by keyword{renamed} (the call "
                   f"JAX {exact}+ makes for it)", *edits, probe=call)
    return Rewrite(fix, replacement="jax.shard_map", advice=advice)
