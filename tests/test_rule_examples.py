"""Every rule's inline VALID/INVALID examples, as tests (the rule module is the spec)."""
import pytest

from jaxlint.rules import all_rules
from support.rule_harness import check_invalid, check_valid

VALID = [(rule, example) for rule in all_rules() for example in rule.VALID]
INVALID = [(rule, example) for rule in all_rules() for example in rule.INVALID]


def _id(case):
    rule, example = case
    return f"{rule.code}-{(example.note or example.code.splitlines()[-1])[:60]}"


@pytest.mark.parametrize("case", VALID, ids=[_id(c) for c in VALID])
def test_valid_example_is_not_flagged(case):
    check_valid(*case)


@pytest.mark.parametrize("case", INVALID, ids=[_id(c) for c in INVALID])
def test_invalid_example_is_flagged_and_fixed_exactly(case):
    check_invalid(*case)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_rule_is_documented_and_has_examples(rule):
    assert rule.summary and rule.explanation.strip() and rule.since and (rule.triggers or rule.required_words)
    for heading in ("## What it does", "## Why", "## Example", "## Fix safety"):
        assert heading in rule.explanation, f"{rule.code} docs lack {heading}"
    assert rule.VALID and rule.INVALID
