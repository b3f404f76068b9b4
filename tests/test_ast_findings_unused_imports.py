"""A shape that sent JAX101/JAX402's files to libcst in ``check`` (issue 38), now decided on ``ast``:

- ``from M import removed_module`` that nothing in the file uses: libcst's fix removes the statement (its whole
  lines, or ``pass`` where it is its block's only statement) or the unused names from it
  (``unused_imports.without_names``); ``analysis/unused_imports_ast.py`` writes the same edits from the text.

Each case must be answered by ``ast_findings.decide`` and equal the libcst visit's diagnostics field by field (fix
edits included); ``check`` must not parse it with libcst; ``--fix`` must write the same text either way. Shapes whose
libcst output the text does not settle stay libcst's.
"""
from __future__ import annotations

import ast
from dataclasses import asdict

import pytest

from jaxlint.lint import ast_findings
from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.rules import rule_by_code

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

UNDECIDED = {
    "a multi-line import in a block": "def f():\n    from jax.experimental import (\n        pjit,\n        maps,\n"
                                      "    )\n    return pjit\n",
    "after another statement on its line": "import jax\nx = 1; from jax.lib import xla_bridge\n",
    "before another statement on its line": "import jax\nfrom jax.lib import xla_bridge; x = 1\n",
    "a semicolon after it": "from jax.experimental import pjit, maps;\n",
    "a suite on its header's line": "if x: from jax.lib import xla_bridge\n",
    "a backslash": "from jax.lib import \\\n    xla_bridge\n",
}

DECIDED = UNUSED_IMPORTS


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
