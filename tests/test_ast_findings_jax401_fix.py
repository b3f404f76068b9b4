"""JAX401's fix decided from ``ast`` where ``jax.set_mesh`` is in range: exactly the libcst visit's diagnostics (the
``Replace`` by ``jax.set_mesh(...)``, or why it is withheld), or not decided. See ``tests/test_ast_findings.py``.
With a project index, the block's search through the project (``ProjectReach``) is ported to ``ast``: see
``tests/test_ast_findings_jax401_reach.py``.
"""
from __future__ import annotations

import ast
from dataclasses import asdict

import pytest

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import lint_source
from jaxlint.project.index import activated, build_index
from jaxlint.project.settings import Settings
from jaxlint.rules import rule_by_code
from test_ast_findings import ast_decided, libcst_findings

JAX401 = rule_by_code("JAX401")
_JAX = "import jax\n"
_MAKE = "jax.make_mesh((2,), ('x',))"
_PLAIN = "jax.make_mesh(shape, names)"  # no quote: a fix on its line is decided (``_aligns_nothing``)
DECIDED = {
    "a local name": _JAX + f"mesh = {_MAKE}\nwith mesh:\n    pass\n",
    "the call itself": _JAX + f"with {_MAKE}:\n    pass\n",
    "a constructor, a comment after": _JAX + "with jax.sharding.Mesh(d, ('x',)):  # c\n    pass\n",
    "two items": _JAX + f"with {_MAKE}, open(f) as fh:\n    pass\n",
    "two meshes": _JAX + f"with {_MAKE}, {_MAKE}:\n    pass\n",
    "in a function": _JAX + "def f(d):\n    mesh = jax.sharding.Mesh(d, ('x',))\n    with mesh:\n        step()\n",
    "a one-line body": _JAX + f"with {_MAKE}: pass\n",
    "a name as target": _JAX + f"with {_MAKE}  as   mesh :\n    pass\n",
    "a name as target, two items": _JAX + f"with open(f) as fh, {_MAKE} as mesh:\n    pass\n",
    "a local name as target": _JAX + f"m = {_MAKE}\nwith m as mesh:  # c\n    pass\n",
    "an attribute as target": _JAX + f"with {_MAKE} as self.mesh:\n    pass\n",
    "import jax.numpy binds jax": "import jax.numpy as jnp\nimport jax.sharding\n"
                                  "with jax.sharding.Mesh(d, ('x',)):\n    pass\n",
    "non-ASCII before": _JAX + f"s = 'é€'; m = {_MAKE}\nwith m:\n    pass\n",
    "noqa": _JAX + f"with {_MAKE}:  # noqa: JAX401\n    pass\nwith {_MAKE}:\n    pass\n",
    "no mesh": _JAX + "with open(f):\n    pass\n",
    "jax imported in a function too": _JAX + f"def f():\n    import jax\nwith {_MAKE}:\n    pass\n",
    # (``tests/test_ast_findings_jax401_reach.py`` has more of these)
    "a pjit in the module": _JAX + "from jax.experimental.pjit import pjit\n" + f"with {_MAKE}:\n    pass\n",
    "thread_resources in the module": _JAX + f"with {_MAKE}:\n    x = thread_resources\n",
    # an edit across lines (``EditBuilder`` realigns nothing for it)
    "a header on two lines": _JAX + "with jax.make_mesh((2,),\n                  ('x',)):\n    pass\n",
    # in a block: libcst's fix writes the item in place too (``Rule.code_in_place``; ``code_for`` dropped the
    # block's indentation of its continuation line)
    "a header on two lines in a function": _JAX + "def f():\n    with jax.make_mesh((2,),\n                      ('x',)):\n"
                                           "        pass\n",
    "a header on two lines in nested 2-space blocks": _JAX + "def f():\n  if a:\n    with jax.sharding.Mesh(\n"
                                                      "            d, ('x',)):\n      pass\n",
    # ``with (...):``: libcst gives the parentheses to the ``With`` (they close right before the colon)
    "items in parentheses, on their own lines": _JAX + f"with (\n    {_PLAIN},\n    open(f) as fh,\n):\n"
                                                "    pass\n",
    "a name first in parenthesized items": _JAX + f"mesh = {_MAKE}\nwith (\n    mesh,\n    open(f),\n):\n"
                                           "    pass\n",
    "a name in parentheses": _JAX + f"mesh = {_MAKE}\nwith (mesh):\n    pass\n",
    "a comment after the items' parenthesis": _JAX + f"with (  # c\n    {_PLAIN}\n):\n    pass\n",
}
UNDECIDED = {
    "jax not imported": "from jax.sharding import Mesh\nwith Mesh(d, ('x',)):\n    pass\n",
    "a name as target in parentheses": _JAX + f"with {_MAKE} as (mesh):\n    pass\n",
    "a name as target after a backslash": _JAX + f"with {_MAKE} \\\n        as mesh:\n    pass\n",
    "jax bound otherwise in a function": _JAX + f"def g(x):\n    for jax in x:\n        pass\nwith {_MAKE}:\n"
                                         "    pass\n",
    "a removed spelling": _JAX + "with jax.experimental.maps.Mesh(d, ('x',)):\n    pass\n",
    "a mesh in parentheses (a bracket the fix may realign to)": _JAX + f"with ({_MAKE}):\n    pass\n",
    # the parentheses are the first item's own: libcst's position of the item starts at them
    "a mesh in parentheses, as a target": _JAX + f"with (\n    {_MAKE}\n) as mesh:\n    pass\n",
    "a name in parentheses, then another item": _JAX + f"mesh = {_MAKE}\nwith (\n    mesh\n), open(f):\n"
                                                "    pass\n",
    "a name in two parentheses": _JAX + f"mesh = {_MAKE}\nwith ((\n    mesh), open(f)):\n    pass\n",
}


@pytest.mark.parametrize("source", list(DECIDED.values()), ids=list(DECIDED))
def test_decided_from_ast_exactly_as_libcst(source):
    decided = ast_decided(source, [JAX401])
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, [JAX401])


@pytest.mark.parametrize("source", list(UNDECIDED.values()), ids=list(UNDECIDED))
def test_undecidable_cases_go_to_libcst(source):
    assert ast_decided(source, [JAX401]) is None


def test_the_cases_are_not_vacuous():
    found = {name: libcst_findings(source, [JAX401]) for name, source in DECIDED.items()}
    fixed = {name for name, findings in found.items() if any(finding["fix"] for finding in findings)}
    assert fixed == set(DECIDED) - {"an attribute as target", "no mesh", "thread_resources in the module"}
    assert len(found["two meshes"]) == 2 and len(found["noqa"]) == 1 and not found["no mesh"]
    assert found["an attribute as target"][0]["fix_withheld"]
    assert found["the call itself"][0]["fix"]["edits"][0]["content"] == f"jax.set_mesh({_MAKE})"
    assert [edit["content"] for edit in found["a name as target"][0]["fix"]["edits"]] == \
        [f"jax.set_mesh(mesh := {_MAKE})", ""]
    for name, source in UNDECIDED.items():
        assert libcst_findings(source, [JAX401]), name


# -- with a project index -----------------------------------------------------------------------------------------
_PROJECT = {
    "pkg/__init__.py": "",
    "pkg/risky.py": "from jax.experimental.maps import thread_resources\n\ndef axes():\n"
                    "    return thread_resources.env\n",
    "pkg/safe.py": "def step():\n    pass\n",
    "pkg/imports_risky.py": "from pkg import risky\n",
}
_BLOCK = f"with {_MAKE}:\n"
PROJECT_CASES = {  # (the module's path, its source, whether the fast path must answer)
    "a safe module": ("main.py", _JAX + "from pkg import safe\n" + _BLOCK + "    safe.step()\n", True),
    "a safe module, relative": ("pkg/user.py", _JAX + "from . import safe\n" + _BLOCK + "    safe.step()\n", True),
    "the package, a safe module through it": ("main.py", _JAX + "import pkg.safe\n" + _BLOCK + "    pkg.safe.step()\n",
                                              False),
    "a risky module used": ("main.py", _JAX + "from pkg import risky\n" + _BLOCK + "    risky.axes()\n", False),
    "a risky module imported, not used": ("main.py", _JAX + "from pkg import risky, safe\n" + _BLOCK +
                                          "    safe.step()\n", False),
    "a module importing a risky one": ("main.py", _JAX + "from pkg import imports_risky\n" + _BLOCK +
                                       "    imports_risky.x()\n", False),
    "an __init__ parameter": ("main.py", _JAX + "from pkg import safe\nclass A:\n    def __init__(self, m):\n"
                              "        self.m = m\n    def run(self):\n        " + _BLOCK.replace(":\n", ":\n  ")
                              + "            self.m.step()\n", False),
    "only outside packages": ("main.py", _JAX + "import numpy as np\nfrom os import path\n" + _BLOCK +
                              "    np.ones(path.sep)\n", True),
}


@pytest.mark.parametrize("where,source,must", list(PROJECT_CASES.values()), ids=list(PROJECT_CASES))
def test_with_a_project_index_decided_exactly_as_libcst(tmp_path, monkeypatch, where, source, must):
    monkeypatch.chdir(tmp_path)
    for name, text in {**_PROJECT, where: source}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    path = str(tmp_path / where)
    with activated(build_index(sorted(tmp_path.rglob("*.py")))):
        expected = [asdict(d) for d in lint_source(source, path, Settings(), rules=[JAX401], prefilter=False,
                                                    whole=True).diagnostics]
    with activated(build_index(sorted(tmp_path.rglob("*.py")))):
        decided = ast_findings.decide(source, path, [JAX401], ast.parse(source), settings=Settings())
    assert len(expected) == 1
    if must:
        assert decided is not None, "the fast path must answer this case"
        assert expected[0]["fix"]
    if decided is not None:
        assert [asdict(d) for d in decided] == expected


def test_fix_mode_is_the_same_with_the_fix_decided_from_ast(monkeypatch):
    from jaxlint.lint.engine import fix_source

    source = DECIDED["two meshes"] + DECIDED["a local name"].replace(_JAX, "")
    fast = fix_source(source, "t.py", Settings(), rules=[JAX401], unsafe=True)
    monkeypatch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
    slow = fix_source(source, "t.py", Settings(), rules=[JAX401], unsafe=True)
    assert fast.source == slow.source and fast.source.count("jax.set_mesh(") == 3
    assert [asdict(a) for a in fast.applied] == [asdict(a) for a in slow.applied]


def test_the_fix_keeps_a_continuation_lines_indentation_in_a_block():
    """``--fix`` wrote ``jax.set_mesh(jax.sharding.Mesh(\\n        d, ...))``: the item's continuation line lost its
    block's indentation (``Module.code_for_node`` renders a node at column 0)."""
    from jaxlint.lint.engine import fix_source

    source = "import jax\n\n\ndef f(d):\n    if True:\n        with jax.sharding.Mesh(\n                d, ('x',)):\n" \
             "            pass\n"
    fixed = fix_source(source, "x.py", Settings(), unsafe=True).source
    assert fixed == source.replace("with jax.sharding.Mesh(\n                d, ('x',)):",
                                   "with jax.set_mesh(jax.sharding.Mesh(\n                d, ('x',))):")
