"""JAX103 changed-signature: arguments the target rejects.

Keywords removed, renamed or made positional-only come from the catalogue's ``[[parameter]]`` rows (generated from
every release's signatures); ``jnp.array``'s positional arguments, ``make_mesh(axis_shapes=)`` and pjit's axis
resources are written out here because their fixes are more than a keyword rename.
"""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue import Catalogue, Parameter, load
from jaxlint.catalogue.floors import (FLOORS, POSITIONS, floor_withheld, keyword_positions, positional_slots,
                                      range_withheld)
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, scope_chain, walk
from jaxlint.lint.diagnostics import Applicability, Edit
from jaxlint.lint.large_files import LARGE_FILE
from jaxlint.lint.text_gate import KeywordsByLast, keywords_by_last
from jaxlint.catalogue import messages as catalogue_messages
from jaxlint.rules.base import InsertAfter, InsertBefore, Invalid, Replace, Rule, Valid, safe_fix
from jaxlint.analysis.calls import has_star_args, keyword_arg, positional_args
from jaxlint.analysis.ast_calls import plain_first_argument
from jaxlint.analysis.list_arguments import (NUMPY, REJECTING, literal_sequence, may_pass_sequence_text,
                                             numpy_spelling)
from jaxlint.lint.walk import iter_children
from jaxlint.project.versions import Version

ARRAY = "jax.numpy.array"
# jnp.array(object, dtype, copy, order, ndmin): the 3rd, 4th and 5th positional arguments.
ARRAY_KEYWORDS = ("copy", "order", "ndmin")
ARRAY_DEPRECATED = "0.10.1"  # DeprecationWarning from here
ARRAY_REMOVED = "0.12.0"  # TypeError from here


def _rename_message(renames: dict[str, str]) -> str:
    """The message of the fix that renames the keywords (both paths)."""
    return "Rename " + ", ".join(f"`{old}=` -> `{new}=`" for old, new in renames.items())


def _positional_message(qualified: str, keywords: list[str], filled: bool) -> str:
    """The message of the fix that passes the keywords by position (both paths)."""
    names = ", ".join(f"`{keyword}`" for keyword in keywords)
    fill = " (`None`, the default on every release, for the bound it skips)" if filled else ""
    return (f"Pass {names} by position{fill} (the same positions on every JAX release from "
            f"{POSITIONS[qualified].since}; no keyword spelling spans the range)")


_KEYWORD_HEAD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*=\s*$")


MAKE_MESH = "jax.make_mesh"
MAKE_MESH_RENAMED = "0.11.1"  # first parameter axis_shapes -> axis_sizes

PJIT = "jax.experimental.pjit.pjit"
PARTIAL = "functools.partial"
# Deleted from pjit in JAX 0.4.14 (changelog: "a safe and trivial name replacement"), before the catalogue's window.
PJIT_KEYWORDS = {"in_axis_resources": "in_shardings", "out_axis_resources": "out_shardings"}
PJIT_KEYWORDS_REMOVED = "0.4.14"
PJIT_SHARDINGS = "pjit.in_shardings"  # FLOORS key: the new keywords exist from 0.4.4 (JAX 0.4.1's pjit has none)
FIRST_VERSION = "0.4.20"  # the rule's own since: every target from here rejects the pjit keywords

# jnp.sort/argsort(kind=...): every release that took ``kind`` ignored it and sorted stably (``lax.sort``'s
# ``is_stable=True``); ``stable=`` exists from 0.4.24 and defaults to True. So ``kind=<a NumPy kind>`` ->
# ``stable=True`` keeps the result, whatever the kind (read in the 0.4.16-0.4.28 and 0.12.0.1 wheels).
SORTS = frozenset({"jax.numpy.sort", "jax.numpy.argsort"})
SORT_KINDS = frozenset({"quicksort", "mergesort", "heapsort", "stable"})
SORT_STABLE = "sort.stable"  # FLOORS key: ``stable=`` exists from 0.4.24

# Keywords the hand-written checks above own (their fixes are not a rename).
HANDWRITTEN = {MAKE_MESH: {"axis_shapes"}, PJIT: set(PJIT_KEYWORDS)}


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class _LocalNames:
    """Names the libcst visit may follow to a binding of the file (over-approximated from ``ast``)."""

    def __init__(self, view: AstView) -> None:
        self.lists: set[str] = set()  # bound to a list literal: ``literal_sequence`` may say "list" only for these
        self.not_lists: set[str] = set()  # and never for these (``_assigned_otherwise``: also bound to another value)
        self.aliases: set[str] = set()  # ``fn = jnp.clip``: ``inference.callee`` follows only these
        self.alias_values: dict[str, list[ast.expr]] = {}  # what each of them is assigned, anywhere
        # ``def helper(x, **kw)``: its own parameters (``_forwarded`` looks only at keywords passed into ``kw``)
        self.kwargs_functions: dict[str, list[set[str]]] = {}
        for node in walk(view, (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef)):
            if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef):
                if node.args.kwarg is not None:
                    own = {arg.arg for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
                    self.kwargs_functions.setdefault(node.name, []).append(own)
                continue
            names = {target.id for target in (node.targets if type(node) is ast.Assign else [node.target])
                     if type(target) is ast.Name}
            if type(node.value) in (ast.List, ast.ListComp):
                self.lists |= names
                continue
            if type(node) is ast.AnnAssign or len(node.targets) == 1:
                self.not_lists |= names
            if type(node.value) in (ast.Name, ast.Attribute):
                self.aliases |= names
                for name in names:
                    self.alias_values.setdefault(name, []).append(node.value)

    def may_alias(self, view: AstView, name: str, relevant) -> bool:
        """Whether ``inference.callee`` may follow the alias ``name`` to a ``relevant`` function: one of its values
        may be such a name (``fn = jnp.clip``). A chain whose root is no import (``opt.update``,
        ``self.tx[k].update``) the resolver names nothing."""
        if name not in self.aliases:
            return False
        for value in self.alias_values[name]:
            root = value
            while type(root) is ast.Attribute:
                root = root.value
            if type(root) is not ast.Name or not (view.star_import or view.may_import(root.id)):
                continue
            qualified = view.qualified_name_unless(value, relevant)
            if qualified is not None and relevant(qualified):
                return True
        return False


def _sequence_message(callee: str, kind: str) -> str:
    return (f"`{callee}` rejects a Python {kind} where it expects an array (`TypeError: ... requires ndarray or "
            f"scalar arguments, got <class '{kind}'> at position 0`): jax.numpy functions stopped converting lists "
            f"and tuples in JAX 0.2.21 (linalg and fft in 0.3.24, JAX #7737)")


def _is_array(qualified: str) -> bool:
    return qualified == ARRAY


def _bound_otherwise_in_own_scope(view: AstView, name: ast.Name) -> bool:
    """The scope ``name`` is in binds it (so owns it) by a parameter or a binding other than a plain assignment
    (an unpacking, a loop target, ``+=``...): ``literal_sequence`` says None for certain. False where not sure (a
    ``global`` or ``nonlocal`` of it anywhere)."""
    identifier = name.id
    if any(identifier in node.names for node in walk(view, (ast.Global, ast.Nonlocal))):
        return False
    own = view.scope_of(name)
    if type(own) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
        arguments = own.args
        if any(argument is not None and argument.arg == identifier for argument in (
                *arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)):
            return True
    for node in view.nodes:
        if type(node) is not ast.Name or node.id != identifier or type(node.ctx) is not ast.Store:
            continue
        ancestors = view.ancestors(node)
        parent, field = ancestors[-1]
        plain = type(parent) is ast.Assign and len(parent.targets) == 1 or type(parent) is ast.AnnAssign \
            and parent.value is not None or type(parent) is ast.NamedExpr  # (the walrus binds elsewhere: left out)
        if not plain and scope_chain(ancestors)[-1] is own:
            return True
    return False


def _string_value(node: cst.BaseExpression) -> str | None:
    """The text of a plain string literal (``"stable"``), else None."""
    if isinstance(node, cst.SimpleString) and node.prefix.lower() in ("", "u"):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    return None


def parameters_by_function(catalogue: Catalogue) -> dict[str, dict[str, Parameter]]:
    """function -> keyword -> the catalogue row saying which release stopped accepting it."""
    table: dict[str, dict[str, Parameter]] = {}
    for row in catalogue.parameters:
        if row.parameter not in HANDWRITTEN.get(row.name, ()):
            table.setdefault(row.name, {})[row.parameter] = row
    return table


def _forwarding_targets(function: cst.FunctionDef, star: cst.Param, rule: Rule) -> list[tuple[str, str]]:
    """(qualified, as spelled) of every call ``function`` passes its ``**`` parameter to, when each use of that
    parameter is such a ``**name`` argument of a call of a catalogue function (nothing reads, changes or
    rebinds it); empty otherwise."""
    name = star.name.value
    found: list[tuple[str, str]] = []
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None]] = [(function.body, None, None)]
    while stack:
        node, parent, grandparent = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            bindings = rule.context.resolver.bindings(node)
            if [binding.node for binding in bindings] != [star]:
                return []  # rebound, or a name of a nested scope: not followed
            if not (isinstance(parent, cst.Arg) and parent.star == "**" and parent.value is node
                    and isinstance(grandparent, cst.Call)):
                return []  # read or changed otherwise (``kw.pop(...)``, ``kw["a"]``)
            callee = rule.qualified_name(grandparent.func)
            if callee not in rule.parameters:
                return []
            found.append((callee, rule.code_for(grandparent.func)))
            continue
        stack.extend((child, node, parent) for child in iter_children(node))
    return found


def _may_be_sequence(value: ast.expr, facts) -> bool:
    """``list_arguments.literal_sequence`` over-approximated on ``ast``."""
    kind = type(value)
    return kind in (ast.List, ast.Tuple, ast.ListComp) or (
        kind is ast.Name and value.id in facts.sequence_names and value.id not in facts.other_assigned)


PARAMETERS = parameters_by_function(load())
PARAMETER_FUNCTIONS = frozenset(PARAMETERS)
_LIST_WORDS = frozenset(name.rpartition(".")[2] for name in REJECTING)
# What a listed function's attribute chain ends in before its name: ``jax.numpy``, ``jnp.linalg``, an alias.
_OWNER_MODULES = frozenset(name.rpartition(".")[0] for name in REJECTING)
_OWNER_WORDS = frozenset(module.rpartition(".")[2] for module in _OWNER_MODULES)


class ChangedSignature(Rule):
    code = "JAX103"
    name = "changed-signature"
    summary = ("Arguments the target rejects: keywords removed or renamed (jnp.clip(a_min=/a_max=) and every "
               "other in the catalogue), jnp.array positional copy/order/ndmin, make_mesh(axis_shapes=), "
               "pjit(in_axis_resources=/out_axis_resources=)")
    # The calls changed in different releases; the rule gates each call on its own release below.
    since = FIRST_VERSION
    triggers = ()
    required_words = frozenset({
        frozenset({"jax", "numpy", "array"}), frozenset({"jax", "make_mesh"}),
        *(frozenset({"jax", "experimental", "pjit", keyword}) for keyword in PJIT_KEYWORDS),
        # a catalogue keyword is spelled as a word wherever it is passed
        *(frozenset({*function.split("."), keyword}) for function, rows in PARAMETERS.items() for keyword in rows),
        *(frozenset(function.split(".")) for function in REJECTING),
    })
    ast_names = frozenset({ARRAY, MAKE_MESH, PJIT}) | PARAMETER_FUNCTIONS | REJECTING
    statement_gated = True  # every finding is at a name, import or call its own statement spells
    decides_from_ast = True  # where no finding has a fix (``findings_from_ast``)
    parameters: ClassVar[dict[str, dict[str, Parameter]]] = PARAMETERS
    parameter_functions: ClassVar[frozenset[str]] = PARAMETER_FUNCTIONS
    parameter_keywords: ClassVar[frozenset[str]] = frozenset(keyword for rows in PARAMETERS.values() for keyword in rows)

    @classmethod
    def with_catalogue(cls, catalogue: Catalogue) -> type["ChangedSignature"]:
        """A subclass reading ``catalogue``'s ``[[parameter]]`` rows (``extend-rules``)."""
        table = parameters_by_function(catalogue)
        extra = frozenset(frozenset({*function.split("."), keyword})
                          for function, rows in table.items() for keyword in rows)
        return type(cls.__name__, (cls,), {
            "__module__": cls.__module__, "__doc__": cls.__doc__, "parameters": table,
            "parameter_functions": frozenset(table),
            "parameter_keywords": frozenset(keyword for rows in table.values() for keyword in rows),
            "ast_names": frozenset({ARRAY, MAKE_MESH, PJIT}) | frozenset(table) | REJECTING,
            "required_words": cls.required_words | extra,
        })

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        # The same test as ``may_match_ast`` below, with the arguments counted in the text (an over-estimate).
        # (a name the file's words do not spell is referred to nowhere: ``may_refer`` need not look for it)
        if ("make_mesh" in words and facts.may_refer(MAKE_MESH)) or ("pjit" in words and facts.may_refer(PJIT)) \
                or facts.may_call_with_more_than(ARRAY, 2):
            return True
        # ``jnp.sum([...])``: ``jax.numpy`` is spelled somewhere (an import), and a listed function is called with a
        # literal (or a name bound to a list) after one of its owners (``may_pass_sequence_text`` reads the imports)
        if "numpy" in words and not _LIST_WORDS.isdisjoint(words):
            imports = facts.imports
            bare = owners = None
            if not imports.star_modules:
                bare = frozenset(name for name, bound in imports.bindings.items() if not bound.isdisjoint(REJECTING))
                owners = _OWNER_WORDS | frozenset(name for name, bound in imports.bindings.items()
                                                  if not bound.isdisjoint(_OWNER_MODULES))
            # a large file is linted in pieces, and a piece may lack the assignment that rules a name out
            if may_pass_sequence_text(facts.source, bare, owners, whole_file=len(facts.source) < LARGE_FILE,
                                      strings=facts.strings):
                return True
        # a catalogue keyword is passed by name (``a_max=``)
        return facts.may_pass_a_listed_keyword(cls._keywords_by_last(), words)

    @classmethod
    def _keywords_by_last(cls) -> KeywordsByLast:
        """``parameters`` as the text gate's table (per class: ``with_catalogue`` makes subclasses with tables of
        their own)."""
        cached = cls.__dict__.get("_by_last")
        if cached is None:
            cached = cls._by_last = keywords_by_last(cls.parameters)
        return cached

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        # jnp.array is everywhere; only a call with a third positional argument (or a *starred one) can be flagged.
        # pjit is also flagged through ``partial(pjit, ...)``: any reference keeps the file.
        if (bool(facts.calls_to(MAKE_MESH)) or facts.refers_to_any((PJIT,))
                or any(len(call.args) > 2 for call in facts.calls_to(ARRAY))
                or any(cls._may_pass_listed_keyword(facts.qualified_names(call.func), call)
                       for call in facts.calls_to(cls.parameter_functions))):
            return True
        for call in facts.calls_to(REJECTING):
            if call.args and _may_be_sequence(call.args[0], facts):
                return True
        # reached indirectly: ``partial(jnp.clip, a_min=...)``, ``fn = jnp.clip`` then ``fn(x, a_min=...)``
        for call in facts.calls_to(PARTIAL):
            if call.args and cls._may_pass_listed_keyword(facts.qualified_names(call.args[0]), call):
                return True
        if facts.kwargs_functions:  # ``def helper(x, **kw): return jnp.clip(x, **kw)`` ... ``helper(x, a_min=0)``
            called = cls._helpers_called_with_listed_keywords(facts.file or facts)
            if any(type(call.func) is ast.Name and call.func.id in called for call in facts.calls):
                return True
            # every statement that uses the ``**`` parameter of such a helper: the visit reads them all
            forwarded = set().union(*(facts.kwargs_functions[name] for name in called))
            if forwarded and any(name.id in forwarded for name in facts.names):
                return True
        if facts.value_aliases:
            for call in facts.calls:
                if type(call.func) is ast.Name and call.func.id in facts.value_aliases:
                    targets = facts.alias_targets(call.func.id)
                    if targets & {MAKE_MESH, PJIT} or (ARRAY in targets and len(call.args) > 2) \
                            or cls._may_pass_listed_keyword(targets, call):
                        return True
        return False

    @classmethod
    def _helpers_called_with_listed_keywords(cls, file_facts) -> set[str]:
        """The file's functions taking ``**kwargs`` that some call of the file passes a catalogue keyword to (cached
        on the file's facts: ``lint.focus`` asks once per statement)."""
        cache = file_facts.__dict__.setdefault("_helpers_called", {})
        if cls not in cache:
            cache[cls] = {call.func.id for call in file_facts.calls
                          if type(call.func) is ast.Name and call.func.id in file_facts.kwargs_functions
                          and any(kw.arg in cls.parameter_keywords for kw in call.keywords)}
        return cache[cls]

    @classmethod
    def _may_pass_listed_keyword(cls, functions: set[str], call: ast.Call) -> bool:
        return any(kw.arg in cls.parameters.get(name, ()) for name in functions for kw in call.keywords)
    explanation = """
## What it does
Finds calls whose arguments the target JAX version rejects, and passes them the way every version accepts:

- a keyword that a public function stopped accepting (the catalogue's `[[parameter]]` rows, generated from the
  signatures of every JAX release, see `docs/catalogue.md`): `jnp.clip(a_min=..., a_max=...)` (`min=`/`max=` exist
  from 0.4.27, the old keywords warn from 0.4.31 and raise from 0.10.0), `jnp.reshape(newshape=)`, `jnp.sin(x=)`
  (positional-only from 0.4.31), and every other keyword removed, renamed or made positional-only. One finding per
  call; a positional argument or `**kwargs` is never reported (it binds whatever the signature says). The keyword
  is also found where it reaches the function indirectly: bound by `functools.partial(jnp.clip, a_min=...)`, or
  passed to a local alias bound once (`clip_fn = jnp.clip` ... `clip_fn(x, a_min=0)`; `mp = pjit` ...
  `mp(f, in_axis_resources=...)`); the rename there is the same rename. A keyword passed to a function of the
  module that only hands its `**kwargs` on to such functions (`def clamp(x, **kw): return jnp.clip(x, **kw)`
  ... `clamp(x, a_min=0)`) is reported at that call, without a fix.
- a Python list or tuple passed as the array argument (the first) of a `jax.numpy` function that rejects it:
  `jnp.sum([1, 2])`, `jnp.linalg.norm([dx, dy])`, `jnp.max((a, b))`, or a name every binding of which is a list
  literal (`weights = [0.3, 0.7]` ... `jnp.mean(weights)`; a name bound to a tuple is often a shape: left alone). Only the functions shown by execution to
  reject both on 0.4.13, 0.10.2 and 0.12.0.1 are checked (`jaxlint.analysis.list_arguments`); `jnp.array`,
  `jnp.asarray`, `jnp.stack`, `jnp.concatenate` and the other functions that take sequences are not.
- `jnp.array(obj, dtype, copy, order, ndmin)` with more than two positional arguments: the 3rd, 4th and 5th
  become `copy=`, `order=` and `ndmin=`.
- `jax.make_mesh(axis_shapes=...)`: the first parameter was renamed `axis_sizes`; the value is passed
  positionally instead (the one spelling that works before and after the rename).
- `pjit(f, in_axis_resources=..., out_axis_resources=...)` (`jax.experimental.pjit.pjit`, also as
  `partial(pjit, ...)` in a decorator): the keywords become `in_shardings=` and `out_shardings=`; the other
  arguments (`static_argnums`, `donate_argnums`, ...) stay. Turning `pjit` into `jax.jit` is JAX402's finding
  (`pjit` is deprecated since 0.8.0), not done here.

Calls with `*args`/`**kwargs`, calls that already fail in every version (`jnp.array` with more than five
positional arguments, or `copy` both positionally and by keyword; `make_mesh` with a positional argument and
`axis_shapes=`), `numpy.array` and a project's own `array`/`make_mesh` are not reported.

## Why
- Lists and tuples: JAX stopped converting them where an array is expected, function by function (#7737: most
  of `jax.numpy` in 0.2.21, `take` in 0.2.24, `broadcast_to` in 0.3.2, `jax.numpy.linalg`/`fft` in 0.3.24):
  `TypeError: sum requires ndarray or scalar arguments, got <class 'list'> at position 0.` Wrapping the value in
  `jnp.asarray(...)` does the conversion those releases did implicitly, and works in every release.
- `jnp.array`: JAX 0.10.1 deprecated the positional form (`DeprecationWarning: Passing the copy, order, and ndmin
  arguments to jnp.array positionally is deprecated. Use keyword arguments instead.`); from JAX 0.12.0 it raises
  `TypeError: array() takes from 1 to 2 positional arguments but 3 were given`.
- `jax.make_mesh`: JAX 0.11.1 renamed the first parameter `axis_shapes` to `axis_sizes`, so
  `make_mesh(axis_shapes=(1,), axis_names=('x',))` raises `TypeError: make_mesh() got an unexpected keyword argument
  'axis_shapes'` from 0.11.1, and `axis_sizes=` raises the same error on 0.11.0 and earlier.
- `pjit`: JAX 0.4.14 deleted `in_axis_resources` and `out_axis_resources` ("Please use `in_shardings` and
  `out_shardings` as the replacement. This is a safe and trivial name replacement. It does not change any of the
  current pjit semantics"), so every target from 0.4.14 on raises `TypeError: pjit() got an unexpected keyword
  argument 'in_axis_resources'`.

## Example
```python
x = jnp.array(data, jnp.float32, False)
mesh = jax.make_mesh(axis_shapes=(4, 2), axis_names=("data", "model"))
step = pjit(train_step, in_axis_resources=(P("data"), None), out_axis_resources=None)
```
Use instead:
```python
x = jnp.array(data, jnp.float32, copy=False)
mesh = jax.make_mesh((4, 2), axis_names=("data", "model"))
step = pjit(train_step, in_shardings=(P("data"), None), out_shardings=None)
```

## Fix safety
Safe. `jnp.asarray(...)` around a list or tuple argument is the conversion JAX did implicitly before rejecting
them, in every release; it is offered where the call spells `jax.numpy` through a module (`jnp.sum`), so that
`jnp.asarray` can be spelled the same way. A catalogue keyword is renamed only when the row says `renamed` (the new keyword replaced it: JAX kept both,
or the new one took its place and name), the new keyword is accepted by every release from the min version on, and
the call does not pass it already; a removed or positional-only keyword is reported without a fix. Where only the
min version stands in the way, the finding's `fix_withheld` names the release the new keyword needs, unless the
keywords bind the same positions on every release of the range (`jnp.clip`'s array, lower and upper bound: read in
the wheels from 0.1.50 to 0.12.0.1) and are passed in positional order: then they are passed by position
(`jnp.clip(x, a_min=lo, a_max=hi)` -> `jnp.clip(x, lo, hi)`), the one spelling every release accepts; a bound the
call skips is passed as `None`, its default on every release (`jnp.clip(x, a_max=hi)` -> `jnp.clip(x, None, hi)`).
`jnp.reshape(x, newshape=s)` below 0.4.28 (where `shape=` came) is `jnp.reshape(x, s)` the same way (array, shape
and order are positions 0, 1, 2 in every source read, 0.2.0 to 0.12.0.1).
The keywords `copy`, `order` and `ndmin` exist in every supported JAX version and the positional arguments
were bound to exactly those parameters. The first argument of `make_mesh` is positional-or-keyword in every version,
so passing it positionally binds the same parameter whatever its name. `pjit`'s `in_shardings`/`out_shardings`
take the same values as the deleted keywords, `PartitionSpec`s included, interpreted under the ambient mesh as
before (JAX's changelog: a safe and trivial rename); they exist from JAX 0.4.4 (`pjit` in 0.4.1-0.4.3 has only the
old keywords), so below a min version of 0.4.4 the rename is withheld (`fix_withheld` says so). Moving on to `jax.jit`
is not the same: `jax.jit(in_shardings=PartitionSpec(...))` needs a mesh in context (`with jax.sharding.use_mesh(
mesh):`/`jax.set_mesh`) or `NamedSharding(mesh, spec)` values, which the message points out. A call that passes
both `in_axis_resources` and `in_shardings` (or both `out_...`) is reported without a fix.

## JAX version
Catalogue keywords: from the row's `removed_in` (and as deprecated from its `deprecated_in`). `jnp.array` positional `copy/order/ndmin`: deprecated in 0.10.1, `TypeError` from 0.12.0 (reported from a target of
0.10.1). `make_mesh(axis_shapes=)`: `TypeError` from 0.11.1 (reported from a target of 0.11.1).
`pjit(in_axis_resources=/out_axis_resources=)`: deleted in 0.4.14 (reported at every target); renamed only from a
min version of 0.4.4, the first release whose `pjit` takes `in_shardings=`.
"""

    VALID = [
        Valid("""
            import jax.numpy as jnp
            x = jnp.array(data)
            y = jnp.array(data, jnp.float32)
            z = jnp.array(data, dtype=jnp.float32, copy=False, ndmin=2)
        """, note="one or two positional arguments; keywords"),
        Valid("""
            import numpy as np
            x = np.array(data, np.float32, False)
        """, note="numpy.array"),
        Valid("""
            import jax.numpy as jnp
            def array(*args):
                return args
            x = array(data, jnp.float32, False)
        """, note="a project's own function named array"),
        Valid("""
            import jax.numpy as jnp
            x = jnp.array(data, jnp.float32, *rest)
            y = jnp.array(*args)
        """, note="arguments hidden in *args"),
        Valid("""
            import jax.numpy as jnp
            x = jnp.array(data, jnp.float32, False, copy=True)
        """, note="copy twice: a TypeError in every version, nothing to fix"),
        Valid("""
            import jax.numpy as jnp
            x = jnp.asarray(data, jnp.float32, "C")
        """, note="jnp.asarray still takes order positionally"),
        Valid("""
            import jax.numpy as jnp
            x = jnp.array(data, jnp.float32, False)
        """, target_version="0.10.0", note="target before the deprecation"),
        Valid("""
            import jax
            mesh = jax.make_mesh((4, 2), ("data", "model"))
            mesh2 = jax.make_mesh((4,), axis_names=("data",), devices=devs)
        """, note="make_mesh called positionally"),
        Valid("""
            import jax
            mesh = jax.make_mesh(axis_sizes=(4,), axis_names=("data",))
        """, note="already the new keyword (a separate problem below 0.11.1)"),
        Valid("""
            import jax
            mesh = jax.make_mesh(axis_shapes=(4,), axis_names=("data",))
        """, target_version="0.11.0", note="target before the rename"),
        Valid("""
            import jax
            from mylib import make_mesh
            mesh = make_mesh(axis_shapes=(4,), axis_names=("data",))
        """, note="another library's make_mesh"),
        Valid("""
            import jax
            mesh = jax.make_mesh(**mesh_kwargs)
        """, note="arguments hidden in **kwargs"),
        Valid("""
            from jax.experimental.pjit import pjit
            step = pjit(f, in_shardings=P("data"), out_shardings=None, static_argnums=(1,))
        """, note="pjit with the current keywords"),
        Valid("""
            import jax
            step = jax.jit(f, in_shardings=P("data"), out_shardings=None)
        """, note="jax.jit"),
        Valid("""
            import numpy as np
            import jax.numpy as jnp
            def clamp(x, use_numpy=False, **kw):
                if use_numpy:
                    return np.clip(x, **kw)
                return jnp.clip(x, **kw)
            def clamp2(x, **kw):
                kw.pop("a_min", None)
                return jnp.clip(x, **kw)
            def clamp3(x, a_min=0.0, **kw):
                return jnp.clip(x, a_min, **kw)
            y = clamp(x, a_min=0.0) + clamp2(x, a_min=0.0) + clamp3(x, a_min=0.0)
        """, note="**kwargs also passed to numpy's clip, changed before use, or the keyword is the helper's own"),
        Valid("""
            import numpy as np
            import jax.numpy as jnp
            a = jnp.asarray([1, 2])
            b = jnp.array([1, 2])
            c = jnp.stack([a, b])
            d = jnp.concatenate((a, b))
            e = np.sum([1, 2])
            f = jnp.sum(jnp.asarray([1, 2]))
        """, note="functions that take sequences; numpy; already wrapped"),
        Valid("""
            import jax.numpy as jnp
            def total(xs):
                return jnp.sum(xs)
            ys = [1, 2]
            ys = jnp.asarray(ys)
            s = jnp.sum(ys)
            t = jnp.atleast_1d([1.0])
        """, note="a parameter; a name also bound to an array; atleast_1d accepted lists until after 0.4.13"),
        Valid("""
            import functools
            import numpy as np
            import jax.numpy as jnp
            clamp = functools.partial(np.clip, a_min=0.0)
            clip_fn = np.clip
            y = clip_fn(x, a_min=0.0)
        """, note="numpy's clip, through partial and an alias"),
        Valid("""
            import numpy as np
            import jax.numpy as jnp
            clip_fn = jnp.clip
            if use_numpy:
                clip_fn = np.clip
            y = clip_fn(x, a_min=0.0)
        """, note="an alias bound twice (jnp or numpy): not known"),
        Valid("""
            from mylib.parallel import pjit
            step = pjit(f, in_axis_resources=P("data"), out_axis_resources=None)
        """, note="another library's pjit"),
        Valid("""
            from functools import partial
            from mylib import sharded
            step = partial(sharded, in_axis_resources=P("data"))
        """, note="partial of something else"),
        # -- keywords from the catalogue's [[parameter]] rows
        Valid("""
            import jax.numpy as jnp
            y = jnp.clip(x, 0.0, 1.0)
            z = jnp.clip(x, min=0.0, max=1.0)
        """, note="clip bounds passed positionally, or with the new keywords"),
        Valid("""
            import jax.numpy as jnp
            def clamp(x, **bounds):
                return jnp.clip(x, **bounds)
        """, note="**kwargs passthrough: the keywords are not visible"),
        Valid("""
            import numpy as np
            y = np.clip(x, a_min=0, a_max=1)
        """, note="numpy.clip keeps a_min/a_max"),
        Valid("""
            import jax.numpy as jnp
            from mylib import clip
            y = clip(x, a_min=0, a_max=1)
        """, note="another library's clip"),
        Valid("""
            import jax.numpy as jnp
            y = jnp.clip(x, a_min=0, a_max=1)
        """, target_version="0.4.26", min_version="0.4.26", note="target before min/max existed"),
        Valid("""
            import numpy as np
            import jax.numpy as jnp
            y = jnp.sort(x, kind=None)
            z = np.sort(x, kind="stable") + np.argsort(x, kind="mergesort")
            w = jnp.sort(x, **sort_options)
        """, note="jnp.sort(kind=None) is still accepted; numpy's sort; **kwargs"),
        Valid("""
            import jax
            from jax.experimental.shard_map import shard_map
            def my_shard_map(f, check_rep=True):
                return f
            g = my_shard_map(f, check_rep=False)
            h = shard_map(f, mesh, P("x"), P(), check_rep=False)
            k = jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P(), **options)
        """, note="a project's own check_rep; the experimental function still takes it (JAX402's move renames "
                  "it); **kwargs"),
    ]

    INVALID = [
        Invalid("""
            import jax.numpy as jnp
            x = jnp.array([1, 2, 3], jnp.float32, False)
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.array([1, 2, 3], jnp.float32, copy=False)
        """, runnable=True),
        Invalid("""
            import jax.numpy as jnp
            x = jnp.array([1, 2, 3], None, True, "K", 2)
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.array([1, 2, 3], None, copy=True, order="K", ndmin=2)
        """, runnable=True, note="copy, order and ndmin"),
        Invalid("""
            import jax.numpy as jnp
            x = jnp.array([1, 2, 3], None, True, ndmin=2)
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.array([1, 2, 3], None, copy=True, ndmin=2)
        """, note="positional copy with a keyword after it"),
        Invalid("""
            from jax import numpy as np
            x = np.array(
                data,
                np.int32,
                True,
                "C",
            )
        """, fixed="""
            from jax import numpy as np
            x = np.array(
                data,
                np.int32,
                copy=True,
                order="C",
            )
        """, note="jax.numpy imported as np; one argument per line"),
        Invalid("""
            def f(data):
                from jax.numpy import array
                return array(data, None, False)
        """, fixed="""
            def f(data):
                from jax.numpy import array
                return array(data, None, copy=False)
        """, note="from-import inside a function"),
        Invalid("""
            import jax.numpy as jnp
            x = jnp.array(data, jnp.float32, False)
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.array(data, jnp.float32, copy=False)
        """, target_version="0.11.0", note="deprecated at the target: still reported, the fix is safe everywhere"),
        Invalid("""
            import jax
            mesh = jax.make_mesh(axis_shapes=(1,), axis_names=("x",))
        """, fixed="""
            import jax
            mesh = jax.make_mesh((1,), axis_names=("x",))
        """, runnable=True),
        Invalid("""
            import jax
            mesh = jax.make_mesh(axis_names=("data", "model"), axis_shapes=(4, 2), devices=devs)
        """, fixed="""
            import jax
            mesh = jax.make_mesh((4, 2), axis_names=("data", "model"), devices=devs)
        """, note="axis_shapes not first: moved to the front"),
        Invalid("""
            from jax import make_mesh
            mesh = make_mesh(
                axis_names=("data",),
                axis_shapes=(8,),
            )
        """, fixed="""
            from jax import make_mesh
            mesh = make_mesh(
                (8,),
                axis_names=("data",),
            )
        """, note="multi-line call keeps its layout"),
        Invalid("""
            import jax
            class Setup:
                def mesh(self):
                    return jax.make_mesh(
                        axis_names=("data",),
                        axis_shapes=(8,),
                    )
        """, fixed="""
            import jax
            class Setup:
                def mesh(self):
                    return jax.make_mesh(
                        (8,),
                        axis_names=("data",),
                    )
        """, note="multi-line call inside nested blocks keeps its indentation"),
        Invalid("""
            import jax
            mesh = jax.make_mesh(axis_shapes=(4,), axis_names=("x",), **extra)
        """, fixed="""
            import jax
            mesh = jax.make_mesh((4,), axis_names=("x",), **extra)
        """, note="**kwargs after axis_shapes: the first parameter is still known to be bound by it"),
        # -- pjit in_axis_resources / out_axis_resources
        Invalid("""
            from jax.experimental.pjit import pjit
            step = pjit(train_step, in_axis_resources=(P("data"), None), out_axis_resources=None, donate_argnums=0)
        """, fixed="""
            from jax.experimental.pjit import pjit
            step = pjit(train_step, in_shardings=(P("data"), None), out_shardings=None, donate_argnums=0)
        """, target_version="0.4.20", note="both keywords renamed, donate_argnums left alone"),
        Invalid("""
            from functools import partial
            from jax.experimental.pjit import pjit

            @partial(pjit, in_axis_resources=P("data"), static_argnums=(1,))
            def step(x, n):
                return x * n
        """, fixed="""
            from functools import partial
            from jax.experimental.pjit import pjit

            @partial(pjit, in_shardings=P("data"), static_argnums=(1,))
            def step(x, n):
                return x * n
        """, note="decorator form: partial(pjit, ...)"),
        Invalid("""
            import functools
            from jax.experimental import pjit as pjit_lib
            step = functools.partial(pjit_lib.pjit, out_axis_resources=P())(f)
            other = pjit_lib.pjit(
                g,
                in_axis_resources=None,
                out_axis_resources=P("model"),
            )
        """, fixed="""
            import functools
            from jax.experimental import pjit as pjit_lib
            step = functools.partial(pjit_lib.pjit, out_shardings=P())(f)
            other = pjit_lib.pjit(
                g,
                in_shardings=None,
                out_shardings=P("model"),
            )
        """, count=2, note="module alias; functools.partial; one argument per line"),
        Invalid("""
            from jax.experimental.pjit import pjit
            step = pjit(f, in_axis_resources=P("data"), in_shardings=P("data"))
        """, note="both spellings: no fix"),
        # -- keywords from the catalogue's [[parameter]] rows
        Invalid("""
            import jax.numpy as jnp
            x = jnp.arange(4.0)
            y = jnp.clip(x, a_min=1.0, a_max=2.0)
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.arange(4.0)
            y = jnp.clip(x, min=1.0, max=2.0)
        """, note="renamed keywords, one finding for the call (not run by `verify --rules`: its baseline, 0.10.2, "
                  "already rejects a_min/a_max)"),
        Invalid("""
            import jax.numpy as np
            def clamp(x):
                return np.clip(x, 0.0, a_max=1.0)
        """, fixed="""
            import jax.numpy as np
            def clamp(x):
                return np.clip(x, 0.0, max=1.0)
        """, note="jax.numpy imported as np; the positional bound is left alone"),
        Invalid("""
            from jax.numpy import clip
            y = clip(x, a_max=1.0)
        """, fixed="""
            from jax.numpy import clip
            y = clip(x, max=1.0)
        """, note="from-import"),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.clip(x, a_max=1.0)
            z = jnp.clip(
                x,
                a_max=hi,
            )
        """, fixed="""
            import jax.numpy as jnp
            y = jnp.clip(x, None, 1.0)
            z = jnp.clip(
                x,
                None, hi,
            )
        """, min_version="0.4.20", count=2, note="min version before `max=` existed, `a_max` after a skipped bound: by "
                                        "position, `None` (the default on every release) for the lower bound"),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.clip(x, a_min=lo, a_max=hi)  # bounds
        """, fixed="""
            import jax.numpy as jnp
            y = jnp.clip(x, lo, hi)  # bounds
        """, min_version="0.4.20", note="min version before `min=` existed: the keywords in positional order are "
                                        "passed by position (the same positions on every release)"),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.clip(a=x, a_min=0.0)
        """, fixed="""
            import jax.numpy as jnp
            y = jnp.clip(x, 0.0)
        """, note="`a=` has no keyword successor: by position"),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.clip(x, a_max=1.0, a_min=0.0)
        """, min_version="0.4.20", note="keywords out of positional order: not reordered (the arguments' evaluation "
                                        "order would change)"),
        Invalid("""
            import jax.numpy as jnp
            y = jnp.clip(x, a_min=0.0, min=0.0)
        """, note="the new keyword is passed too: reported, not renamed"),
        Invalid("""
            import jax.numpy as jnp
            order = jnp.argsort(scores, kind="stable")
            ranked = jnp.sort(
                scores,
                kind='quicksort',  # numpy's default
            )
        """, fixed="""
            import jax.numpy as jnp
            order = jnp.argsort(scores, stable=True)
            ranked = jnp.sort(
                scores,
                stable=True,  # numpy's default
            )
        """, count=2, note="overlay row: kind= raises TypeError from 0.4.28; every JAX that took it ignored it and "
                            "sorted stably, so stable=True (0.4.24+) keeps the result"),
        Invalid("""
            import jax.numpy as jnp
            order = jnp.argsort(scores, kind="stable")
        """, min_version="0.4.20", note="min version before stable= existed: reported, not fixed"),
        Invalid("""
            import jax.numpy as jnp
            order = jnp.argsort(scores, kind=how)
            ranked = jnp.sort(scores, kind="stable", stable=False)
        """, count=2, note="a kind that is not a literal; stable= passed too: reported, not fixed"),
        Invalid("""
            from jax.experimental.shard_map import shard_map
            g = shard_map(f, mesh, in_specs=P("x"), out_specs=P(), auto=frozenset({"y"}))
        """, note="overlay row: the deprecated shard_map wrapper has no auto= from 0.8.0"),
        Invalid("""
            import jax
            g = jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P(), check_rep=False)
        """, fixed="""
            import jax
            g = jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P(), check_vma=False)
        """, note="overlay row: jax.shard_map never took check_rep= (the experimental function's name for "
                  "check_vma)"),
        Invalid("""
            import numpy as np
            from jax import core
            aval = core.ShapedArray((2,), np.float32, named_shape={})
        """, note="overlay row: ShapedArray lost named_shape in 0.4.34 (reported, no fix: delete the argument)"),
        Invalid("""
            import jax.numpy as jnp
            def clamp(x, **clip_kwargs):
                return jnp.clip(x, **clip_kwargs)
            y = clamp(logits, a_min=-10.0, a_max=10.0)
        """, note="keywords forwarded through a helper's **kwargs: reported at the call that passes them, no fix"),
        # -- a Python list or tuple where a jnp function expects an array
        Invalid("""
            import jax.numpy as jnp
            total = jnp.sum([1, 2])
            dist = jnp.linalg.norm([dx, dy])
        """, fixed="""
            import jax.numpy as jnp
            total = jnp.sum(jnp.asarray([1, 2]))
            dist = jnp.linalg.norm(jnp.asarray([dx, dy]))
        """, count=2, note="list literals: wrapped in jnp.asarray (what JAX did implicitly before #7737)"),
        Invalid("""
            from jax import numpy as np
            def loss(a, b):
                weights = [0.3, 0.7]
                return np.mean(weights) * np.max((a, b), axis=0)
        """, fixed="""
            from jax import numpy as np
            def loss(a, b):
                weights = [0.3, 0.7]
                return np.mean(np.asarray(weights)) * np.max(np.asarray((a, b)), axis=0)
        """, count=2, note="a name bound only to a list; a tuple literal; jax.numpy imported as np"),
        Invalid("""
            from jax.numpy import prod
            size = prod([3, 4])
        """, note="from-import: reported, no fix (how to spell jnp.asarray here is not known)"),
        # -- keywords reached indirectly: partial, a local alias
        Invalid("""
            import functools
            from functools import partial
            import jax.numpy as jnp
            clamp01 = functools.partial(jnp.clip, a_min=0.0, a_max=1.0)
            relu6 = partial(jnp.clip, a_min=0, a_max=6)
        """, fixed="""
            import functools
            from functools import partial
            import jax.numpy as jnp
            clamp01 = functools.partial(jnp.clip, min=0.0, max=1.0)
            relu6 = partial(jnp.clip, min=0, max=6)
        """, count=2, note="keywords bound by partial reach jnp.clip: renamed in the partial"),
        Invalid("""
            import jax.numpy as jnp
            clip_fn = jnp.clip
            def clamp(x):
                return clip_fn(x, a_min=-1.0, a_max=1.0)
        """, fixed="""
            import jax.numpy as jnp
            clip_fn = jnp.clip
            def clamp(x):
                return clip_fn(x, min=-1.0, max=1.0)
        """, note="a local alias of jnp.clip, bound once"),
        Invalid("""
            from jax.experimental.pjit import pjit
            mp = pjit
            step = mp(train_step, in_axis_resources=P("data"), out_axis_resources=None)
        """, fixed="""
            from jax.experimental.pjit import pjit
            mp = pjit
            step = mp(train_step, in_shardings=P("data"), out_shardings=None)
        """, note="a local alias of pjit"),
    ]

    def _target_at_least(self, version: str) -> bool:
        return self.settings.target_version >= Version(version)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.qualified_name(node.func)
        aliased = qualified is None and isinstance(node.func, cst.Name)
        if aliased:  # ``fn = jnp.clip`` ... ``fn(x, a_min=0)``: the alias's one binding names the function
            qualified = self.context.inference.callee(node.func)
        if aliased and qualified is None:
            self._forwarded(node)
        via = f"`{self.code_for(node.func)}` is `{qualified}`" if aliased else None
        if qualified in self.parameters:
            self._keywords(node, qualified, via=via)
        if qualified in REJECTING and not aliased:
            self._sequence_argument(node)
        elif qualified == PARTIAL and node.args and node.args[0].keyword is None and not node.args[0].star:
            self._partial(node, node.args[0].value)
        if qualified == ARRAY:
            self._array(node)
        elif qualified == MAKE_MESH:
            self._make_mesh(node)
        elif qualified == PJIT:
            self._pjit(node, self.code_for(node.func) if aliased else "pjit")

    def _partial(self, node: cst.Call, wrapped: cst.BaseExpression) -> None:
        """``partial(f, ...)`` passes its keywords to ``f``: the same check, the same rename."""
        target = self.qualified_name(wrapped)
        if target is None and isinstance(wrapped, cst.Name):
            target = self.context.inference.callee(wrapped)
        if target == PJIT:
            self._pjit(node, "partial(pjit, ...)")
        elif target in self.parameters:
            self._keywords(node, target, shown=self.code_for(wrapped), via="passed through `partial`")

    def _forwarded(self, node: cst.Call) -> None:
        """``helper(x, a_min=0)`` where the module's ``def helper(x, **kw)`` only ever passes ``kw`` on as ``**kw`` to
        functions that all reject the keyword: the call fails there. Reported at this call, without a fix (the
        keyword may mean something else to the helper's other callers)."""
        resolver = self.context.resolver
        bindings = resolver.bindings(node.func)
        if len(bindings) != 1 or not isinstance(bindings[0].node, cst.FunctionDef):
            return
        function = bindings[0].node
        star = function.params.star_kwarg
        if star is None or has_star_args(node):
            return
        own = {param.name.value for param in (*function.params.posonly_params, *function.params.params,
                                              *function.params.kwonly_params)}
        passed = [arg for arg in node.args if arg.keyword is not None and arg.keyword.value not in own
                  and arg.keyword.value in self.parameter_keywords]
        if not passed:
            return
        targets = _forwarding_targets(function, star, self)
        if not targets:
            return
        target = self.settings.target_version
        for arg in passed:
            rows = [self.parameters[callee].get(arg.keyword.value) for callee, _ in targets]
            if all(row is not None and row.removed_at(target) for row in rows):
                shown = targets[0][1]
                self.report(node, (
                    f"`{self.code_for(node.func)}` passes `{arg.keyword.value}=` on through `**{star.name.value}` to "
                    f"{self._keywords_message(shown, rows[:1])}"))
                return

    # -- a list or tuple where a jnp function wants an array ----------------------------------------------------
    def _sequence_argument(self, node: cst.Call) -> None:
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        value = node.args[0].value
        kind = literal_sequence(value, self.context.resolver, self.context.module)
        if kind is None:
            return
        message = _sequence_message(self.code_for(node.func), kind)
        numpy = numpy_spelling(node.func, self.context.resolver)
        if numpy is None:
            self.report(node, f"{message}; wrap it in `jnp.asarray(...)`")
            return
        asarray = f"{self.code_for(numpy)}.asarray"
        # Around the argument, not its value: a tuple's parentheses are outside the value's span.
        argument = node.args[0]
        self.report(node, message, safe_fix(f"Wrap it in `{asarray}(...)`", InsertBefore(argument, f"{asarray}("),
                                            InsertAfter(argument, ")")))

    # -- jnp.array -----------------------------------------------------------------------------------------------
    def _array(self, node: cst.Call) -> None:
        if not self._target_at_least(ARRAY_DEPRECATED) or has_star_args(node):
            return
        positional = positional_args(node)
        extra = positional[2:]
        if not extra or len(extra) > len(ARRAY_KEYWORDS):
            return
        names = ARRAY_KEYWORDS[:len(extra)]
        if any(keyword_arg(node, name) is not None for name in names):
            return  # the same parameter twice: a TypeError in every version
        if any(arg.keyword is not None for arg in node.args[:len(positional)]):
            return  # positional after keyword cannot parse; defensive
        if self._target_at_least(ARRAY_REMOVED):
            state = f"raises `TypeError` since JAX {ARRAY_REMOVED} (deprecated since {ARRAY_DEPRECATED})"
        else:
            state = f"is deprecated since JAX {ARRAY_DEPRECATED} and raises `TypeError` from {ARRAY_REMOVED}"
        spelled = ", ".join(f"{name}=" for name in names)
        message = f"`jnp.array` with `{'/'.join(names)}` passed positionally {state}"
        edits = [InsertBefore(arg.value, f"{name}=") for arg, name in zip(extra, names)]
        self.report(node, message, safe_fix(f"Pass them by keyword ({spelled})", *edits, probe=node))

    # -- jax.make_mesh -------------------------------------------------------------------------------------------
    def _make_mesh(self, node: cst.Call) -> None:
        if not self._target_at_least(MAKE_MESH_RENAMED):
            return
        old = keyword_arg(node, "axis_shapes")
        if old is None:
            return
        if positional_args(node) or any(arg.star == "*" for arg in node.args):
            return  # the first parameter is bound twice (or maybe twice): an error in every version
        index = list(node.args).index(old)
        args = list(node.args)
        # Rotate the contents of positions 0..index, keeping each position's comma and layout.
        contents = [old] + args[:index]
        new_args = [
            content.with_changes(comma=position.comma,
                                 **({"keyword": None, "equal": cst.MaybeSentinel.DEFAULT} if content is old else {}))
            for content, position in zip(contents, args[:index + 1])
        ] + args[index + 1:]
        new_call = node.with_changes(args=new_args)
        self.report(node, (
            f"`jax.make_mesh(axis_shapes=...)` raises `TypeError: make_mesh() got an unexpected keyword argument "
            f"'axis_shapes'` since JAX {MAKE_MESH_RENAMED} (the parameter is now `axis_sizes`, which in turn fails "
            f"before {MAKE_MESH_RENAMED})"
        ), safe_fix("Pass the axis sizes positionally (valid in every JAX version)",
                    Replace(node, self.code_in_place(new_call)), probe=node))

    # -- pjit(in_axis_resources=, out_axis_resources=) -------------------------------------------------------------
    def _pjit(self, node: cst.Call, shown: str) -> None:
        old = [arg for arg in node.args if arg.keyword is not None and arg.keyword.value in PJIT_KEYWORDS]
        if not old:
            return
        names = [arg.keyword.value for arg in old]
        message, unfixed, withheld = self._pjit_unfixed(shown, names, {
            arg.keyword.value for arg in node.args if arg.keyword is not None})
        if unfixed:
            self.report(node, message, withheld=withheld)
            return
        edits = [Replace(arg.keyword, PJIT_KEYWORDS[arg.keyword.value]) for arg in old]
        renames = ", ".join(f"`{name}=` -> `{PJIT_KEYWORDS[name]}=`" for name in names)
        self.report(node, message, safe_fix(f"Rename {renames} (JAX: a safe and trivial name replacement)", *edits))

    def _pjit_unfixed(self, shown: str, names: list[str], passed: set[str]) -> tuple[str, bool, object]:
        """The message of a pjit call passing ``names`` (the old keywords), whether it has no fix, and why."""
        message = (
            f"`{shown}` with {'/'.join(f'`{name}=`' for name in names)}: deleted from pjit in JAX "
            f"{PJIT_KEYWORDS_REMOVED} (`TypeError: pjit() got an unexpected keyword argument '{names[0]}'`); pjit "
            f"takes the same values as {'/'.join(f'`{PJIT_KEYWORDS[name]}=`' for name in names)}. Moving on to `jax.jit` (pjit is deprecated, "
            f"JAX402): there a `PartitionSpec` needs a mesh in context (`jax.sharding.use_mesh`/`jax.set_mesh`) or "
            f"`NamedSharding(mesh, spec)`"
        )
        clash = [name for name in names if PJIT_KEYWORDS[name] in passed]
        if clash:
            return f"{message}. Not fixed: `{PJIT_KEYWORDS[clash[0]]}=` is passed too; keep one", True, None
        withheld = floor_withheld(PJIT_SHARDINGS, self.settings)
        if withheld is not None:
            return (f"{message}. Not fixed: the new keywords exist from JAX {FLOORS[PJIT_SHARDINGS].since}", True,
                    withheld)
        return message, False, None

    # -- keywords from the catalogue's [[parameter]] rows ------------------------------------------------------------
    def _keywords(self, node: cst.Call, qualified: str, shown: str | None = None, via: str | None = None) -> None:
        """One finding per call for the keywords the target rejects (or deprecates); positional arguments and
        ``**kwargs`` are never flagged (they bind whatever the signature says)."""
        rows = self.parameters[qualified]
        found = [(arg, rows[arg.keyword.value]) for arg in node.args if arg.keyword is not None and self._flagged(
            rows.get(arg.keyword.value), isinstance(arg.value, cst.Name) and arg.value.value == "None")]
        if not found:
            return
        shown = shown or self.code_for(node.func)
        passed = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        renames = self._renames([(arg.keyword.value, row) for arg, row in found], passed)
        message = self._keywords_message(shown, [row for _, row in found])
        if via:
            message += f" ({via})"
        fix = None
        withheld = None
        stable = self._stable_instead(qualified, [(arg.keyword.value, _string_value(arg.value)) for arg, _ in found],
                                      passed)
        if stable == "fix":
            (arg, _), = found
            fix = safe_fix("Replace `kind=...` with `stable=True` (JAX ignored `kind` and sorted stably)",
                           Replace(arg.keyword, "stable"), Replace(arg.value, "True"))
        elif stable is not None:
            withheld = stable
        elif len(renames) == len(found):
            fix = safe_fix(_rename_message(renames),
                           *(Replace(arg.keyword, renames[arg.keyword.value]) for arg, _ in found))
        else:
            fix = self._positional_fix(node, qualified)
            withheld = None if fix is not None else self._keywords_withheld([row for _, row in found], passed)
        self.report(node, message, fix, withheld=withheld)

    def _positional_fix(self, node: cst.Call, qualified: str):
        """``jnp.clip(x, a_min=lo, a_max=hi)`` -> ``jnp.clip(x, lo, hi)`` where no keyword spelling spans the range:
        the keywords, in positional order, bind the same positions on every release (``floors.POSITIONS``)."""
        if any(arg.star for arg in node.args):
            return None
        positional = len(positional_args(node))
        keywords = list(node.args[positional:])
        if any(arg.keyword is None for arg in keywords):
            return None
        taken = keyword_positions(qualified, [arg.keyword.value for arg in keywords], positional, self.settings)
        if taken is None:
            return None
        by_position = dict(zip(taken, keywords))
        comma = keywords[0].comma if len(keywords) > 1 else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        moved = [by_position[index].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
                 if index in by_position else cst.Arg(cst.Name("None"), comma=comma)
                 for index in range(positional, taken[-1] + 1)]
        if node.args[:positional] and node.args[positional - 1].comma is cst.MaybeSentinel.DEFAULT:
            return None  # the last positional argument would need a comma: not written by hand
        new_call = node.with_changes(args=[*node.args[:positional], *moved])
        return safe_fix(_positional_message(qualified, [arg.keyword.value for arg in keywords],
                                            len(moved) > len(keywords)),
                        Replace(node, self.code_in_place(new_call)), probe=node)

    def _stable_instead(self, qualified: str, found: list[tuple[str, object]], passed: set[str]):
        """``"fix"`` where ``jnp.sort/argsort(kind="<a NumPy kind>")`` becomes ``stable=True`` (the call's only
        reported keyword, a string literal, no ``stable=`` passed), the range's reason where only the min version
        stands in the way, None where it does not apply."""
        if qualified not in SORTS or len(found) != 1 or found[0][0] != "kind" or found[0][1] not in SORT_KINDS \
                or "stable" in passed:
            return None
        return floor_withheld(SORT_STABLE, self.settings) or "fix"

    def _flagged(self, row: Parameter | None, passes_none: bool) -> bool:
        """Whether a keyword with this row (None: not listed) is reported; ``passes_none``: its value is ``None``."""
        target = self.settings.target_version
        return row is not None and (row.removed_at(target) or row.deprecated_at(target)) \
            and not (row.none_accepted and passes_none)

    def _renames(self, found: list[tuple[str, Parameter]], passed: set[str]) -> dict[str, str]:
        """old keyword -> new, for the reported keywords whose rename is safe (the new one not passed already)."""
        renames: dict[str, str] = {}
        for keyword, row in found:
            new = row.safe_replacement(self.settings.min_version)
            if new and new not in passed and new not in renames.values():
                renames[keyword] = new
        return renames

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``), where none has a fix -------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` reports, for the calls whose findings have no fix: catalogue keywords whose rename
        the range or the call holds back, and pjit's old keywords where there is no fix. A call that may have a
        fix (a rename, ``jnp.array``'s positional arguments, ``make_mesh(axis_shapes=)``, a list where an array is
        wanted) or that needs libcst's inference (a local alias, ``partial``, a helper's ``**kwargs``) is
        ``Undecidable``."""
        rule = view.rule(cls)
        watched = cls.parameter_keywords | PJIT_KEYWORDS.keys() | {"axis_shapes"}
        local: _LocalNames | None = None
        found = []
        for node in walk(view, (ast.Call,)):
            func = node.func
            root = func
            while type(root) is ast.Attribute:
                root = root.value
            imported = type(root) is ast.Name and (view.star_import or view.may_import(root.id))
            # An irrelevant name is read as None: both mean "no finding here" (for a bare name, None also asks
            # whether it is a local alias: at worst ``Undecidable``)
            qualified = view.qualified_name_unless(func, cls._relevant_to_ast_findings) if imported else None
            if qualified is None:
                if type(func) is ast.Name:
                    local = local or _LocalNames(view)
                    passed = [kw.arg for kw in node.keywords if kw.arg in watched]
                    helpers = local.kwargs_functions.get(func.id, ())
                    # Through an alias, the visit reads the keywords passed by name; the positional arguments
                    # only of ``jnp.array`` (``fn = jax.lax.dot_general; fn(a, b, dims)`` is no finding)
                    if (passed and local.may_alias(view, func.id, cls._relevant_to_ast_findings)) or (
                            len(node.args) > 2 and local.may_alias(view, func.id, _is_array)) or any(
                            keyword not in own for own in helpers for keyword in passed):
                        raise Undecidable("a call through a local alias or a helper's **kwargs")
                continue
            if qualified in cls.parameters:
                finding = rule._keywords_from_ast(view, node, qualified)
                if finding is not None:
                    found.append(finding)
            if qualified in REJECTING:
                if node.args and type(node.args[0]) is not ast.Starred:
                    local = local or _LocalNames(view)
                    value = node.args[0]
                    if type(value) in (ast.List, ast.ListComp):
                        found.append(rule._sequence_from_ast(view, node))
                    elif type(value) is ast.Tuple or (
                            type(value) is ast.Name and value.id in local.lists and value.id not in local.not_lists
                            and not _bound_otherwise_in_own_scope(view, value)):
                        raise Undecidable("a tuple, or a name bound to a list, where an array is wanted")
            elif qualified == PARTIAL and node.args and type(node.args[0]) is not ast.Starred:
                local = local or _LocalNames(view)
                finding = rule._partial_from_ast(view, node, local)
                if finding is not None:
                    found.append(finding)
            if qualified == ARRAY and len(node.args) > 2:
                raise Undecidable("jnp.array's positional arguments: may have a fix")
            elif qualified == MAKE_MESH and any(kw.arg == "axis_shapes" for kw in node.keywords):
                raise Undecidable("make_mesh(axis_shapes=): may have a fix")
            elif qualified == PJIT:
                names = [kw.arg for kw in node.keywords if kw.arg in PJIT_KEYWORDS]
                if names:
                    found.append(rule._pjit_from_ast(view, node, "pjit", names))
        return found

    @classmethod
    def _relevant_to_ast_findings(cls, qualified: str) -> bool:
        """Whether ``findings_from_ast`` treats a callee named ``qualified`` other than one it cannot name (None)."""
        return qualified in cls.parameters or qualified in REJECTING or qualified in (PARTIAL, ARRAY, MAKE_MESH, PJIT)

    def _sequence_from_ast(self, view: AstView, node: ast.Call) -> AstFinding:
        """``_sequence_argument`` for a list literal (a comprehension too) as the first argument: its fix wraps the
        argument, placed where the list has no parentheses of its own (``plain_first_argument``)."""
        view.span(node.func)  # the message quotes the callee: ``Undecidable`` where libcst's text may differ
        message = _sequence_message(view.text(node.func), "list")
        numpy = node.func
        while type(numpy) is ast.Attribute:  # ``numpy_spelling``: the part of the callee that names jax.numpy
            numpy = numpy.value
            if view.qualified_name(numpy) == NUMPY:
                break
        else:
            return AstFinding(self.code, node, f"{message}; wrap it in `jnp.asarray(...)`")
        start, end = plain_first_argument(view, node)
        asarray = f"{view.text(numpy)}.asarray"
        edits = (Edit(start, start, f"{asarray}("), Edit(end, end, ")"))
        fix = AstFix(Applicability.SAFE, f"Wrap it in `{asarray}(...)`", edits)
        return AstFinding(self.code, node, message, fix=fix)

    def _partial_from_ast(self, view: AstView, node: ast.Call, local: "_LocalNames") -> AstFinding | None:
        """``_partial`` for an ``ast`` call of ``functools.partial``."""
        wrapped = node.args[0]
        root = wrapped
        while type(root) is ast.Attribute:
            root = root.value
        target = view.qualified_name(wrapped) if type(root) is ast.Name and (
            view.star_import or view.may_import(root.id)) else None
        if target is None:
            if type(wrapped) is ast.Name and wrapped.id in local.aliases:
                raise Undecidable("`partial` of a local alias")
            return None
        if target == PJIT:
            names = [kw.arg for kw in node.keywords if kw.arg in PJIT_KEYWORDS]
            return self._pjit_from_ast(view, node, "partial(pjit, ...)", names) if names else None
        if target not in self.parameters:
            return None
        shown = view.text(wrapped)
        between = view.source[view.offset_of(node.func, end=True):view.offset_of(wrapped)]
        if between.strip() != "(" or not _PLAIN_NAME.fullmatch(shown):
            raise Undecidable("the function passed to `partial` is not spelled plainly")
        return self._keywords_from_ast(view, node, target, shown=shown, via="passed through `partial`")

    def _pjit_from_ast(self, view: AstView, node: ast.Call, shown: str, names: list[str]) -> AstFinding:
        """``_pjit`` for an ``ast`` call: the old keywords renamed where nothing withholds it (each edit replaces a
        keyword's name, where ``ast`` places the keyword)."""
        message, unfixed, withheld = self._pjit_unfixed(shown, names,
                                                        {kw.arg for kw in node.keywords if kw.arg is not None})
        if unfixed:
            return AstFinding(self.code, node, message, withheld=withheld)
        edits = tuple(Edit(start, start + len(kw.arg), PJIT_KEYWORDS[kw.arg]) for kw in node.keywords
                      if kw.arg in PJIT_KEYWORDS for start in (view.offset_of(kw),))
        renames = ", ".join(f"`{name}=` -> `{PJIT_KEYWORDS[name]}=`" for name in names)
        return AstFinding(self.code, node, message, fix=AstFix(
            Applicability.SAFE, f"Rename {renames} (JAX: a safe and trivial name replacement)", edits))

    def _keywords_from_ast(self, view: AstView, node: ast.Call, qualified: str, shown: str | None = None,
                           via: str | None = None) -> AstFinding | None:
        """``_keywords`` for an ``ast`` call; ``Undecidable`` where every keyword has a rename (a fix)."""
        rows = self.parameters[qualified]
        found = [(kw.arg, rows[kw.arg]) for kw in node.keywords if kw.arg is not None and self._flagged(
            rows.get(kw.arg), type(kw.value) is ast.Constant and kw.value.value is None)]
        if not found:
            return None
        passed = {kw.arg for kw in node.keywords if kw.arg is not None}
        values = {kw.arg: kw.value.value for kw in node.keywords if kw.arg is not None
                  and type(kw.value) is ast.Constant and type(kw.value.value) is str}
        stable = self._stable_instead(qualified, [(name, values.get(name)) for name, _ in found], passed)
        if stable == "fix":
            raise Undecidable("kind= becomes stable=True: a fix")
        rows_found = [row for _, row in found]
        message = self._keywords_message(shown or view.text(node.func), rows_found)
        if via:
            message += f" ({via})"
        renames = self._renames(found, passed) if stable is None else {}
        if stable is None and len(renames) == len(found):
            edits = tuple(Edit(start, start + len(kw.arg), renames[kw.arg]) for kw in node.keywords
                          if kw.arg in renames for start in (view.offset_of(kw),))
            return AstFinding(self.code, node, message, fix=AstFix(Applicability.SAFE, _rename_message(renames),
                                                                   edits))
        if stable is None and not any(type(arg) is ast.Starred for arg in node.args) and all(
                kw.arg for kw in node.keywords) and positional_slots(qualified, [kw.arg for kw in node.keywords],
                                                                     len(node.args), self.settings):
            return AstFinding(self.code, node, message, fix=self._positional_fix_from_ast(view, node, qualified))
        withheld = stable if stable is not None else self._keywords_withheld(rows_found, passed)
        return AstFinding(self.code, node, message, withheld=withheld)

    def _positional_fix_from_ast(self, view: AstView, node: ast.Call, qualified: str) -> AstFix:
        """``_positional_fix`` where the keywords keep their positional order: each ``name=`` is deleted, and each
        position they skip gets ``None`` and the comma libcst gives it (the first keyword's, or ``", "`` for one
        keyword); ``Undecidable`` for the rest (keywords out of order, a value in parentheses of its own)."""
        names = [kw.arg for kw in node.keywords]
        positional = len(node.args)
        taken = keyword_positions(qualified, names, positional, self.settings)
        if taken is None or any(later <= earlier for earlier, later in zip([positional - 1, *taken], taken)):
            raise Undecidable("the keywords can be passed by position: not in their positions' order")
        source = view.source
        heads = [(view.offset_of(kw), view.offset_of(kw.value)) for kw in node.keywords]
        if any(not _KEYWORD_HEAD.match(source[head:value]) for head, value in heads):
            raise Undecidable("the keywords can be passed by position: a value in parentheses")
        # the comma of a ``None`` put in a gap: a copy of the first keyword's (what follows its value up to the next
        # keyword), as libcst copies the ``Comma`` node, or one of its own for a single keyword
        gaps = taken[-1] + 1 - positional > len(names)
        comma = source[view.offset_of(node.keywords[0].value, end=True):heads[1][0]] if len(names) > 1 else ", "
        if gaps and ("#" in comma or "\\" in comma):
            raise Undecidable("the keywords can be passed by position: a comment in the comma to copy")
        start, end = view.offset_of(node), view.offset_of(node, end=True)
        text, last, previous = [], start, positional - 1
        for (head, value), position in zip(heads, taken):
            text += [source[last:head], ("None" + comma) * (position - previous - 1)]
            last, previous = value, position
        text.append(source[last:end])
        view.span(node)  # ``Undecidable`` for a call in parentheses of its own
        return AstFix(Applicability.SAFE, _positional_message(qualified, names, gaps),
                      (Edit(start, end, "".join(text)),), (start, end))

    def _keywords_withheld(self, rows: list[Parameter], passed: set[str]):
        """The range reason when every keyword has a rename that only the min version holds back (None otherwise:
        a removed keyword, or the new one passed already, is not a matter of the range)."""
        newest = None
        for row in rows:
            if row.change != "renamed" or not row.replacement or not row.replacement_since \
                    or row.replacement in passed:
                return None
            if row.safe_replacement(self.settings.min_version) is None and (
                    newest is None or Version(row.replacement_since) > Version(newest.replacement_since)):
                newest = row
        if newest is None:
            return None
        return range_withheld(f"`{newest.replacement}=`", newest.replacement_since, self.settings)

    def _keywords_message(self, shown: str, rows: list[Parameter]) -> str:
        """One sentence per state and advice: ``jnp.clip(a_min=..., a_max=...)``: the keywords are rejected since
        JAX 0.10.0 (`TypeError`); use `min=`, `max=` (JAX 0.4.27+)`` (not the whole sentence once per keyword)."""
        groups: dict[tuple, list[Parameter]] = {}
        for row in rows:
            key = (self._keyword_state(row), row.change if row.replacement or row.change != "renamed" else "removed",
                   row.replacement_since, row.note)
            groups.setdefault(key, []).append(row)
        return "; ".join(self._group_message(shown, key, group) for key, group in groups.items())

    def _keyword_state(self, row: Parameter) -> str:
        removed = row.removed_at(self.settings.target_version)
        if row.source == "extend-rules":
            return catalogue_messages.team_state(row.removed_in, row.deprecated_in, removed)
        if removed:
            return f"rejected since JAX {row.removed_in} (`TypeError`)"
        return f"deprecated since JAX {row.deprecated_in}, rejected from {row.removed_in}"

    @staticmethod
    def _group_message(shown: str, key: tuple, rows: list[Parameter]) -> str:
        state, change, since, note = key
        keywords = ", ".join(f"{row.parameter}=..." for row in rows)
        if change == "renamed":
            advice = f"use {', '.join(f'`{row.replacement}=`' for row in rows)} (JAX {since}+)"
        elif change == "positional-only":
            advice = f"pass {'it' if len(rows) == 1 else 'them'} positionally"
        elif note:  # the overlay's advice replaces "no replacement keyword is known"
            advice, note = note, None
        elif "by this project" in state:  # a user rule: the team's note says more, JAX's changelog nothing
            advice = "no replacement keyword is known"
        else:
            advice = "no replacement keyword is known (see the JAX changelog)"
        subject = "the keyword is" if len(rows) == 1 else "the keywords are"
        return f"`{shown}({keywords})`: {subject} {state}; {advice}" + (f" ({note})" if note else "")
