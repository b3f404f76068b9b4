"""Runs a rule's inline examples: flagged or not, and the exact source after ``--fix``."""
from __future__ import annotations

from dataclasses import replace

from jaxlint.lint.engine import fix_source, lint_source, parse
from jaxlint.rules.base import Example, Rule
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version


def example_settings(rule: type[Rule], example: Example) -> Settings:
    settings = Settings(select=(rule.code,))
    if example.target_version:
        settings = replace(settings, target_version=Version(example.target_version))
    if example.min_version:
        settings = replace(settings, explicit_min_version=Version(example.min_version),
                           min_version_source="example")
    return settings


def findings(rule: type[Rule], example: Example, *, prefilter: bool = True):
    settings = example_settings(rule, example)
    result = lint_source(example.code, "example.py", settings, rules=[rule], prefilter=prefilter)
    return [d for d in result.diagnostics if d.code == rule.code]


def check_valid(rule: type[Rule], example: Example) -> None:
    found = findings(rule, example, prefilter=False)
    assert not found, f"{rule.code} must not flag ({example.note}):\n{example.code}\nbut reported: " + \
        "; ".join(f"{d.start.row}:{d.start.column} {d.message}" for d in found)


def check_invalid(rule: type[Rule], example: Example) -> None:
    found = findings(rule, example, prefilter=False)
    assert len(found) == example.count, (
        f"{rule.code} must report {example.count} finding(s) ({example.note}) in:\n{example.code}\n"
        f"got {len(found)}: " + "; ".join(f"{d.start.row}:{d.start.column} {d.message}" for d in found))
    assert len(findings(rule, example, prefilter=True)) == example.count, "the prefilter lost a finding"
    settings = example_settings(rule, example)
    safe = fix_source(example.code, "example.py", settings, rules=[rule])
    expected_safe = example.fixed if example.fixed is not None else example.code
    assert safe.source == expected_safe, f"safe fix of:\n{example.code}\ngave:\n{safe.source}\nexpected:\n{expected_safe}"
    unsafe = fix_source(example.code, "example.py", settings, rules=[rule], unsafe=True)
    expected_unsafe = example.unsafe_fixed if example.unsafe_fixed is not None else expected_safe
    assert unsafe.source == expected_unsafe, \
        f"unsafe fix of:\n{example.code}\ngave:\n{unsafe.source}\nexpected:\n{expected_unsafe}"
    # Idempotence at the same applicability: a safe-fixed source may still hold unsafe fixes.
    for outcome, with_unsafe in ((safe, False), (unsafe, True)):
        parse(outcome.source)  # fixed code must parse
        again = fix_source(outcome.source, "example.py", settings, rules=[rule], unsafe=with_unsafe)
        assert again.source == outcome.source, "fix is not idempotent"
        assert not outcome.rejected, f"a fix produced unparseable code: {outcome.rejected}"
