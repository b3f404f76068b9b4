"""JAX101/JAX402 on ``ast`` (``catalogue.symbols_ast``) resolve an attribute chain's root only where some attribute of
the chain is the last name of a catalogue entry (``Catalogue.last_names``): no other chain can name an entry
through any prefix, so resolving its root (an import lookup, the file's ``AstNames`` for a name bound two ways) could
change nothing. The findings are checked equal to libcst on the rule examples and ``test_ast_findings``' cases."""
from __future__ import annotations

import ast

import pytest

from jaxlint.catalogue import load
from jaxlint.lint import ast_findings
from jaxlint.lint.ast_findings import AstView
from jaxlint.rules import rule_by_code

CATALOGUE_RULES = [rule_by_code("JAX101"), rule_by_code("JAX402")]


def _resolved_roots(source: str, monkeypatch) -> list[str]:
    asked: list[str] = []
    original = AstView.qualified_name

    def recording(self, node):
        asked.append(ast.unparse(node))
        return original(self, node)

    monkeypatch.setattr(AstView, "qualified_name", recording)
    decided = ast_findings.decide(source, "t.py", CATALOGUE_RULES, ast.parse(source))
    assert decided is not None
    return asked


def test_a_chain_that_names_no_entry_is_not_resolved(monkeypatch):
    source = "import jax\nimport jax.numpy as jnp\nx = jnp.zeros(3)\ny = jax.random.normal(k, (2,))\n"
    assert _resolved_roots(source, monkeypatch) == []


def test_a_chain_with_an_entry_s_last_name_is_resolved(monkeypatch):
    source = "import jax.numpy as jnp\nimport jax.numpy as np2\nx = np2.zeros(3)\ny = jnp.DeviceArray\n"
    assert set(_resolved_roots(source, monkeypatch)) == {"jnp"}


@pytest.mark.parametrize("name", ["jax.tree_map", "jax.experimental.maps", "jax.numpy.DeviceArray"])
def test_last_names_hold_the_entries_last_components(name):
    assert name.rpartition(".")[2] in load().last_names()
    assert "zeros" not in load().last_names()
