"""``jaxlint verify --rules``: every rule's runnable examples, executed before/after across the two JAX versions.

A rule's examples use free names (``x``, ``idx``...). The inputs below define them, per rule, without touching the
rule files. ``EXTRA_RUNNABLE`` lists examples (by rule code and INVALID index) that become runnable with these
inputs although the rule does not mark them ``runnable``.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from jaxlint.rules import all_rules
from jaxlint.rules.base import Example, Rule
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version

COMMON = """\
import jax.numpy as _jnp
"""
INPUTS = {
    "JAX202": "x = _jnp.array([10.0, 20.0, 30.0, 40.0]); idx = _jnp.array([-1, 1, 5])\n",
    "JAX201": ("x = _jnp.arange(4.0); y = _jnp.arange(3.0); z = _jnp.ones((3, 4)); a = _jnp.ones((2, 1)); "
               "b = _jnp.arange(3.0); w = _jnp.zeros((3, 4)); more = [w]\n"),
}
# By position in the rule's INVALID list: an example added before these must move the numbers (the slow
# execution checks fail on an example whose inputs are missing).
EXTRA_RUNNABLE = {
    "JAX102": (2, 4),
    "JAX201": (2, 5, 6),
    "JAX202": (2, 3, 5, 6),
}

DRIVER = '''\
"""Runs every example module; exit 1 if any raised (each traceback printed)."""
import importlib
import sys
import traceback

failed = 0
for name in {names!r}:
    try:
        importlib.import_module(name)
        print(name, "ok")
    except BaseException:
        failed += 1
        print(name, "raised:", file=sys.stderr)
        traceback.print_exc()
sys.exit(1 if failed else 0)
'''


@dataclass
class RunnableExample:
    rule: type[Rule]
    index: int
    example: Example

    @property
    def module(self) -> str:
        return f"{self.rule.code.lower()}_example_{self.index}"


def runnable_examples(rules: Sequence[type[Rule]] | None = None) -> list[RunnableExample]:
    found = []
    for rule in rules or all_rules():
        extra = EXTRA_RUNNABLE.get(rule.code, ())
        for index, example in enumerate(rule.INVALID):
            if (example.fixed is not None or example.unsafe_fixed is not None) and \
                    (example.runnable or index in extra):
                found.append(RunnableExample(rule, index, example))
    return found


def settings_for(example: Example, rule: type[Rule], root: Path) -> Settings:
    kwargs = {"select": (rule.code,), "root": root, "unsafe_fixes": example.fixed is None}
    if example.target_version:
        kwargs["target_version"] = Version(example.target_version)
    if example.min_version:
        kwargs["explicit_min_version"] = Version(example.min_version)
    return Settings(**kwargs)


def write_project(directory: Path, examples: list[RunnableExample]) -> list[Path]:
    """One module per example (inputs first), and ``run_examples.py`` that imports them all."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for item in examples:
        prelude = COMMON + INPUTS.get(item.rule.code, "")
        path = directory / f"{item.module}.py"
        path.write_text(f"# {item.rule.code} INVALID[{item.index}] {item.example.note}\n" + prelude +
                        textwrap.dedent(item.example.code), encoding="utf-8")
        paths.append(path)
    (directory / "run_examples.py").write_text(DRIVER.format(names=[item.module for item in examples]),
                                               encoding="utf-8")
    return paths
