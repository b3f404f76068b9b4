"""The prefilter never loses a finding: every rule's must-flag examples, with the combined triggers of ALL rules."""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from jaxlint.lint.engine import lint_source, prefiltered_rules
from jaxlint.lint.prefilter import may_match
from jaxlint.rules import all_rules
from support.rule_harness import example_settings

INVALID = [(rule, example) for rule in all_rules() for example in rule.INVALID]


def _codes(diagnostics):
    return sorted((d.code, d.start.row, d.start.column, d.message) for d in diagnostics)


@pytest.mark.parametrize("case", INVALID, ids=[f"{r.code}-{i}" for i, (r, _) in enumerate(INVALID)])
def test_combined_prefilter_keeps_every_finding(case):
    rule, example = case
    settings = replace(example_settings(rule, example), select=("ALL",))
    rules = [r for r in all_rules() if r.applies_to(settings)]
    assert may_match(example.code, rules), f"the combined prefilter skips a must-flag example of {rule.code}"
    with_filter = lint_source(example.code, "example.py", settings, rules=rules, prefilter=True).diagnostics
    without = lint_source(example.code, "example.py", settings, rules=rules, prefilter=False).diagnostics
    assert _codes(with_filter) == _codes(without)
    assert any(d.code == rule.code for d in with_filter)


def test_each_rule_alone_matches_its_examples():
    for rule, example in INVALID:
        assert may_match(example.code, [rule]), f"{rule.code}: triggers miss {example.code!r}"


class _Fake:
    def __init__(self, triggers):
        self.triggers = tuple(triggers)


_words = st.text(alphabet="ab_(.*+?[\\|", min_size=0, max_size=4)


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_words, max_size=4), min_size=1, max_size=3), st.text(alphabet="ab_(.*+?[\\|\n", max_size=40))
def test_regex_prefilter_is_exactly_substring_search(trigger_lists, text):
    rules = [_Fake(triggers) for triggers in trigger_lists]
    expected = any(t in text for r in rules for t in r.triggers)
    assert may_match(text, rules) == expected


# -- only the rules a file may match visit it ---------------------------------------------------------------------
def test_each_rule_keeps_its_examples_through_all_three_stages():
    # lint_source runs only the rules that the word, text and ast stages keep: each stage must keep the rule itself.
    for rule, example in INVALID:
        settings = replace(example_settings(rule, example), select=("ALL",))
        rules = [r for r in all_rules() if r.applies_to(settings)]
        assert rule in prefiltered_rules(example.code, rules), f"{rule.code}: a stage drops {example.code!r}"


@pytest.mark.parametrize(("source", "codes"), [
    ("import jax\nx = jax.tree_map(f, t)\n", {"JAX101", "JAX402"}),
    ("import jax\nwith jax.sharding.Mesh(devices, ('x',)):\n    pass\n", {"JAX401"}),
    ("import jax\nx = jax.tree_util.tree_map(f, t)\n", set()),
])
def test_rules_no_stage_keeps_do_not_visit(source, codes):
    rules = [rule for rule in all_rules() if not rule.opt_in]
    assert {rule.code for rule in prefiltered_rules(source, rules)} == codes


# Triggers that share their first four characters (a large group is looked up at each place its guard occurs),
# shorter ones, and ones that overlap each other in the text.
_SHARED = st.sampled_from(["jax_", "jax_a", "jax_ab", "jax_b", "jax_ax", "jax_", "ja", "j", "x_a", "_ab"])


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_SHARED.flatmap(lambda head: st.text(alphabet="ab_x", max_size=3).map(head.__add__)),
                         max_size=8), min_size=1, max_size=3),
       st.lists(st.sampled_from(["jax_", "jax_a", "ab", "_", "x", "j", "a", "b", "\n"]), max_size=20).map("".join))
def test_found_triggers_are_exactly_the_substrings(trigger_lists, text):
    from jaxlint.lint.prefilter import _prefilter_for, _triggers_in

    rules = [type(f"Fake{index}", (_Fake,), {"triggers": tuple(triggers), "required_words": frozenset()})
             for index, triggers in enumerate(trigger_lists)]
    found = frozenset(_triggers_in(text, _prefilter_for(tuple(rules))))
    assert found == {trigger for triggers in trigger_lists for trigger in triggers if trigger in text}


# Word-character triggers are searched for among the file's distinct words (``Scan.joined_words``) when the file is
# split into words anyway: the same triggers must be found, also next to non-ASCII characters and punctuation.
_TEXT_PIECES = st.sampled_from(["jax", "jax_a", "ab", "_", "x", "é", "a", ".", "(", ")", " ", "\n", "b1", ".b(", "ß"])
_TRIGGERS = st.sampled_from(["jax_a", "jax_ab", "ab", "b1", "a", "x", "_", ".b(", "é", "jaxé", "jax", "b"])


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_TRIGGERS, max_size=4), min_size=1, max_size=3),
       st.lists(st.sets(st.sampled_from(["jax", "ab", "b1", "x"]), min_size=1).map(frozenset), max_size=3),
       st.lists(_TEXT_PIECES, max_size=24).map("".join))
def test_rules_found_among_the_words_are_those_of_the_text(trigger_lists, word_sets, text):
    import re

    from jaxlint.lint.prefilter import Scan, rules_matching_scan

    word_sets = [required | {"jax"} for required in word_sets]  # a shared word, as the real rules have
    rules = [type(f"Fake{index}", (_Fake,), {"triggers": tuple(triggers),
                                             "required_words": frozenset(word_sets[index:index + 1])})
             for index, triggers in enumerate(trigger_lists)]
    words = set(re.findall(r"[A-Za-z0-9_]+", text))
    expected = [rule for rule in rules if any(trigger in text for trigger in rule.triggers)
                or any(required <= words for required in rule.required_words)]
    assert rules_matching_scan(Scan(text), rules) == expected


def test_joined_words_hold_every_word_trigger_of_the_text():
    from jaxlint.lint.prefilter import Scan, _prefilter_for, _triggers_in

    rules = [type("Fake", (_Fake,), {"triggers": ("jax_enable_x64", "take_along_axis", ".device()"),
                                     "required_words": frozenset({frozenset({"jax"})})})]
    text = "import jax\nflags.xjax_enable_x64é = 1  # x.device()\n"
    scan = Scan(text)
    assert "jax_enable_x64" not in scan.words and "xjax_enable_x64" in scan.words  # inside a word only
    assert len(scan.joined_words) < len(text)
    prefilter = _prefilter_for(tuple(rules))
    found = frozenset(_triggers_in(text, prefilter, scan.joined_words))
    assert found == {"jax_enable_x64", ".device()"}  # ``.device()`` is not made of word characters: the text
    assert "take_along_axis" not in found
