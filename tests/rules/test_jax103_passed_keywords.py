"""JAX103's text gate: ``passed_keywords`` finds the ``name=`` spellings the former whole-file regex found."""
import re

import pytest
from hypothesis import given, settings, strategies as st

from jaxlint.lint.text_gate import passed_keywords
from jaxlint.rules.jax103_changed_signature import ChangedSignature
from support.corpus import example_sources

# The definition it replaces (one ``findall`` of every ``name=`` of the file): the reference.
_REFERENCE = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)")
NAMES = ["a_min", "a_max", "x", "axis", "dtype", "_private", "k2"]


def _reference(source, names):
    return set(_REFERENCE.findall(source)) & set(names)


@pytest.mark.parametrize("source, expected", [
    ("jnp.clip(x, a_min=0)", {"a_min"}),
    ("f(a_min = 0)", {"a_min"}),
    ("f(a_min\n=0)", {"a_min"}),
    ("if a_min == 0: pass", set()),
    ("b_a_min=1", set()),  # another word that ends in the name
    ("éa_min=1", set()),  # a non-ASCII letter before it: still another word (``\w``)
    ("(a_min)=1", set()),
    ("a_min=1", {"a_min"}),  # at the start of the text
    ("x = 1; y=2", {"x"}),
    ("a_min==1 or a_min=2", {"a_min"}),  # a later occurrence counts
    ("a_min_x=1", set()),
])
def test_passed_keywords(source, expected):
    assert passed_keywords(source, ["a_min", "x"]) == expected == _reference(source, ["a_min", "x"])


_TOKENS = st.sampled_from(list("ax_min =\n\t(),é2dk") + ["a_min", "axis", "dtype", "==", "_private", "k2"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, max_size=30).map("".join))
def test_passed_keywords_agrees_with_the_reference(source):
    assert passed_keywords(source, NAMES) == _reference(source, NAMES)


def test_passed_keywords_agrees_on_every_example():
    names = sorted(ChangedSignature.parameter_keywords)
    for source in example_sources():
        assert passed_keywords(source, names) == _reference(source, names), source
