"""``source_ordered_children``: libcst's order of a node's children, read from the ``ast`` fields that may hold one."""
from __future__ import annotations

import ast
from pathlib import Path

import jaxlint
from jaxlint.analysis.ast_attribute_values import source_ordered_children

# Leaves ``ast.iter_child_nodes`` yields that hold nothing: the walks that read the children never look at them.
_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
_SPECIAL = (ast.Call, ast.Dict, ast.IfExp)  # reordered as libcst orders them


def _trees():
    yield ast.parse("class A(B, metaclass=M):\n    def f(self, a, /, b=1, *c, d, e=None, **f) -> int:\n"
                    "        global g\n        self.x: int = a if b else c\n        x, *y = z = [w async for w in v]\n"
                    "        with p as (q, r), s:\n            del t[0]\n        match m:\n            case {'k': 1, **rest}:"
                    "\n                pass\n            case [1, *_] | None:\n                pass\n"
                    "        return lambda u=1: f'{u!r:>{w}}' + (not u and -u < 2 <= 3)\n")
    for path in sorted(Path(jaxlint.__file__).parent.glob("lint/*.py")):
        yield ast.parse(path.read_text(encoding="utf-8"))


def test_the_children_are_iter_child_nodes_without_the_leaves():
    compared = 0
    for tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, _SPECIAL):
                continue
            expected = [child for child in ast.iter_child_nodes(node) if not isinstance(child, _LEAVES)]
            assert [id(child) for child in source_ordered_children(node)] == [id(child) for child in expected]
            compared += 1
    assert compared > 10_000
