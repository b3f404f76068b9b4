"""JAX304 deserialize-expiry: ``jax.export.deserialize`` of stored bytes may refuse old artifacts (JAX 0.11.1)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.ast_calls import argument_value, arguments_in_order
from jaxlint.lint.ast_findings import AstFinding, AstView, walk
from jaxlint.rules.base import Invalid, Rule, Valid

DESERIALIZE = "jax.export.deserialize"
SINCE = "0.11.1"
MESSAGE = (f"`jax.export.deserialize` refuses artifacts outside the backward-compatibility window since JAX {SINCE} "
           f"(all written by JAX 0.8.1; sharded ones written before 2026-01-15, even with "
           f"`jax_export_deserialize_expired_versions`); run `jaxlint exports PATHS` on the stored artifacts")


class DeserializeExpiry(Rule):
    code = "JAX304"
    name = "deserialize-expiry"
    summary = "jax.export.deserialize of stored bytes may refuse old artifacts since JAX 0.11.1 (opt-in)"
    since = SINCE
    opt_in = True
    triggers = ("deserialize",)
    ast_names = frozenset({DESERIALIZE})
    decides_from_ast = True  # no finding has a fix (``findings_from_ast``)
    explanation = """
## What it does
Reports every `jax.export.deserialize(...)` call, except one whose argument is visibly serialized in the same code
(`deserialize(exp.serialize())`, or a name whose every binding in its scope is a `.serialize()` call): the bytes
loaded are probably stored artifacts, and some of them may no longer load. Opt-in
(`--extend-select JAX304`): it is a reminder to check the data, not a bug in the code. There is no fix; run
`jaxlint exports PATHS` to list the stored artifacts, the JAX version that wrote each, and whether the target
version loads it.

## Why
From JAX 0.11.1 the reader refuses artifacts outside the backward-compatibility window:
`ValueError: Exported being deserialized seems to be older than the 6-month backward-compatibility window and
cannot be deserialized anymore.The Exported uses serialization version 2. See
https://docs.jax.dev/en/latest/export/export.html#compatibility-guarantees.` (0.11.1, verbatim, missing space included; 0.12.0 links `.../latest/501/export.html`). In
practice (checked with artifacts from each writer): everything written by JAX 0.8.1 is refused (the flag
`jax_export_deserialize_expired_versions` turns this into a `DeprecationWarning` for unsharded ones), and sharded
artifacts that store only an `HloSharding` (written before 2026-01-15, e.g. by 0.8.2) are refused even with the
flag. Artifacts from 0.8.2 (unsharded), 0.9.x, 0.10.x and 0.11.x load. The bytes record no creation date.

## Example
```python
with open("model.jaxexport", "rb") as f:
    exp = jax.export.deserialize(f.read())
```
Check the stored files with `jaxlint exports models/`, and re-export (or re-serialize with JAX 0.10.2/0.11.0:
`jax.export.deserialize(blob).serialize()`, for unsharded artifacts) the ones it reports.

## Fix safety
No fix: the code is right, the data may be too old.

## JAX version
0.11.1 (`jax/_src/export/serialization.py`). The flag `jax_export_deserialize_expired_versions` (JAX303) is a
temporary crutch.
"""

    VALID = [
        Valid("""
            import jax
            exp = jax.export.export(jax.jit(f))(x)
            blob = exp.serialize()
            again = jax.export.deserialize(blob)
            twice = jax.export.deserialize(exp.serialize())
        """, note="round trip in the same code: bytes written by the running JAX"),
        Valid("""
            import pickle
            obj = pickle.loads(data)
            model.deserialize(blob)
        """, note="other deserialize functions"),
        Valid("""
            import jax
            def deserialize(blob):
                return blob
            exp = deserialize(data)
        """, note="a project's own deserialize"),
        Valid("""
            import jax
            exp = jax.export.deserialize(blob)
        """, target_version="0.11.0", note="target before the expiry check"),
    ]

    INVALID = [
        Invalid("""
            import jax
            with open(path, "rb") as f:
                exp = jax.export.deserialize(f.read())
        """),
        Invalid("""
            from jax import export
            def load(blob: bytearray):
                return export.deserialize(blob)
        """, note="from jax import export; a parameter"),
        Invalid("""
            from jax.export import deserialize
            blob = exp.serialize()
            if cached:
                blob = cache.read()
            exp2 = deserialize(blob)
        """, note="a name with another binding than .serialize()"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) != DESERIALIZE:
            return
        if node.args and not node.args[0].star and self._serialized_here(node.args[0].value):
            return
        self.report(node, MESSAGE)

    def _serialized_here(self, node: cst.BaseExpression) -> bool:
        if _is_serialize_call(node):
            return True
        if not isinstance(node, cst.Name):
            return False
        bindings = self.context.resolver.bindings(node)
        return bool(bindings) and all(
            isinstance(b.node, cst.Assign) and _is_serialize_call(b.node.value)
            and any(isinstance(t.target, cst.Name) and t.target.value == node.value for t in b.node.targets)
            for b in bindings)


    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) -------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` reports, from the ``ast`` tree: each call whose callee the resolver names
        ``jax.export.deserialize`` (``AstView.qualified_name_unless``: ``Undecidable`` where that is not certain),
        but for the bytes visibly serialized here (a name's bindings: ``AstNames``, ``NameResolver``'s port)."""
        if not cls.applies_to(view.settings):
            return []  # (the engine does not ask then)
        names = view.names
        found = []
        for node in walk(view, (ast.Call,)):
            if not _may_be_deserialize(view, node.func):
                continue
            arguments = arguments_in_order(node)
            if arguments and type(arguments[0]) is not ast.Starred \
                    and not (type(arguments[0]) is ast.keyword and arguments[0].arg is None) \
                    and _serialized_here_ast(names, argument_value(arguments[0])):
                continue
            found.append(AstFinding(cls.code, node, MESSAGE))
        return found


def _may_be_deserialize(view: AstView, func: ast.AST) -> bool:
    """Whether the resolver names ``func`` ``jax.export.deserialize`` (a chain whose root no import binds is no
    qualified name)."""
    return view.imported_name(func, DESERIALIZE.__eq__) == DESERIALIZE


def _serialized_here_ast(names, node: ast.AST) -> bool:
    """``_serialized_here`` on ``ast``."""
    if _is_serialize_call_ast(node):
        return True
    if type(node) is not ast.Name:
        return False
    bindings = names().bindings(node)
    return bool(bindings) and all(
        type(b.node) is ast.Assign and _is_serialize_call_ast(b.node.value)
        and any(type(target) is ast.Name and target.id == node.id for target in b.node.targets) for b in bindings)


def _is_serialize_call_ast(node: ast.AST) -> bool:
    return type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "serialize"


def _is_serialize_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "serialize"
