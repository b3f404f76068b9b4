"""All rules, one module each (``jaxNNN_<name>.py``); found by name so adding a rule is adding a file.

This package holds only the rules and their API (``base``). What several rules share lives in
``jaxlint.analysis`` (call matching, assignment targets, import edits, ...) and ``jaxlint.catalogue`` (the
removed and deprecated APIs of JAX, flax and optax, and the machinery of the catalogue-driven rules).

The registry also picks the rules one file is linted with (``enabled_rules``): it sits above both the rule API and
the settings, which know nothing of each other's registry."""
from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache

from jaxlint.catalogue.extend import extended_rules
from jaxlint.rules.base import Rule
from jaxlint.project.settings import Settings

_RULE_MODULE = re.compile(r"^jax\d{3}_\w+$")


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    found: dict[str, type[Rule]] = {}
    for info in pkgutil.iter_modules(__path__):
        if not _RULE_MODULE.match(info.name):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule \
                    and value.__module__ == module.__name__ and getattr(value, "code", None):
                if value.code in found and found[value.code] is not value:
                    raise RuntimeError(f"two rules claim {value.code}: {found[value.code]} and {value}")
                found[value.code] = value
    return tuple(sorted(found.values(), key=lambda rule: rule.code))


@lru_cache(maxsize=1)
def registry() -> tuple:
    """Every rule, as a card (``rules.cards``: enough to select it and to prefilter a file, its module imported only
    when a file's words call for it) where one can stand for its class, else the class."""
    from jaxlint.rules.cards import load_cards

    return load_cards(all_rules)


def rule_by_code(code: str) -> type[Rule] | None:
    """The rule class of ``code`` (only its module imported)."""
    from jaxlint.rules.cards import loaded

    for rule in registry():
        if rule.code == code.upper():
            return loaded(rule)
    return None


def known_codes() -> frozenset[str]:
    from jaxlint.lint.engine_codes import ENGINE_CODES  # JAX000-JAX002: reported by the engine, noqa_add, the runner

    return frozenset(rule.code for rule in registry()) | frozenset(ENGINE_CODES)


@lru_cache(maxsize=64)
def enabled_rules(settings: Settings, extra_ignored: tuple[str, ...] = ()) -> tuple[type[Rule], ...]:
    """The rules selected by ``settings`` that apply to its version range, less ``extra_ignored`` codes/prefixes:
    cards where they can stand for the classes (``rules.cards``; ``cards.loaded`` gives the class)."""
    from jaxlint.rules.cards import loaded

    ignored = set(extra_ignored)
    chosen = []
    for rule in registry():
        if rule.code in ignored or any(rule.code.startswith(prefix) for prefix in ignored):
            continue
        if settings.is_selected(rule.code, rule.opt_in) and rule.applies_to(settings):
            chosen.append(rule)
    if settings.extend_rules:  # the catalogue rules read the user's rule folders too (``extend-rules``)
        return extended_rules(tuple(map(loaded, chosen)), settings.extend_rules)
    return tuple(chosen)
