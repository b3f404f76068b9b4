"""What the registry knows of a rule without importing its module: enough to select it and to run the word prefilter.

A one-file check imported all 25 rule modules (0.06 CPU-s of about 0.24), though on a typical file only a few of
them pass the word prefilter. So the registry hands out a ``RuleCard`` for each rule that can stand for its class
until a file's words call for it: its code, whether it is opt-in, its version (``since``, ``behaviour_change``: what
``Rule.applies_to`` reads), its trigger strings and word sets. The engine swaps each card for the class
(``loaded``) once the word prefilter keeps it, before anything else is asked of it; any other attribute imports
the module too (``__getattr__``), so a card can be slower than its class, never different.

The cards are derived from the classes themselves (a process that finds no cards imports every rule, as before,
and writes them) and kept in the user's cache folder, signed as the catalogue's copies are and stamped with the
engine fingerprint (jaxlint's code and data): an edited rule or catalogue is a miss. A rule that decides its own
selection (overrides ``applies_to`` or ``may_report_under``: JAX206, JAX601) gets no card: it is imported always.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable

from jaxlint.rules.base import Rule
from jaxlint.project.settings import Settings

FORMAT = 1


class RuleCard:
    """Stands for a rule class (``load``) in the registry's selection and the word prefilter."""

    __slots__ = ("code", "opt_in", "since", "behaviour_change", "triggers", "required_words", "module", "name",
                 "_class")

    def __init__(self, code: str, opt_in: bool, since: str, behaviour_change: bool, triggers: tuple[str, ...],
                 required_words: frozenset[frozenset[str]], module: str, name: str) -> None:
        self.code, self.opt_in, self.since, self.behaviour_change = code, opt_in, since, behaviour_change
        self.triggers, self.required_words = triggers, required_words
        self.module, self.name = module, name
        self._class: type[Rule] | None = None

    def load(self) -> type[Rule]:
        if self._class is None:
            self._class = getattr(importlib.import_module(self.module), self.name)
        return self._class

    def applies_to(self, settings: Settings) -> bool:
        return Rule.applies_to.__func__(self, settings)  # reads ``since`` and ``behaviour_change`` only

    def may_report_under(self, settings: Settings) -> bool:
        return True  # a rule that overrides it gets no card

    def __getattr__(self, name: str):
        return getattr(self.load(), name)

    def __repr__(self) -> str:
        return f"<card of {self.code}>"


def loaded(rule) -> type[Rule]:
    """The class a card stands for; a class as it is."""
    return rule.load() if type(rule) is RuleCard else rule


def has_card(rule: type[Rule]) -> bool:
    """Whether a card can stand for ``rule``: its selection is ``Rule``'s own."""
    return rule.applies_to.__func__ is Rule.applies_to.__func__ \
        and rule.may_report_under.__func__ is Rule.may_report_under.__func__


def card_of(rule: type[Rule]) -> RuleCard:
    return RuleCard(rule.code, bool(rule.opt_in), rule.since, bool(rule.behaviour_change), tuple(rule.triggers),
                    frozenset(getattr(rule, "required_words", frozenset())), rule.__module__, rule.__name__)


def _to_json(rule: type[Rule]) -> list:
    if not has_card(rule):
        return [rule.code, rule.__module__, rule.__name__]
    card = card_of(rule)
    return [card.code, card.module, card.name, card.opt_in, card.since, card.behaviour_change, list(card.triggers),
            sorted(sorted(words) for words in card.required_words)]


def _from_json(row: list):
    """A card, or the class itself (imported) for a rule that has none; raises on anything malformed."""
    code, module, name = (str(value) for value in row[:3])
    if len(row) == 3:
        rule = getattr(importlib.import_module(module), name)
        if not (isinstance(rule, type) and issubclass(rule, Rule) and rule.code == code):
            raise ValueError(f"{module}.{name} is not the rule {code}")
        return rule
    opt_in, since, behaviour_change, triggers, words = row[3:]
    if not (isinstance(opt_in, bool) and isinstance(since, str) and isinstance(behaviour_change, bool)
            and all(isinstance(t, str) for t in triggers) and all(isinstance(w, str) for ws in words for w in ws)):
        raise ValueError(f"a malformed card for {code}")
    if not module.startswith("jaxlint.rules."):
        raise ValueError(f"a card names {module}")
    return RuleCard(code, opt_in, since, behaviour_change, tuple(triggers), frozenset(map(frozenset, words)),
                    module, name)


def _stamp() -> list:
    from jaxlint.project.fingerprint import engine_fingerprint

    return [FORMAT, engine_fingerprint()]


def _cache_file() -> Path:
    """One per install, as the catalogue's copies (named after where this package lies)."""
    from jaxlint.catalogue import _cache_file as catalogue_cache_file

    return catalogue_cache_file((Path(__file__).resolve().parent,), "rules")


def load_cards(classes_of_all: Callable[[], tuple[type[Rule], ...]]) -> tuple:
    """Every rule as a card where one can stand for it (else its class), in code order: from the cache when it holds
    this engine's, else from ``classes_of_all()`` (every rule module imported), which then writes it."""
    from jaxlint.catalogue import read_stamped, write_stamped

    cache, stamp = _cache_file(), _stamp()
    cached = read_stamped(cache, stamp)
    if cached is not None:
        try:
            return tuple(_from_json(row) for row in cached["rules"])
        except (KeyError, TypeError, ValueError, ImportError, AttributeError):
            pass  # damaged: built again
    classes = classes_of_all()
    write_stamped(cache, stamp, rules=[_to_json(rule) for rule in classes])
    return tuple(card_of(rule) if has_card(rule) else rule for rule in classes)
