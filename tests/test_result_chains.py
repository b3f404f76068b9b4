"""``analysis.result_chains``: the scope a binding and a name belong to (read upwards, as ``scope_chain`` reads them
downwards), what a name holds when asked from nested scopes in any order, and ``may_form``, the test on the text."""
from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.analysis.result_chains import RETURNS, METHOD_RETURNS, ResultChains, may_form, word_sets_forming
from jaxlint.lint.ast_findings import AstView, scope_chain

SCOPES = textwrap.dedent("""
    import jax
    x = jax.jit(f)
    def outer(a=x, *args, b: x = x, **kw):
        x = jax.make_mesh(a, b)
        def inner():
            return x
        return x, lambda x=x: x
    class C:
        x = jax.export.deserialize(blob)
        y = x
        def m(self):
            return x
        @staticmethod
        def n(v=x):
            return [x for x in x if x] + [[x for y in x] for z in x]
    print(x, {k: x for k in x}, (x := 1) if False else None)
    def typed[T](v: T) -> T:
        return x
    try:
        pass
    except Exception as x_error:
        pass
    match x:
        case [*rest] if rest:
            pass
        case {"k": v, **others}:
            pass
""")


def _view(source: str) -> AstView:
    return AstView(source, ast.parse(source))


def test_a_nodes_scope_is_scope_chains_last():
    view = _view(SCOPES)
    for node in view.nodes[1:]:  # every node but the module
        assert view.scope_of(node) is scope_chain(view.ancestors(node))[-1], ast.dump(node)


def test_no_ancestors_are_built():
    """The chains read the scopes upwards from each node (``view.ancestors`` for every binding was most of the
    rule's time)."""
    view = _view(SCOPES)

    def refuse(node):
        raise AssertionError("ancestors asked")

    view.ancestors = refuse
    chains = ResultChains(view)
    for node in view.nodes_of((ast.Name,)):
        chains.chain(node)


def _loads(view: AstView, line: int) -> list[ast.Name]:
    return [node for node in view.nodes_of((ast.Name,)) if node.lineno == line and node.id == "x"
            and type(node.ctx) is ast.Load]


@pytest.mark.parametrize("order", [1, -1])
def test_a_name_rebound_in_an_inner_scope_answers_for_its_own_scope(order):
    """What a name holds is kept per (scope, identifier): asked in either order, each scope's ``x`` is its own."""
    source = textwrap.dedent("""
        import jax
        x = jax.jit(f)
        def outer():
            x = jax.make_mesh(a, b)
            def inner():
                return x
            return x
        class C:
            x = jax.export.deserialize(blob)
            y = x
            def m(self):
                return x
        print(x)
        squares = lambda x: x
    """)
    view = _view(source)
    expected = {7: "jax.sharding.Mesh", 8: "jax.sharding.Mesh", 11: "jax.export.Exported",
                13: "jax.stages.Wrapped", 14: "jax.stages.Wrapped", 15: None}
    chains = ResultChains(view)
    for line in sorted(expected, key=lambda line: order * line):
        for name in _loads(view, line):
            assert chains.chain(name) == expected[line], line


def test_plain_values_of_a_name_the_file_never_binds():
    view = _view("import jax\nprint(y, jax)\n")
    chains = ResultChains(view)
    y, jax = (node for node in view.nodes_of((ast.Name,)) if node.id in ("y", "jax") and node.lineno == 2)
    assert chains.plain_values(y) is None and chains.plain_values(jax) is None


def test_a_walrus_target_is_not_followed():
    view = _view("import jax\nx = jax.jit(f)\nys = [(x := v) for v in vs]\nprint(x)\n")
    (x,) = _loads(view, 4)
    assert ResultChains(view).plain_values(x) is None


def test_plain_values_in_source_order():
    view = _view("import jax\nif c:\n    x = jax.jit(f)\nelse:\n    x = jax.jit(g)\nprint(x)\n")
    (x,) = _loads(view, 6)
    assert [ast.unparse(value) for value in ResultChains(view).plain_values(x)] == ["jax.jit(f)", "jax.jit(g)"]


# -- may_form -----------------------------------------------------------------------------------------------------
COMPILED_COST = "jax.stages.Compiled.cost_analysis()"


@pytest.mark.parametrize("words, formed", [
    ({"jax", "jit", "lower", "compile", "cost_analysis"}, True),
    ({"jax", "jit", "trace", "lower", "compile", "cost_analysis"}, True),
    ({"jax", "stages", "Compiled", "cost_analysis"}, True),  # ``Compiled.cost_analysis(compiled)``
    ({"jax", "jit", "lower", "compile"}, False),
    ({"jax", "jit", "lower", "cost_analysis"}, False),
    ({"jax", "lower", "compile", "cost_analysis"}, False),
    ({"jit", "lower", "compile", "cost_analysis"}, False),
])
def test_may_form_a_method_chain(words, formed):
    assert may_form(COMPILED_COST, words.__contains__) is formed


def test_may_form_a_call_and_a_subscript():
    assert may_form("optax.multi_transform().init()", {"optax", "multi_transform", "init"}.__contains__)
    assert not may_form("optax.multi_transform().init()", {"optax", "multi_transform"}.__contains__)
    assert may_form("flax.nnx.State[key]", {"flax", "nnx", "state"}.__contains__)
    assert not may_form("flax.nnx.State[key]", {"flax", "nnx", "State"}.__contains__)
    assert not may_form("flax.nnx.State", set().__contains__)


def test_every_chain_given_is_one_may_form_allows():
    """The soundness of the test on the text, on every node of these sources: a chain ``chain`` gives is formed
    from words the source spells."""
    from jaxlint.lint.prefilter import Scan

    sources = [SCOPES, "import jax\nc = jax.jit(f).trace(x).lower().compile()\nr = c.cost_analysis()[0]\n",
               "from jax.stages import Compiled as C\nr = C.cost_analysis(c)\n",
               "import optax as o\ns = o.multi_transform(t, l).init(p)\n",
               "from flax import nnx\nv = nnx.state(m)['kernel']\nk = nnx.state(m).flat_state()\n"]
    for source in sources:
        view = _view(source)
        chains = ResultChains(view, {"flax.nnx.State": frozenset({"kernel"})})
        given = {chains.chain(node) for node in view.nodes} - {None}
        assert given
        for chain in given:
            assert may_form(chain, Scan(source).words.__contains__), chain


def _chains_asked():
    """Every chain ``may_form`` is asked of (the rows') and every class and method chain the tables make."""
    from jaxlint.rules.jax207_changed_return_type import ROWS

    yield from (row.api for row in ROWS.values())
    yield from {*RETURNS.values(), *METHOD_RETURNS.values()}
    yield from (f"{receiver}.{attr}()" for receiver, attr in METHOD_RETURNS)
    yield from ("flax.nnx.State[key]", "jax.jit()", "a.b", "")


@pytest.mark.parametrize("chain", sorted(set(_chains_asked())))
def test_word_sets_forming_is_may_form_as_subset_tests(chain):
    """``may_form(chain, spelled)`` holds exactly when one word set is spelled: tried on every set of the words the
    chain's sets (and the tables) name, with one word left out or one word only (the sets are small)."""
    import itertools

    sets = word_sets_forming(chain)
    words = sorted(set().union(*sets) | {"jax", "jit", "lower", "compile", "cost_analysis", "nnx", "state"})
    trials = [set(words)] + [set(words) - {word} for word in words] + [{word} for word in words]
    trials += [set(required) - {word} for required in sets for word in required] + [set(required) for required in sets]
    if len(words) <= 12:
        trials += [set(chosen) for size in range(len(words) + 1) for chosen in itertools.combinations(words, size)]
    for spelled in trials:
        assert may_form(chain, spelled.__contains__) == any(required <= spelled for required in sets), spelled
    assert all(not smaller < larger for smaller in sets for larger in sets), sets  # none holds another
