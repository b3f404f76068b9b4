"""``AstView``'s walk against an independent reference: its nodes in source order, the parents it maps only for the
statements asked about (``_map_parents``), the import bindings it records (module level read from the
statements, not from parents) and the other bindings, equal to a plain recursive walk over every field of every node.

The view walks no tree of its own: it reads the ast gate's walk (``ast_gate._collect``, one per file in ``check``),
so the gate's facts are checked here too: each statement's nodes (what ``focus`` asks about) and the names, calls
and ``with`` statements, all in source order.

These check speed refactors (the view once mapped every node's parent in its walk, then walked the tree a second
time after the gate); they pass on the full walk too.
"""
from __future__ import annotations

import ast
import random

import hypothesmith
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings

from jaxlint.lint import ast_findings, ast_gate, engine
from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.ast_gate import CHILD_FIELDS, collect_facts
from jaxlint.project.settings import Settings
from jaxlint.rules import all_rules, rule_by_code
from support.gate_cases import SOURCES

# The shared singletons ``ast`` hangs on nodes (a load context, an operator): not nodes of the tree's own.
_SHARED = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _reference(tree: ast.Module) -> tuple[list[ast.AST], dict[int, tuple[ast.AST, str]]]:
    """Every node in source order (preorder, fields in order) and id(node) -> (parent, field), from ``_fields``."""
    nodes: list[ast.AST] = []
    parents: dict[int, tuple[ast.AST, str]] = {}

    def visit(node: ast.AST) -> None:
        nodes.append(node)
        for field in node._fields:
            value = getattr(node, field, None)
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST) and not isinstance(child, _SHARED):
                    parents[id(child)] = (node, field)
                    visit(child)

    visit(tree)
    return nodes, parents


def _reference_imports(tree: ast.Module, parents: dict[int, tuple[ast.AST, str]]) -> dict[str, set[str]]:
    """identifier -> what the imports no function, class, lambda or comprehension encloses bind it to."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if type(node) not in (ast.Import, ast.ImportFrom):
            continue
        parent = parents.get(id(node))
        while parent is not None and not isinstance(parent[0], _SCOPES):
            parent = parents.get(id(parent[0]))
        if parent is not None:
            continue
        for alias in node.names:
            if alias.name == "*":
                continue
            if type(node) is ast.Import:
                local, qualified = alias.asname or alias.name.split(".")[0], \
                    alias.name if alias.asname else alias.name.split(".")[0]
            elif node.module and not node.level:
                local, qualified = alias.asname or alias.name, f"{node.module}.{alias.name}"
            else:
                continue
            found.setdefault(local, set()).add(qualified)
    return found


def _reference_bound(tree: ast.Module) -> set[str]:
    """The identifiers something other than an import the resolver qualifies binds: a stored name, a parameter, a
    definition, an ``except ... as``, a capture pattern, a type parameter, ``global``/``nonlocal``, a relative import."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
        elif isinstance(node, ast.MatchMapping):
            found.update([node.rest] if node.rest else [])
        elif isinstance(node, ast.ImportFrom) and (node.level or not node.module):
            found.update(alias.asname or alias.name for alias in node.names if alias.name != "*")
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.alias)):
            continue
        elif isinstance(getattr(node, "name", None), str):  # a definition, a handler, a pattern, a type parameter
            found.add(node.name)
    return found


def _view(source: str) -> AstView | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    try:
        return AstView(source, tree)
    except Undecidable:
        return None


def _check_fields(tree: ast.Module) -> None:
    """``CHILD_FIELDS`` (what the gate's and the view's walks read) lists every field that holds a node, and only
    fields that hold a node, a list of nodes (None in a dict's keys or a missing default) or None."""
    for node in ast.walk(tree):
        listed = CHILD_FIELDS[type(node)]
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            holds_nodes = any(isinstance(item, ast.AST) and not isinstance(item, _SHARED) for item in items)
            if holds_nodes:
                assert field in listed, (type(node).__name__, field)
            if field in listed:
                assert all(item is None or isinstance(item, ast.AST) for item in items), (type(node).__name__, field)


def _check_facts(tree: ast.Module, nodes: list[ast.AST]) -> None:
    """The gate's facts, from the same walk as the view's nodes: each top-level statement's nodes, and the file's
    names, calls and ``with`` statements, in source order."""
    facts = collect_facts("", tree)
    assert facts.nodes == nodes
    for statement, own in zip(tree.body, facts.statements, strict=True):
        assert own.nodes == _reference(statement)[0]
    for kind, listed in ((ast.Name, facts.names), (ast.Call, facts.calls), (ast.With, facts.withs)):
        assert listed == [node for node in nodes if type(node) is kind]


def _check(source: str, seed: int = 0) -> None:
    view = _view(source)
    if view is None:
        return
    _check_fields(view.tree)
    nodes, parents = _reference(view.tree)
    assert view.nodes == nodes
    assert view._imports == _reference_imports(view.tree, parents)
    # the view's own bindings: the relative imports', added to the walk's
    assert view._other == _reference_bound(view.tree)
    assert view.type_bounds == any(getattr(node, "bound", None) is not None for node in nodes)
    _check_facts(view.tree, nodes)
    # asked one node at a time, in an order of no use to the view: each answer maps only what it must
    asked = list(nodes)
    random.Random(seed).shuffle(asked)
    for node in asked:
        if node is view.tree:
            assert view.ancestors(node) == ()
            with pytest.raises(KeyError):
                view.parent(node)
            continue
        parent, field = view.parent(node)
        assert (parent, field) == parents[id(node)]
    fresh = _view(source)
    _, parents = _reference(fresh.tree)
    for node in reversed(fresh.nodes):  # ancestors from a fresh view: the chain up to the module
        expected = []
        parent = parents.get(id(node))
        while parent is not None:
            expected.append(parent)
            parent = parents.get(id(parent[0]))
        assert fresh.ancestors(node) == tuple(reversed(expected))


CASES = {
    "two statements on a line": "import jax; x = jax.numpy.zeros(3)\ny = [i for i in x]; z = lambda a, *b: a\n",
    "decorators above the definition": "import jax\n@jax.jit\n@other(\n    jax.vmap)\ndef f(x, *, k=None, **kw):\n"
                                       "    return {**kw, 'a': x}\n",
    "nodes without a line": "def f(a, b=1, *c, d, e=2, **g):\n    with open(a) as h, open(b):\n        pass\n"
                            "    match a:\n        case {'k': v, **rest}:\n            pass\n        case [1, *more]:\n"
                            "            pass\n",
    "imports at every depth": "import jax\nif x:\n    from jax import numpy as jnp\ntry:\n    import flax\n"
                              "except ImportError:\n    import optax\nelse:\n    import a.b\nfinally:\n"
                              "    import c.d as e\nclass C:\n    import jax.numpy as np\n"
                              "def f():\n    from jax import lax\n    for i in x:\n        import g\n"
                              "while y:\n    import h\nelse:\n    import k\nwith z:\n    from m import n\n"
                              "match q:\n    case 1:\n        import r\n",
    "type parameters and an alias": "type A[T: int] = list[T]\ndef f[U, *V, **W](x: U) -> U:\n    return x\n",
    "a continued line": "x = (\n    1,\n    2)\ny = x \\\n    + 1\n",
    "an f-string": "import jax\nx = f'{jax.numpy.zeros(3)!r:>{10}}'\n",
    "global and nonlocal": "def f():\n    global x\n    def g():\n        nonlocal y\n",
    "every kind of binding": "from . import a as b, c\nfrom .m import *\nfrom .. import d\nimport e.f\n"
                             "for (g, h.i) in j:\n    k[0] = l = m.n = 1\ntry:\n    pass\nexcept E as o:\n"
                             "    pass\nmatch p:\n    case {'q': [r, *s], **t} | Q(u=v) as w:\n        pass\n"
                             "class X[Y: int, *Z, **P]:\n    def f(self, /, a, *b, c, **d):\n        del self.x\n"
                             "        (lambda e=1: e)\n        return [x := 1 for g in h]\n",
    "an empty module": "",
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_walk_matches_the_reference(name):
    _check(CASES[name])


EXAMPLES = [example.code for rule in all_rules() for example in (*rule.VALID, *rule.INVALID)]


def test_the_walk_matches_the_reference_on_every_rule_example():
    for index, source in enumerate(EXAMPLES):
        _check(source, index)


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_the_walk_matches_the_reference_on_every_gate_source(name, source):
    _check(source)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@hsettings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_the_walk_matches_the_reference_on_generated_programs(program):
    _check(program)


def test_the_view_reads_the_gates_walk_and_walks_no_tree_of_its_own(monkeypatch):
    source = CASES["every kind of binding"]
    tree = ast.parse(source)
    facts = collect_facts(source, tree)

    def no_second_walk(*args):
        raise AssertionError("a second walk")

    with monkeypatch.context() as patched:  # only around the view's construction (pytest itself walks trees)
        for owner, name in ((ast_gate, "_collect"), (ast_findings, "collect_facts"), (ast, "walk"),
                            (ast, "iter_child_nodes"), (ast, "iter_fields")):
            patched.setattr(owner, name, no_second_walk)
        view = AstView(source, tree, facts=facts)
    assert view.nodes == _reference(tree)[0]
    assert view._other == _reference_bound(tree)


def test_a_later_view_of_the_tree_the_gate_walked_reads_its_facts(monkeypatch):
    """As a worker's effective-floor uses and JAX207's port build theirs, after the lint: no tree walked again."""
    source = CASES["imports at every depth"]
    facts = collect_facts(source)  # ``parse_module``'s tree, as in the gate
    with monkeypatch.context() as patched:
        patched.setattr(ast_gate, "_collect", lambda *args: pytest.fail("a second walk"))
        view = AstView(source, facts.tree)
    assert view.nodes is facts.nodes
    other = AstView(source, ast.parse(source))  # another tree of the same text: walked, its own nodes
    assert other.nodes is not facts.nodes and other.nodes == _reference(other.tree)[0]


def test_the_facts_of_another_tree_are_refused():
    source = "import jax\n"
    with pytest.raises(ValueError):
        AstView(source, ast.parse(source), facts=collect_facts(source, ast.parse(source)))


def test_check_walks_each_statement_once_and_hands_the_view_the_gates_facts(monkeypatch):
    """A file the ast path decides (JAX501's finding, no libcst): the gate's walk is the only one."""
    source = "import flax\n\ndef f(x):\n    return flax.optim.Adam(x)\n\nclass C:\n    pass\n"
    walked: list[ast.AST] = []
    given: list = []
    collect = ast_gate._collect

    def counted(node, facts):
        walked.append(node)
        collect(node, facts)

    class Recorded(AstView):
        def __init__(self, *args, facts=None, **kwargs):
            given.append(facts)
            super().__init__(*args, facts=facts, **kwargs)

    monkeypatch.setattr(ast_gate, "_collect", counted)
    monkeypatch.setattr(ast_findings, "AstView", Recorded)
    result = engine.lint_source(source, "t.py", Settings(), rules=[rule_by_code("JAX501")])
    assert [diagnostic.code for diagnostic in result.diagnostics] == ["JAX501"]
    assert len(given) == 1 and given[0] is not None
    assert walked == given[0].tree.body  # one walk per top-level statement, by the gate
