"""JAX101's ``array-type`` rewrite (``jnp.DeviceArray`` -> ``jax.Array`` in annotations and ``isinstance``/
``issubclass`` checks) and ``annotation-type`` rewrite (``jax.random.KeyArray`` -> ``jax.Array`` in annotations)
decided on ``ast`` (issue 38: ``symbols_ast._array_type``, ``_annotation_type``), where they used to send the file
to libcst. Each decided case must equal the libcst visit's diagnostics field by field (message, span, fix edits and
applicability, the added import, the withheld fix below ``jax.Array``'s release), ``check`` must not parse it with
libcst, and ``--fix`` must write the same text either way. What ``ast`` cannot prove equal goes to libcst.
"""
from __future__ import annotations

import ast
from dataclasses import asdict, replace

import pytest

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code

CATALOGUE = [rule_by_code("JAX101"), rule_by_code("JAX402")]


def _min(version: str) -> Settings:
    return replace(Settings(), explicit_min_version=Version(version), min_version_source="test")


BELOW_REPLACEMENT = _min("0.4.0")  # ``jax.Array`` is from 0.4.1: the fix is withheld
BEFORE_REMOVAL = _min("0.4.1")  # ``jnp.DeviceArray`` exists until 0.4.14: a type check's fix is unsafe
_J = "import jax\nimport jax.numpy as jnp\n"
_JNP = "import jax.numpy as jnp\n"

# name: (settings, source); each has a finding with a fix at these settings
DECIDED_WITH_FIX = {
    "a parameter": (None, _JNP + "def f(x: jnp.DeviceArray):\n    return x\n"),
    "a parameter, jax imported": (None, _J + "def f(x: jnp.DeviceArray):\n    return x\n"),
    "a return": (None, _J + "def f(x) -> jnp.DeviceArray:\n    return x\n"),
    "an annotated assignment": (None, _J + "x: jnp.DeviceArray = y\n"),
    "a class attribute": (None, _J + "class A:\n    x: jnp.DeviceArray\n"),
    "Optional, on continuation lines": (None, _J + "from typing import Optional\n\n\ndef f(\n    self,\n"
                                              "    mask: Optional[jnp.DeviceArray] = None,\n"
                                              "    other: Optional[jnp.DeviceArray] = None,\n):\n    pass\n"),
    "a union": (None, _J + "def f(x: int | jnp.DeviceArray):\n    return x\n"),
    "future annotations": (None, "from __future__ import annotations\n" + _J
                                 + "def f(x: jnp.DeviceArray):\n    return x\n"),
    "star parameters": (None, _J + "def f(*a: jnp.DeviceArray, **k: jnp.DeviceArray):\n    return a\n"),
    "a parameter before aligned lines": (None, _J + "def f(a: jnp.DeviceArray, b,\n      c):\n    return a\n"),
    "spelled from jax.numpy": (None, "import jax\ndef f(x: jax.numpy.DeviceArray):\n    return x\n"),
    "an import jax to add": (None, "from jax import numpy as jnp\ndef f(x: jnp.DeviceArray):\n    return x\n"),
    "xla's DeviceArray": (None, _J + "from jax.interpreters import xla\ndef f(x: xla.DeviceArray):\n"
                                     "    return x\n"),
    "isinstance": (None, _JNP + "ok = isinstance(x, jnp.DeviceArray)\n"),
    "issubclass": (None, _J + "ok = issubclass(x, jnp.DeviceArray)\n"),
    "a tuple of classes": (None, _J + "ok = isinstance(x, (np.ndarray, jnp.DeviceArray))\n"),
    "nested tuples": (None, _J + "ok = isinstance(x, ((np.ndarray, jnp.DeviceArray), int))\n"),
    "a starred tuple element": (None, _J + "ok = isinstance(x, (*a, jnp.DeviceArray))\n"),
    "a tuple on three lines": (None, _J + "ok = isinstance(x, (np.ndarray,\n                   jnp.DeviceArray,\n"
                                          "                   int))\n"),
    "a comment in the call": (None, _J + "ok = isinstance(x,  # c\n    jnp.DeviceArray)\n"),
    "isinstance in an annotation": (None, _J + "def f(x: isinstance(a, jnp.DeviceArray)):\n    pass\n"),
    "isinstance below the removal (unsafe)": (BEFORE_REMOVAL, _J + "ok = isinstance(x, (int, jnp.DeviceArray))\n"),
    "an annotation below the removal (safe)": (BEFORE_REMOVAL, _J + "def f(x: jnp.DeviceArray):\n    return x\n"),
    "a KeyArray annotation": (None, "import jax\ndef f(key: jax.random.KeyArray):\n    return key\n"),
    "PRNGKeyArray and KeyArray": (None, "import jax\ndef f(key: jax.random.PRNGKeyArray) -> jax.random.KeyArray:\n"
                                        "    return key\n"),
    "KeyArray, an import jax to add": (None, "from jax import random\nk: Optional[random.KeyArray] = None\n"),
}
# name: (settings, source); findings without a fix (another class there, or the fix withheld)
DECIDED_WITHOUT_FIX = {
    "a list of classes": (None, _J + "ok = isinstance(x, [np.ndarray, jnp.DeviceArray])\n"),
    "the first argument": (None, _J + "ok = isinstance(jnp.DeviceArray, x)\n"),
    "three arguments": (None, _J + "ok = isinstance(x, jnp.DeviceArray, 3)\n"),
    "in a subscript": (None, _J + "ok = isinstance(x, foo[jnp.DeviceArray, b])\n"),
    "a lambda's body": (None, _J + "ok = isinstance(x, (lambda: jnp.DeviceArray)())\n"),
    "a method named isinstance": (None, _J + "ok = a.isinstance(x, jnp.DeviceArray)\n"),
    "a type alias": (None, _J + "type A = jnp.DeviceArray\n"),
    "an annotation below jax.Array": (BELOW_REPLACEMENT, _J + "def f(x: jnp.DeviceArray):\n    return x\n"),
    "isinstance below jax.Array": (BELOW_REPLACEMENT, _J + "ok = isinstance(x, jnp.DeviceArray)\n"),
    "elsewhere below jax.Array": (BELOW_REPLACEMENT, _J + "x = jnp.DeviceArray\n"),
    "below jax.Array, jax bound otherwise": (BELOW_REPLACEMENT, _JNP + "def g(jax):\n"
                                                                     "    def f(x: jnp.DeviceArray):\n"
                                                                     "        return x\n"),
    "KeyArray below jax.Array": (BELOW_REPLACEMENT, "import jax\ndef f(key: jax.random.KeyArray):\n"
                                                    "    return key\n"),
    "KeyArray outside annotations": (None, "import jax\nK = jax.random.KeyArray\n"),
}
# name: (settings, source); ``ast`` cannot prove these equal to libcst
UNDECIDED = {
    "a keyword argument": (None, _J + "ok = isinstance(x, y=jnp.DeviceArray)\n"),
    "a star argument": (None, _J + "ok = isinstance(x, *jnp.DeviceArray)\n"),
    "isinstance shadowed": (None, _J + "def isinstance(a, b):\n    pass\nok = isinstance(x, jnp.DeviceArray)\n"),
    "isinstance imported": (None, _J + "from foo import isinstance\nok = isinstance(x, jnp.DeviceArray)\n"),
    "a star import": (None, _J + "from foo import *\nok = isinstance(x, jnp.DeviceArray)\n"),
    "jax bound otherwise": (None, "from jax import numpy as jnp\njax = 3\ndef f(x: jnp.DeviceArray):\n"
                                  "    return x\n"),
    "jax a parameter in reach": (None, _JNP + "def g(jax):\n    def f(x: jnp.DeviceArray):\n        return x\n"),
    "KeyArray, jax a parameter in reach": (None, "from jax import random\ndef g(jax):\n"
                                                 "    def f(key: random.KeyArray):\n        return key\n"),
}


def _libcst(source: str, settings) -> list[dict]:
    found = lint_source(source, "t.py", settings or Settings(), rules=CATALOGUE, prefilter=False, whole=True)
    return [asdict(diagnostic) for diagnostic in found.diagnostics]


def _decided(source: str, settings) -> list[dict] | None:
    decided = ast_findings.decide(source, "t.py", CATALOGUE, ast.parse(source), settings=settings)
    return None if decided is None else [asdict(diagnostic) for diagnostic in decided]


@pytest.mark.parametrize("settings,source", [*DECIDED_WITH_FIX.values(), *DECIDED_WITHOUT_FIX.values()],
                         ids=[*DECIDED_WITH_FIX, *DECIDED_WITHOUT_FIX])
def test_decided_on_ast_exactly_as_libcst(settings, source):
    decided = _decided(source, settings)
    assert decided is not None, "the ast path must answer this case"
    assert decided == _libcst(source, settings)


def test_the_cases_carry_fixes():
    for name, (settings, source) in DECIDED_WITH_FIX.items():
        found = _libcst(source, settings)
        assert found and all(f["fix"] and f["fix"]["message"].startswith("Use `jax.Array`") for f in found), name
        assert all("jax.Array" in f["message"] for f in found), name


def test_the_fixless_cases_have_none():
    for name, (settings, source) in DECIDED_WITHOUT_FIX.items():
        found = _libcst(source, settings)
        assert found and not any(finding["fix"] for finding in found), name
        fixable_place = "isinstance(x, jnp" in source or "x: jnp" in source or "key: jax" in source
        assert bool(found[0]["fix_withheld"]) is (settings is BELOW_REPLACEMENT and fixable_place), name


def test_applicability_and_added_import():
    (check,) = _decided(DECIDED_WITH_FIX["isinstance below the removal (unsafe)"][1], BEFORE_REMOVAL)
    assert check["fix"]["applicability"] == "unsafe" and "a tracer is a `jax.Array`" in check["fix"]["message"]
    (annotation,) = _decided(DECIDED_WITH_FIX["an annotation below the removal (safe)"][1], BEFORE_REMOVAL)
    assert annotation["fix"]["applicability"] == "safe"
    (added,) = _decided(DECIDED_WITH_FIX["an import jax to add"][1], None)
    assert [edit["content"] for edit in added["fix"]["edits"]] == ["import jax\n", "jax.Array"]
    (added,) = _decided(DECIDED_WITH_FIX["KeyArray, an import jax to add"][1], None)
    assert [edit["content"] for edit in added["fix"]["edits"]] == ["import jax\n", "jax.Array"]


@pytest.mark.parametrize("settings,source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(settings, source):
    assert _decided(source, settings) is None
    assert _libcst(source, settings)


@pytest.mark.parametrize("settings,source", list(DECIDED_WITH_FIX.values()), ids=list(DECIDED_WITH_FIX))
def test_check_does_not_parse_with_libcst(monkeypatch, settings, source):
    import libcst

    expected = _libcst(source, settings)

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    monkeypatch.setattr(libcst, "parse_module", no_libcst)
    result = lint_source(source, "t.py", settings or Settings(), rules=CATALOGUE)
    assert [asdict(diagnostic) for diagnostic in result.diagnostics] == expected


@pytest.mark.parametrize("settings,source", list(DECIDED_WITH_FIX.values()), ids=list(DECIDED_WITH_FIX))
def test_fix_mode_writes_the_same_either_way(monkeypatch, settings, source):
    settings = settings or Settings()
    fast = fix_source(source, "t.py", settings, unsafe=True, rules=CATALOGUE)
    monkeypatch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
    slow = fix_source(source, "t.py", settings, unsafe=True, rules=CATALOGUE)
    assert fast.source == slow.source != source
    assert "jax.Array" in fast.source and "DeviceArray" not in fast.source and "KeyArray" not in fast.source
    assert [asdict(a) for a in fast.applied] == [asdict(a) for a in slow.applied]
    assert [asdict(d) for d in fast.remaining] == [asdict(d) for d in slow.remaining]
