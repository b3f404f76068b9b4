"""The rule cards (``jaxlint.rules.cards``): each says what its class says, a check imports only the rule modules its
file's words call for, and a card cache that is not jaxlint's own changes nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import parse_version
from jaxlint.rules import all_rules, enabled_rules, registry
from jaxlint.rules import cards as cards_module
from jaxlint.rules.base import Rule
from jaxlint.rules.cards import RuleCard, has_card, load_cards, loaded

CARD_FIELDS = ("code", "opt_in", "since", "behaviour_change", "triggers", "required_words")


def from_the_cache() -> tuple:
    """The cards as a later process reads them (written first if need be)."""
    load_cards(all_rules)
    return load_cards(lambda: pytest.fail("the cards were not cached"))


def test_each_card_says_what_its_class_says():
    cards = from_the_cache()
    assert [rule.code for rule in cards] == [rule.code for rule in all_rules()]
    for card, rule in zip(cards, all_rules()):
        if not has_card(rule):
            assert card is rule  # it decides its own selection: imported always
            continue
        assert type(card) is RuleCard and loaded(card) is rule
        for name in CARD_FIELDS:
            assert getattr(card, name) == (tuple(getattr(rule, name)) if name == "triggers" else getattr(rule, name))
        for settings in (Settings(), Settings(explicit_min_version=parse_version(rule.since)),
                         Settings(target_version=parse_version("0.4.1"))):
            assert card.applies_to(settings) == rule.applies_to(settings)


def test_only_rules_that_decide_their_own_selection_have_no_card():
    without = [rule.code for rule in all_rules() if not has_card(rule)]
    assert without == [rule.code for rule in all_rules()
                       if "applies_to" in vars(rule) or "may_report_under" in vars(rule)]
    assert len(without) < len(all_rules()) // 4


def test_cards_and_classes_find_the_same_on_every_rule_example():
    settings = Settings(extend_select=tuple(rule.code for rule in all_rules()))  # the opt-in rules too
    classes = tuple(rule for rule in all_rules() if settings.is_selected(rule.code, rule.opt_in)
                    and rule.applies_to(settings))
    cards = enabled_rules(settings)
    assert any(type(rule) is RuleCard for rule in cards)
    compared = 0
    for rule in all_rules():
        for example in [*rule.VALID, *rule.INVALID]:
            source = example.code
            assert lint_source(source, "x.py", settings, rules=cards).diagnostics == \
                lint_source(source, "x.py", settings, rules=classes).diagnostics
            compared += 1
    assert compared > 500


CHECK_IMPORTS = """
import sys
import os
os.chdir(os.path.dirname(sys.argv[1]))
sys.argv = ["jaxlint", "check", os.path.basename(sys.argv[1]), "--no-cache"] + sys.argv[2:]
from jaxlint.ui.cli import main
try:
    main()
except SystemExit:
    pass
print(sorted(name.rpartition(".")[2][:6] for name in sys.modules if name.startswith("jaxlint.rules.jax")))
"""


def _imported_rules(path: Path, environment: dict) -> list[str]:
    done = subprocess.run([sys.executable, "-c", CHECK_IMPORTS, str(path)], capture_output=True, text=True,
                          env=environment, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1].replace("'", '"'))


def test_a_check_imports_only_the_rule_modules_its_file_calls_for(tmp_path):
    """pre-commit's case: a file that names no JAX API imports the rules without cards only; one that spells
    ``jax`` and ``clip`` imports those that may fire on it. The first process ever (no cards yet) imports them all."""
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    plain, clipped = tmp_path / "plain.py", tmp_path / "clipped.py"
    plain.write_text("import os\nprint(os.getcwd())\n")
    clipped.write_text("import jax.numpy as jnp\ny = jnp.clip(x, a_min=0)\n")
    everything = sorted(rule.__module__.rpartition(".")[2][:6] for rule in all_rules())
    assert _imported_rules(plain, environment) == everything
    always = sorted(rule.__module__.rpartition(".")[2][:6] for rule in all_rules() if not has_card(rule))
    assert _imported_rules(plain, environment) == always
    some = _imported_rules(clipped, environment)
    assert "jax103" in some and set(always) < set(some) and len(some) < len(everything)


def test_a_card_cache_that_is_not_jaxlint_s_own_changes_nothing(tmp_path, monkeypatch):
    """A card that drops a rule's triggers would hide every finding of it: an edited (unsigned) cache is a miss,
    and the cards are built again from the classes."""
    source = "import jax.numpy as jnp\ny = jnp.take_along_axis(x, i, axis=0, wrap_negative_indices=None)\n"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    load_cards(all_rules)
    cache = cards_module._cache_file()
    data = json.loads(cache.read_bytes().split(b"\n", 1)[1])
    for row in data["rules"]:
        if len(row) > 3:
            row[6], row[7] = [], []  # no triggers, no word sets: no file would ever be linted by these rules
    cache.write_bytes(json.dumps(data).encode())
    cards = load_cards(all_rules)
    card = next(rule for rule in cards if rule.code == "JAX202")
    assert card.triggers == tuple(loaded(card).triggers) and card.triggers
    settings = Settings()
    assert [d.code for d in lint_source(source, "x.py", settings, rules=cards).diagnostics] == ["JAX202"]


def test_the_registry_is_what_the_engine_selects_from():
    assert {rule.code for rule in registry()} == {rule.code for rule in all_rules()}
    assert all(issubclass(loaded(rule), Rule) for rule in registry())


def test_a_configuration_that_names_codes_imports_no_more_rules(tmp_path):
    """Checking that each configured code names a rule (``known_codes``) reads the cards, not the rule modules."""
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["JAX203"]\nignore = ["JAX104"]\n'
                                             'per-file-ignores = {"x.py" = ["JAX101"]}\n')
    plain = tmp_path / "plain.py"
    plain.write_text("import os\nprint(os.getcwd())\n")
    _imported_rules(plain, environment)  # the first process writes the cards
    always = sorted(rule.__module__.rpartition(".")[2][:6] for rule in all_rules() if not has_card(rule))
    assert _imported_rules(plain, environment) == always
