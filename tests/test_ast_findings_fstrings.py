"""Findings inside an f-string's replacement field, decided from ``ast`` on Python 3.12 and later (PEP 701: the
nodes of an f-string are placed exactly, as libcst places them) and left to libcst before it.

Each case is linted through the libcst visit and through ``ast_findings.decide``, as in ``test_ast_findings.py``.
"""
from __future__ import annotations

import sys

import pytest

from jaxlint.rules import rule_by_code
from test_ast_findings import ast_decided, libcst_findings

_JAX = "import jax\n"
_JNP = "import jax\nimport jax.numpy as jnp\n"

# name: (rule code, settings, source, how many findings libcst reports)
CASES = {
    "JAX501 a removed module": ("JAX501", None, "import flax\ns = f'{flax.optim.Adam}'\n", 1),
    "JAX101 a rename, with its fix": ("JAX101", None, _JAX + "s = f'{jax.tree_map(f, x)}'\n", 1),
    "JAX101 a nested f-string": ("JAX101", None, _JAX + "s = f\"{f'{jax.tree_map}'}\"\n", 1),
    "JAX101 the quote reused (3.12)": ("JAX101", None, _JAX + "s = f\"{d[\"a\"]} {jax.tree_map}\"\n", 1),
    "JAX101 a multi-line field": ("JAX101", None, _JAX + "s = f'''{\n    jax.tree_map(f, x)\n}'''\n", 1),
    "JAX102 a read": ("JAX102", None, _JAX + "print(f'{jax.config.jax_array}')\n", 1),
    "JAX301 an attribute": ("JAX301", None, _JAX + "exp = jax.export.deserialize(b)\ns = f'{exp.in_shardings_hlo}'\n",
                            1),
    "JAX104 a method of an array": ("JAX104", None, _JNP + "x = jnp.ones(3)\nprint(f'{x.device()}')\n", 1),
    "JAX502 a deprecated optax name": ("JAX502", None, "import optax\ns = f'{optax.dpsgd}'\n", 1),
    "JAX203 an empty array": ("JAX203", None, _JNP + "s = f'{jnp.empty(3)}'\n", 1),
}


@pytest.mark.parametrize("code,settings,source,count", list(CASES.values()), ids=list(CASES))
def test_findings_in_fstrings_decided_from_312(code, settings, source, count):
    rules = [rule_by_code(code)]
    decided = ast_decided(source, rules, settings)
    if sys.version_info < (3, 12):
        assert decided is None, "before 3.12, ast's places inside an f-string are not libcst's"
    else:
        assert decided is not None, "the fast path must answer this case"
        assert decided == libcst_findings(source, rules, settings)


@pytest.mark.parametrize("code,settings,source,count", list(CASES.values()), ids=list(CASES))
def test_the_fstring_cases_are_not_vacuous(code, settings, source, count):
    assert len(libcst_findings(source, [rule_by_code(code)], settings)) == count
