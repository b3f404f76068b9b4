"""The ast gates of JAX102, JAX104, JAX503 and JAX508 read the nodes the gate's walk recorded (``AstFacts.nodes``),
not a second ``ast.walk`` of the tree: the same answers on every rule example, and no walk."""
from __future__ import annotations

import ast

import pytest
from support.corpus import example_sources

from jaxlint.lint.ast_gate import collect_facts
from jaxlint.rules import rule_by_code

GATES = [rule_by_code(code) for code in ("JAX102", "JAX104", "JAX503", "JAX508")]
SOURCES = [source for source in example_sources() if collect_facts(source) is not None]
KINDS = (ast.Assign, ast.Subscript, ast.Attribute, ast.Call, ast.Constant, ast.keyword)


@pytest.mark.parametrize("rule", GATES, ids=[rule.code for rule in GATES])
def test_the_gate_walks_no_tree_again(rule, monkeypatch):
    facts = [collect_facts(source) for source in SOURCES]
    walked = []
    original = ast.walk

    def recording_walk(node):
        walked.append(node)
        return original(node)

    monkeypatch.setattr(ast, "walk", recording_walk)
    answers = [rule.may_match_ast(one) for one in facts]
    monkeypatch.undo()
    assert not walked, f"{rule.code}'s gate walked the tree again"
    assert any(answers) and not all(answers)  # the examples exercise both answers


def test_the_recorded_nodes_hold_every_node_these_gates_read():
    for source in SOURCES:
        facts = collect_facts(source)
        for kind in KINDS:
            recorded = {id(node) for node in facts.nodes if type(node) is kind}
            assert recorded == {id(node) for node in ast.walk(facts.tree) if type(node) is kind}, (kind, source)
