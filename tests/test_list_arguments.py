"""``may_pass_sequence_text`` (JAX103's text gate for list arguments) against its older version
(tests/support/old_text_scans.py keeps the old code), and against ``ast``.

- The old version compiled a pattern of the file's list-bound names for every file; the new one compiles it only
  where a comment follows a ``(`` and may hold or precede such a name. It also reads the first argument as a whole
  (``_may_be_whole_sequence``): ``jnp.sum((x - y) ** 2)`` is no tuple and ``jnp.mean(x ** 2)`` no name. So it says
  yes only where the old one did (``_never_more_than_before``).
- It never misses an argument that ``ast`` reads as a list, a tuple, a list comprehension or a name
  (``_argument_misses``), which the ast gate's ``_may_be_sequence`` asks about.
"""
from __future__ import annotations

import ast
import random
import re
import warnings

import hypothesmith
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings

from jaxlint.analysis import list_arguments
from support import dev_corpus, old_text_scans
from support.dev_corpus import needs_dev_corpus
from support.gate_cases import SOURCES

ASKS = [(None, None), (frozenset({"sum", "mean"}), frozenset({"jnp", "numpy", "linalg"})), (frozenset(), frozenset())]


def _never_more_than_before(source: str) -> None:
    for bare, owners in ASKS:
        if list_arguments.may_pass_sequence_text(source, bare, owners):
            assert old_text_scans.may_pass_sequence_text(source, bare, owners), (repr(source), bare, owners)


_SEQUENCES = (ast.List, ast.Tuple, ast.ListComp, ast.Name)


def _tree(source: str) -> ast.Module | None:
    """``ast``'s reading of ``source`` (the oracle's own parse), or None where it cannot parse it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _argument_misses(source: str) -> list[str] | None:
    """The calls whose first argument ``ast`` reads as a list, tuple, list comprehension or name, where
    ``_may_be_whole_sequence`` says it cannot be (None: ``ast`` cannot parse the source). The call's ``(`` is the
    first one after its callee; calls with a comment there are left out (a comment may hold a ``(``)."""
    tree = _tree(source)
    if tree is None:
        return None
    # the lines ``ast`` counts (``\r\n``, ``\r``, ``\n``): ``str.splitlines`` also breaks at ``\x0c`` and others
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, byte_column: int) -> int:
        return starts[line - 1] + len(lines[line - 1].encode("utf-8")[:byte_column].decode("utf-8"))

    misses = []
    for call in ast.walk(tree):
        if type(call) is not ast.Call or not call.args or type(call.args[0]) not in _SEQUENCES:
            continue
        between = source[offset(call.func.end_lineno, call.func.end_col_offset):
                         offset(call.args[0].lineno, call.args[0].col_offset)]
        if "#" in between:
            continue
        opening = offset(call.func.end_lineno, call.func.end_col_offset) + between.index("(")
        if not list_arguments._may_be_whole_sequence(source, opening):
            misses.append(f"line {call.lineno}: {ast.unparse(call)}")
    return misses


def _binding_misses(source: str) -> set[str] | None:
    """The names ``ast`` sees an assignment's only target bind to a list literal or comprehension (the ast gate's
    ``sequence_names``) that ``_list_bound_names`` does not find (None: ``ast`` cannot parse the source)."""
    tree = _tree(source)
    if tree is None:
        return None
    bound = set()
    for node in ast.walk(tree):
        if type(node) is ast.Assign and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif type(node) is ast.AnnAssign:
            target, value = node.target, node.value
        else:
            continue
        if type(target) is ast.Name and type(value) in (ast.List, ast.ListComp):
            bound.add(target.id)
    return bound - list_arguments._list_bound_names(source)


def _check(source: str) -> None:
    _never_more_than_before(source)
    assert not _argument_misses(source), repr(source)
    assert not _binding_misses(source), repr(source)


CASES = [
    "w = [1]\njnp.sum(w)\n",
    "w = [1]\njnp.sum( w )\n",
    "w = [1]\njnp.sum(\n    w)\n",
    "w = [1]\njnp.sum(  # the weights\n    w)\n",
    "w = [1]\njnp.sum(wx)\n",
    "w = [1]\nf(w)\njnp.sum(wx)\n",  # ``(w`` is no opening where a longer word starts so
    "w = [1]\nf(\nw)\njnp.sum(w)\n",
    "w = [1]\njnp.sum(xw)\n",
    "w = [1]\nsum(w)\n",
    "w = [1]\nnp.sum(w)\n",
    "w: list = [1]\njnp.mean(w)\n",
    "weights = [1]\nf(  # jnp.sum(weights\n)\n",  # a ``(`` inside a comment that the old pattern's match covers
    "weights = [1]\nf(  # see jnp.sum(weights)\n  x)\n",
    "weights = [1]\n# jnp.sum(weights)\n",
    "weights = [1]\njnp.sum(  # myweights\n  x)\n",
    "weights = [1]\njnp.sum(  # c\n  # d\n  weights)\n",
    "w = [1]\njnp.sum(w\n",
    "w = [1]\njnp.sum(w",
    "w = [1]\njnp.sum((w",
    "w = [1]\njnp  .  sum  (w)\n",
    "w = [1]\njnp.\\\nsum(w)\n",
    "w = [1]\n\u00e9.sum(w)\n",
    "w = [1]\njnp.sum(w\u00e9)\n",
    "jnp.sum([1, 2])\n",
    "jnp.sum(  # c\n [1, 2])\n",
    "(w) = [1]\njnp.sum(w)\n",
    "( ( w ) ) = [1]\njnp.sum(w)\n",
    "w : list[int]=[1]\njnp.sum(w)\n",
    "if c: w = [1]\njnp.sum(w)\n",
    "x = 1; w = [1]\njnp.sum(w)\n",
    "x = 1,\nw = [1]\njnp.sum(w)\n",  # a comma on the line before
    "x = 1.\nw = [1]\njnp.sum(w)\n",  # a dot on the line before
]


# ``= [`` after a name that is no assignment's only target, and what ``_list_bound_names`` reads there.
@pytest.mark.parametrize("source, names", [
    ("w = [1]\n", {"w"}),
    ("w: list = [1]\n", {"w", "list"}),
    ("w: List[int] = [1]\n", {"w"}),
    ("(w) = [1]\n", {"w"}),
    ("else: w = [1]\n", {"else", "w"}),
    ("self.w = [1]\n", set()),
    ("self . w = [1]\n", set()),
    ("a, w = [1], [2]\n", set()),
    ("f(a, w=[1])\n", set()),
    ("def f(a, w=[]):\n    pass\n", set()),
    ("x[(w)] = [1]\n", set()),
    ("f(w) = [1]\n", {"w"}),  # not valid Python: read as a parenthesized name (an over-estimate)
    ("w == [1]\n", set()),
    ("f(a,\n  w=[1])\n", {"w"}),  # the comma on another line: kept (a cheap, safe over-estimate)
])
def test_list_bound_names(source, names):
    assert list_arguments._list_bound_names(source) == names


@pytest.mark.parametrize("source", CASES)
def test_never_more_than_before_on_hand_written_cases(source):
    _check(source)


# First arguments that may be a list, tuple or name as a whole (``ast``'s reading where it parses).
@pytest.mark.parametrize("source", [
    "jnp.sum([1, 2])\n",
    "jnp.sum((1, 2))\n",
    "jnp.sum(())\n",
    "jnp.sum(((1, 2)))\n",
    "jnp.sum(([1, 2]))\n",
    "jnp.sum((1,))\n",
    "jnp.sum([x for x in y], axis=0)\n",
    "jnp.sum(\n    [1, 2]\n)\n",
    "jnp.sum([1, 2]  # the values\n)\n",
    "jnp.sum([1, 2] \\\n)\n",
    "jnp.sum([(a, b), {c: d}], 0)\n",
    "jnp.sum((f(a), g(b)))\n",
    "jnp.sum([')', 2])\n",  # a quote: not looked into
    "jnp.sum([# )\n 2])\n",
    "jnp.sum([1, 2]",  # not closed
    "jnp.sum([1, 2)",
    "w = [1]\njnp.sum(w)\n",
    "w = [1]\njnp.sum(w, axis=0)\n",
    "w = [1]\njnp.sum(w\n)\n",
    "w = [1]\njnp.sum(w  # c\n)\n",
    "w = [1]\njnp.sum(w",
    "w = [1]\njnp.sum((w))\n",
    "w = [1]\njnp.sum(( w ), 0)\n",
])
def test_first_arguments_that_may_be_sequences(source):
    assert list_arguments.may_pass_sequence_text(source), source
    _check(source)


def test_a_combining_mark_continues_a_name():
    # ``\\w`` stops before U+0304; the version before this test read ``dL`` and missed the call
    source = "dL\u0304 = [1]\njnp.sum(dL\u0304)\n"
    assert list_arguments.may_pass_sequence_text(source)
    assert not _argument_misses(source)
    assert not list_arguments.may_pass_sequence_text("dL\u0304 = [1]\njnp.sum(dL\u0304\u0304)\n")


# First arguments that are more than a literal or a name, or a parenthesized expression without a comma.
@pytest.mark.parametrize("source", [
    "jnp.sum((x - y) ** 2)\n",
    "jnp.sum((x - y))\n",
    "jnp.sum(((x - y) ** 2), axis=0)\n",
    "jnp.where((a < b) & (c < d), x, y)\n",
    "jnp.sum((x * x.conj()).real, axis=-1)\n",
    "jnp.exp(\n    (a - b) / c)\n",
    "jnp.sum(x for x in (1, 2))\n",
    "jnp.sum((x for x in (1, 2)))\n",
    "jnp.sum([1, 2][0])\n",
    "jnp.sum([1, 2] if c else d)\n",
    "jnp.sum((x) + 1)\n",
    "w = [1]\njnp.mean(w ** 2)\n",
    "w = [1]\njnp.mean(w[0])\n",
    "w = [1]\njnp.mean(w.T)\n",
    "w = [1]\njnp.mean(w=3)\n",
])
def test_first_arguments_that_cannot_be_sequences(source):
    assert not list_arguments.may_pass_sequence_text(source), source
    _check(source)


PIECES = ["jnp", "np", ".", "sum", "mean", "max", "(", ")", "[", "]", "w", "weights", "x", "=", "==", " = [", ":",
          "int", " ", "\t", "\n", "\r\n", "#", "# w", "# (", "\\\n", ",", "\u00e9", "_", "1"]


def test_never_more_than_before_on_random_texts():
    generator = random.Random(27)
    for _ in range(6_000):
        _check("".join(generator.choices(PIECES, k=generator.randint(1, 30))))


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_never_more_than_before_on_every_gate_source(name, source):
    _check(source)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@hsettings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_no_argument_missed_on_generated_programs(program):
    assert not _argument_misses(program)
    assert not _binding_misses(program)


@needs_dev_corpus
def test_never_more_than_before_on_the_dev_corpus():
    for text in dev_corpus.python_texts():
        _check(text)
    for cells in dev_corpus.notebook_cells():
        _never_more_than_before("\n".join(cells))
