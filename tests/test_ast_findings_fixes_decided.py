"""Findings whose fix used to need libcst in ``check`` (issue 38), now decided on ``ast`` with their fix: JAX101's
special rewrites (``x64-switch``, Pallas' ``load``/``store``/``dot``, ``device_put_sharded``/``replicated``,
``shard_map``, and the ``check_rep`` advice at ``from jax.experimental.shard_map import shard_map``), its
renames spelled from ``jax`` and its ``from M import name`` renames, JAX103's keyword renames and keywords passed by
position. Each case must be answered by ``ast_findings.decide`` and equal the libcst visit's diagnostics, field by
field (fix edits, applicability, probe, message); ``check`` must not parse it with libcst; ``--fix`` must write the
same text either way.
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
JAX103 = [rule_by_code("JAX103")]


def _min(version: str) -> Settings:
    return replace(Settings(), explicit_min_version=Version(version), min_version_source="test")


_PALLAS = "import jax\nfrom jax.experimental import pallas as pl\n"
_SHARD_MAP = "import jax\nfrom jax.experimental import shard_map\n"
_SHARD_MAP_FROM = "from jax.experimental.shard_map import shard_map\n"
# name: (rules, settings, source); every one has a finding with a fix at these settings
DECIDED_WITH_FIX = {
    "x64 switch in a with": (CATALOGUE, None, "import jax\ndef f(dtype):\n"
                             "    with jax.experimental.enable_x64(dtype.dtype.itemsize == 8):\n        pass\n"),
    "x64 switch, no argument": (CATALOGUE, None, "import jax\nwith jax.experimental.enable_x64():\n    pass\n"),
    "x64 switch off": (CATALOGUE, None, "import jax\nwith jax.experimental.disable_x64():\n    pass\n"),
    "x64 switch by keyword": (CATALOGUE, None, "import jax\nwith jax.experimental.enable_x64(new_val=v):\n"
                              "    pass\n"),
    "x64 switch as a decorator (unsafe)": (CATALOGUE, None, "import jax\n@jax.experimental.enable_x64(True)\n"
                                           "def f():\n    pass\n"),
    "pallas load": (CATALOGUE, None, _PALLAS + "x = pl.load(r, (a, b))\ny = pl.load(r, (a,))\nz = pl.load(r, ())\n"),
    "pallas load of an expression": (CATALOGUE, None, _PALLAS + "x = 1 + pl.load(a + b, pl.ds(0, 1)).T\n"),
    "pallas store": (CATALOGUE, None, _PALLAS + "pl.store(r, (a, slice(None)), v + 1)\n"),
    "pallas dot": (CATALOGUE, None, _PALLAS + "c = pl.dot(a, b, precision=p)  # why\n"),
    "pallas dot transposed": (CATALOGUE, None, _PALLAS + "c = pl.dot(a + 1, b, True, trans_b=True)\n"),
    "a rewrite across lines": (CATALOGUE, None, _PALLAS + "c = pl.dot(\n    a, b)\n"),
    "device_put_sharded": (CATALOGUE, None, "import jax\n"
                           "y = jax.device_put_sharded([x for x in xs], jax.local_devices())\n"),
    "device_put_replicated": (CATALOGUE, None, "import jax\ny = jax.device_put_replicated(x, devices)\n"),
    "a rename spelled from jax": (CATALOGUE, None, "import jax\nfrom jax import core\np = core.get_aval(x)\n"),
    "a rename spelled from jax, module imported": (CATALOGUE, None, "import jax\nimport jax.extend.core\n"
                                                   "from jax import core\np = core.Primitive('p')\n"),
    "a rename that adds an import": (CATALOGUE, None, '"""doc."""\nfrom __future__ import annotations\n\n'
                                     "import os\nimport jax\nimport numpy as np\n\nx = jax.core.Literal\n"),
    "a rename that adds an import section": (CATALOGUE, None, "import os; import sys\n\nx = 1\nimport jax\n"
                                             "y = jax.core.Literal\n"),
    "a rename whose import binds jax": (CATALOGUE, None, "from jax import core\np = core.Primitive('p')\n"),
    "a rename whose import is loaded in an if": (CATALOGUE, None, "import jax\nif x:\n    import jax.extend.core\n"
                                                 "y = jax.core.Literal\n"),
    "a rename whose import follows a suite": (CATALOGUE, None, "import jax\nif x: import jax.extend.core\n"
                                              "y = jax.core.Literal\n"),
    "a pallas dot that adds an import": (CATALOGUE, None, "import numpy as np\n"
                                         "from jax.experimental import pallas as pl\nc = pl.dot(a, b)\n"),
    "tree_multimap called with the trees positionally": (CATALOGUE, None, "import jax.tree_util as jtu\n"
                                                         "y = jtu.tree_multimap(f, a, b, is_leaf=g)\n"),
    "a from-import of jax.config": (CATALOGUE, None, "from jax.config import config\nconfig.update('x', 1)\n"),
    "a from-import, aliased": (CATALOGUE, _min("0.4.20"), "from jax.experimental import PartitionSpec as P\n"),
    "a from-import, grouped": (CATALOGUE, None, "from jax import (\n    tree_map,\n    tree_leaves,\n)\n"),
    "a from-import in a function": (CATALOGUE, None, "def f():\n    from jax.core import ConcretizationTypeError\n"),
    "shard_map with check_rep": (CATALOGUE, None, _SHARD_MAP + "f = shard_map.shard_map(g, mesh=m, in_specs=(a,), "
                                 "out_specs=b, check_rep=False)\n"),
    "shard_map by position": (CATALOGUE, None, _SHARD_MAP + "f = shard_map.shard_map(g, m, P('x'), P(), False)\n"
                              "h = shard_map.shard_map(g, m, i, out_specs=o)  # c\n"),
    "shard_map across lines": (CATALOGUE, None, _SHARD_MAP + "def run(x):\n    f = shard_map.shard_map(\n"
                               "        functools.partial(g, r=1),\n        mesh=m,\n        in_specs=(\n"
                               "            s.a,\n        ),\n        out_specs=s.b,\n        check_rep=False,\n"
                               "    )\n    return f(x)\n"),
    "shard_map whose rename adds import jax": (CATALOGUE, None, "from jax.experimental import shard_map as sm\n"
                                               "y = sm.shard_map(f, mesh=m, in_specs=i, out_specs=o)\n"),
    "keyword renames": (JAX103, None, "import jax.numpy as jnp\ny = jnp.clip(x, a_min=0, a_max=1)\n"),
    "keyword rename through partial": (JAX103, None, "import functools\nimport jax.numpy as jnp\n"
                                       "g = functools.partial(jnp.clip, a_min=0)\n"),
    "keywords by position": (JAX103, _min("0.4.20"), "import jax.numpy as jnp\n"
                             "def f(x):\n    return jnp.clip(x, a_min=lo, a_max=hi) + 1\n"),
    "a keyword by position, spaced": (JAX103, _min("0.4.20"), "import jax.numpy as jnp\n"
                                      "y = jnp.reshape(x, newshape = (2, 3))  # c\n"),
    # a position the keywords skip gets ``None`` and a comma as libcst writes it (jumanji's ``jnp.clip(x, a_max=...)``)
    "a keyword by position, a gap to fill": (JAX103, _min("0.4.20"),
                                             "import jax.numpy as jnp\ny = jnp.clip(x, a_max=1)\n"),
    "a keyword by position, a gap, one per line": (JAX103, _min("0.4.20"), "import jax.numpy as jnp\ndef f(x):\n"
                                                   "    return jnp.clip(\n        x,\n        a_max=5,\n    )\n"),
    "keywords by position, a gap between, the comma copied": (JAX103, _min("0.4.20"), "import jax.numpy as jnp\n"
                                                              "y = jnp.clip(a=x ,\n  a_max=1)\n"),
}
# A length-changing edit before continuation lines aligned to a bracket: ``EditBuilder``'s realignment
# (``fixes.realign_continuations``) moves them, on ``ast`` as on libcst (shapes of deepmind-research and flaxmodels)
_OLD = _min("0.4.20")  # below `jax.tree` (0.4.25): `jax.tree_map` becomes the longer `jax.tree_util.tree_map`
REALIGNED = {
    "a rename before an aligned line, in a return": (CATALOGUE, _OLD, "import jax\ndef f(t, y):\n"
                                                     "    return t, jax.tree_map(lambda *a: g(a, axis=0),\n"
                                                     "                           *y[1:])\n"),
    "a rename in nested blocks, a tuple target": (CATALOGUE, _OLD, "import jax\nif p:\n    if q:\n"
                                                  "        a, b = jax.tree_map(lambda x: x[:, :n],\n"
                                                  "                            (c, d))\n"),
    "two renames in one call, nested brackets": (CATALOGUE, _OLD, "import functools\nimport jax\n"
                                                 "s = s.replace(o=jax.tree_map(functools.partial(g, ok),\n"
                                                 "                             s.o,\n"
                                                 "                             t.o),\n"
                                                 "              p=jax.tree_map(functools.partial(g, ok),\n"
                                                 "                             s.p,\n"
                                                 "                             t.p))\n"),
    "a hanging indent inside the aligned call": (CATALOGUE, _OLD, "import jax\nx = jax.tree_map(f,\n"
                                                 "                 g(\n                     a),\n"
                                                 "                 b)  # c\n"),
    "a rename that adds an import, before an aligned line": (CATALOGUE, None, "import jax\n"
                                                             "x = jax.core.Literal(a,\n"
                                                             "                     b)\n"),
}
DECIDED_WITH_FIX.update(REALIGNED)
# Decided too, without a fix (the rewrite's own reason)
DECIDED_WITHOUT_FIX = {
    "x64 switch stored": (CATALOGUE, None, "import jax\nf = jax.experimental.enable_x64\n"),
    "x64 switch with a stray keyword": (CATALOGUE, None, "import jax\nwith jax.experimental.enable_x64(v=1):\n"
                                        "    pass\n"),
    "tree_multimap with a keyword tree": (CATALOGUE, None, "import jax\ny = jax.tree_multimap(f, tree=a)\n"
                                          "z = jax.tree_multimap(f, a, **options)\nw = jax.tree_multimap.__doc__\n"),
    "pallas load with a mask": (CATALOGUE, None, _PALLAS + "x = pl.load(r, i, mask=m)\n"),
    "pallas store in an expression": (CATALOGUE, None, _PALLAS + "y = pl.store(r, i, v)\n"),
    "pallas dot with allow_tf32": (CATALOGUE, None, _PALLAS + "c = pl.dot(a, b, allow_tf32=False)\n"),
    "device_put_replicated over a call": (CATALOGUE, None, "import jax\n"
                                          "y = jax.device_put_replicated(x, jax.devices())\n"),
    "pallas load below its floor": (CATALOGUE, _min("0.4.20"), _PALLAS + "x = pl.load(r, i)\n"),
    "a from-import below the replacement": (CATALOGUE, _min("0.3.0"), "from jax.experimental import PartitionSpec\n"),
    "shard_map stored": (CATALOGUE, None, _SHARD_MAP + "g = shard_map.shard_map\n"),
    "shard_map with auto": (CATALOGUE, None, _SHARD_MAP + "f = shard_map.shard_map(g, m, i, o, auto=a)\n"),
    "shard_map with *args": (CATALOGUE, None, _SHARD_MAP + "f = shard_map.shard_map(g, *rest, check_rep=c)\n"),
    "shard_map without out_specs": (CATALOGUE, None, _SHARD_MAP + "f = shard_map.shard_map(g, m, i)\n"),
    "shard_map below its floor": (CATALOGUE, _min("0.6.0"), _SHARD_MAP + "f = shard_map.shard_map(g, m, i, o, "
                                  "check_rep=False)\n"),
    "shard_map imported, called with check_rep": (CATALOGUE, None, _SHARD_MAP_FROM + "@functools.partial(shard_map, "
                                                  "mesh=m, in_specs=i, out_specs=o, check_rep=False)\ndef f(x):\n"
                                                  "    return shard_map(g, mesh=m, in_specs=i, out_specs=o, "
                                                  "check_rep=False)(x)\n"),
    "shard_map imported, check_rep 5th": (CATALOGUE, None, _SHARD_MAP_FROM + "f = shard_map(g, m, i, o, False)\n"),
    "shard_map imported, aliased": (CATALOGUE, None, "from jax.experimental.shard_map import shard_map as smap\n"
                                    "f = smap(g, mesh=m, in_specs=i, out_specs=o, check_rep=False)\n"),
    "shard_map imported, a parameter of its name": (CATALOGUE, None, _SHARD_MAP_FROM + "def f(shard_map):\n"
                                                    "    return shard_map(g, m, i, o, check_rep=False)\n"),
    "shard_map imported, a local of its name": (CATALOGUE, None, _SHARD_MAP_FROM + "def f():\n"
                                                "    shard_map = make()\n    return shard_map(g, m, i, o, False)\n"
                                                "def h():\n    return shard_map(g, m, i, o, check_rep=False)\n"),
    "shard_map imported, no check_rep": (CATALOGUE, None, _SHARD_MAP_FROM + "f = shard_map(g, m, i, o)\n"
                                         "h = functools.partial(shard_map, check_rep=False)\n"),
}
# Still libcst's: what ``ast`` cannot place for certain
UNDECIDED = {
    "an argument in parentheses of its own": (CATALOGUE, None, _PALLAS + "x = pl.load((r), i)\n"),
    "the import block ends the file": (CATALOGUE, None, "def f():\n    return jax.core.Literal\nimport jax"),
    "jax a parameter there": (CATALOGUE, None, "import jax\nfrom jax import core\ndef f(jax):\n    return core.get_aval(x)\n"),
    "shard_map with an argument in parentheses": (CATALOGUE, None, _SHARD_MAP + "f = shard_map.shard_map(g, (m), "
                                                  "i, o)\n"),
    "a keyword by position, in parentheses": (JAX103, _min("0.4.20"), "import jax.numpy as jnp\ny = jnp.reshape(x, newshape=((s)))\n"),
    "a keyword by position, a comment in the comma to copy": (JAX103, _min("0.4.20"), "import jax.numpy as jnp\n"
                                                              "y = jnp.clip(a=x,  # arr\n  a_max=1)\n"),
    "an edit before aligned lines, in a compound header": (CATALOGUE, _OLD, "import jax\nif jax.tree_map(f,\n"
                                                           "                x):\n    pass\n"),
    "an edit before aligned lines, after a semicolon": (CATALOGUE, _OLD, "import jax\nz = 1; y = jax.tree_map(f,\n"
                                                        "                         x)\n"),
    "an edit before aligned lines, a semicolon after": (CATALOGUE, _OLD, "import jax\ny = jax.tree_map(f,\n"
                                                        "                 x); z = 1\n"),
    "an edit before aligned lines, a suite after a backslash": (CATALOGUE, _OLD, "import jax\nif p: \\\n"
                                                                "    y = jax.tree_map(f,\n"
                                                                "                     x)\n"),
}


def _libcst(source: str, rules, settings) -> list[dict]:
    found = lint_source(source, "t.py", settings or Settings(), rules=list(rules), prefilter=False, whole=True)
    return [asdict(diagnostic) for diagnostic in found.diagnostics]


def _decided(source: str, rules, settings) -> list[dict] | None:
    decided = ast_findings.decide(source, "t.py", list(rules), ast.parse(source), settings=settings)
    return None if decided is None else [asdict(diagnostic) for diagnostic in decided]


@pytest.mark.parametrize("rules,settings,source", [*DECIDED_WITH_FIX.values(), *DECIDED_WITHOUT_FIX.values()],
                         ids=[*DECIDED_WITH_FIX, *DECIDED_WITHOUT_FIX])
def test_decided_on_ast_exactly_as_libcst(rules, settings, source):
    decided = _decided(source, rules, settings)
    assert decided is not None, "the ast path must answer this case"
    assert decided == _libcst(source, rules, settings)


@pytest.mark.parametrize("rules,settings,source", list(DECIDED_WITH_FIX.values()), ids=list(DECIDED_WITH_FIX))
def test_the_cases_carry_fixes(rules, settings, source):
    assert any(finding["fix"] for finding in _libcst(source, rules, settings))


def test_the_fixless_cases_have_none():
    for name, (rules, settings, source) in DECIDED_WITHOUT_FIX.items():
        found = _libcst(source, rules, settings)
        assert found and not any(finding["fix"] for finding in found), name


def test_shard_map_says_check_rep_where_a_call_passes_it():
    """The advice at the import and the call follows the calls' ``check_rep``, whichever tree answers."""
    advice = "`jax.shard_map` takes `check_rep` as `check_vma=`"
    for name, says in (("shard_map imported, called with check_rep", True), ("shard_map imported, check_rep 5th", True),
                       ("shard_map imported, aliased", True), ("shard_map imported, no check_rep", False),
                       ("shard_map imported, a parameter of its name", False),
                       ("shard_map imported, a local of its name", True),
                       ("shard_map with check_rep", True), ("shard_map by position", True)):
        found = _decided(*_case(name))
        assert found and (advice in found[0]["message"]) is says, name
    (positional, keywords) = _decided(*_case("shard_map by position"))
    assert [edit["content"] for edit in positional["fix"]["edits"]] == ["jax.shard_map", "mesh=", "in_specs=",
                                                                         "out_specs=", "check_vma="]
    assert "check_vma" not in str(keywords["fix"]) and "check_vma" not in keywords["message"]


def _case(name: str):
    rules, settings, source = {**DECIDED_WITH_FIX, **DECIDED_WITHOUT_FIX}[name]
    return source, rules, settings


@pytest.mark.parametrize("rules,settings,source", list(REALIGNED.values()), ids=list(REALIGNED))
def test_the_realigned_cases_move_a_continuation_line(rules, settings, source):
    """Each case's fix has an edit that only re-indents a line (the realignment), beside the rename."""
    decided = _decided(source, rules, settings)
    moved = [edit for finding in decided for edit in finding["fix"]["edits"]
             if edit["content"] and not edit["content"].strip() and not source[edit["start"]:edit["end"]].strip()]
    assert moved


def test_probes_and_applicability_come_from_ast():
    (dot,) = _decided(DECIDED_WITH_FIX["pallas dot"][2], CATALOGUE, None)
    assert dot["fix"]["applicability"] == "unsafe" and dot["fix"]["probe"] is not None
    (switch,) = _decided(DECIDED_WITH_FIX["x64 switch in a with"][2], CATALOGUE, None)
    assert switch["fix"]["applicability"] == "safe" and switch["fix"]["probe"] is None
    (decorator,) = _decided(DECIDED_WITH_FIX["x64 switch as a decorator (unsafe)"][2], CATALOGUE, None)
    assert decorator["fix"]["applicability"] == "unsafe"


@pytest.mark.parametrize("rules,settings,source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(rules, settings, source):
    assert _decided(source, rules, settings) is None
    assert _libcst(source, rules, settings)


@pytest.mark.parametrize("rules,settings,source", list(DECIDED_WITH_FIX.values()), ids=list(DECIDED_WITH_FIX))
def test_check_does_not_parse_with_libcst(monkeypatch, rules, settings, source):
    """``check`` (gates on) answers from ``ast``: libcst's ``parse_module`` is never called."""
    import libcst

    expected = _libcst(source, rules, settings)

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    monkeypatch.setattr(libcst, "parse_module", no_libcst)
    result = lint_source(source, "t.py", settings or Settings(), rules=list(rules))
    assert [asdict(diagnostic) for diagnostic in result.diagnostics] == expected


@pytest.mark.parametrize("rules,settings,source", list(DECIDED_WITH_FIX.values()), ids=list(DECIDED_WITH_FIX))
def test_fix_mode_writes_the_same_either_way(monkeypatch, rules, settings, source):
    settings = settings or Settings()
    fast = fix_source(source, "t.py", settings, unsafe=True, rules=list(rules))
    monkeypatch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
    slow = fix_source(source, "t.py", settings, unsafe=True, rules=list(rules))
    assert fast.source == slow.source != source
    assert [asdict(a) for a in fast.applied] == [asdict(a) for a in slow.applied]
    assert [asdict(d) for d in fast.remaining] == [asdict(d) for d in slow.remaining]
