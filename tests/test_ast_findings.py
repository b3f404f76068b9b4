"""Findings decided from ``ast`` (``jaxlint.lint.ast_findings``) are exactly the libcst visit's, or not decided.

Each case is linted twice: through the libcst visit (``whole=True``, no gates) and through ``ast_findings.decide``.
When ``decide`` answers, the diagnostics must be equal field by field (place, message, noqa, annotation flag). The
cases marked ``DECIDED`` must be answered: otherwise the fast path could silently stop working and still pass.
"""
from __future__ import annotations

import ast
import textwrap
from dataclasses import asdict

import pytest

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.rules import rule_by_code

JAX501 = rule_by_code("JAX501")

DECIDED = {
    "import": "import flax.optim\n",
    "import as": "import flax.deprecated.nn as old_nn\nfrom flax.optim import Adam\n",
    "two aliases": "import flax.nn, flax.optim\n",
    "from flax": "from flax import nn, optim\n",
    "from flax.optim one name": "from flax.optim import Momentum\n",
    "from flax.optim star": "from flax.optim import *\n",
    "parenthesized import": "from flax.optim import (\n    Adam,\n    Momentum,  # comment\n)\n",
    "attribute": "import flax\nopt = flax.optim.Momentum(learning_rate=0.1, beta=0.9)\n",
    "attribute in a call": "import flax\nopt = make(flax.optim.Adam, 1)\nprint (flax.optim.Adam)\n",
    "deprecated.nn chain": "import flax\nx = flax.deprecated.nn.Dense\n",
    "non-ASCII before": "import flax\ns = 'é€𝄞'; opt = flax.optim.Adam(1e-3)\n",
    "annotation, evaluated": "import flax\ndef f(opt: flax.optim.Optimizer) -> flax.optim.Optimizer:\n    return opt\n",
    "annotation, future": "from __future__ import annotations\nimport flax\ndef f(opt: flax.optim.Optimizer):\n"
                          "    return opt\n",
    "local annotation": "import flax\ndef f():\n    opt: flax.optim.Optimizer = make()\n",
    "class annotation": "import flax\nclass A:\n    opt: flax.optim.Optimizer\n",
    "try ImportError": "try:\n    from flax import optim\nexcept ImportError:\n    optim = None\n",
    "try other": "try:\n    from flax import optim\nexcept ValueError:\n    pass\n",
    "plain if": "import flax\nif use_adam:\n    opt = flax.optim.Adam(1)\nelse:\n    opt = flax.optim.Momentum(1)\n",
    "noqa": "import flax.optim  # noqa: JAX501\nimport flax.nn  # noqa\nfrom flax import optim\n",
    "decorator": "import flax\n@flax.optim.register\ndef f():\n    pass\n",
    "not flax": "from mylib import optim\nopt = optim.Adam(1e-3)\nimport flax\nx = flax.linen.Dense(3)\n",
    "relative": "from . import nn\nfrom .flax import optim\n",
    "import in a function": "def f():\n    import flax.optim\n",
    "unused flax name": "import jax\nflax = 1\nx = jax.numpy.ones(3)\n",
}
UNDECIDED = {
    "own parentheses": "import flax\nx = (flax.optim).Adam\n",
    "paren expression": "import flax\nif (flax.optim.Adam):\n    pass\n",
    "continuation line": "import flax\nx = make(\n    flax.optim.Adam)\n",
    "rebound": "import flax\nflax = None\nx = flax.optim\n",
    "function import": "def f():\n    import flax\n    return flax.optim.Adam\n",
    "star": "from flax import *\nimport flax\nx = flax.optim\n",
    "hasattr": "import flax\nif hasattr(flax, 'optim'):\n    x = flax.optim.Adam\n",
    "version and": "import flax\nok = flax.__version__ < '0.6' and flax.optim.Adam\n",
    "type checking": "from typing import TYPE_CHECKING\nimport flax\nif TYPE_CHECKING:\n    x: flax.optim.Adam\n",
    "f-string": "import flax\ns = f'{flax.optim.Adam}'\n",
    "CRLF": "import flax\r\nx = flax.optim.Adam\r\n",
    "comment inside": "import flax\nx = flax.optim.Adam(\n)  # flax.optim\ny = [flax.  # c\n     optim]\n",
}


def libcst_findings(source: str) -> list[dict]:
    result = lint_source(source, "t.py", Settings(), rules=[JAX501], prefilter=False, whole=True)
    return [asdict(diagnostic) for diagnostic in result.diagnostics]


def ast_decided(source: str) -> list[dict] | None:
    decided = ast_findings.decide(source, "t.py", [JAX501], ast.parse(source))
    return None if decided is None else [asdict(diagnostic) for diagnostic in decided]


def rule_examples() -> list[str]:
    return [textwrap.dedent(example.code) for example in (*JAX501.VALID, *JAX501.INVALID)]


@pytest.mark.parametrize("source", [*DECIDED.values(), *rule_examples()], ids=[*DECIDED, *(
    f"example{index}" for index in range(len(rule_examples())))])
def test_decided_from_ast_exactly_as_libcst(source):
    decided = ast_decided(source)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source)


@pytest.mark.parametrize("source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(source):
    assert ast_decided(source) is None


def test_the_cases_are_not_vacuous():
    findings = {name: libcst_findings(source) for name, source in DECIDED.items()}
    assert sum(map(len, findings.values())) >= 25
    assert any(f["unevaluated_annotation"] for found in findings.values() for f in found)
    assert not findings["try ImportError"] and findings["try other"]
    assert [f["start"] for f in findings["non-ASCII before"]] == [{"row": 2, "column": 18}]  # characters, not bytes


def test_engine_skips_libcst_when_every_rule_decides(monkeypatch):
    from jaxlint.lint import engine

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    source = DECIDED["annotation, evaluated"]
    expected = libcst_findings(source)
    monkeypatch.setattr(engine, "parse", no_libcst)
    result = lint_source(source, "t.py", Settings(), rules=[JAX501])
    assert [asdict(d) for d in result.diagnostics] == expected and len(expected) == 2
