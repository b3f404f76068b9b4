"""The word prefilter answers per rule (``rules_matching_scan``) exactly as each rule's own prefilter does
(``may_match`` with the rule alone): one pass over the file's words finds the word sets of every rule at once."""
from __future__ import annotations

import random
import re

import pytest

from jaxlint.lint.prefilter import Scan, may_match, rules_matching_scan
from jaxlint.rules import all_rules
from support import dev_corpus
from support.dev_corpus import needs_dev_corpus
from support.gate_cases import SOURCES

RULES = all_rules()
# Rule tuples as the engine builds them (every rule, the default ones) and random ones: the bits follow the order.
RULE_SETS = [RULES, tuple(rule for rule in RULES if not rule.opt_in)] + [
    tuple(random.Random(seed).sample(RULES, k=random.Random(seed).randint(1, len(RULES)))) for seed in range(6)]


def _check(source: str) -> None:
    own = {rule for rule in RULES if may_match(source, (rule,))}
    assert own == _by_definition(source), repr(source[:200])
    for rules in RULE_SETS:
        assert rules_matching_scan(Scan(source), rules) == [rule for rule in rules if rule in own], repr(source[:200])


def _by_definition(source: str) -> set:
    """The rules one of whose triggers is in the text, or one of whose word sets is among its words: what the
    tables, anchors and shortcuts must answer exactly."""
    words = set(re.findall(r"[A-Za-z0-9_]+", source))
    return {rule for rule in RULES if any(trigger in source for trigger in rule.triggers)
            or any(required <= words for required in getattr(rule, "required_words", ()))}


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_each_rule_as_its_own_prefilter_on_every_gate_source(name, source):
    _check(source)


@pytest.mark.parametrize("source", [
    "",
    "import jax\n",
    "import jax\njax.tree_map(f, t)\n",
    "import jax\njax.config.update('jax_enable_x64', True)\n",  # a trigger, no word set
    "import jax.numpy as jnp\njnp.clip(x, a_min=0)\n",
    "from flax import optim\n",
    "tree_map\n",  # a set's key without the word every set shares
    "jax jax jax numpy numpy\n",
    # no anchor (``jax``, ``flax``, ``optax``): only the triggers that contain none may match
    "import torch\nopt = torch.optim.Optimizer(params)\nstate = opt.init()\nx = d.device()\n",
    "import numpy as np\nxx, yy = np.meshgrid(a, b)\nCHECK_REP = 1\ny = np.take_along_axis(a, i, 0)\n",
    "from flax import nnx\nopt = nnx.Optimizer(m, tx)\n",  # an anchor: the word sets are read
    "import optax\nstate = tx.init(params)\n",
])
def test_each_rule_as_its_own_prefilter_on_small_texts(source):
    _check(source)


def test_the_cases_are_not_vacuous():
    # some source keeps some rules and not others: the comparison can fail
    kept = {len(rules_matching_scan(Scan(source), RULES)) for _, source in SOURCES}
    assert 0 in kept and max(kept) >= 5


@needs_dev_corpus
def test_each_rule_as_its_own_prefilter_on_the_dev_corpus():
    for text in dev_corpus.python_texts():
        _check(text)


def test_index_key_is_the_longest_word_greatest_on_ties():
    # ``_index_key`` sorts instead of calling a key per word (issue 38): the same word as the plain definition
    import random

    from jaxlint.lint.prefilter import _index_key

    rng = random.Random(38)
    for _ in range(2000):
        words = frozenset("".join(rng.choice("abz_") for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 6)))
        assert _index_key(words) == max(words, key=lambda word: (len(word), word))
