"""The ast gate over-approximates the libcst resolver: every name the resolver qualifies, the gate has seen.

This is the property that makes skipping a file sound; it is checked on every rule example, every test fixture and
jaxlint's own source, plus hand-written scope and star-import cases. The end-to-end check (the prefilter never
changes findings) is in tests/robustness/test_prefilter.py.
"""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from support.gate_cases import SCOPE_CASES, SOURCES

from jaxlint.lint.ast_gate import collect_facts, may_match_ast
from jaxlint.lint.prefilter import rules_that_may_match
from jaxlint.lint.names import NameResolver
from jaxlint.rules import all_rules, rule_by_code


def resolver_names(source: str) -> set[str]:
    """Every qualified name the resolver gives a Name or Attribute node of ``source`` (builtins aside)."""
    module = cst.parse_module(source)
    resolver = NameResolver(module)
    found: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            self._add(node)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            self._add(node)

        def _add(self, node) -> None:
            qualified = resolver.qualified_name(node)
            # ``True``/``False``/``None`` are constants to ``ast`` (after a star import libcst qualifies them).
            if qualified and not qualified.startswith("builtins.") \
                    and not (isinstance(node, cst.Name) and node.value in ("True", "False", "None")):
                found.add(qualified)

    module.visit(Collect())
    return found


@pytest.mark.parametrize("source", [s for _, s in SOURCES] + SCOPE_CASES,
                         ids=[n for n, _ in SOURCES] + [f"scope-{i}" for i in range(len(SCOPE_CASES))])
def test_gate_sees_every_name_the_resolver_qualifies(source):
    facts = collect_facts(source)
    if facts is None:
        pytest.skip("not parseable by ast: the gate keeps such files")
    missing = resolver_names(source) - facts.referenced()
    assert not missing


def test_each_rule_gate_keeps_its_must_flag_examples():
    for rule in all_rules():
        if not rule.has_ast_gate():
            continue
        for example in rule.INVALID:
            facts = collect_facts(example.code)
            assert facts is None or rule.may_match_ast(facts), f"{rule.code} gate skips {example.code!r}"


@pytest.mark.parametrize("source", [
    "import jax\nx = jax.tree_util.tree_map(f, t)\n",  # the valid spelling that shares the words
    "import jax\njax.config.update('jax_enable_x64', True)\n",  # jax.config the object, not the removed module
    "import jax.numpy as jnp\nx = jnp.array([1, 2], jnp.float32)\n",  # two positional arguments are fine
    "import numpy as np\nimport jax\nnp.meshgrid(1)\n",
    "def f(jax):\n    return jax.tree_map\n",  # never imported: the resolver cannot qualify it either
])
def test_gate_skips_files_that_only_share_words(source):
    rules = [rule for rule in all_rules() if not rule.opt_in]
    candidates = rules_that_may_match(source, rules)
    assert candidates, "the word prefilter alone keeps this file: the case tests the gate"
    assert not may_match_ast(source, candidates)


@pytest.mark.parametrize("source", [
    "import jax\nx = jax.tree_map(f, t)\n",
    "from jax import tree_map\n",
    "import jax.experimental.maps\n",
    "from jax.experimental import maps\n",
    "from jax.numpy import *\nx = array(1, None, False)\n",
    "import jax.numpy as jnp\nx = jnp.array(1, None, *rest)\n",
    "from jax import numpy\nnumpy.array(a, b, c)\n",
    "import jax\njax.experimental.maps.xmap(f)\n",  # a removed module reached through attributes
    "from jax import lib\nlib.xla_bridge.get_backend()\n",
    "from jax.experimental import shard_map\nshard_map = shard_map.shard_map\n",  # the name is bound twice
    "import jax\nx = f(y).device_buffers\n",  # JAX104: an attribute of any value
    "import jax\nd = (x\n     .device())\n",
    "import jax\nd = (x.  # c\n     to_py())\n",
])
def test_gate_keeps_possible_findings(source):
    rules = [rule for rule in all_rules() if not rule.opt_in]
    assert may_match_ast(source, rules_that_may_match(source, rules))


def test_unparseable_and_ungated_files_are_kept():
    jax101 = rule_by_code("JAX101")
    assert may_match_ast("import jax\njax.tree_util.tree_map(\n", [jax101])  # a syntax error: libcst reports it
    ungated = [rule for rule in all_rules() if not rule.has_ast_gate()]
    assert ungated, "some rules (string-triggered ones) are not gated"
    assert may_match_ast("x = 1\n", [jax101, ungated[0]])


def test_dedented_docstring_example_cases_parse():
    # The scope cases above are real Python: a typo there would silently skip them.
    for source in SCOPE_CASES:
        assert collect_facts(textwrap.dedent(source)) is not None, source


def test_facts_collected_statement_by_statement_equal_one_walk_of_the_tree():
    """``collect_facts`` walks each top-level statement into facts of its own (``focus`` asks about each), and the
    file's facts are their union: the same as one walk of the whole tree."""
    from jaxlint.lint import ast_gate
    from support.corpus import example_sources

    for source in example_sources():
        facts = ast_gate.collect_facts(source)
        if facts is None:
            continue
        whole = ast_gate.AstFacts(tree=facts.tree)
        ast_gate._collect(facts.tree, whole)
        assert facts.bindings == whole.bindings and facts.star_modules == whole.star_modules
        assert facts.import_names == whole.import_names and facts.referenced() == whole.referenced()
        assert sorted(facts.chains) == sorted(whole.chains)
        for kind in ("names", "calls", "withs"):  # the same nodes of the same tree
            assert sorted(map(id, getattr(facts, kind))) == sorted(map(id, getattr(whole, kind))), kind
        assert len(ast_gate.statement_facts(facts)) == len(facts.tree.body)


def test_statement_facts_walk_nothing_again(monkeypatch):
    from jaxlint.lint import ast_gate

    facts = ast_gate.collect_facts("import jax\nx = jax.tree_map(f, t)\ndef g():\n    return jax.numpy.ones(3)\n")
    walked = []
    monkeypatch.setattr(ast_gate, "_collect", lambda tree, facts: walked.append(tree))
    per_statement = ast_gate.statement_facts(facts)
    assert walked == []
    assert [sorted(f.referenced()) for f in per_statement] == [
        ["jax"], ["jax", "jax.tree_map"], ["jax", "jax.numpy", "jax.numpy.ones"]]


@pytest.mark.parametrize("source, kept", [
    # a module whose name survives as an attribute (``jax.config``, ``jax.memory``, ``jax.numpy.vectorize``): the
    # attribute is no finding, only the module imported as a module is (26 files of code nobody tuned on did this)
    ("from jax import config\nconfig.update('jax_enable_x64', True)\n", False),
    ("from jax import memory\n", False),
    ("from jax.numpy import vectorize\n", False),
    ("from jax import numpy\nnumpy.vectorize\n", False),
    ("import jax.config\n", True),
    ("import jax.config as c\n", True),
    ("from jax.config import config\n", True),
    ("from jax.config import FLAGS\n", True),
    ("import jax.memory\n", True),
    ("import jax.numpy.vectorize\n", True),
    ("from jax import config\nconfig.FLAGS\n", True),  # a removed member of the object: a symbol
    ("from jax import config, tree_map\n", True),
])
def test_the_symbol_gates_keep_a_surviving_module_only_where_it_is_imported_as_one(source, kept):
    from jaxlint.lint.engine import lint_source
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.project.settings import Settings

    jax101 = rule_by_code("JAX101")
    assert jax101.may_match_text(TextFacts(source), Scan(source).words) is kept
    assert jax101.may_match_ast(collect_facts(source)) is kept
    assert bool(lint_source(source, "x.py", Settings(), rules=[jax101], prefilter=False).diagnostics) is kept
    assert rule_by_code("JAX402").may_match_ast(collect_facts(source)) is kept


@pytest.mark.parametrize("source, kept", [
    ("import jax.numpy as jnp\nz = jnp.cross([1.0, 2.0], v)\n", True),
    ("import jax.numpy as jnp\nz = jnp.cross(u, jnp.array((1, 2)))\n", True),
    ("import jax.numpy as jnp\nz = jnp.cross(a=u, b=[1, 2])\n", True),
    ("import jax.numpy as jnp\nz = jnp.cross(\n    u,  # the first\n    [1, 2])\n", True),
    # operands that are names, attributes or subscripts: ``_vector_dim`` reads only literals and constructors
    ("import jax.numpy as jnp\nz = jnp.cross(a, b)\n", False),
    ("import jax.numpy as jnp\nz = jnp.cross(self.axis, b, axis=-1)\n", False),
    ("import jax.numpy as jnp\nz = jnp.cross(*pair)\n", False),
])
def test_the_cross_gates_keep_a_call_with_an_operand_it_may_read(source, kept):
    """JAX205 reports an operand that is a literal list or tuple, or a constructor's call of one: a file of
    ``jnp.cross(a, b)`` only (12 files of brax) has no finding. (A subscript holds a bracket: the text keeps it.)"""
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts

    jax205 = rule_by_code("JAX205")
    assert jax205.may_match_text(TextFacts(source), Scan(source).words) is kept
    assert jax205.may_match_ast(collect_facts(source)) is kept
