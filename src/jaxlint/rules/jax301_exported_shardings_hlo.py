"""JAX301 exported-shardings-hlo: ``Exported.in_shardings_hlo`` / ``out_shardings_hlo`` are always ``None`` now."""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst
from jaxlint.lint.lazy_libcst import Visits, visitor

from jaxlint.analysis.ast_calls import argument_value, arguments_in_order, string_value as ast_string_value
from jaxlint.analysis.ast_value_kinds import AstValueKinds
from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, walk
from jaxlint.lint.ast_names import AstNames
from jaxlint.lint.inference import EXPORTED as AN_EXPORTED, OTHER
from jaxlint.rules.base import Invalid, Report, Rule, Valid
from jaxlint.analysis.jax_imports import TracksJaxImports
from jaxlint.analysis.calls import string_value
from jaxlint.project.index import active_index

FIELDS = {"in_shardings_hlo": "in_shardings_jax", "out_shardings_hlo": "out_shardings_jax"}
EXPORTED = frozenset({"jax.export.Exported", "jax.experimental.export.Exported", "jax._src.export._export.Exported"})
REPLACE = frozenset({"dataclasses.replace"})


@dataclass
class _Candidate:
    node: cst.CSTNode
    message: str
    ancestors: tuple[cst.CSTNode, ...]
    # What the receiver holds (``jaxlint.lint.inference``): AN_EXPORTED, OTHER, or None when unknown.
    kind: str | None


class ExportedShardingsHlo(TracksJaxImports, Rule):
    code = "JAX301"
    name = "exported-shardings-hlo"
    summary = "Exported.in_shardings_hlo / out_shardings_hlo are always None since JAX 0.11.1"
    since = "0.11.1"
    triggers = ("shardings_hlo",)
    # Decided from ``ast`` (``findings_from_ast``) where each receiver's kind is certain there (no finding has a fix).
    decides_from_ast = True
    explanation = """
## What it does
Finds reads of `.in_shardings_hlo` / `.out_shardings_hlo` (also through `getattr(exp, "in_shardings_hlo")`), and
these keywords when an `Exported` is built by hand (`jax.export.Exported(...)`, `dataclasses.replace(exp, ...)`).
It decides per receiver, with the value inference (`jaxlint.lint.inference`):
- a receiver known to hold an `Exported` (`jax.export.deserialize(...)`, `jax.export.export(f)(...)`, a parameter
  annotated `jax.export.Exported`, the module's own function returning one) is always reported;
- a receiver known to be something else (an instance of a class of the module, a parameter annotated with a
  project's own class, imported or not) never is;
- a receiver of unknown type is reported in files that use JAX, unless the file defines such attributes itself (a
  `def in_shardings_hlo`, `self.in_shardings_hlo = ...`, a class attribute of that name) or imports a class of the
  project that does (`from pkg.records import Record`, or its module: `jaxlint.project.index` reads the project's
  other modules); `self.in_shardings_hlo` is never reported.

## Why
From JAX 0.11.1 the `Exported` fields `in_shardings_hlo` / `out_shardings_hlo` are kept only for compatibility:
their docstring says "Not used anymore starting 3/17/2026", their value is always `(None,) * n`, and nothing warns
on access (checked on 0.11.1, 0.11.2, 0.12.0.1). In 0.10.2 a *deserialized* export gave the HloShardings rebuilt
from its named shardings, e.g. `({devices=[2]<=[2]},)`; from 0.11.1 the same artifact gives `(None,)`: a silent
change. The shardings are available as `NamedSharding`s from the methods `in_shardings_jax(mesh)` /
`out_shardings_jax(mesh)`: `mesh=None` gives them on the export's `AbstractMesh`, a `Mesh` gives the same spec on
that mesh (a mismatching mesh raises `ValueError: NamedSharding new mesh ... does not match the mesh used for
export ...`). `in_shardings_jax(None)` works on every version; `in_shardings_jax()` only from 0.11.1 (before:
`TypeError: Exported.in_shardings_jax() missing 1 required positional argument: 'mesh'`).

## Example
```python
exp = jax.export.deserialize(blob)
shardings = exp.in_shardings_hlo
```
Use instead:
```python
shardings = exp.in_shardings_jax(mesh)  # tuple of NamedSharding | None
```

## Fix safety
No fix: `in_shardings_jax(...)` returns `NamedSharding`s, not `HloSharding`s, so the code using the value must be
adapted by hand. (The 0.10.2 value of a deserialized export can be rebuilt only with private API, and it differs
from 0.10.2 for exports that were not deserialized.)

## JAX version
0.11.1 (`jax/_src/export/_export.py`; `Exported._has_named_shardings` was removed in the same release).
"""

    VALID = [
        Valid("""
            import jax
            shardings = exp.in_shardings_jax(mesh)
            outs = exp.out_shardings_jax(None)
        """, note="the replacement"),
        Valid("""
            import jax
            from myproject.artifacts import ArtifactRecord

            def describe(record: ArtifactRecord):
                return record.in_shardings_hlo
        """, note="a project class imported from another file"),
        Valid("""
            import dataclasses
            import jax

            @dataclasses.dataclass
            class Plan:
                in_shardings_hlo: tuple = ()

            plan = dataclasses.replace(Plan(), in_shardings_hlo=(None,))
        """, note="dataclasses.replace of the project's own dataclass"),
        Valid("""
            import jax

            class Record:
                pass

            record = Record()
            print(record.out_shardings_hlo)
        """, note="an instance of the module's own class"),
        Valid("""
            import jax

            class MyExport:
                def __init__(self, hlo):
                    self.in_shardings_hlo = hlo

            def shardings(e: MyExport):
                return e.in_shardings_hlo
        """, note="a class that defines such attributes itself"),
        Valid("""
            import jax

            def in_shardings_hlo(exported):
                return exported.in_shardings_hlo

            print(in_shardings_hlo(exp))
        """, note="a project's own def in_shardings_hlo"),
        Valid("""
            import jax
            from dataclasses import dataclass

            @dataclass
            class Artifact:
                in_shardings_hlo: tuple = ()

            a = Artifact()
            a.out_shardings_hlo
        """, note="a dataclass field of that name in this file"),
        Valid("""
            import numpy as np
            value = record.in_shardings_hlo
        """, note="a file that does not use JAX"),
        Valid("""
            import jax
            class Wrapper:
                def describe(self):
                    return self.in_shardings_hlo
        """, note="self.<attr>: the class's own attribute"),
        Valid("""
            import jax
            try:
                shardings = exp._has_named_shardings and exp.in_shardings_hlo
            except AttributeError:
                shardings = exp.in_shardings_jax(None)
        """, note="compat code"),
        Valid("""
            import jax
            if hasattr(exp, "in_shardings_jax"):
                shardings = exp.in_shardings_jax(None)
            else:
                shardings = exp.in_shardings_hlo
        """, note="compat code: hasattr test for the new method"),
        Valid("""
            import jax
            exp = jax.export.deserialize(blob)
            print(exp.in_shardings_hlo)
        """, target_version="0.11.0", note="target before the change"),
    ]

    INVALID = [
        Invalid("""
            import jax
            exp = jax.export.deserialize(blob)
            hlo = exp.in_shardings_hlo
        """, note="attribute read on an Exported"),
        Invalid("""
            import jax

            class CachedExport:
                @property
                def in_shardings_hlo(self):
                    return self._hlo

            def load(blob):
                exported = jax.export.deserialize(blob)
                return exported.in_shardings_hlo
        """, note="the file defines its own property, but this receiver is a deserialized Exported"),
        Invalid("""
            import jax
            from jax import export

            def specs(exp: export.Exported, own):
                own.in_shardings_hlo = None
                return exp.out_shardings_hlo
        """, note="an annotated Exported parameter in a file that also stores such an attribute"),
        Invalid("""
            import jax

            def serialize_step(f, x):
                exp = jax.export.export(jax.jit(f))(x)
                return exp.in_shardings_hlo, exp.out_shardings_hlo
        """, count=2, note="jax.export.export(f)(...) gives an Exported"),
        Invalid("""
            import jax
            exported = jax.export.Exported(
                fun_name="f", in_tree=tree, in_avals=avals, out_tree=out_tree, out_avals=out_avals,
                in_shardings_hlo=(None,), out_shardings_hlo=(None,), nr_devices=1,
            )
        """, count=2, note="both fields passed to a hand-built Exported"),
        Invalid("""
            from jax import export
            def output_specs(exp: export.Exported):
                return [str(s) for s in exp.out_shardings_hlo]
        """, note="out_shardings_hlo"),
        Invalid("""
            import jax
            exp = jax.export.deserialize(blob)
            both = (exp.in_shardings_hlo, exp.out_shardings_hlo)
        """, count=2, note="both fields"),
        Invalid("""
            import jax
            hlo = getattr(exp, "in_shardings_hlo")
        """, note="through getattr with a literal name"),
        Invalid("""
            from jax.export import Exported
            exp = Exported(fun_name="f", in_tree=t, in_avals=a, in_shardings_hlo=(None,), nr_devices=1)
        """, note="building Exported by hand"),
        Invalid("""
            import dataclasses
            import jax
            patched = dataclasses.replace(exp, out_shardings_hlo=(None,))
        """, note="dataclasses.replace of an Exported"),
        Invalid("""
            def shardings(exp):
                import jax
                return exp.in_shardings_hlo
        """, note="function-local jax import"),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self._candidates: list[_Candidate] = []
        self._defined = False

    # -- what the file defines -----------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value in FIELDS:
            self._defined = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._note_definition(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._note_definition(node.target)

    def visit_Import(self, node: cst.Import) -> None:
        super().visit_Import(node)
        for alias in node.names:
            self._note_import(0, cst.helpers.get_full_name_for_node(alias.name) or "", None)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        super().visit_ImportFrom(node)
        if isinstance(node.names, cst.ImportStar):
            self._note_import(len(node.relative), cst.helpers.get_full_name_for_node(node.module) or "", None)
            return
        for alias in node.names:
            module = (cst.helpers.get_full_name_for_node(node.module) or "") if node.module is not None else ""
            self._note_import(len(node.relative), module, cst.helpers.get_full_name_for_node(alias.name))

    def _note_import(self, level: int, module: str, name: str | None) -> None:
        if not self._defined and _imports_hlo_class(self.context.path, level, module, name):
            self._defined = True

    def _note_definition(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name) and target.value in FIELDS:
            self._defined = True
        elif isinstance(target, cst.Attribute) and target.attr.value in FIELDS:
            self._defined = True

    # -- uses --------------------------------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        field = node.attr.value
        if field not in FIELDS:
            return
        if isinstance(node.value, cst.Name) and node.value.value in ("self", "cls"):
            return
        self._candidate(node, self._read_message(field), self.context.inference.kind_of(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.qualified_name(node.func)
        if isinstance(node.func, cst.Name) and self.context.resolver.is_builtin(node.func, "getattr") \
                and len(node.args) >= 2:
            field = string_value(node.args[1].value)
            if field in FIELDS:
                self._candidate(node, self._read_message(field), self.context.inference.kind_of(node.args[0].value))
        elif qualified in EXPORTED or qualified in REPLACE:
            if qualified in EXPORTED:
                kind = AN_EXPORTED
            else:  # ``dataclasses.replace(obj, ...)``: whatever ``obj`` holds
                kind = self.context.inference.kind_of(node.args[0].value) if node.args else None
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in FIELDS:
                    self._candidate(arg, self._keyword_message(arg.keyword.value), kind)

    def _keyword_message(self, field: str) -> str:
        return (f"`{field}=` is ignored since JAX 0.11.1: the field is no longer used and reads back as `None`; an "
                f"`Exported`'s shardings are its named shardings now (read them with `{FIELDS[field]}(mesh)`): drop "
                f"this argument and give the named shardings instead")

    def _read_message(self, field: str) -> str:
        new = FIELDS[field]
        return (f"`Exported.{field}` is always a tuple of `None` since JAX 0.11.1, without a warning (in 0.10.2 a "
                f"deserialized export gave its HloShardings): use `{new}(mesh)`, which returns `NamedSharding`s "
                f"(`{new}(None)` for the export's abstract mesh works on every version), and adapt the code that "
                f"uses the value")

    def _candidate(self, node: cst.CSTNode, message: str, kind: str | None) -> None:
        if kind == OTHER or self._in_feature_test():
            return
        self._candidates.append(_Candidate(node, message, tuple(self.context.ancestors), kind))

    def _in_feature_test(self) -> bool:
        """Inside ``if hasattr(x, "in_shardings_jax")`` (or any ``*_shardings_*`` name): deliberate compat code."""
        for ancestor in self.context.ancestors:
            if isinstance(ancestor, (cst.If, cst.IfExp)):
                finder = visitor(_HasattrShardings)()
                ancestor.test.visit(finder)
                if finder.found:
                    return True
        return False

    def leave_Module(self, node: cst.Module) -> None:
        # A receiver known to be an ``Exported`` is reported; one of unknown type only in a file that uses JAX and
        # defines no attribute of that name itself.
        unknown_ok = self.imports_jax and not self._defined
        for candidate in self._candidates:
            if candidate.kind != AN_EXPORTED and not unknown_ok:
                continue
            self.context.add_report(Report(self.code, candidate.node, candidate.message, None, candidate.ancestors))

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) -------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What the visit reports, from the ``ast`` tree: the same candidates, and each receiver's kind from
        ``AstValueKinds`` (``Undecidable`` where only libcst's inference can follow it)."""
        if not cls.applies_to(view.settings):
            return []  # (the engine does not ask then)
        names = view.names
        candidates = [use for use in _ast_uses(view, names) if not _in_feature_test_ast(view, use[0])]
        if not candidates or not _imports_jax(view):
            return []  # without a ``jax`` import no receiver is known to be an ``Exported``, nor is an unknown one reported
        rule = view.rule(cls)
        defined = _defines_fields(view)
        kinds = AstValueKinds(view)
        found = []
        for node, field, receiver in candidates:
            kind = AN_EXPORTED if receiver is _BUILT else kinds.kind_of(receiver) if receiver is not None else None
            if kind == OTHER or (kind != AN_EXPORTED and defined):
                continue
            message = rule._keyword_message(field) if type(node) is ast.keyword else rule._read_message(field)
            found.append(AstFinding(cls.code, node, message))
        return found


class _HasattrShardings(Visits):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "hasattr" and len(node.args) == 2:
            name = string_value(node.args[1].value) or ""
            if "shardings" in name:
                self.found = True


def _imports_hlo_class(path: str, level: int, module: str, name: str | None) -> bool:
    """An import of a project class that defines such attributes (or of its module) counts as defining them:
    ``record.in_shardings_hlo`` may well be that class's (``jaxlint.project.index``)."""
    index = active_index()
    if index is None:
        return False
    path = index.resolve(os.path.abspath(path), level, module, name)
    classes = index.hlo_classes(path) if path is not None else []
    return bool(classes) and (name is None or name in classes or os.path.splitext(os.path.basename(path))[0] == name
                              or path.endswith(os.sep + name + os.sep + "__init__.py"))


# -- the ``ast`` path ----------------------------------------------------------------------------------------------
_BUILT = object()  # the receiver of a keyword passed to ``Exported(...)``: an ``Exported`` by construction


def _ast_uses(view: AstView, names: Callable[[], AstNames]):
    """(node, field, receiver) for each use ``visit_Attribute``/``visit_Call`` makes a candidate of, in source order:
    the receiver whose kind decides (``_BUILT`` for ``Exported(...)``'s keywords; None where the visit asks no
    kind: ``dataclasses.replace()`` without arguments)."""
    for node in walk(view, (ast.Attribute, ast.Call, ast.Import, ast.ImportFrom)):
        if type(node) in (ast.Import, ast.ImportFrom):
            dotted = [alias.name for alias in node.names] if type(node) is ast.Import else [node.module or ""]
            if any(part in FIELDS for name in dotted for part in name.split(".")[1:]):
                raise Undecidable("a module named like the field: an attribute to libcst")
            continue
        if type(node) is ast.Attribute:
            if node.attr in FIELDS and not (type(node.value) is ast.Name and node.value.id in ("self", "cls")):
                yield node, node.attr, node.value
            continue
        arguments = arguments_in_order(node)
        func = node.func
        getattr_call = type(func) is ast.Name and func.id == "getattr" and len(arguments) >= 2
        keywords = [keyword for keyword in node.keywords if keyword.arg in FIELDS]
        if not getattr_call and not keywords:
            continue
        resolver = names()
        if getattr_call and resolver.qualified_name(func) == "builtins.getattr":
            field = ast_string_value(argument_value(arguments[1]))
            if field in FIELDS:
                yield node, field, argument_value(arguments[0])
            continue
        qualified = resolver.qualified_name(func)
        if qualified in EXPORTED or qualified in REPLACE:
            receiver = _BUILT if qualified in EXPORTED else argument_value(arguments[0]) if arguments else None
            for keyword in keywords:
                yield keyword, keyword.arg, receiver


def _in_feature_test_ast(view: AstView, node: ast.AST) -> bool:
    """``_in_feature_test``: under an ``if``/conditional expression whose test calls ``hasattr`` with a string
    naming ``*shardings*``."""
    for ancestor, _ in view.ancestors(node):
        if type(ancestor) in (ast.If, ast.IfExp):
            for inner in ast.walk(ancestor.test):
                if type(inner) is ast.Call and type(inner.func) is ast.Name and inner.func.id == "hasattr" \
                        and len(inner.args) + len(inner.keywords) == 2:
                    if "shardings" in (ast_string_value(argument_value(arguments_in_order(inner)[1])) or ""):
                        return True
    return False


def _imports_jax(view: AstView) -> bool:
    """``TracksJaxImports.imports_jax``: an import of ``jax`` or of a module under it, in any scope."""
    for node in walk(view, (ast.Import, ast.ImportFrom)):
        if type(node) is ast.Import:
            if any(alias.name.split(".")[0] == "jax" for alias in node.names):
                return True
        elif node.module is not None and not node.level and node.module.split(".")[0] == "jax":
            return True
    return False


def _defines_fields(view: AstView) -> bool:
    """What the visit notes as the file defining such attributes: a ``def`` of that name, an assignment (plain or
    annotated) to a name or an attribute of that name, an import of a project class that defines them."""
    for node in walk(view, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign, ast.Import,
                            ast.ImportFrom)):
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            if node.name in FIELDS:
                return True
        elif kind is ast.Assign or kind is ast.AnnAssign:
            for target in (node.targets if kind is ast.Assign else [node.target]):
                if (type(target) is ast.Name and target.id in FIELDS) \
                        or (type(target) is ast.Attribute and target.attr in FIELDS):
                    return True
        elif kind is ast.Import:
            if any(_imports_hlo_class(view.path, 0, alias.name, None) for alias in node.names):
                return True
        elif any(alias.name == "*" for alias in node.names):
            if _imports_hlo_class(view.path, node.level, node.module or "", None):
                return True
        elif any(_imports_hlo_class(view.path, node.level, node.module or "", alias.name) for alias in node.names):
            return True
    return False
