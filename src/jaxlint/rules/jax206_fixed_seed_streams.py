"""JAX206 fixed-seed-streams: random values drawn from a fixed seed changed in JAX 0.5.0 (opt-in notice)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, statement_of, walk
from jaxlint.project.versions import Version
from jaxlint.rules.base import Invalid, Report, Rule, Valid
from jaxlint.analysis.ast_calls import argument as argument_ast
from jaxlint.analysis.calls import argument

SINCE = "0.5.0"  # ``jax_threefry_partitionable`` defaults to True from here
FLAG = "jax_threefry_partitionable"
FLAG_SINCE = "0.3.24"  # the first release that defines the option (read in the release tags)
KEY_MAKERS = frozenset({"jax.random.PRNGKey", "jax.random.key"})


def _int_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def _int_literal_ast(node: ast.expr) -> bool:
    """``_int_literal``: libcst's ``Integer`` is ast's int constant (not a bool), after at most one minus."""
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        node = node.operand
    return type(node) is ast.Constant and type(node.value) is int


def _message(key: str, others: int) -> str:
    """The file's one finding: on its first key with a literal seed (``key``: its text), counting the others."""
    more = f" (and {others} more key{'s' if others > 1 else ''} with a literal seed in this file)" if others else ""
    return (f"`{key}`{more}: random values from a fixed seed differ between JAX < {SINCE} and >= {SINCE} (`{FLAG}` "
            f"became the default in {SINCE}), and this project's range holds both; to get one stream everywhere, set "
            f"`jax.config.update(\"{FLAG}\", True)` (or `False` for the old values), else regenerate values recorded "
            f"on one side")


class FixedSeedStreams(Rule):
    code = "JAX206"
    name = "fixed-seed-streams"
    summary = "random values from a fixed seed differ before and after JAX 0.5.0 (opt-in; range crossing 0.5.0)"
    since = SINCE
    behaviour_change = True
    opt_in = True
    triggers = ()
    required_words = frozenset({frozenset({"jax", "PRNGKey"}), frozenset({"jax", "key"})})
    ast_names = KEY_MAKERS
    decides_from_ast = True  # no fix: the keys' callees and literal seeds are read from ``ast`` (``findings_from_ast``)
    explanation = f"""
## What it does
Reports, once per file, a key made from a literal seed (`jax.random.PRNGKey(0)`, `jax.random.key(42)`, also
`seed=0`) when the project's version range crosses JAX 0.5.0: its min version (from its pins) is below 0.5.0 and
the target is 0.5.0 or later. The finding sits on the first such key of the file and counts the others. A notice,
without a fix. Opt-in (`--extend-select JAX206`): most code that seeds with a constant (model initialisation,
examples) does not depend on the exact numbers, only code that compares them with recorded values does.

Silent when the file mentions `{FLAG}` (it chooses the stream itself: `jax.config.update("{FLAG}", ...)`, the
`JAX_THREEFRY_PARTITIONABLE` variable), when the range does not cross 0.5.0 (min version 0.5.0 or later, target
before it; a project without pins has min = target, so nothing crosses), and for seeds that are not literals.

## Why
JAX 0.5.0 turned `{FLAG}` on by default (changelog 0.5.0: "Enable `{FLAG}` by default"). Every stream
drawn from a key changes: `jax.random.split`, `normal`, `uniform`, `randint`, `permutation`... (only `fold_in` keeps
its value). Executed: `jax.random.normal(jax.random.PRNGKey(0), (3,))` is `[1.8160863, -0.48262316, 0.33988908]` on
JAX 0.4.13 and 0.4.20 and `[1.6226422, 2.0252647, -0.43359444]` on 0.10.2 and 0.12.0.1 (the same with
`jax.random.key(0)`); `split(PRNGKey(0))[1]` is `[2718843009, 1272950319]` before and `[928981903, 3453687069]` after.
Nothing raises: tests with recorded outputs fail on one side of the range, or results silently differ between the
project's CI on the oldest and the newest JAX.

## Example
```python
key = jax.random.PRNGKey(0)
noise = jax.random.normal(key, (3,))
```
Use instead (one stream on every version of the range):
```python
jax.config.update("{FLAG}", True)
key = jax.random.PRNGKey(0)
noise = jax.random.normal(key, (3,))
```

## Fix safety
No fix: which stream to keep is the project's choice. `jax.config.update("{FLAG}", True)` gives the new
values on every version (`False` the old ones; the option exists from JAX {FLAG_SINCE} to 0.12.0.1 at least,
executed on 0.4.13, 0.4.20, 0.10.2 and 0.12.0.1), or the recorded values can be regenerated once the range starts
at 0.5.0.

## JAX version
0.5.0 (changelog). Only when the min version is below it and the target at or after it.
"""

    VALID = [
        Valid("""
            import jax
            key = jax.random.PRNGKey(0)
        """, min_version="0.5.0", note="the range starts at 0.5.0: one stream everywhere"),
        Valid("""
            import jax
            key = jax.random.PRNGKey(0)
        """, min_version="0.4.20", target_version="0.4.38", note="the range ends before 0.5.0"),
        Valid("""
            import jax
            jax.config.update("jax_threefry_partitionable", True)
            key = jax.random.PRNGKey(0)
        """, min_version="0.4.20", note="the file chooses the stream itself"),
        Valid("""
            import jax
            def init(seed):
                return jax.random.PRNGKey(seed)
            key = jax.random.key(args.seed)
        """, min_version="0.4.20", note="seeds that are not literals"),
        Valid("""
            import numpy as np
            import torch
            rng = np.random.default_rng(0)
            torch.manual_seed(0)
        """, min_version="0.4.20", note="other libraries' seeds"),
    ]

    INVALID = [
        Invalid("""
            import jax
            key = jax.random.PRNGKey(0)
            x = jax.random.normal(key, (3,))
        """, min_version="0.4.20", note="a literal seed, range 0.4.20 ... newest"),
        Invalid("""
            from jax import random
            k1 = random.key(seed=42)
            k2 = random.PRNGKey(-1)
        """, min_version="0.4.30", note="one notice per file, on the first key; key(seed=...) and negative seeds"),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self._seeded: list[tuple[cst.Call, tuple[cst.CSTNode, ...]]] = []  # (key call, its ancestors)

    @classmethod
    def applies_to(cls, settings) -> bool:
        # Only a range that crosses 0.5.0 holds both streams (an unknown min version equals the target).
        return super().applies_to(settings) and settings.min_version < Version(SINCE)

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualified_name(node.func) not in KEY_MAKERS:
            return
        seed = argument(node, "seed", 0)
        if seed is None or seed.star or not _int_literal(seed.value):
            return
        self._seeded.append((node, tuple(self.context.ancestors)))

    def leave_Module(self, node: cst.Module) -> None:
        if not self._seeded or FLAG in self.context.file_text.lower():
            return
        first, ancestors = self._seeded[0]
        message = _message(self.code_for(first).strip(), len(self._seeded) - 1)
        self.context.add_report(Report(self.code, first, message, None, ancestors))

    # -- the same finding from ``ast`` (``jaxlint.lint.ast_findings``) ----------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """``visit_Call`` and ``leave_Module``'s finding, read from ``ast`` (``Undecidable`` only where a callee's
        name cannot be resolved for certain, or where the first key's text is not libcst's)."""
        if not cls.applies_to(view.settings) or FLAG in view.file_text.lower():
            return []  # (the engine asks only a rule that applies; ``decide`` alone may ask any)
        seeded = [node for node in walk(view, (ast.Call,)) if _seeded_key(view, node)]
        if not seeded:
            return []
        if any(type(ancestor) is ast.JoinedStr for node in seeded for ancestor, _ in view.ancestors(node)):
            raise Undecidable("a key in an f-string")  # (before Python 3.12 its place there may be off)
        # libcst visits in source order; ``ast``'s fields are not always (``a if k(0) else b``, decorators)
        first = min(seeded, key=lambda node: (node.lineno, node.col_offset))
        # the message quotes its text: ``Undecidable`` where libcst's span would hold more (parentheses of its own)
        view.span(first, statement_of(view.ancestors(first)))
        return [AstFinding(cls.code, first, _message(view.text(first).strip(), len(seeded) - 1))]


def _seeded_key(view: AstView, call: ast.Call) -> bool:
    """``visit_Call``'s test: a key maker called with a literal integer seed."""
    if view.imported_name(call.func, KEY_MAKERS.__contains__) not in KEY_MAKERS:
        return False
    seed = argument_ast(call, "seed", 0)
    return seed is not None and _int_literal_ast(seed)
