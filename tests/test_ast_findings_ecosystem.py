"""JAX502/JAX506 (optax's and flax's removed or deprecated names) decided from ``ast``, fixes included
(``jaxlint.catalogue.ecosystem_ast``): exactly the libcst visit's diagnostics, or not decided.

As ``tests/test_ast_findings.py``: each case is linted through the libcst visit and through ``ast_findings.decide``;
the ``DECIDED`` cases must be answered (else the fast path could silently stop working).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from jaxlint.project.settings import Settings
from jaxlint.project.version_pins import Bound, PinnedRange
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings
from test_ast_findings import ast_decided, libcst_findings

JAX502 = rule_by_code("JAX502")
JAX506 = rule_by_code("JAX506")
RULES = (JAX502, JAX506)


def _pins(library: str, low: str, high: str | None = None) -> Settings:
    return replace(Settings(), pinned=PinnedRange(Path("."), None, None, (
        (library, Bound(Version(low), "requirements.txt:1", f"{library}>={low}"),
         Bound(Version(high), "requirements.txt:1", f"{library}<{high}") if high else None),)))


_OPTAX = "import optax\n"
_FLAX = "import flax\n"
DECIDED = {
    "optax rebound": _OPTAX + "optax = None\ntx = optax.dpsgd\n",
    # an import in the function is the only binding of the name there (``AstView.qualified_name`` as libcst's scopes)
    "optax imported in a function": "def f():\n    import optax\n    return optax.dpsgd\n",
    "attribute rename": _OPTAX + "tx = optax.additive_weight_decay(1e-4)\n",
    "through an alias": "import optax as ox\ntx = ox.dpsgd(0.1, 1.0, 1.1, 0)\n",
    "unsafe rename": _OPTAX + "n = optax.global_norm(grads)\n",
    "advice only, two": _OPTAX + "n = optax.tree_utils.tree_l2_norm(g)\ng = optax.hessian_diag(loss, p, i, t)\n",
    "a removed module and a member": _OPTAX + "x = optax.monte_carlo.pathwise_jacobians\n",
    "from-import rename": "from optax import additive_weight_decay, adam\ntx = additive_weight_decay(1e-4)\n",
    "from-import aliased": "from optax import additive_weight_decay as awd\n",
    "from-import of a submodule": "from optax.tree_utils import tree_scalar_mul, tree_l2_norm\n",
    "from-import, parenthesized on lines": "from optax import (\n    adam,\n    additive_weight_decay,  # c\n)\n",
    "from-import after a backslash": "from optax import \\\n    additive_weight_decay\n",
    "rename in a call's arguments": _OPTAX + "tx = chain(optax.dpsgd(0.1), adam)\n",
    "rename on a continuation line": _OPTAX + "tx = chain(\n    optax.dpsgd(0.1),\n    adam)\n",
    "a rename after the aligning bracket": _OPTAX + "tx = chain(optax.dpsgd(0.1),\n           adam)\n",
    "rename before a hanging indent": _OPTAX + "tx = optax.dpsgd(\n    0.1, 1.0)\n",
    "two renames on a line": _OPTAX + "a, b = optax.dpsgd, optax.additive_weight_decay\n",
    "a store and a decorator": _OPTAX + "optax.dpsgd = f\n@optax.additive_weight_decay\ndef g():\n    pass\n",
    "in an annotation": _OPTAX + "def f(s: optax.AdditiveWeightDecayState) -> optax.InitUpdate:\n    return s\n",
    "non-ASCII before": _OPTAX + "s = 'é€𝄞'; tx = optax.additive_weight_decay(1e-4)\n",
    "noqa": _OPTAX + "a = optax.dpsgd  # noqa: JAX502\nb = optax.dpsgd  # noqa\nc = optax.dpsgd\n",
    "compat hasattr": _OPTAX + "if hasattr(optax, 'tree'):\n    n = optax.tree.norm\nelse:\n"
                      "    n = optax.global_norm\n",
    "compat try": "try:\n    from optax import dpsgd\nexcept ImportError:\n    from optax.contrib import dpsgd\n",
    "not optax": "from mylib import optax\ntx = optax.additive_weight_decay(1e-4)\nself.optax.dpsgd\n",
    "relative and star-free": "from . import optax\nfrom .optax import dpsgd\n",
    "an unrelated name bound twice": _OPTAX + "import numpy as np\nnp = None\nx = np.dpsgd\ny = optax.dpsgd\n",
    # flax
    "flax attribute rename": _FLAX + "rules = flax.linen.spmd.logical_axis_rules\n",
    "flax through a module alias": "from flax import linen as nn\nr = nn.spmd.set_logical_axis_rules\n",
    "flax from-import of the one name": "from flax.linen.spmd import logical_axis_rules\n",
    "flax from-import aliased": "from flax.linen.spmd import logical_axis_rules as rules\n",
    "flax from-import of two names": "from flax.linen.spmd import logical_axis_rules, set_logical_axis_rules\n",
    "flax from-import, renamed": "from flax.core.lift import broadcast\nfrom flax.nnx import VariableState\n",
    "flax from-import, spaces after from": "from   flax.linen.spmd   import logical_axis_rules\n",
    "flax nnx rename": "from flax import nnx\nstate = nnx.VariableState(nnx.Param, 1.0)\n",
    "flax advice only": "from flax import linen as nn\ncell = nn.ConvLSTM(features=8)\nact = nn.GeGLU(features=8)\n",
    "a rename before an aligned continuation": _OPTAX + "tx = optax.dpsgd(0.1,\n                 1.0)\n",
    "flax and optax together": "import flax, optax\nx = flax.linen.spmd.logical_axis_rules\ny = optax.dpsgd\n",
}
SETTINGS_DECIDED = {
    "optax pinned below the replacement": (_pins("optax", "0.1.0"), _OPTAX + "tx = optax.dpsgd(0.1)\n"
                                                                            "from optax import dpsgd\n"),
    "optax pinned at the replacement": (_pins("optax", "0.1.8"), _OPTAX + "tx = optax.dpsgd(0.1)\n"),
    "flax pinned below the replacement": (_pins("flax", "0.6.0"), "from flax.linen.spmd import logical_axis_rules\n"),
    "flax capped below the removal": (_pins("flax", "0.6.0", "0.10"),
                                      "from flax.linen.spmd import logical_axis_rules\n"),
    "below the known range": (replace(Settings(), explicit_min_version=Version("0.1.0"), min_version_source="test"),
                              _OPTAX + "tx = optax.dpsgd(0.1)\n"),
}
UNDECIDED = {
    "own parentheses": _OPTAX + "tx = (optax).dpsgd(0.1)\n",
    "a star import": "from optax import *\nimport optax\nx = optax.dpsgd\n",
    "a module spelled with spaces": "from flax.linen .spmd import logical_axis_rules\n",
    "a module after a backslash": "from \\\n    flax.linen.spmd import logical_axis_rules\n",
    "CRLF": _OPTAX.replace("\n", "\r\n") + "tx = optax.dpsgd\r\n",
}
EXAMPLES = [(rule, example) for rule in RULES for example in (*rule.VALID, *rule.INVALID)]


@pytest.mark.parametrize("source", list(DECIDED.values()), ids=list(DECIDED))
def test_decided_from_ast_exactly_as_libcst(source):
    decided = ast_decided(source, RULES)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, RULES)


@pytest.mark.parametrize("settings,source", list(SETTINGS_DECIDED.values()), ids=list(SETTINGS_DECIDED))
def test_decided_with_pins_exactly_as_libcst(settings, source):
    decided = ast_decided(source, RULES, settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, RULES, settings)


@pytest.mark.parametrize("source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(source):
    assert ast_decided(source, RULES) is None


@pytest.mark.parametrize("rule,example", EXAMPLES, ids=[f"{rule.code}-{i}" for i, (rule, _) in enumerate(EXAMPLES)])
def test_rule_examples_decided_exactly_as_libcst(rule, example):
    settings = example_settings(rule, example)
    decided = ast_decided(example.code, [rule], settings)
    assert decided is not None, "every example is answered by the fast path"
    assert decided == libcst_findings(example.code, [rule], settings)


def test_the_cases_are_not_vacuous():
    """The decided cases hold safe and unsafe fixes (on one line and on several), withheld fixes, findings without
    a fix and none; each undecided case but a rebinding is a finding of the libcst visit."""
    found = {name: libcst_findings(source, RULES) for name, source in DECIDED.items()}
    fixed = {name for name, findings in found.items() if any(finding["fix"] for finding in findings)}
    assert len(fixed) >= 20
    assert found["unsafe rename"][0]["fix"]["applicability"] == "unsafe"
    assert [edit["content"] for edit in found["flax from-import aliased"][0]["fix"]["edits"]] == ["flax.linen"]
    assert [edit["content"] for edit in found["flax from-import, renamed"][1]["fix"]["edits"]] == \
        ["Variable as VariableState"]
    assert found["from-import, parenthesized on lines"][0]["fix"]["edits"][0]["location"]["row"] == 3
    assert len(found["a removed module and a member"]) == 1 and len(found["noqa"]) == 1
    for name in ("advice only, two", "flax advice only", "from-import of a submodule"):
        assert found[name] and not all(finding["fix"] for finding in found[name]), name
    for name in ("compat hasattr", "compat try", "not optax", "relative and star-free"):
        assert not found[name], name
    settings = {name: libcst_findings(source, RULES, settings) for name, (settings, source) in SETTINGS_DECIDED.items()}
    below = settings["optax pinned below the replacement"]
    assert below[0]["fix_withheld"] and not below[0]["fix"] and len(below) == 2
    assert settings["optax pinned at the replacement"][0]["fix"]
    assert settings["flax pinned below the replacement"][0]["fix_withheld"]
    assert not settings["flax capped below the removal"]
    assert not libcst_findings(DECIDED["optax rebound"], RULES)
    for name, source in UNDECIDED.items():
        assert libcst_findings(source, RULES), name


def test_engine_skips_libcst_with_the_fixes_decided_from_ast(monkeypatch):
    """Through the gates, as ``jaxlint check`` runs: the file's renames come from ``ast``, and ``--fix`` applies them
    as it applied libcst's."""
    from dataclasses import asdict

    from jaxlint.lint import ast_findings
    from jaxlint.lint.engine import fix_source, lint_source
    from test_ast_findings import _engine_without_libcst

    source = DECIDED["flax and optax together"] + DECIDED["from-import rename"]
    expected = libcst_findings(source, RULES)
    fast = fix_source(source, "t.py", Settings(), rules=list(RULES))
    with monkeypatch.context() as patch:
        patch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
        slow = fix_source(source, "t.py", Settings(), rules=list(RULES))
    assert fast.source == slow.source != source and len(fast.applied) == 3
    assert [asdict(a) for a in fast.applied] == [asdict(a) for a in slow.applied]
    _engine_without_libcst(monkeypatch)
    result = lint_source(source, "t.py", Settings(), rules=list(RULES))
    assert [asdict(d) for d in result.diagnostics] == expected and len(expected) == 3
