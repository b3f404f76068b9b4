"""jaxlint's read-only walk visits what libcst's own visit does, minus only subtrees no caller looks at."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from jaxlint.lint.context import BatchedVisitor, FileContext
from jaxlint.project.settings import Settings
from jaxlint.lint.walk import iter_children, leaf_classes, skippable_classes, trivia_classes
from support.corpus import example_sources

FIXTURES = sorted(Path(__file__).parent.joinpath("fixtures").rglob("*.py"))
SOURCES = example_sources() + [path.read_text(encoding="utf-8") for path in FIXTURES] + [
    "x = (1)  # c\nf'{a!r:>{w}}'\nif a: pass\nelse: break\nwhile b: continue\n...\ndef f(*, a=1.5j): ...\n",
]


def _parsed():
    for source in SOURCES:
        try:
            yield cst.parse_module(source)
        except cst.ParserSyntaxError:
            continue


def _nodes(module):
    stack = [module]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def test_iter_children_is_libcsts_children():
    for module in _parsed():
        for node in _nodes(module):
            assert list(iter_children(node)) == list(node.children), type(node).__name__


def test_leaves_hold_only_whitespace_and_punctuation():
    trivia = tuple(trivia_classes())
    names = {leaf.__name__ for leaf in leaf_classes()}
    assert {"Name", "Integer", "SimpleString", "Ellipsis"} <= names
    assert not names & {"Attribute", "Call", "FormattedString", "Subscript", "Arg"}  # these hold expressions
    seen = set()
    for module in _parsed():
        for node in _nodes(module):
            if type(node) in leaf_classes():
                seen.add(type(node).__name__)
                for descendant in _nodes(node):
                    assert descendant is node or isinstance(descendant, trivia), type(descendant).__name__
    assert {"Name", "Integer", "SimpleString"} <= seen


def test_the_generated_leaves_are_the_derived_ones():
    # ``leaf_classes()`` reads them from ``_cst_fields.LEAF_NAMES`` for the installed libcst: regenerate it with
    # ``python -m jaxlint.lint.walk`` when libcst changes
    from jaxlint.lint import _cst_fields
    from jaxlint.lint.walk import _libcst_version, derive_leaf_classes

    assert _cst_fields.LIBCST_VERSION == _libcst_version()
    assert _cst_fields.LEAF_NAMES == {leaf.__name__ for leaf in derive_leaf_classes(trivia_classes())}
    assert leaf_classes() == derive_leaf_classes(trivia_classes())


def _recording_rule(hooks: tuple[str, ...]):
    class Recorder:
        def __init__(self, context):
            self.context = context
            self.seen = []

    def make(kind, name):
        def hook(self, node):
            self.seen.append((kind, name, id(node), tuple(id(a) for a in self.context.ancestors)))
        return hook

    for name in hooks:
        setattr(Recorder, f"visit_{name}", make("visit", name))
        setattr(Recorder, f"leave_{name}", make("leave", name))
    return Recorder


@pytest.mark.parametrize("hooks", [("Attribute",), ("Call", "Import", "ImportFrom"), ("Name",), ("Integer", "With"),
                                   ("SimpleString", "Module"), ("Comment", "Call"), ("Comma", "Name")])
def test_the_walk_visits_what_libcst_visits(hooks):
    rule = _recording_rule(hooks)
    for module in _parsed():
        walked, visited = FileContext(module, "", "x.py", Settings()), FileContext(module, "", "x.py", Settings())
        by_walk, by_visit = rule(walked), rule(visited)
        BatchedVisitor(walked, [by_walk]).run(module)
        module.visit(BatchedVisitor(visited, [by_visit]))
        assert by_walk.seen == by_visit.seen


def test_skippable_classes_keep_what_is_visited():
    assert cst.Name not in skippable_classes({"Name"})
    assert cst.Name in skippable_classes({"Attribute"})
    assert skippable_classes({"Comment"}) == frozenset()  # whitespace may sit under any punctuation or leaf
