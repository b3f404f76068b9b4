"""``may_pass_sequence_text`` (JAX103's text gate for list arguments) answers as its older version did: that one
compiled a pattern of the file's list-bound names for every file; the new one compiles it only where a comment
follows a ``(`` and may hold or precede such a name (tests/support/old_text_scans.py keeps the old code)."""
from __future__ import annotations

import random

import pytest

from jaxlint.analysis import list_arguments
from support import dev_corpus, old_text_scans
from support.dev_corpus import needs_dev_corpus
from support.gate_cases import SOURCES

ASKS = [(None, None), (frozenset({"sum", "mean"}), frozenset({"jnp", "numpy", "linalg"})), (frozenset(), frozenset())]


def _same_as_before(source: str) -> None:
    for bare, owners in ASKS:
        assert list_arguments.may_pass_sequence_text(source, bare, owners) == \
            old_text_scans.may_pass_sequence_text(source, bare, owners), (repr(source), bare, owners)


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
]


@pytest.mark.parametrize("source", CASES)
def test_same_as_before_on_hand_written_cases(source):
    _same_as_before(source)


PIECES = ["jnp", "np", ".", "sum", "mean", "max", "(", ")", "[", "]", "w", "weights", "x", "=", "==", " = [", ":",
          "int", " ", "\t", "\n", "\r\n", "#", "# w", "# (", "\\\n", ",", "\u00e9", "_", "1"]


def test_same_as_before_on_random_texts():
    generator = random.Random(27)
    for _ in range(6_000):
        _same_as_before("".join(generator.choices(PIECES, k=generator.randint(1, 30))))


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_same_as_before_on_every_gate_source(name, source):
    _same_as_before(source)


@needs_dev_corpus
def test_same_as_before_on_the_dev_corpus():
    for text in dev_corpus.python_texts():
        _same_as_before(text)
    for cells in dev_corpus.notebook_cells():
        _same_as_before("\n".join(cells))
