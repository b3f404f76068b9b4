"""JAX401 decided from ``ast`` where the block may reach a project module, run a ``pjit``, or the module may read
``thread_resources``: the ``ast`` ports of ``ProjectReach`` and ``PjitSpecFinder`` (``analysis/ast_project_reach.py``,
``analysis/ast_pjit_specs.py``) give exactly the libcst visit's diagnostics (fix or why it is withheld, which name,
which module), and exactly its dependency on other modules' sources (``construction_sites``: not cached), and
``jaxlint check`` parses none of these files with libcst.
"""
from __future__ import annotations

import ast
from dataclasses import asdict
from pathlib import Path

import libcst
import pytest
from click.testing import CliRunner

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import lint_source
from jaxlint.project.index import activated, build_index
from jaxlint.project.settings import Settings
from jaxlint.rules import rule_by_code
from jaxlint.ui.cli import main

JAX401 = rule_by_code("JAX401")
PROJECT = {
    "pkg/__init__.py": "",
    "pkg/risky.py": "from jax.interpreters.pxla import thread_resources\n\nLIMIT = 3\n\ndef axes():\n"
                    "    return thread_resources.env\n\nclass Model:\n    def train(self, batch):\n"
                    "        return batch\n",
    "pkg/pjit_step.py": "from jax.experimental.pjit import pjit\nfrom jax.sharding import PartitionSpec as P\n\n"
                       "step = pjit(lambda a: a, in_shardings=P('x'), out_shardings=P('x'))\n",
    "pkg/safe.py": "def step():\n    pass\n\nclass Model:\n    def train(self, batch):\n        return batch\n",
    "pkg/imports_risky.py": "from pkg import risky\n\ndef go():\n    return 1\n",
    "pkg/a.py": "", "pkg/b.py": "", "pkg/c.py": "", "pkg/d.py": "", "pkg/e.py": "", "pkg/f.py": "",
    "pkg/g.py": "", "pkg/h.py": "", "pkg/i.py": "",
}
_MAKE = "jax.make_mesh((2,), ('x',))"
_MANY = "from pkg import a, b, c, d, e, f, g, h, i\n"  # more modules than the shortcut asks about
_HEAD = "import jax\n" + _MANY


def _class(init: str, body: str) -> str:
    return (f"class Trainer:\n{init}    def fit(self, batch):\n        with {_MAKE}:\n"
            + "".join(f"            {line}\n" for line in body.splitlines()))


CASES = {  # name -> the module's source (pkg/worker.py)
    "a risky call": _HEAD + "from pkg import risky\n" + f"with {_MAKE}:\n    risky.axes()\n",
    "a risky constant, then a call": _HEAD + "from pkg import risky, imports_risky\n"
                                     + f"with {_MAKE}:\n    x = risky.LIMIT\n    imports_risky.go()\n",
    "two risky calls: the last one": _HEAD + "from pkg import risky, imports_risky\n"
                                      + f"with {_MAKE}:\n    imports_risky.go()\n    risky.axes()\n",
    "a name imported from a risky module": _HEAD + "from pkg.risky import axes\n" + f"with {_MAKE}:\n    axes()\n",
    "relative": _HEAD + "from . import risky\n" + f"with {_MAKE}:\n    f(risky.LIMIT)\n",
    "a local variable's value": _HEAD + "from pkg.risky import Model\n"
                                + f"def run(b):\n    m = Model()\n    with {_MAKE}:\n        m.train(b)\n",
    "a parameter's annotation": _HEAD + "from pkg.risky import Model\n"
                                + f"def run(m: Model, b):\n    with {_MAKE}:\n        m.train(b)\n",
    "a string annotation": _HEAD + "import pkg.risky\n"
                           + f"def run(m: 'pkg.risky.Model', b):\n    with {_MAKE}:\n        m.train(b)\n",
    "a local function": _HEAD + "from pkg import risky\n"
                        + f"def helper():\n    return risky.axes()\nwith {_MAKE}:\n    helper()\n",
    "a factory's annotation": _HEAD + "from pkg.risky import Model\n"
                              + f"def make() -> Model:\n    return 1\nwith {_MAKE}:\n    make().train(1)\n",
    "self.model built in __init__": _HEAD + "from pkg.risky import Model\n"
                                    + _class("    def __init__(self, cfg: int):\n        self.model = Model()\n",
                                             "self.model.train(batch)"),
    "self.model annotated in the class": _HEAD + "from pkg.risky import Model\n"
                                         + _class("    model: Model\n", "self.model.train(batch)"),
    "an inherited attribute": _HEAD + "from pkg.risky import Model\n"
                              + _class("", "self.other.train(batch)").replace("class Trainer:",
                                                                             "class Trainer(Model):"),
    "an __init__ parameter the constructions pass": _HEAD + "from pkg.risky import Model\n"
                                                     + _class("    def __init__(self, model):\n"
                                                              "        self.model = model\n",
                                                              "self.model.train(batch)")
                                                     + "Trainer(Model())\n",
    "an __init__ parameter, a safe module first": _HEAD + "from pkg.safe import Model\nfrom pkg import risky\n"
                                                  + _class("    def __init__(self, model):\n"
                                                           "        self.model = model\n",
                                                           "self.model.train(batch)\nrisky.axes()")
                                                  + "Trainer(Model())\n",
    "only safe modules reached": _HEAD + "from pkg import safe, risky\n" + f"with {_MAKE}:\n    safe.step()\n",
    "a nested function's parameter": _HEAD + "from pkg import risky\n"
                                     + f"with {_MAKE}:\n    def inner(x=risky.LIMIT):\n        pass\n",
    "a pjit in the block": _HEAD + "from jax.experimental.pjit import pjit\nfrom jax.sharding import PartitionSpec\n"
                           + f"with {_MAKE}:\n    pjit(f, in_shardings=PartitionSpec('x'))(1)\n",
    "a pjit through a function": _HEAD + "from jax.experimental.pjit import pjit\n"
                                 + "@pjit\ndef g(x):\n    return x\nstep = pjit(f, in_shardings=P('x'))\n"
                                 + f"def run():\n    return step(1)\nwith {_MAKE}:\n    run()\n",
    "a pjit without specs": _HEAD + "from jax.experimental.pjit import pjit\n"
                            + f"step = pjit(f, in_shardings=None)\nwith {_MAKE}:\n    step(1)\n",
    "a pjit kept where calls are not followed": _HEAD + "from jax.experimental.pjit import pjit\n"
                                                + f"steps = {{'a': pjit(f, in_shardings=s)}}\nwith {_MAKE}:\n"
                                                + "    pass\n",
    "a pjit reached through self": _HEAD + "from jax.experimental import pjit\n"
                                   + "class T:\n    def step(self, x):\n        return pjit.pjit(f, None, s)(x)\n"
                                   + f"    def fit(self):\n        with {_MAKE}:\n            self.step(1)\n",
    "pjit spelled, none run": _HEAD + "# pjit is gone\n" + f"with {_MAKE}:\n    pass\n",
    "pjit spelled, a risky call": _HEAD + "from pkg import risky\n# no pjit\n" + f"with {_MAKE}:\n    risky.axes()\n",
    "thread_resources read here": _HEAD + "from jax.interpreters.pxla import thread_resources\n"
                                  + f"with {_MAKE}:\n    pass\n",
    "thread_resources in a comment": _HEAD + "# thread_resources\n" + f"with {_MAKE}:\n    pass\n",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("source", list(CASES.values()), ids=list(CASES))
def test_decided_from_ast_exactly_as_libcst(tmp_path, monkeypatch, source):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {**PROJECT, "pkg/worker.py": source})
    path = str(tmp_path / "pkg/worker.py")
    settings = Settings(root=tmp_path)
    with activated(build_index(sorted(tmp_path.rglob("*.py")))) as index:
        expected = [asdict(d) for d in lint_source(source, path, settings, rules=[JAX401], prefilter=False,
                                                    whole=True).diagnostics]
        expected_dependency = index.take_source_dependency()
    with activated(build_index(sorted(tmp_path.rglob("*.py")))) as index:
        decided = ast_findings.decide(source, path, [JAX401], ast.parse(source), settings=settings)
        dependency = index.take_source_dependency()
    assert decided is not None, "the fast path must answer this case"
    assert [asdict(d) for d in decided] == expected
    assert dependency == expected_dependency


def test_the_cases_are_not_vacuous_and_all_decided(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, PROJECT)
    withheld = {}
    for name, source in CASES.items():
        (tmp_path / "pkg/worker.py").write_text(source, encoding="utf-8")
        with activated(build_index(sorted(tmp_path.rglob("*.py")))) as index:
            (diagnostic,) = lint_source(source, str(tmp_path / "pkg/worker.py"), Settings(root=tmp_path),
                                        rules=[JAX401], prefilter=False, whole=True).diagnostics
            withheld[name] = (diagnostic.fix_withheld.reason if diagnostic.fix_withheld else None,
                              index.take_source_dependency())
            assert ast_findings.decide(source, str(tmp_path / "pkg/worker.py"), [JAX401], ast.parse(source),
                                       settings=Settings(root=tmp_path)) is not None, name
    fixed = {name for name, (reason, _) in withheld.items() if reason is None}
    assert fixed == {"only safe modules reached", "a pjit without specs", "pjit spelled, none run",
                     "thread_resources in a comment"}
    # libcst's search meets a node's names last to first: the order is part of the message
    assert withheld["two risky calls: the last one"][0].startswith("the block calls `risky.axes`")
    assert withheld["a risky constant, then a call"][0].startswith("the block calls `imports_risky.go`")
    assert withheld["an __init__ parameter the constructions pass"] == (
        withheld["an __init__ parameter the constructions pass"][0], True)
    assert withheld["an __init__ parameter the constructions pass"][0].startswith(
        "the block calls `self.model.train` from `pkg/risky.py`")
    assert withheld["an __init__ parameter, a safe module first"][0].startswith("the block calls `risky.axes`")
    assert withheld["a pjit reached through self"][0].startswith("the block runs a `pjit`")
    assert withheld["thread_resources read here"][0].startswith("this module reads")


def _check(monkeypatch, root: Path) -> tuple[str, int]:
    """``jaxlint check --select JAX401 -j 1 --no-cache`` (text, with the fix marks and counts): its output and how
    many modules it parsed with libcst."""
    parsed = []
    real = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda source, *a, **k: parsed.append(source) or real(source, *a, **k))
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["check", "--select", "JAX401", "-j", "1", "--no-cache", "--unsafe-fixes",
                                       "--exit-zero", "--min-version", "0.10.2", "."])
    monkeypatch.setattr(libcst, "parse_module", real)
    assert result.exit_code == 0, result.output
    return result.stdout, len(parsed)


def test_check_parses_none_of_them_with_libcst(tmp_path, monkeypatch):
    _write(tmp_path, {**PROJECT, **{f"pkg/worker{number}.py": source
                                    for number, source in enumerate(CASES.values())}})
    output, parsed = _check(monkeypatch, tmp_path)
    assert parsed == 0
    monkeypatch.setattr(ast_findings, "decide", lambda *args, **kwargs: None)
    slow, slow_parsed = _check(monkeypatch, tmp_path)
    assert slow_parsed >= len(CASES) and output == slow
    assert output.count("JAX401") >= len(CASES)


# -- a call of the module's own function (``ValueInference._returned_kind``) --------------------------------------
_J = "import jax\n"
LOCAL_FUNCTIONS = {  # name -> (source, whether libcst reports a mesh)
    "returns a constructor's call": (_J + "def _mesh(shape):\n    devices = make(shape)\n"
                                     "    return jax.sharding.Mesh(devices, ('x',))\nwith _mesh(s) as mesh:\n"
                                     "    pass\n", True),
    "through another function": (_J + "def a():\n    return jax.make_mesh((2,), ('x',))\ndef b():\n    return a()\n"
                                 "with b():\n    pass\n", True),
    "both branches return one": (_J + "def m(n):\n    if n:\n        return jax.make_mesh((n,), ('x',))\n    else:\n"
                                 "        return jax.make_mesh((1,), ('x',))\nwith m(2):\n    pass\n", True),
    "annotated": (_J + "from jax.sharding import Mesh\ndef m() -> Mesh:\n    return build()\nwith m():\n    pass\n",
                  True),
    "a branch returns None": (_J + "def m(n):\n    if n:\n        return jax.make_mesh((n,), ('x',))\n"
                              "    return None\nwith m(2):\n    pass\n", False),
    "may fall off its end": (_J + "def m(n):\n    if n:\n        return jax.make_mesh((n,), ('x',))\n"
                             "with m(2):\n    pass\n", False),
    "a class of the module": (_J + "class M:\n    pass\nwith M():\n    pass\n", False),
    "a nested function's return is not its own": (_J + "def m():\n    def inner():\n        return 1\n"
                                                  "    return jax.make_mesh((1,), ('x',))\nwith m():\n    pass\n", True),
}


@pytest.mark.parametrize("source,reported", list(LOCAL_FUNCTIONS.values()), ids=list(LOCAL_FUNCTIONS))
def test_a_local_function_decided_exactly_as_libcst(source, reported):
    from test_ast_findings import ast_decided, libcst_findings

    expected = libcst_findings(source, [JAX401])
    assert bool(expected) == reported
    decided = ast_decided(source, [JAX401])
    assert decided is not None, "the fast path must answer this case"
    assert decided == expected


# The search opens at most ``project_reach._MAX_NODES`` function bodies and values, in its order: both ports stop
# at the same node only if they open the same nodes in the same order. Cut at every limit up to past the longest
# search here, they must find the same (and some cut must change what they find, or the comparison is vacuous).
_CHAIN = _HEAD + "from pkg import risky, safe\n" + "".join(
    f"def h{number}():\n    safe.step()\n    return h{number + 1}()\n" for number in range(6)) \
    + "def h6():\n    return risky.axes()\n" + f"with {_MAKE}:\n    safe.step()\n    h0()\n"
CUT_CASES = {**CASES, "a chain of local functions": _CHAIN}


@pytest.mark.parametrize("limit", range(1, 12))
def test_the_two_searches_cut_alike(tmp_path, monkeypatch, limit):
    from jaxlint.analysis import project_reach

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(project_reach, "_MAX_NODES", limit)
    _write(tmp_path, PROJECT)
    for name, source in CUT_CASES.items():
        (tmp_path / "pkg/worker.py").write_text(source, encoding="utf-8")
        path, settings = str(tmp_path / "pkg/worker.py"), Settings(root=tmp_path)
        with activated(build_index(sorted(tmp_path.rglob("*.py")))):
            expected = [asdict(d) for d in lint_source(source, path, settings, rules=[JAX401], prefilter=False,
                                                        whole=True).diagnostics]
        with activated(build_index(sorted(tmp_path.rglob("*.py")))):
            decided = ast_findings.decide(source, path, [JAX401], ast.parse(source), settings=settings)
        assert decided is not None and [asdict(d) for d in decided] == expected, (name, limit)


def test_a_cut_changes_what_the_search_finds(tmp_path, monkeypatch):
    from jaxlint.analysis import project_reach

    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {**PROJECT, "pkg/worker.py": _CHAIN})
    path, settings = str(tmp_path / "pkg/worker.py"), Settings(root=tmp_path)
    reasons = set()
    for limit in (2, 64):
        monkeypatch.setattr(project_reach, "_MAX_NODES", limit)
        with activated(build_index(sorted(tmp_path.rglob("*.py")))):
            (diagnostic,) = lint_source(_CHAIN, path, settings, rules=[JAX401], prefilter=False,
                                        whole=True).diagnostics
        reasons.add(diagnostic.fix_withheld.reason if diagnostic.fix_withheld else None)
    assert len(reasons) == 2, reasons
