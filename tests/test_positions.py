"""jaxlint.lint.positions gives the spans libcst's PositionProvider gives, as character offsets."""
from __future__ import annotations

import ast

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from jaxlint.lint import positions
from jaxlint.lint.diagnostics import LineIndex
from jaxlint.lint.engine import lint_source
from jaxlint.lint.positions import SpanError, StatementSpans, node_spans
from jaxlint.project.settings import Settings
from jaxlint.rules import rule_by_code
from support.corpus import example_sources
from support.rule_harness import example_settings

SOURCES = [
    "import jax\nx = jax.tree_map(f, t)\n",
    "def f(a,\n      b):\n\tif a:  # c\n\t\treturn (a +\n\t\t        b)\n",
    "x = 1\r\ny = [1,\r\n     2]\r\n",
    "@dec\nclass A:\n    '''doc'''\n\n    def m(self): return f'{self!r:>10}'\n",
    "x = 1",  # no final newline
]


@pytest.mark.parametrize("source", SOURCES)
def test_spans_match_position_provider(source):
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    index = LineIndex(source)
    rows = source.count("\n") + (not source.endswith("\n"))

    def offset(position):  # PositionProvider counts the newline libcst adds to a file that lacks one
        return len(source) if position.line > rows else min(index.offset(position.line, position.column),
                                                              len(source))

    spans = node_spans(module, source)
    for node, code_range in positions.items():
        expected = (offset(code_range.start), offset(code_range.end))
        assert spans[node] == expected, type(node).__name__


def test_trailing_blank_lines_without_final_newline():
    # libcst drops whitespace-only lines at the end of such a file when it regenerates it (found by fuzzing): the
    # spans before them are still exact, the module's own span is refused rather than wrong.
    source = "import jax\ny = jax.tree_map(f, tree)\nA\n\n "
    module = cst.parse_module(source)
    assert module.code != source
    spans = node_spans(module, source)
    statement = module.body[1]
    start, end = spans[statement]
    assert source[start:end] == "y = jax.tree_map(f, tree)"
    with pytest.raises(SpanError):
        spans[module]
    rule = rule_by_code("JAX101")
    settings = example_settings(rule, rule.INVALID[0])
    found = lint_source(source, "example.py", settings, rules=[rule]).diagnostics
    assert [(d.code, d.start.row, d.start.column) for d in found] == [("JAX101", 2, 5)]


# -- spans of the reported statements only ---------------------------------------------------------------------
LAYOUTS = SOURCES + [
    "# header comment\n\nimport jax\n\n\n# leading comment\n@dec  # c\n\n# between decorators\n@other(1,\n       2)\n"
    "def f():\n    return jax.tree_map(f, t)\n\n# footer\n",
    "a = 1; b = 2\nc = 3;\nif a:\n    pass\nelse:\n    x = [\n  1]\n",
    "x = 1\ry = 2\rdef f():\r    return 3\r",  # lone carriage returns end lines for Python and ast
    "x = '''\nmulti\nline'''\ny = \\\n    2\n",
    "\n\n\n",
    "",
    "x = 1\n\n\n",
    "x = 1\n\n\n ",  # whitespace after the last newline: regenerated differently by libcst
    "import jax\nx = jax.tree_map(f, t)",  # no final newline: the last statement falls back to the whole module
    "class A:\n    @property\n    def p(self): ...\n\n\n@dataclass\nclass B: pass\n",
    "if True:\n  x = 1\n\n  # a comment inside the block\n\n  y = 2\n# a comment after the block\nz = 3\n",
    "print 'python 2'\n" if False else "async def f():\n    async with a as b:\n        await b\n",
]


def _all_nodes(module: cst.CSTNode):
    stack = [module]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def _with_ancestors(module: cst.Module):
    """Every node with its ancestors, the module first and the node last (as a report holds them)."""
    stack = [(module,)]
    while stack:
        chain = stack.pop()
        yield chain
        stack.extend((*chain, child) for child in chain[-1].children)


@pytest.mark.parametrize("given_tree", [False, True], ids=["parsed-here", "ast-tree-given"])
@pytest.mark.parametrize("source", LAYOUTS + example_sources())
def test_statement_spans_equal_whole_module_spans(source, given_tree):
    module = cst.parse_module(source)
    whole = node_spans(module, source)
    try:
        tree = ast.parse(source) if given_tree else None
    except SyntaxError:
        tree = None
    for chain in _with_ancestors(module):
        node = chain[-1]
        for hinted in (False, True):  # a fresh one per lookup: each takes its own path
            lazy = StatementSpans(module, source, tree)
            if hinted:
                lazy.include(chain)
            try:
                expected = whole[node]
            except SpanError:
                with pytest.raises(SpanError):
                    lazy[node]
                continue
            assert lazy[node] == expected, (type(node).__name__, hinted, source)


def test_statement_spans_generate_only_the_statements_asked_about():
    source = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(50))
    module = cst.parse_module(source)
    spans = StatementSpans(module, source)
    target = module.body[30].body.body[0]  # the return statement of f30
    spans.include((module, module.body[30], module.body[30].body, target))
    start, end = spans[target]
    assert source[start:end] == "return x + 30"
    assert spans.statements_generated == 1
    # A node without a hint is searched statement by statement, from the first.
    start, end = spans[module.body[3].name]
    assert source[start:end] == "f3"
    assert spans.statements_generated == 5


def test_statement_spans_generate_one_method_of_a_large_class():
    methods = "".join(f"    # method {i}\n    @property\n    def m{i}(self):\n        return {i}\n\n"
                      for i in range(40))
    source = f"import jax\n\n\nclass Big:\n{methods}\nx = 1\n"
    module = cst.parse_module(source)
    big = module.body[1]
    method = big.body.body[20]
    returned = method.body.body[0].body[0].value
    spans = StatementSpans(module, source)
    spans.include((module, big, big.body, method, method.body, method.body.body[0], method.body.body[0].body[0]))
    assert source[slice(*spans[returned])] == "20"
    assert spans.statements_generated == 1
    assert spans[method] == node_spans(module, source)[method]
    spans[big]  # not generated yet: the search generates the import, then the class
    assert spans.statements_generated == 3
    last = big.body.body[-1]  # the last method ends where its class ends: generated alone too
    spans = StatementSpans(module, source)
    spans.include((module, big, big.body, last))
    assert spans.statements_generated == 1 and spans[last] == node_spans(module, source)[last]
    spans[big]  # searched: the import, then the class
    assert spans.statements_generated == 3


@pytest.mark.parametrize("tail", [
    "",  # the class is the last statement
    "\n\nx = 1\n",
    "    # a comment line in the class body, after its last method (the block's footer)\n\nx = 1\n",
    "        # deeper: a comment line of the method's body\n    # and of the class body\n# and of the module\ny = 2\n",
])
def test_the_last_statement_of_nested_blocks_is_generated_alone(tail):
    source = ("import jax\n\n\nclass Test:\n    def first(self):\n        pass\n\n"
              "    def last(self):\n        mesh = make()\n        with mesh:\n            run()\n" + tail)
    module = cst.parse_module(source)
    test = module.body[1]
    last = test.body.body[-1]
    with_statement = last.body.body[-1]
    call = with_statement.body.body[0].body[0].value
    spans = StatementSpans(module, source)
    spans.include((module, test, test.body, last, last.body, with_statement, with_statement.body,
                   with_statement.body.body[0], with_statement.body.body[0].body[0], call))
    assert source[slice(*spans[call])] == "run()"
    assert spans[with_statement] == node_spans(module, source)[with_statement]
    assert spans.statements_generated == 1 and spans.characters_generated == len("        with mesh:\n            run()\n")


@pytest.mark.parametrize("wrong", [
    lambda starts: None,  # ast cannot read the file
    lambda starts: [starts[0], *(start + 1 for start in starts[1:])],  # offsets one character late
    lambda starts: [starts[0], *(start - 1 for start in starts[1:])],  # offsets one character early
    lambda starts: [starts[0], starts[2], starts[1], *starts[3:]],  # statements of the same text swapped
    lambda starts: [*starts[:3], *starts[4:], starts[-1]],  # a, b, c read one statement late: same lengths
])
def test_statement_spans_fall_back_to_the_whole_module_when_an_offset_is_wrong(monkeypatch, wrong):
    source = "# header\nx = 1\nx = 1\nx = 1\na = 1\nb = 2\nc = 3\n\ndef f():\n    return x\n"
    module = cst.parse_module(source)
    layout = positions._statement_layout(module, source)
    starts = wrong([start for start, _ in layout])
    wrong_layout = None if starts is None else [(start, inner) for start, (_, inner) in zip(starts, layout)]
    monkeypatch.setattr(positions, "_statement_layout", lambda module, source, tree=None: wrong_layout)
    whole = node_spans(module, source)
    for node in _all_nodes(module):  # found by searching from the first statement
        assert StatementSpans(module, source)[node] == whole[node], type(node).__name__
    for chain in _with_ancestors(module):  # found through the node's ancestors (as the engine does)
        spans = StatementSpans(module, source)
        spans.include(chain)
        node = chain[-1]
        assert spans[node] == whole[node], type(node).__name__


def test_a_file_linted_whole_is_parsed_by_ast_once(monkeypatch):
    """The ast gate's tree gives the statement layout: ``ast`` does not parse the file a second time for spans."""
    source = "import jax\nmesh = jax.make_mesh((1,), ('x',))\n\n\ndef f():\n    with mesh:\n        pass\n"
    parsed = []
    original = ast.parse

    def counting(text, *args, **kwargs):
        parsed.append(len(text))
        return original(text, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    found = lint_source(source, "m.py", Settings(select=("JAX401",)))
    assert [d.code for d in found.diagnostics] == ["JAX401"]
    assert parsed == [len(source)]
