"""JAX302 experimental-export: ``jax.experimental.export`` is gone; ``jax.export`` replaced it, with differences."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.ast_calls import has_star_args as has_star_args_ast
from jaxlint.catalogue.floors import FLOORS, floor_withheld
from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, walk
from jaxlint.lint.context import in_compat_code
from jaxlint.rules.base import FixSpec, Invalid, NodeEdit, Replace, Report, Rule, Valid, safe_fix, unsafe_fix
from jaxlint.analysis.calls import has_star_args, positional_args
from jaxlint.project.versions import parse_version

OLD = "jax.experimental.export"
NEW = "jax.export"
NEW_SINCE = FLOORS["jax.export"].since  # the first release with jax.export
# The old module's names that are the very same object in jax.export (old module's deprecation table, 0.4.30).
SAME = frozenset({"Exported", "DisabledSafetyCheck", "SymbolicScope", "is_symbolic_dim", "symbolic_shape",
                  "symbolic_args_specs"})
# Same object, new name in jax.export.
RENAMED = {
    "minimum_supported_serialization_version": "minimum_supported_calling_convention_version",
    "maximum_supported_serialization_version": "maximum_supported_calling_convention_version",
}
# Not the same: renamed function with its own code; module functions that became methods.
UNSAFE_RENAMED = {"default_lowering_platform": "default_export_platform"}
METHODS = {"serialize": "serialize()", "call": "call", "call_exported": "call"}
JIT = frozenset({"jax.jit", "jax.experimental.pjit.pjit"})
EXPORT_SAME_KEYWORDS = frozenset({"disabled_checks"})


# -- what the libcst visit and ``findings_from_ast`` share: which imports name the old module, and the reasons a fix
# is ruled out (the words of the messages) -------------------------------------------------------------------------
def import_problem(full_names: list[str]) -> tuple[bool, str]:
    """For ``import a, b``: (whether it names the old module, what rules out renaming it: "" if nothing)."""
    named, problem = False, ""
    for full in full_names:
        if full == OLD:
            named = True
        elif full.startswith(OLD + "."):
            named, problem = True, f"`import {full}`: submodules of the old module have no counterpart"
    return named, problem


def from_import_problem(module: str, names: list[str] | None) -> tuple[bool, str]:
    """For ``from module import names`` (None: ``*``): (whether it names the old module, what rules out renaming
    it: "" if nothing)."""
    if module == "jax.experimental":
        if names is None or "export" not in names:
            return False, ""
        return True, "" if names == ["export"] else \
            "`export` is imported together with other names from `jax.experimental`"
    if module != OLD and not module.startswith(OLD + "."):
        return False, ""
    if names is None or module != OLD:
        return True, "a star import or a submodule of the old module"
    for imported in names:
        if imported not in RENAMED and imported not in SAME and imported not in ("export", "deserialize"):
            return True, f"`{imported}` has no same-named counterpart in `jax.export`"
    return True, ""


def loads_new_module(module: str, names: list[str] | None) -> bool:
    """``from module import names`` (None: ``*``) loads ``jax.export``."""
    return module == NEW or (module == "jax" and names is not None and "export" in names)


def range_problem(settings) -> str:
    return f"the min version {settings.min_version} has no `{NEW}` (added in {NEW_SINCE})"


UNUSUAL_SPELLING = "an unusual spelling of the module"
NOT_LOADED = f"no module-level import in this file loads `{NEW}`"
MODULE_ON_ITS_OWN = "the module object is used on its own"
DESERIALIZE_ARGUMENTS = "`deserialize` called with other than one positional argument"
EXPORT_SHAPE = "`export` used other than as `export(fn, ...)`"
NEEDS_JIT = f"`{NEW}.export` needs a `jax.jit`-wrapped function"


def method_problem(member: str) -> str:
    return f"`{member}(exp)` is a method in `{NEW}`"


def renamed_problem(member: str) -> str:
    return f"`{member}` is `{UNSAFE_RENAMED[member]}` in `{NEW}`"


def no_counterpart(member: str) -> str:
    return f"`{member}` has no exact counterpart in `{NEW}` that can be rewritten here"


def keyword_problem(keyword: str) -> str:
    return f"`export(..., {keyword}=)` differs in `{NEW}`"


@dataclass
class _Use:
    """One use of a name of the old module: ``E.x``, ``jax.experimental.export.x`` or a from-imported ``x``."""

    reference: cst.CSTNode  # the module expression (``E``, ``jax.experimental.export``) or the imported Name
    member: str | None  # ``x``; None when the module itself is used (passed around, ``E[...]``)
    node: cst.CSTNode  # the whole use (``E.x`` or the Name)
    fully_spelled: bool
    ancestors: tuple[cst.CSTNode, ...]


@dataclass
class _Import:
    node: cst.CSTNode
    ancestors: tuple[cst.CSTNode, ...]
    safe_edits: list[NodeEdit] | None  # None: this statement cannot be renamed exactly
    unsafe_edits: list[NodeEdit] | None
    module_level: bool
    problem: str = ""


@dataclass
class _Plan:
    safe: list[NodeEdit] = field(default_factory=list)
    unsafe: list[NodeEdit] = field(default_factory=list)
    safe_problems: list[str] = field(default_factory=list)
    unsafe_problems: list[str] = field(default_factory=list)


class ExperimentalExport(Rule):
    code = "JAX302"
    name = "experimental-export"
    summary = "jax.experimental.export was removed: use jax.export"
    since = "0.10.2"
    triggers = ()
    required_words = frozenset({frozenset({"jax", "experimental", "export"})})
    ast_names = frozenset({OLD})  # imports of it or under it, and references: all start with this name
    # Decided from ``ast`` (``findings_from_ast``) where the findings carry no fix; libcst plans and writes fixes.
    decides_from_ast = True
    explanation = """
## What it does
Reports every import statement that names `jax.experimental.export` (`import jax.experimental.export`,
`from jax.experimental import export`, `from jax.experimental.export import ...`) and every fully spelled
`jax.experimental.export.<name>` use.

## Why
`jax.experimental.export` no longer exists (it is absent in JAX 0.10.2 and in 0.12.0.1):
`ModuleNotFoundError: No module named 'jax.experimental.export'` at import, or
`AttributeError: module 'jax.experimental' has no attribute 'export'` for `jax.experimental.export.<name>`.
It was deprecated in 0.4.30 in favour of `jax.export`, which differs:
- `jax.export.export` requires a `jax.jit`-wrapped function (`export(jax.jit(f))`); the old `export` also took a
  plain function, and its `lowering_platforms=` keyword is `platforms=` now;
- the old module-level `serialize(exp)` and `call(exp)` / `call_exported(exp)` are methods now: `exp.serialize()`
  and `exp.call`;
- `default_lowering_platform` is `default_export_platform`, `minimum/maximum_supported_serialization_version` are
  `minimum/maximum_supported_calling_convention_version`.

## Example
```python
from jax.experimental import export
exp = export.export(jax.jit(f))(x)
blob = export.serialize(exp)
```
Use instead:
```python
from jax import export
exp = export.export(jax.jit(f))(x)
blob = exp.serialize()
```

## Fix safety
Safe only when every use through the old module means the same in `jax.export`: names that are the same object
there (`Exported`, `DisabledSafetyCheck`, `deserialize(blob)`, `symbolic_shape`, `symbolic_args_specs`,
`is_symbolic_dim`, `SymbolicScope`, and the two renamed version constants), `export(...)` applied to something
visibly `jax.jit`-wrapped (a `jax.jit(...)` call, or a name bound once to a `@jax.jit` function or a `jax.jit(...)`
result) with no keyword but `disabled_checks=`, and the min version has `jax.export` (0.4.30). Then the module is
renamed in the imports and in fully spelled uses, all together. Otherwise the findings have no safe fix; an unsafe
fix (`--unsafe-fixes`) also rewrites the API differences reached through a module name: `serialize(exp)` →
`exp.serialize()`, `call(exp)` → `exp.call`, `default_lowering_platform` → `default_export_platform`,
`lowering_platforms=` → `platforms=`, and wraps a plain function passed to `export` in `jax.jit(...)`. A star
import, the module object used on its own, or names imported from the old module with `from ... import` that need
such a rewrite are never fixed.

## JAX version
`jax.export` exists since 0.4.30, when `jax.experimental.export` was deprecated; the old module is absent in
0.10.2 and later.
"""

    VALID = [
        Valid("""
            import jax
            from jax import export
            exp = export.export(jax.jit(f))(x)
            blob = exp.serialize()
        """, note="already jax.export"),
        Valid("""
            import jax
            exp = jax.export.export(jax.jit(f))(x)
        """, note="fully spelled jax.export"),
        Valid("""
            try:
                from jax import export
            except ImportError:
                from jax.experimental import export
        """, note="compat code: try/except ImportError"),
        Valid("""
            from jax.experimental import jax2tf, pjit
            from myproject.experimental import export
            export.serialize(model)
        """, note="other experimental modules; a project's own experimental.export"),
        Valid("""
            from jax.experimental import *
            export.serialize(exp)
        """, note="star import: nothing known for sure"),
        Valid("""
            import jax
            if hasattr(jax, "export"):
                exp = jax.export.export(jax.jit(f))(x)
            else:
                exp = jax.experimental.export.export(f)(x)
        """, note="compat code: hasattr(jax, ...)"),
    ]

    INVALID = [
        Invalid("""
            import jax
            from jax.experimental import export
            exp = export.export(jax.jit(f))(x)
            restored = export.deserialize(blob)
        """, fixed="""
            import jax
            from jax import export
            exp = export.export(jax.jit(f))(x)
            restored = export.deserialize(blob)
        """, min_version="0.4.30", note="every use means the same: rename the module"),
        Invalid("""
            import jax
            from jax.experimental import export
            exp = export.export(jax.jit(f))(x)
        """, min_version="0.4.26", note="min version before jax.export: no fix"),
        Invalid("""
            import jax
            from jax.experimental import export as jex
            exp = jex.export(f)(x)
            blob = jex.serialize(exp)
            out = jex.call(exp)(x)
        """, unsafe_fixed="""
            import jax
            from jax import export as jex
            exp = jex.export(jax.jit(f))(x)
            blob = exp.serialize()
            out = exp.call(x)
        """, note="plain function, serialize and call: only an unsafe fix"),
        Invalid("""
            import jax
            from jax.experimental.export import export, Exported, symbolic_shape

            @jax.jit
            def f(x):
                return x * 2

            def run(x) -> Exported:
                (b,) = symbolic_shape("b")
                return export(f, disabled_checks=())(x)
        """, fixed="""
            import jax
            from jax.export import export, Exported, symbolic_shape

            @jax.jit
            def f(x):
                return x * 2

            def run(x) -> Exported:
                (b,) = symbolic_shape("b")
                return export(f, disabled_checks=())(x)
        """, note="from-import of names; a @jax.jit function"),
        Invalid("""
            from jax.experimental.export import serialize
            blob = serialize(exp)
        """, note="from-imported serialize: no fix"),
        Invalid("""
            import jax.experimental.export
            g = jax.jit(f)
            exp = jax.experimental.export.export(g)(x)
        """, fixed="""
            import jax.export
            g = jax.jit(f)
            exp = jax.export.export(g)(x)
        """, count=2, note="import statement and fully spelled use, renamed together"),
        Invalid("""
            import jax
            exp = jax.experimental.export.export(jax.jit(f))(x)
        """, unsafe_fixed="""
            import jax
            exp = jax.export.export(jax.jit(f))(x)
        """, note="fully spelled use without an import that loads jax.export: only an unsafe fix"),
        Invalid("""
            import jax
            import jax.experimental.export as jex
            lo = jex.minimum_supported_serialization_version
            exp = jex.export(jax.jit(f), lowering_platforms=("cpu",))(x)
        """, unsafe_fixed="""
            import jax
            import jax.export as jex
            lo = jex.minimum_supported_calling_convention_version
            exp = jex.export(jax.jit(f), platforms=("cpu",))(x)
        """, note="renamed constant; lowering_platforms keyword: unsafe"),
        Invalid("""
            from jax.experimental import export
            register(export)
        """, note="module object passed around: no fix"),
        Invalid("""
            def load(blob):
                from jax.experimental import export
                return export.deserialize(blob)
        """, fixed="""
            def load(blob):
                from jax import export
                return export.deserialize(blob)
        """, note="function-local import"),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self._imports: list[_Import] = []
        self._uses: list[_Use] = []
        self._problems: list[str] = []  # anything that rules out every fix

    def _compat(self) -> bool:
        return in_compat_code(self.context.ancestors, self.context.resolver)

    def _module_level(self) -> bool:
        return not any(isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) for n in self.context.ancestors)

    # -- imports -------------------------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        if self._compat():
            return
        fulls = [cst.helpers.get_full_name_for_node(alias.name) or "" for alias in node.names]
        if NEW in fulls:
            self._new_imported = True
        named, problem = import_problem(fulls)
        safe: list[NodeEdit] = [Replace(alias.name, NEW) for alias, full in zip(node.names, fulls) if full == OLD]
        if named:
            edits = None if problem else safe
            self._imports.append(_Import(node, tuple(self.context.ancestors), edits, edits, self._module_level(),
                                         problem))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or self._compat():
            return
        module = cst.helpers.get_full_name_for_node(node.module) or ""
        names = None if isinstance(node.names, cst.ImportStar) else [_alias_name(a) for a in node.names]
        if loads_new_module(module, names):
            self._new_imported = True
        named, problem = from_import_problem(module, names)
        if not named:
            return
        if problem:
            self._imports.append(_Import(node, tuple(self.context.ancestors), None, None, self._module_level(),
                                         problem))
        elif module == "jax.experimental":
            edits: list[NodeEdit] = [Replace(node.module, "jax")]
            self._imports.append(_Import(node, tuple(self.context.ancestors), edits, edits, self._module_level()))
        else:
            safe: list[NodeEdit] = [Replace(node.module, NEW)]
            for alias in node.names:
                imported = _alias_name(alias)
                if imported in RENAMED:
                    text = RENAMED[imported] if alias.asname is not None else f"{RENAMED[imported]} as {imported}"
                    bound = cst.helpers.get_full_name_for_node(alias.asname.name) if alias.asname else None
                    # never ``x as x``: the alias goes when the new name is the one it bound
                    safe.append(Replace(alias, text) if bound == RENAMED[imported] else Replace(alias.name, text))
            self._imports.append(_Import(node, tuple(self.context.ancestors), safe, safe, self._module_level()))

    _new_imported = False

    # -- uses ----------------------------------------------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        parent = self.context.parent
        if (isinstance(parent, cst.Attribute) and parent.attr is node) \
                or (isinstance(parent, cst.Arg) and parent.keyword is node):
            return  # ``x.export``, ``f(export=...)``: not a reference to a variable
        qualified = self.qualified_name(node)
        if qualified is None or not (qualified == OLD or qualified.startswith(OLD + ".")):
            return
        if self._compat():
            return
        if qualified == OLD:
            self._module_reference(node, fully_spelled=False)
        else:
            self._uses.append(_Use(node, qualified[len(OLD) + 1:], node, False, tuple(self.context.ancestors)))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.qualified_name(node) == OLD and not self._compat():
            self._module_reference(node, fully_spelled=True)

    def _module_reference(self, reference: cst.CSTNode, fully_spelled: bool) -> None:
        parent = self.context.parent
        if isinstance(parent, cst.Attribute) and parent.value is reference:
            self._uses.append(_Use(reference, parent.attr.value, parent, fully_spelled,
                                   tuple(self.context.ancestors[:-1])))
        else:
            self._uses.append(_Use(reference, None, reference, fully_spelled, tuple(self.context.ancestors)))

    # -- deciding and reporting ----------------------------------------------------------------------------------
    def leave_Module(self, node: cst.Module) -> None:
        if not self._imports and not any(use.fully_spelled for use in self._uses):
            return
        plan = self._plan()
        safe = unsafe = None
        if not plan.safe_problems and plan.safe:
            safe = safe_fix(f"Use `{NEW}` (every use means the same there)", *plan.safe)
        elif not plan.unsafe_problems and plan.unsafe:
            unsafe = unsafe_fix(f"Use `{NEW}` and rewrite the API differences (check the result)", *plan.unsafe)
        fix = safe or unsafe
        reason = (plan.safe_problems or plan.unsafe_problems or [""])[0]
        # Withheld by the range alone (every other obstacle would still let the rename through): say what it needs.
        range_problem = plan.safe_problems[:1] if not self.min_version_at_least(NEW_SINCE) else []
        withheld = (floor_withheld("jax.export", self.settings)
                    if fix is None and range_problem and plan.safe_problems == range_problem else None)
        for item in self._imports:
            self._report(item.node, item.ancestors, self._message(fix, reason), fix, withheld)
        for use in self._uses:
            if use.fully_spelled:
                self._report(use.node, use.ancestors, self._message(fix, reason, use.member), fix, withheld)

    # -- from ``ast``: findings without a fix --------------------------------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``leave_Module`` reports, where no fix is offered: nothing names the old module, or something rules
        out every fix (the min version, an import that cannot be renamed, a use with no counterpart). Undecidable
        where a fix may be offered (libcst writes it) or a use's plan needs libcst's bindings."""
        imports, loads_new = _ast_imports(view)
        spelled = [use for use in _ast_uses(view) if use.fully_spelled]
        if not imports and not spelled:
            return []
        below_range = not view.settings.min_version >= _NEW_SINCE
        first = [range_problem(view.settings)] if below_range else []
        first += [problem for _, problem, _ in imports if problem]
        loads_new = loads_new or any(module_level and not problem for _, problem, module_level in imports)
        if first:  # rules out every fix; the findings say the first
            reason = first[0]
            only_range = below_range and len(first) == 1
            withheld = floor_withheld("jax.export", view.settings) \
                if only_range and not _any_use_problem(view, loads_new) else None
        else:
            reason = _first_problem_ruling_out_fixes(view, loads_new)
            withheld = None
        rule = view.rule(cls)
        found = [AstFinding(cls.code, node, rule._message(None, reason), withheld=withheld)
                 for node, _, _ in imports]
        found += [AstFinding(cls.code, use.node, rule._message(None, reason, use.member), withheld=withheld)
                  for use in spelled]
        return found

    def _report(self, node: cst.CSTNode, ancestors, message: str, fix: FixSpec | None, withheld=None) -> None:
        self.context.add_report(Report(self.code, node, message, fix, ancestors, withheld=withheld))

    def _message(self, fix: FixSpec | None, reason: str, member: str | None = None) -> str:
        if member:
            head = (f"`{OLD}.{member}` no longer exists (`{OLD}` was removed, absent since JAX 0.10.2); "
                    f"use `{NEW}.{RENAMED.get(member, UNSAFE_RENAMED.get(member, member))}`")
        else:
            head = f"`{OLD}` was removed (absent since JAX 0.10.2); use `{NEW}`"
        base = (f"{head} (JAX {NEW_SINCE}+), where `export` needs a `jax.jit`-wrapped function and "
                f"`serialize(exp)` / `call(exp)` are `exp.serialize()` / `exp.call`")
        if fix is not None and fix.applicability.value == "safe":
            return base
        return f"{base} (no safe fix: {reason})" if reason else base

    def _plan(self) -> _Plan:
        plan = _Plan()
        if not self.min_version_at_least(NEW_SINCE):
            problem = range_problem(self.settings)
            plan.safe_problems.append(problem)
            plan.unsafe_problems.append(problem)
        for item in self._imports:
            if item.safe_edits is None:
                plan.safe_problems.append(item.problem)
                plan.unsafe_problems.append(item.problem)
            else:
                plan.safe.extend(item.safe_edits)
                plan.unsafe.extend(item.unsafe_edits or [])
        loads_new = self._new_imported or any(i.module_level and i.safe_edits is not None for i in self._imports)
        for use in self._uses:
            self._plan_use(use, plan, loads_new)
        return plan

    def _plan_use(self, use: _Use, plan: _Plan, loads_new: bool) -> None:
        edits: list[NodeEdit] = []
        if use.fully_spelled:
            if self.code_for(use.reference).strip() != OLD:
                plan.safe_problems.append(UNUSUAL_SPELLING)
                plan.unsafe_problems.append(UNUSUAL_SPELLING)
                return
            edits.append(Replace(use.reference, NEW))
            if not loads_new:
                plan.safe_problems.append(NOT_LOADED)
        member = use.member
        if member is None:
            plan.safe_problems.append(MODULE_ON_ITS_OWN)
            plan.unsafe_problems.append(MODULE_ON_ITS_OWN)
            return
        through_module = use.node is not use.reference  # ``E.x``, not a from-imported name
        call = self._call_of(use)
        if member in SAME:
            plan.safe.extend(edits)
            plan.unsafe.extend(edits)
        elif member in RENAMED:
            if through_module:
                edits.append(Replace(use.node.attr, RENAMED[member]))
            plan.safe.extend(edits)
            plan.unsafe.extend(edits)
        elif member == "deserialize":
            if call is not None and (len(call.args) != 1 or call.args[0].keyword or call.args[0].star):
                plan.safe_problems.append(DESERIALIZE_ARGUMENTS)
            plan.safe.extend(edits)
            plan.unsafe.extend(edits)
        elif member == "export":
            self._plan_export(use, call, edits, plan)
        elif member in METHODS and through_module and call is not None and self._single_positional(call):
            plan.safe_problems.append(method_problem(member))
            target = self.code_for(call.args[0].value).strip()
            if not isinstance(call.args[0].value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
                target = f"({target})"
            plan.unsafe.append(Replace(call, f"{target}.{METHODS[member]}"))
        elif member == "serialize" and through_module and call is not None and not has_star_args(call) \
                and len(positional_args(call)) == 1 and call.args[0].keyword is None:
            plan.safe_problems.append(method_problem(member))
            target = self.code_for(call.args[0].value).strip()
            rest = ", ".join(self.code_for(a).strip().rstrip(",") for a in call.args[1:])
            plan.unsafe.append(Replace(call, f"{target}.serialize({rest})"))
        elif member in UNSAFE_RENAMED and through_module:
            plan.safe_problems.append(renamed_problem(member))
            plan.unsafe.extend(edits)
            plan.unsafe.append(Replace(use.node.attr, UNSAFE_RENAMED[member]))
        else:
            problem = no_counterpart(member)
            plan.safe_problems.append(problem)
            plan.unsafe_problems.append(problem)

    def _plan_export(self, use: _Use, call: cst.Call | None, edits: list[NodeEdit], plan: _Plan) -> None:
        if call is None or has_star_args(call) or len(positional_args(call)) != 1:
            plan.safe_problems.append(EXPORT_SHAPE)
            plan.unsafe_problems.append(EXPORT_SHAPE)
            return
        unsafe_extra: list[NodeEdit] = []
        function = positional_args(call)[0].value
        if not self._visibly_jitted(function):
            plan.safe_problems.append(NEEDS_JIT)
            if self._jax_bound():
                unsafe_extra.append(Replace(function, f"jax.jit({self.code_for(function).strip()})"))
            else:
                plan.unsafe_problems.append(NEEDS_JIT)
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value in EXPORT_SAME_KEYWORDS:
                continue
            plan.safe_problems.append(keyword_problem(arg.keyword.value))
            if arg.keyword.value == "lowering_platforms":
                unsafe_extra.append(Replace(arg.keyword, "platforms"))
            else:
                plan.unsafe_problems.append(keyword_problem(arg.keyword.value))
        plan.safe.extend(edits)
        plan.unsafe.extend(edits + unsafe_extra)

    def _call_of(self, use: _Use) -> cst.Call | None:
        parent = use.ancestors[-2] if len(use.ancestors) >= 2 else None
        if isinstance(parent, cst.Call) and parent.func is use.node:
            return parent
        return None

    @staticmethod
    def _single_positional(call: cst.Call) -> bool:
        return len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star

    def _jax_bound(self) -> bool:
        bindings = self.context.resolver.module_scope.bindings.get("jax", [])
        return bool(bindings) and all(b.qualified == "jax" for b in bindings)

    def _is_jit(self, expression: cst.BaseExpression) -> bool:
        """``jax.jit``, ``jax.jit(...)`` used as a decorator factory, or ``functools.partial(jax.jit, ...)``."""
        if self.qualified_name(expression) in JIT:
            return True
        if isinstance(expression, cst.Call):
            if self.qualified_name(expression.func) in JIT:
                return True  # @jax.jit(static_argnums=...)
            if self.qualified_name(expression.func) == "functools.partial" and expression.args \
                    and self.qualified_name(expression.args[0].value) in JIT:
                return True
        return False

    def _visibly_jitted(self, function: cst.BaseExpression) -> bool:
        if isinstance(function, cst.Call):
            return self.qualified_name(function.func) in JIT and bool(function.args)
        if not isinstance(function, cst.Name):
            return False
        bindings = self.context.resolver.bindings(function)
        if len(bindings) != 1:
            return False
        bound = bindings[0].node
        if isinstance(bound, cst.FunctionDef):
            return any(self._is_jit(decorator.decorator) for decorator in bound.decorators)
        if isinstance(bound, cst.Assign) and len(bound.targets) == 1 and isinstance(bound.value, cst.Call):
            return self.qualified_name(bound.value.func) in JIT and bool(bound.value.args)
        return False


def _alias_name(alias: cst.ImportAlias) -> str:
    return cst.helpers.get_full_name_for_node(alias.name) or ""


# -- ``findings_from_ast``'s reading of the file ----------------------------------------------------------------------
_NEW_SINCE = parse_version(NEW_SINCE)


def _under_old(qualified: str) -> bool:
    return qualified == OLD or qualified.startswith(OLD + ".")


def _ast_imports(view: AstView) -> tuple[list[tuple[ast.AST, str, bool]], bool]:
    """The imports ``visit_Import`` and ``visit_ImportFrom`` collect, as (statement, problem, module level), and
    whether one of them loads ``jax.export``."""
    imports, loads_new = [], False
    for node in walk(view, (ast.Import, ast.ImportFrom)):
        if type(node) is ast.ImportFrom and (node.level or node.module is None):
            continue
        if type(node) is ast.Import:
            fulls = [alias.name for alias in node.names]
            loads, (named, problem) = NEW in fulls, import_problem(fulls)
        else:
            names = None if node.names[0].name == "*" else [alias.name for alias in node.names]
            loads, (named, problem) = loads_new_module(node.module, names), from_import_problem(node.module, names)
        if not (loads or named):
            continue  # (compat code asked only where it matters: a feature test may be undecidable)
        ancestors = view.ancestors(node)
        if view.in_compat_code(ancestors, node):
            continue
        loads_new = loads_new or loads
        if named:
            module_level = not any(type(a) in _DEFINITIONS for a, _ in ancestors)
            imports.append((node, problem, module_level))
    return imports, loads_new


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclass
class _AstUse:
    """``_Use`` from ``ast``."""
    reference: ast.AST
    member: str | None
    node: ast.AST
    fully_spelled: bool


def _ast_uses(view: AstView) -> list[_AstUse]:
    """The uses ``visit_Name`` and ``visit_Attribute`` collect, in source order (libcst's: no use holds another)."""
    uses = []
    for node in walk(view, (ast.Name, ast.Attribute)):
        if type(node) is ast.Attribute and node.attr != "export":
            continue  # its qualified name cannot be the old module
        qualified = view.imported_name(node, _under_old)
        if qualified is None or not _under_old(qualified):
            continue
        if type(node) is ast.Attribute and qualified != OLD:
            continue
        if view.in_compat_code(view.ancestors(node), node):
            continue
        if qualified != OLD:
            uses.append(_AstUse(node, qualified[len(OLD) + 1:], node, False))
            continue
        parent, field = view.parent(node)
        if type(parent) is ast.Attribute and field == "value":
            uses.append(_AstUse(node, parent.attr, parent, type(node) is ast.Attribute))
        else:
            uses.append(_AstUse(node, None, node, type(node) is ast.Attribute))
    return uses


# A use's reasons against a fix (``_plan_use``): (reason, whether it rules out the unsafe fix too: None when that
# depends on what only libcst knows); _UNKNOWN where whether there is a reason at all does.
_UNKNOWN = ("", None)


def _use_problems(view: AstView, use: _AstUse, loads_new: bool) -> list[tuple[str, bool | None]]:
    problems: list[tuple[str, bool | None]] = []
    if use.fully_spelled:
        if view.text(use.reference) != OLD:
            raise Undecidable("an unusual spelling of the module")  # libcst's text of it may hold parentheses
        if not loads_new:
            problems.append((NOT_LOADED, False))
    member = use.member
    if member is None:
        return problems + [(MODULE_ON_ITS_OWN, True)]
    through_module = use.node is not use.reference
    parent, field = view.parent(use.node)
    call = parent if type(parent) is ast.Call and field == "func" else None
    arguments = [] if call is None else [*call.args, *call.keywords]
    single_positional = len(arguments) == 1 and type(arguments[0]) not in (ast.keyword, ast.Starred)
    if member in SAME or member in RENAMED:
        pass
    elif member == "deserialize":
        if call is not None and not single_positional:
            problems.append((DESERIALIZE_ARGUMENTS, False))
    elif member == "export":
        problems += _export_problems(view, call)
    elif member in METHODS and through_module and call is not None and single_positional:
        problems.append((method_problem(member), False))
    elif member == "serialize" and through_module and call is not None and not has_star_args_ast(call) \
            and len(call.args) == 1:  # without a star, the one positional argument comes first
        problems.append((method_problem(member), False))
    elif member in UNSAFE_RENAMED and through_module:
        problems.append((renamed_problem(member), False))
    else:
        problems.append((no_counterpart(member), True))
    return problems


def _export_problems(view: AstView, call: ast.Call | None) -> list[tuple[str, bool | None]]:
    """``_plan_export``'s reasons."""
    if call is None or has_star_args_ast(call) or len(call.args) != 1:
        return [(EXPORT_SHAPE, True)]
    problems: list[tuple[str, bool | None]] = []
    jitted = _visibly_jitted(view, call.args[0])
    if jitted is None:
        problems.append(_UNKNOWN)
    elif not jitted:
        problems.append((NEEDS_JIT, None if view.bound_in_file("jax") else view.module_imports("jax") != {"jax"}))
    for keyword in call.keywords:
        if keyword.arg not in EXPORT_SAME_KEYWORDS:
            problems.append((keyword_problem(keyword.arg), keyword.arg != "lowering_platforms"))
    return problems


def _visibly_jitted(view: AstView, function: ast.AST) -> bool | None:
    """``_visibly_jitted``; None where it reads a name's binding (libcst's resolver does)."""
    if type(function) is ast.Call:
        return view.imported_name(function.func, JIT.__contains__) in JIT and bool(function.args or
                                                                                  function.keywords)
    if type(function) is not ast.Name:
        return False
    return False if view.binding_count(function.id) == 0 else None


def _all_use_problems(view: AstView, loads_new: bool) -> list[tuple[str, bool | None]]:
    return [problem for use in sorted(_ast_uses(view), key=lambda use: view.offset_of(use.reference))
            for problem in _use_problems(view, use, loads_new)]


def _any_use_problem(view: AstView, loads_new: bool) -> bool:
    """Whether a use gives a reason against the safe fix (the range withholds the fix only when nothing else does)."""
    problems = _all_use_problems(view, loads_new)
    if any(problem is not _UNKNOWN for problem in problems):
        return True
    if problems:
        raise Undecidable("whether an `export(f)` needs `jax.jit` (libcst's bindings)")
    return False


def _first_problem_ruling_out_fixes(view: AstView, loads_new: bool) -> str:
    """The first reason against the safe fix, where a reason rules out the unsafe one too (no fix at all)."""
    problems = _all_use_problems(view, loads_new)
    if not any(rules_out_unsafe is True for _, rules_out_unsafe in problems):
        raise Undecidable("a fix may be offered: libcst plans and writes it")
    if problems[0] is _UNKNOWN:
        raise Undecidable("whether an `export(f)` needs `jax.jit` (libcst's bindings)")
    return problems[0][0]
