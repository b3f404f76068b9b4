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

- ``fix = "x64-switch"``: ``jax.experimental.enable_x64(v=True)`` -> ``jax.enable_x64(v)``, ``disable_x64()`` ->
  ``jax.enable_x64(False)``, as JAX's message says. The old ones were ``@contextmanager`` functions doing ``with
  config.enable_x64(v): yield`` and ``jax.enable_x64`` is that ``config.enable_x64``: the same context in a
  ``with`` statement (safe); elsewhere (a decorator, a stored manager) unsafe, since the new one is no
  ``ContextDecorator``.

- ``fix = "stacked-device-put"``: ``jax.device_put_sharded(shards, devices)`` -> ``jax.device_put(
  jax.numpy.stack(shards), NamedSharding(Mesh(devices, ("x",)), PartitionSpec("x")))`` and
  ``device_put_replicated(x, devices)`` -> the same with ``stack([x] * len(devices))``, the recipe of JAX's
  migration guide (``migrate_pmap.md``, "Drop-in replacements"). Unsafe: the same values on the same devices, but a
  ``NamedSharding`` where a ``PmapSharding`` was (each device's shard keeps the leading axis: ``(1, 2)``, not
  ``(2,)``), and a pytree of shards (which the old functions took) does not stack.

- ``fix = "ref-index"``: Pallas' ``pl.load(ref, idx)`` -> ``ref[idx]`` and, as a statement, ``pl.store(ref, idx,
  value)`` -> ``ref[idx] = value``, as JAX's message says ("use ``ref[idx]``"). Unsafe: indexing lowers through
  the state primitives, not ``load_p``/``swap_p``; only calls without ``mask=`` and the other keywords.

- ``fix = "pallas-dot"``: Pallas' ``pl.dot(a, b, trans_a=False, trans_b=False, precision=p)`` ->
  ``jax.lax.dot(a, b, precision=p, preferred_element_type=jax.numpy.float32)`` (``a.T``/``b.T`` for a literal
  ``True`` transpose flag). Every release of ``pl.dot`` read in the wheels (0.4.20-0.11.1) was that
  ``dot_general`` with a float32 result for floating operands; a plain ``jnp.dot``, which JAX's message names, gives
  bfloat16 for bfloat16 operands. Unsafe: integer operands gave int32 (0.5.3+), float64 ones float64 (0.9.2+).

Besides, ``from jax.config import config`` -> ``from jax import config`` (``from_import_survives``): the module
is gone, the object it exported is still ``jax.config``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst
from jaxlint.lint.lazy_libcst import Visits, visitor

from jaxlint.catalogue import Entry
from jaxlint.catalogue.floors import FLOORS, floor_withheld, range_withheld
from jaxlint.lint.diagnostics import WithheldFix
from jaxlint.rules.base import FixSpec, InsertBefore, Replace, Rule, safe_fix, unsafe_fix

INDEX_METHODS = {"index_update": "set", "index_add": "add", "index_mul": "multiply", "index_min": "min",
                 "index_max": "max"}
# Imports whose fix deletes them (JAX101).
DELETE_IMPORT = frozenset({"jax.cloud_tpu_init"})
# Overlay ``fix`` value: the rename is exact only at a call ``name(f, tree, *rest[, is_leaf=...])``.
POSITIONAL_CALL = "positional-call"
POSITIONAL_CALL_KEYWORDS = frozenset({"is_leaf"})  # what such a call may pass by keyword
KINDS = frozenset({"returns-second", "index-update", "index-helper", "array-type", "annotation-type",
                   "x64-switch", "stacked-device-put", "ref-index", "shard-map-call", "pallas-dot"})
# ``x64-switch``: the value each old context manager set, when called with no argument.
X64_DEFAULT = {"enable_x64": "True", "disable_x64": "False"}
# jax.experimental.shard_map.shard_map's parameters in order, and the release from which it is a plain call of
# jax.shard_map with them as keywords (check_rep as check_vma).
SHARD_MAP_PARAMETERS = ("f", "mesh", "in_specs", "out_specs", "check_rep")
SHARD_MAP_CALL = "shard_map.call"  # FLOORS key: the old function is exactly that call from 0.8.0
# Removed modules whose one public attribute ``from M import <it>`` still reads from the parent package.
SURVIVING_FROM_IMPORT = {"jax.config": "config"}
# Expressions that keep their meaning wherever they are pasted (no parentheses needed around them).
@functools.cache
def _atoms() -> tuple[type[cst.CSTNode], ...]:
    return (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
            cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple, cst.Dict, cst.Set,
            cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


# Parents whose slot takes any expression as it is: ``z = <e>``, ``f(<e>)``, ``return <e>``, ``[<e>]``.
@functools.cache
def _whole_expression_slots() -> tuple[type[cst.CSTNode], ...]:
    return (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Arg, cst.Expr)


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
    if kind == "x64-switch":
        return _x64_switch(rule, node, entry)
    if kind == "stacked-device-put":
        return _stacked_device_put(rule, node, entry)
    if kind == "ref-index":
        return _ref_index(rule, node, entry)
    if kind == "shard-map-call":
        return _shard_map_call(rule, node, entry)
    if kind == "pallas-dot":
        return _pallas_dot(rule, node, entry)
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
    code = rule.code_in_place(node).strip()
    whole = isinstance(into, _whole_expression_slots())
    return code if whole or isinstance(node, _atoms()) or node.lpar else f"({code})"


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
                            Replace(call, _pasted(rule, y, into))), replacement=rule.code_in_place(y).strip())


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
        brackets = rule.code_in_place(index)[len(rule.code_in_place(index.value)):].strip()
    elif isinstance(index, (cst.NamedExpr, cst.Lambda, cst.Yield, cst.Await)):
        return Rewrite(problem="the index is not a plain expression")
    else:
        brackets = f"[{rule.code_in_place(index).strip()}]"
    text = f"{_pasted(rule, x)}.at{brackets}.{method}({rule.code_in_place(y).strip()})"
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
    ancestors = rule.context.ancestors
    in_annotation = any(isinstance(n, cst.Annotation) for n in ancestors)
    in_check = _is_type_check_argument(rule, node)
    if replacement is None:
        return _below_range(rule, entry, in_annotation or in_check)
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
        return _below_range(rule, entry, bool(replacement and entry.replacement_since))
    fix = rule._rename_fix(node, entry, replacement)
    if fix is None:
        return Rewrite(problem="`import jax` does not reach this line")
    return Rewrite(fix, replacement=replacement)


@dataclass(frozen=True)
class Argument:
    """What a rewrite reads of one argument of a call, from either tree (libcst's here, ``ast``'s in
    ``symbols_ast``): so that both paths decide with the same function."""
    keyword: str | None  # None: positional
    star: str  # "", "*" or "**"
    code: str  # the value's source, stripped, with any parentheses of its own (``Rule.code_in_place``)
    atom: bool = True  # pasted as it is anywhere (``_pasted``): an atom, or in parentheses of its own
    name_like: bool = False  # a name or an attribute chain
    elements: int | None = None  # a tuple in parentheses: how many elements
    name: str | None = None  # a bare name (``True``, ``None`` included): its identifier


def cst_arguments(rule: Rule, call: cst.Call) -> list[Argument]:
    """The call's arguments; their code as it stands in the file (``Rule.code_in_place``: a multi-line argument's
    continuation lines keep their indentation inside a block). ``call``: in the statement being visited."""
    return [Argument(arg.keyword.value if arg.keyword is not None else None, arg.star,
                     rule.code_in_place(arg.value).strip(), isinstance(arg.value, _atoms()) or bool(arg.value.lpar),
                     isinstance(arg.value, (cst.Name, cst.Attribute)),
                     len(arg.value.elements) if isinstance(arg.value, cst.Tuple) and arg.value.lpar else None,
                     arg.value.value if isinstance(arg.value, cst.Name) else None)
            for arg in call.args]


def _plain_values(arguments: list[Argument] | None, count: int) -> list[Argument] | None:
    """``_plain_arguments`` of a call's ``arguments`` (None: not a call)."""
    if arguments is None or len(arguments) != count or any(arg.star or arg.keyword is not None
                                                           for arg in arguments):
        return None
    return arguments


def _pasted_argument(argument: Argument) -> str:
    return argument.code if argument.atom else f"({argument.code})"


def x64_switch_call(rule: Rule, entry: Entry, arguments: list[Argument] | None,
                    has_comment: bool) -> tuple[str | None, str | None]:
    """(why there is no fix, the value to pass ``jax.enable_x64``) for a use of ``enable_x64``/``disable_x64``:
    ``arguments`` of the call that calls it (None: not called), ``has_comment``: the call's text holds a ``#``."""
    replacement, since = entry.replacement, entry.replacement_since
    if not replacement or not since or not rule.min_version_at_least(since):
        return f"`{replacement}` needs JAX {since}", None
    name = entry.name.rpartition(".")[2]
    if arguments is None or name not in X64_DEFAULT or any(arg.star for arg in arguments):
        return "only a call of it is rewritten", None
    if name == "disable_x64" and arguments:
        return "`disable_x64` takes no argument", None
    if len(arguments) > 1 or (arguments and arguments[0].keyword not in (None, "new_val")):
        return "only `enable_x64()` or `enable_x64(value)` is rewritten", None
    if has_comment:
        return "the call holds a comment", None
    return None, arguments[0].code if arguments else X64_DEFAULT[name]


def x64_switch_fix(replacement: str, value: str, in_with: bool) -> tuple[str, bool]:
    """(the fix's message, whether it is safe): the same context in a ``with`` statement."""
    text = f"Use `{replacement}({value})`"
    return (text, True) if in_with else (text + " (unsafe outside a `with` statement: the new one is no decorator)",
                                         False)


def _x64_switch(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite:
    call = _call_of(rule, node)
    problem, value = x64_switch_call(rule, entry, cst_arguments(rule, call) if call is not None else None,
                                     call is not None and _has_comment(rule, call))
    if problem is not None:
        return Rewrite(problem=problem)
    replacement = entry.replacement
    rename = rule._rename_fix(node, entry, replacement)
    if rename is None:
        return Rewrite(problem="`import jax` does not reach this line")
    edits = [edit for edit in rename.edits if not (isinstance(edit, Replace) and edit.node is node)]
    spelled = next(edit.content for edit in rename.edits if isinstance(edit, Replace) and edit.node is node)
    edits.append(Replace(call, f"{spelled}({value})"))
    ancestors = rule.context.ancestors  # ..., the call's parent, the call, this attribute
    in_with = len(ancestors) >= 3 and isinstance(ancestors[-3], cst.WithItem) and ancestors[-3].item is call
    text, safe = x64_switch_fix(replacement, value, in_with)
    fix = safe_fix(text, *edits) if safe else unsafe_fix(text, *edits)
    return Rewrite(fix, replacement=f"{replacement}({value})")


def stacked_device_put_call(rule: Rule, entry: Entry, arguments: list[Argument] | None, has_comment: bool,
                            jax_code: str | None) -> tuple[str | None, str | None]:
    """(why there is no fix, the call's replacement) for ``jax.device_put_sharded``/``device_put_replicated``:
    ``arguments`` of the call (None: not called), ``jax_code``: the chain's root when it is the ``jax`` module."""
    floor = FLOORS["stacked-device-put"]
    if not rule.min_version_at_least(floor.since):
        return f"{floor.what} needs JAX {floor.since}", None
    values = _plain_values(arguments, 2)
    name = entry.name.rpartition(".")[2]
    if values is None:
        return f"only a call `{name}(x, devices)` with two positional arguments is rewritten", None
    if has_comment:
        return "the call holds a comment", None
    if jax_code is None:
        return "only a call spelled from the `jax` module is rewritten", None
    jax_ = jax_code
    x, devices = (value.code for value in values)
    if name == "device_put_replicated":
        if not values[1].name_like:
            return "`devices` is used twice by the rewrite: only a name is rewritten", None
        stacked = f"{jax_}.numpy.stack([{x}] * len({devices}))"
    else:
        stacked = f"{jax_}.numpy.stack({x})"  # an argument's slot takes any expression
    return None, (f"{jax_}.device_put({stacked}, {jax_}.sharding.NamedSharding({jax_}.sharding.Mesh({devices}, "
                  f"(\"x\",)), {jax_}.sharding.PartitionSpec(\"x\")))")


STACKED_DEVICE_PUT_FIX = ("Stack the values and place them with a `NamedSharding` over the devices (unsafe: a "
                          "`NamedSharding` where a `PmapSharding` was, whose shards keep the leading axis; a pytree of "
                          "shards does not stack)")
STACKED_DEVICE_PUT_SHOWN = "jax.device_put(jnp.stack(...), NamedSharding(Mesh(devices, ('x',)), P('x')))"


def _stacked_device_put(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite:
    call = _call_of(rule, node)
    problem, text = stacked_device_put_call(
        rule, entry, cst_arguments(rule, call) if call is not None else None,
        call is not None and _has_comment(rule, call),
        rule.code_for(node.value).strip() if rule.qualified_name(node.value) == "jax" else None)
    if problem is not None:
        return Rewrite(problem=problem)
    return Rewrite(unsafe_fix(STACKED_DEVICE_PUT_FIX, Replace(call, text), probe=call),
                   replacement=STACKED_DEVICE_PUT_SHOWN)


def ref_index_call(rule: Rule, entry: Entry, arguments: list[Argument] | None, has_comment: bool,
                   is_statement: bool) -> tuple[str | None, str | None, str | None]:
    """(why there is no fix, the call's replacement, what the message shows) for Pallas' ``load``/``store``:
    ``arguments`` of the call (None: not called), ``is_statement``: the call is a statement of its own."""
    floor = FLOORS["pallas-ref-index"]
    if not rule.min_version_at_least(floor.since):
        return f"{floor.what} needs JAX {floor.since}", None, None
    store = entry.name.endswith(".store")
    values = _plain_values(arguments, 3 if store else 2)
    if values is None:
        shape = "store(ref, idx, value)" if store else "load(ref, idx)"
        return f"only `{shape}` with positional arguments and no `mask=` is rewritten", None, None
    if has_comment:
        return "the call holds a comment", None, None
    if store and not is_statement:
        return "only a `store` that is a statement of its own is rewritten", None, None
    ref, index = values[0], values[1]
    index_code = index.code
    if index.elements is not None and index.elements > 1:
        index_code = index_code[1:-1].strip()  # ``ref[(a, b)]`` is ``ref[a, b]``; ``(a,)`` keeps its parentheses
    indexed = f"{_pasted_argument(ref)}[{index_code}]"
    if store:
        return None, f"{indexed} = {values[2].code}", "ref[idx] = value"
    return None, indexed, "ref[idx]"


def ref_index_fix_message(entry: Entry, shown: str) -> str:
    store = entry.name.endswith(".store")
    return (f"Use `{shown}` (unsafe: indexing lowers through the state primitives, not "
            f"`{'swap_p' if store else 'load_p'}`)")


def _ref_index(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite:
    call = _call_of(rule, node)
    ancestors = rule.context.ancestors  # ..., the call's parent, the call, this attribute
    problem, text, shown = ref_index_call(rule, entry, cst_arguments(rule, call) if call is not None else None,
                                          call is not None and _has_comment(rule, call),
                                          len(ancestors) >= 3 and isinstance(ancestors[-3], cst.Expr))
    if problem is not None:
        return Rewrite(problem=problem)
    store = entry.name.endswith(".store")
    return Rewrite(unsafe_fix(ref_index_fix_message(entry, shown), Replace(call, text),
                              probe=None if store else call), replacement=shown)


# pl.dot's parameters in order (every release, 0.4.16-0.11.1).
PALLAS_DOT_PARAMETERS = ("a", "b", "trans_a", "trans_b", "allow_tf32", "precision")
PALLAS_DOT = "jax.lax.dot"


def pallas_dot_call(arguments: list[Argument] | None,
                    has_comment: bool) -> tuple[str | None, dict[str, Argument] | None]:
    """(why there is no fix, the arguments by parameter name) for a use of ``pl.dot``: ``arguments`` of the call
    that calls it (None: not called)."""
    if arguments is None or any(arg.star for arg in arguments):
        return "only a call of it is rewritten", None
    given: dict[str, Argument] = {}
    for position, arg in enumerate(arguments):
        name = arg.keyword if arg.keyword is not None else (
            PALLAS_DOT_PARAMETERS[position] if position < len(PALLAS_DOT_PARAMETERS) else None)
        if name not in PALLAS_DOT_PARAMETERS or name in given:
            return "the call does not match `pl.dot(a, b, trans_a, trans_b, allow_tf32, precision)`", None
        given[name] = arg
    if "a" not in given or "b" not in given:
        return "only a call with both operands is rewritten", None
    allow_tf32 = given.get("allow_tf32")
    if allow_tf32 is not None and allow_tf32.name != "None":
        return ("`allow_tf32=` is not rewritten: pass `precision=jax.lax.Precision.HIGH` (True) or `HIGHEST` "
                "(False) instead"), None
    for flag in ("trans_a", "trans_b"):
        value = given.get(flag)
        if value is not None and value.name not in ("True", "False"):
            return f"only a literal `{flag}=True`/`False` is rewritten", None
    if has_comment:
        return "the call holds a comment", None
    return None, given


def pallas_dot_text(spelled: str, given: dict[str, Argument]) -> str:
    """The call that replaces ``pl.dot(...)``, ``spelled``: how ``jax.lax.dot`` is written there."""
    jax_ = spelled[:-len(".lax.dot")]
    operands = []
    for name in ("a", "b"):
        flag = given.get(f"trans_{name}")
        transposed = flag is not None and flag.name == "True"
        operands.append(_pasted_argument(given[name]) + ".T" if transposed else given[name].code)
    precision = given.get("precision")
    arguments = operands + ([f"precision={precision.code}"] if precision is not None else [])
    arguments.append(f"preferred_element_type={jax_}.numpy.float32")
    return f"{spelled}({', '.join(arguments)})"


PALLAS_DOT_SHOWN = "jax.lax.dot(a, b, preferred_element_type=jnp.float32)"
PALLAS_DOT_FIX = (f"Use `{PALLAS_DOT_SHOWN}`, the float32 result `pl.dot` gave (unsafe: integer operands gave "
                  "int32, float64 ones float64)")


def _pallas_dot(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite:
    call = _call_of(rule, node)
    problem, given = pallas_dot_call(cst_arguments(rule, call) if call is not None else None,
                                     call is not None and _has_comment(rule, call))
    if problem is not None:
        return Rewrite(problem=problem)
    rename = rule._rename_fix(node, entry, PALLAS_DOT)
    if rename is None:
        return Rewrite(problem="`import jax` does not reach this line")
    edits = [edit for edit in rename.edits if not (isinstance(edit, Replace) and edit.node is node)]
    spelled = next(edit.content for edit in rename.edits if isinstance(edit, Replace) and edit.node is node)
    edits.append(Replace(call, pallas_dot_text(spelled, given)))
    return Rewrite(unsafe_fix(PALLAS_DOT_FIX, *edits, probe=call), replacement=PALLAS_DOT_SHOWN)


def _below_range(rule: Rule, entry: Entry, fixable_here: bool) -> Rewrite:
    """The replacement is newer than the min version: where it would be written, the finding says which release
    the fix needs (``fix_withheld``), as every rename does."""
    problem = f"`{entry.replacement}` needs JAX {entry.replacement_since}"
    if not fixable_here:
        return Rewrite(problem=problem)
    return Rewrite(problem=problem, withheld=below_range_withheld(entry, rule.settings))


def below_range_withheld(entry: Entry, settings) -> WithheldFix:
    return range_withheld(f"`{entry.replacement}`", entry.replacement_since, settings)


# Why ``from jax.random import KeyArray`` is not rewritten (the annotations that use the name are).
ANNOTATION_ONLY = ("the import is not rewritten: `{replacement}` replaces `{name}` only in annotations (a runtime "
                   "check needs `jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)`); annotate with "
                   "`{replacement}` and delete the import")


def annotation_only_withheld(entries) -> WithheldFix | None:
    """The reason an import of an ``annotation-type`` name (``KeyArray``) has no fix at any min version: a finding
    without a fix says why (a reason with no release: raising the min version does not help)."""
    names = [e for e in entries if e.fix == "annotation-type" and e.replacement]
    if not names:
        return None
    return WithheldFix("; ".join(ANNOTATION_ONLY.format(replacement=e.replacement, name=e.name.rpartition(".")[2])
                                 for e in names))


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


def passes_check_rep(keywords: list[str | None], positional: int) -> bool:
    """Whether a call of ``shard_map`` with these keywords and that many arguments not by keyword passes
    ``check_rep`` (by keyword or 5th), for either tree."""
    return "check_rep" in keywords or positional == 5


def import_advice(rule: Rule, alias: cst.ImportAlias, entry: Entry) -> str | None:
    """What the finding at ``from M import <entry>`` says besides the rename: for ``shard_map``, that a call of the
    imported name in the module passes ``check_rep`` (``jax.shard_map`` calls it ``check_vma``)."""
    if entry.fix != "shard-map-call":
        return None
    local = cst.helpers.get_full_name_for_node(alias.asname.name if alias.asname else alias.name)
    finder = visitor(_CheckRepCalls)(rule, local, entry.name)
    rule.context.module.visit(finder)
    return CHECK_REP_ADVICE if finder.found else None


CHECK_REP_ADVICE = "`jax.shard_map` takes `check_rep` as `check_vma=`: rename it when you move"


class _CheckRepCalls(Visits):
    """Whether a call of ``local`` (resolving to ``qualified``) passes ``check_rep`` (by keyword or 5th)."""

    def __init__(self, rule: Rule, local: str, qualified: str) -> None:
        self.rule, self.local, self.qualified, self.found = rule, local, qualified, False

    def visit_Call(self, node: cst.Call) -> bool:
        if not self.found and isinstance(node.func, cst.Name) and node.func.value == self.local and passes_check_rep(
                [arg.keyword.value if arg.keyword is not None else None for arg in node.args],
                sum(arg.keyword is None and not arg.star for arg in node.args)) \
                and self.rule.qualified_name(node.func) == self.qualified:
            self.found = True
        return not self.found


@dataclass(frozen=True)
class ShardMapPlan:
    """``shard_map_call``'s answer for a use of ``shard_map``, for either tree."""
    problem: str | None = None  # why there is no fix
    advice: str | None = None  # said in the message, fix or not
    withheld: WithheldFix | None = None
    inserts: tuple[tuple[int, str], ...] = ()  # (argument index, the ``name=`` written before its value)
    renamed: tuple[int, ...] = ()  # the arguments whose keyword ``check_rep`` becomes ``check_vma``


SHARD_MAP = "jax.shard_map"


def shard_map_call(rule: Rule, arguments: list[Argument] | None) -> ShardMapPlan:
    """The plan for ``shard_map(f, mesh, in_specs, out_specs[, check_rep])``: ``arguments`` of the call that calls
    it (None: not called); the fix also renames the function (the caller's tree spells that)."""
    if arguments is None:
        return ShardMapPlan(problem="only a call is rewritten")
    keywords = [arg.keyword for arg in arguments if arg.keyword is not None]
    advice = CHECK_REP_ADVICE if passes_check_rep(keywords, len(arguments) - len(keywords)) else None
    if any(arg.star for arg in arguments):
        return ShardMapPlan(problem="the call passes `*args`/`**kwargs`", advice=advice)
    if "auto" in keywords:
        return ShardMapPlan(problem="`auto=` has no drop-in: `jax.shard_map`'s `axis_names=` takes the mesh axes "
                                    "that are not in `auto`", advice=advice)
    positional = [index for index, arg in enumerate(arguments) if arg.keyword is None]
    named = [name for name in SHARD_MAP_PARAMETERS[:len(positional)]] + keywords
    if not positional or len(positional) > len(SHARD_MAP_PARAMETERS) or len(set(named)) != len(named) \
            or set(named) - set(SHARD_MAP_PARAMETERS) or not {"mesh", "in_specs", "out_specs"} <= set(named):
        return ShardMapPlan(problem="only a call that passes `f` positionally and `mesh`, `in_specs`, `out_specs` is "
                                    "rewritten", advice=advice)
    withheld = floor_withheld(SHARD_MAP_CALL, rule.settings)
    if withheld is not None:
        return ShardMapPlan(problem=f"below JAX {FLOORS[SHARD_MAP_CALL].since} the old function also skips "
                                    f"`jax.shard_map`'s mesh check", advice=advice, withheld=withheld)
    inserts = tuple((index, f"{'check_vma' if name == 'check_rep' else name}=")
                    for index, name in zip(positional[1:], SHARD_MAP_PARAMETERS[1:]))
    renamed = tuple(index for index, arg in enumerate(arguments) if arg.keyword == "check_rep")
    return ShardMapPlan(advice=advice, inserts=inserts, renamed=renamed)


def shard_map_fix_message(plan: ShardMapPlan) -> str:
    renamed = " and `check_rep=` as `check_vma=`" if plan.advice else ""
    return (f"Use `jax.shard_map` with `mesh`/`in_specs`/`out_specs` by keyword{renamed} (the call "
            f"JAX {FLOORS[SHARD_MAP_CALL].since}+ makes for it)")


def _shard_map_call(rule: Rule, node: cst.Attribute, entry: Entry) -> Rewrite:
    """``shard_map(f, mesh, in_specs, out_specs[, check_rep])`` -> ``jax.shard_map(f, mesh=..., in_specs=...,
    out_specs=...[, check_vma=...])``: the arguments by keyword (``jax.shard_map`` takes only ``f`` positionally),
    ``check_rep`` renamed."""
    call = _call_of(rule, node)
    plan = shard_map_call(rule, cst_arguments(rule, call) if call is not None else None)
    if plan.problem is not None:
        return Rewrite(problem=plan.problem, advice=plan.advice, withheld=plan.withheld)
    rename = rule._rename_fix(node, entry, SHARD_MAP)
    if rename is None:
        return Rewrite(problem="`import jax` does not reach this line", advice=plan.advice)
    edits = list(rename.edits)
    edits += [InsertBefore(call.args[index].value, text) for index, text in plan.inserts]
    edits += [Replace(call.args[index].keyword, "check_vma") for index in plan.renamed]
    return Rewrite(safe_fix(shard_map_fix_message(plan), *edits, probe=call), replacement=SHARD_MAP,
                   advice=plan.advice)


def positional_call_arguments_problem(arguments: list[tuple[str | None, str]] | None, shown: str) -> str | None:
    """``positional_call_problem`` for either tree: ``arguments`` of the call that calls the name, as (keyword or
    None, star: "", "*" or "**"); None where the name is not called."""
    if arguments is None:
        return f"`{shown}` is used other than by calling it"
    if any(star == "**" for _, star in arguments):
        return "the call passes `**kwargs`"
    for keyword, _ in arguments:
        if keyword is not None and keyword not in POSITIONAL_CALL_KEYWORDS:
            return f"the call passes `{keyword}=` by keyword (pass the function and the trees positionally)"
    if not any(star == "*" for _, star in arguments) and sum(keyword is None for keyword, _ in arguments) < 2:
        return "the call passes no tree"
    return None
