"""Two shapes that sent JAX101/JAX402's files to libcst in ``check`` (issue 38), now decided on ``ast``:

- ``from M import removed_module`` that nothing in the file uses: libcst's fix removes the statement (its whole
  lines, or ``pass`` where it is its block's only statement) or the unused names from it
  (``unused_imports.without_names``); ``analysis/unused_imports_ast.py`` writes the same edits from the text;
- a file with a star import: the resolver gives a name that nothing binds in reach the star module's name
  (``NameResolver._resolve_name``); ``AstView`` answers the same from ``ast_names``' scopes.

Each case must be answered by ``ast_findings.decide`` and equal the libcst visit's diagnostics field by field (fix
edits included); ``check`` must not parse it with libcst; ``--fix`` must write the same text either way. Shapes whose
libcst output the text does not settle stay libcst's.
"""
from __future__ import annotations

import ast
import textwrap
from dataclasses import asdict

import pytest

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings

CATALOGUE = [rule_by_code("JAX101"), rule_by_code("JAX402")]

# `jax.lib.xla_bridge` and `jax.experimental.maps` are removed modules; `pjit` and `mesh_utils` are not
UNUSED_IMPORTS = {
    "the statement's line": "import jax\nfrom jax.lib import xla_bridge\nx = 1\n",
    "its trailing comment goes, a comment above stays": "import jax\n# why\nfrom jax.lib import xla_bridge  # c\n\n"
                                                        "x = 1\n",
    "the file's last line, no newline": "import jax\nfrom jax.lib import xla_bridge",
    "the only statement of a function: pass": "def f():\n    from jax.lib import xla_bridge\n",
    "the only statement of a branch: pass": "if x:\n    from jax.lib import xla_bridge\nelse:\n    y = 1\n",
    "in a class, beside another statement": "class A:\n    from jax.lib import xla_bridge\n    x = 1\n",
    "in a try with a finally": "try:\n    from jax.lib import xla_bridge\nfinally:\n    pass\n",
    "aliased": "from jax.lib import xla_bridge as xb\n",
    "two removed names: the statement goes": "from jax.lib import xla_bridge, xla_client\n",
    "parenthesised, the statement goes": "from jax.lib import (\n    xla_bridge,  # a\n    xla_client,  # b\n)\n",
    "the first of two names": "from jax.experimental import maps, pjit\n",
    "the last of two names": "from jax.experimental import pjit, maps  # c\nx = 1\n",
    "the middle of three names": "from jax.experimental import pjit, maps, mesh_utils\n",
    "aliased names": "from jax.experimental import maps as m, pjit as p\n",
    "a space before the comma": "from jax.experimental import pjit , maps\n",
    "a trailing comma on one line": "from jax.experimental import (pjit, maps,)\n",
    "a comment after a trailing comma": "from jax.experimental import (pjit, maps,  # m\n)\n",
    "one a line, the last goes": "from jax.experimental import (\n    pjit,  # p\n    maps,  # m\n)\n",
    "one a line, the first goes": "from jax.experimental import (\n    maps,  # m\n    pjit,  # p\n    mesh_utils,\n)\n",
    "one a line, the middle goes": "from jax.experimental import (\n    pjit,  # p\n    maps,  # m\n"
                                   "    mesh_utils,\n)\n",
    "empty and comment lines before the last": "from jax.experimental import (\n    pjit,  # p\n\n    # lone\n"
                                               "    maps,  # m\n    # after\n)\n",
    "no trailing comma, the last goes": "from jax.experimental import (\n    pjit,  # p\n    maps  # m\n)\n",
    "a comma on its own line": "from jax.experimental import (\n    pjit,\n    maps  # m\n    ,\n)\n",
    "a comma after a comment": "from jax.experimental import (pjit  # p\n    , maps)\n",
    "a comment after the parenthesis": "from jax.experimental import (  # c\n    maps, pjit)\n",
    "the closing parenthesis indented": "from jax.experimental import (\n    pjit,\n    maps,\n    )  # end\nx = 1\n",
    "the last comma before a new line, the next not": "from jax.experimental import (pjit,  # p\n    maps,)\n",
    "one line in a function": "def f():\n    from jax.experimental import pjit, maps\n    return pjit\n",
    "a non-ASCII line before": "x = 'é'\nfrom jax.experimental import pjit, maps\n",
}

STAR_IMPORTS = {
    "a rename through an imported root": "import jax\nfrom jax_resnet import *  # noqa\nmodel = f()\n"
                                         "y = model.apply(x)\nz = jax.tree_map(g, t)\n",
    "a relative star import": "from .m import *\nimport jax\ny = jax.tree_map(f, t)\nz = tree_map(f, t)\n",
    "a name nothing binds is the star's": "from jax import *\ndef g():\n    numpy = 1\n    return numpy.DeviceArray\n"
                                          "def h():\n    return numpy.DeviceArray\n",
    "a class attribute does not bind in a method": "from jax import *\nclass A:\n    numpy = 1\n"
                                                    "    def f(self):\n        return numpy.DeviceArray\n",
    "a local of that name": "from jax import *\nimport jax\ndef g(numpy):\n    return numpy.DeviceArray\n"
                            "y = jax.tree_map(f, t)\n",
    "two star modules: ambiguous": "from jax import *\nfrom m import *\nimport jax\nx = numpy.DeviceArray\n"
                                   "y = jax.tree_map(f, t)\n",
    "an import in a function, the star outside it": "from jax import *\nimport jax\ndef g():\n"
                                                    "    import numpy\n    return numpy.DeviceArray\n"
                                                    "x = numpy.DeviceArray\ny = jax.tree_map(f, t)\n",
}

UNDECIDED = {
    "a multi-line import in a block": "def f():\n    from jax.experimental import (\n        pjit,\n        maps,\n"
                                      "    )\n    return pjit\n",
    "after another statement on its line": "import jax\nx = 1; from jax.lib import xla_bridge\n",
    "before another statement on its line": "import jax\nfrom jax.lib import xla_bridge; x = 1\n",
    "a semicolon after it": "from jax.experimental import pjit, maps;\n",
    "a suite on its header's line": "if x: from jax.lib import xla_bridge\n",
    "a backslash": "from jax.lib import \\\n    xla_bridge\n",
    "a star import in a function": "import jax\ndef f():\n    from m import *\n    return lib.xla_bridge.get_backend()\n"
                                   "x = jax.tree_map(g, t)\n",
}

DECIDED = {**UNUSED_IMPORTS, **STAR_IMPORTS}


def _libcst(source: str) -> list[dict]:
    found = lint_source(source, "t.py", Settings(), rules=CATALOGUE, prefilter=False, whole=True)
    return [asdict(diagnostic) for diagnostic in found.diagnostics]


def _decided(source: str) -> list[dict] | None:
    decided = ast_findings.decide(source, "t.py", CATALOGUE, ast.parse(source), settings=Settings())
    return None if decided is None else [asdict(diagnostic) for diagnostic in decided]


@pytest.mark.parametrize("source", list(DECIDED.values()), ids=list(DECIDED))
def test_decided_on_ast_exactly_as_libcst(source):
    decided = _decided(source)
    assert decided is not None, "the ast path must answer this case"
    assert decided == _libcst(source)


@pytest.mark.parametrize("source", list(UNUSED_IMPORTS.values()), ids=list(UNUSED_IMPORTS))
def test_the_fix_removes_the_import(source):
    """Each case is one removal: the whole statement or some of its names."""
    (finding,) = _libcst(source)
    assert finding["fix"]["message"] in ("Remove the import: nothing uses it", "Remove the unused names from the import")


@pytest.mark.parametrize("source", list(STAR_IMPORTS.values()), ids=list(STAR_IMPORTS))
def test_the_star_cases_have_findings(source):
    assert _libcst(source)


def test_a_name_nothing_binds_is_the_star_modules():
    """Where one module is star-imported, ``numpy`` outside ``g`` (which binds it) is ``jax.numpy``; where two are,
    it is nothing."""
    one = _decided(STAR_IMPORTS["a name nothing binds is the star's"])
    assert [finding["start"]["row"] for finding in one] == [6]
    two = _decided(STAR_IMPORTS["two star modules: ambiguous"])
    assert [finding["start"]["row"] for finding in two] == [5]


_EXAMPLES = [(rule, example) for rule in CATALOGUE for example in (*rule.VALID, *rule.INVALID)
             if "__future__" not in example.code]


@pytest.mark.parametrize("star", ["from m import *\n", "from jax.numpy import *\n"])
@pytest.mark.parametrize("rule,example", _EXAMPLES, ids=[f"{rule.code}-{index}" for index, (rule, _) in
                                                         enumerate(_EXAMPLES)])
def test_rule_examples_under_a_star_import(rule, example, star):
    """Each JAX101/JAX402 example after a star import: decided exactly as libcst, or undecided."""
    source = star + textwrap.dedent(example.code)
    settings = example_settings(rule, example)
    decided = ast_findings.decide(source, "t.py", [rule], ast.parse(source), settings=settings)
    if decided is not None:
        found = lint_source(source, "t.py", settings, rules=[rule], prefilter=False, whole=True).diagnostics
        assert [asdict(d) for d in decided] == [asdict(d) for d in found]


def test_other_rules_still_send_a_star_import_to_libcst():
    """Only JAX101/JAX402's port resolves names through a star import (``AstView.star_names``): another port may
    read a builtin from the file's bindings alone, which a star import changes."""
    source = "from m import *\nimport jax.numpy as jnp\nz = jnp.cross([1.0, 2.0], [3.0, 4.0])\ny = v + z\n"
    assert ast_findings.decide(source, "t.py", [rule_by_code("JAX205")], ast.parse(source)) is None
    view = ast_findings.AstView(source, ast.parse(source))
    jnp = view.tree.body[2].value.func.value
    v, z = view.tree.body[3].value.left, view.tree.body[3].value.right
    with pytest.raises(ast_findings.Undecidable):
        view.qualified_name(jnp)
    with view.star_names():
        assert [view.qualified_name(name) for name in (jnp, v, z)] == ["jax.numpy", "m.v", None]
    with pytest.raises(ast_findings.Undecidable):
        view.qualified_name(v)


@pytest.mark.parametrize("source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(source):
    assert _decided(source) is None
    assert _libcst(source)


@pytest.mark.parametrize("source", list(DECIDED.values()), ids=list(DECIDED))
def test_check_does_not_parse_with_libcst(monkeypatch, source):
    import libcst

    expected = _libcst(source)

    def no_libcst(*args, **kwargs):
        raise AssertionError("libcst was used")

    monkeypatch.setattr(libcst, "parse_module", no_libcst)
    result = lint_source(source, "t.py", Settings(), rules=CATALOGUE)
    assert [asdict(diagnostic) for diagnostic in result.diagnostics] == expected


@pytest.mark.parametrize("source", list(DECIDED.values()), ids=list(DECIDED))
def test_fix_mode_writes_the_same_either_way(monkeypatch, source):
    fast = fix_source(source, "t.py", Settings(), unsafe=True, rules=CATALOGUE)
    monkeypatch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
    slow = fix_source(source, "t.py", Settings(), unsafe=True, rules=CATALOGUE)
    assert fast.source == slow.source
    assert [asdict(a) for a in fast.applied] == [asdict(a) for a in slow.applied]
    assert [asdict(d) for d in fast.remaining] == [asdict(d) for d in slow.remaining]


@pytest.mark.parametrize("name,fixed", [
    ("the statement's line", "import jax\nx = 1\n"),
    ("the only statement of a function: pass", "def f():\n    pass\n"),
    ("the last of two names", "from jax.experimental import pjit  # c\nx = 1\n"),
    ("empty and comment lines before the last", "from jax.experimental import (\n    pjit,  # p\n\n    # lone\n)\n"),
    ("no trailing comma, the last goes", "from jax.experimental import (\n    pjit  # m\n)\n"),
])
def test_what_the_fix_writes(name, fixed):
    assert fix_source(UNUSED_IMPORTS[name], "t.py", Settings(), rules=CATALOGUE).source == fixed
