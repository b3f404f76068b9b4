"""JAX302 decided from ``ast`` (``findings_from_ast``) exactly as the libcst visit decides, or not at all.

The ast path answers files where nothing names ``jax.experimental.export`` and files whose findings carry no fix (the
min version before ``jax.export``, an import that cannot be renamed, a use with no counterpart); where a fix may be
offered, libcst plans and writes it. Each case is linted both ways: when ``decide`` answers, the diagnostics must be
equal field by field (message, place, withheld fix). The ``DECIDED`` cases must be answered, the ``UNDECIDED`` ones
must not.
"""
from __future__ import annotations

import textwrap
from dataclasses import replace

import pytest

from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules import rule_by_code
from support.rule_harness import example_settings
from test_ast_findings import ast_decided, libcst_findings  # the two paths, compared (one copy)

JAX302 = rule_by_code("JAX302")
LOW_MIN = replace(Settings(), explicit_min_version=Version("0.4.26"), min_version_source="test")

# Files the fast path must answer with the default settings (min version with ``jax.export``).
DECIDED = {
    "an import bound otherwise too": "def f():\n    try:\n        import jax.experimental.export as jex\n"
                                     "    except ModuleNotFoundError:\n        jex = None\n",
    "no jax at all": "import numpy as np\nx = np.ones(3)\n",
    "the words in a string": "import jax\ns = 'jax.experimental.export'\n",
    "jax.export fully spelled": "import jax\nexp = jax.export.export(jax.jit(f))(x)\n",
    "other experimental modules": "from jax.experimental import pjit, jax2tf\nimport jax.experimental.pjit\n",
    "a project's own experimental.export": "from myproject.experimental import export\nexport.serialize(m)\n",
    "a relative import": "from .experimental import export\nexport.serialize(m)\n",
    "compat try/except ImportError": "try:\n    from jax import export\nexcept ImportError:\n"
                                     "    from jax.experimental import export\nexport.serialize(e)\n",
    "compat hasattr": "import jax\nif hasattr(jax, 'export'):\n    e = jax.export.export(jax.jit(f))(x)\nelse:\n"
                      "    e = jax.experimental.export.export(f)(x)\n",
    "compat import in a function": "def f():\n    try:\n        import jax.experimental.export as jex\n"
                                   "    except ModuleNotFoundError:\n        pass\n",
    "export imported with other names": "from jax.experimental import export, pjit\nexport.serialize(e)\n",
    "a star import of the old module": "from jax.experimental.export import *\n",
    "a from-import of a submodule": "from jax.experimental.export.shape_poly import symbolic_shape\n",
    "a submodule import": "import jax.experimental.export.shape_poly\n",
    "a submodule import, aliased": "import jax\nimport jax.experimental.export.shape_poly as sp\n"
                                   "x = jax.experimental.export.symbolic_shape('b')\n",
    "a name with no counterpart": "from jax.experimental.export import lowering\n",
    "a name with no counterpart among others": "from jax.experimental.export import Exported, lowering as lo\n",
    "from-imported serialize": "from jax.experimental.export import serialize\nblob = serialize(exp)\n",
    "from-imported call": "from jax.experimental.export import call\nout = call(exp)(x)\n",
    "the module passed around": "from jax.experimental import export\nregister(export)\n",
    "an alias passed around": "import jax.experimental.export as jex\nregistry[jex] = 1\n",
    "an alias, an unknown member": "import jax.experimental.export as jex\nx = jex.shape_poly.foo\n",
    "an alias, export without a call": "from jax.experimental import export as ex\nf = ex.export\n",
    "export with two positional arguments": "from jax.experimental import export\ne = export.export(f, g)\n",
    "export with star arguments": "from jax.experimental import export\ne = export.export(*a)\n",
    "export with an unknown keyword": "import jax\nfrom jax.experimental import export\n"
                                      "e = export.export(jax.jit(f), strict=True)\n",
    "a method first, then no counterpart": "from jax.experimental import export\nb = export.serialize(e)\n"
                                           "export.shape_poly\n",
    "deserialize by keyword, then the module": "from jax.experimental import export\n"
                                               "e = export.deserialize(blob=b)\nregister(export)\n",
    "fully spelled, the module on its own": "import jax\nm = jax.experimental.export\n",
    "fully spelled, no import loads jax.export": "import jax\nx = jax.experimental.export.lowering(f)\n",
    "fully spelled twice": "import jax\na = jax.experimental.export.symbolic_shape('b')\n"
                           "b = jax.experimental.export.shape_poly\n",
    "a function-local import with a problem": "def load(b):\n    from jax.experimental.export import load_blob\n"
                                              "    return load_blob(b)\n",
    "a jitted call passed, a keyword with no counterpart": "import jax\nfrom jax.experimental import export\n"
                                                           "e = export.export(jax.jit(f), lowering_platforms=p, "
                                                           "other=1)\n",
}

# The same shapes with a min version before ``jax.export``: no fix; withheld where the range alone stands in the way.
LOW_MIN_DECIDED = {
    "the module renamed, every use the same": "import jax\nfrom jax.experimental import export\n"
                                              "exp = export.export(jax.jit(f))(x)\nr = export.deserialize(b)\n",
    "a from-import of same names": "from jax.experimental.export import Exported, symbolic_shape\n"
                                   "(b,) = symbolic_shape('b')\n",
    "a renamed constant": "import jax.experimental.export as jex\nlo = jex.minimum_supported_serialization_version\n",
    "fully spelled with its import": "import jax.experimental.export\ng = jax.jit(f)\n"
                                     "e = jax.experimental.export.symbolic_shape('b')\n",
    "a function-local import": "def load(blob):\n    from jax.experimental import export\n"
                               "    return export.deserialize(blob)\n",
    "a plain function exported": "import jax\nfrom jax.experimental import export as jex\ne = jex.export(f)(x)\n",
    "serialize through the module": "from jax.experimental import export\nb = export.serialize(e)\n",
    "an unsafe rename": "from jax.experimental import export\np = export.default_lowering_platform()\n",
    "fully spelled without an import of jax.export": "import jax\nexp = jax.experimental.export.deserialize(b)\n",
    "a star import of the old module's submodule": "from jax.experimental.export.shape_poly import *\n",
    "export imported with other names": "from jax.experimental import export, pjit\n",
}

# Where a fix may be offered, or a use's plan needs libcst's bindings: libcst decides.
UNDECIDED = {
    "a safe rename": "import jax\nfrom jax.experimental import export\nexp = export.export(jax.jit(f))(x)\n",
    "a from-import of same names": "from jax.experimental.export import Exported\n",
    "an unsafe fix": "import jax\nfrom jax.experimental import export as jex\nb = jex.serialize(e)\n",
    "a fully spelled use, unsafe": "import jax\nexp = jax.experimental.export.deserialize(b)\n",
    "export of a name: its binding decides": "import jax\nfrom jax.experimental import export\ng = jax.jit(f)\n"
                                             "e = export.export(g)(x)\nregister(export)\n",
    "a star import": "from jax.experimental import *\nexport.serialize(exp)\n",
    "a star import of the old module, a name used": "from jax.experimental.export import *\nb = serialize(e)\n",
    "the old module's name bound otherwise": "from jax.experimental import export\nexport = None\n",
}

LOW_MIN_UNDECIDED = {
    "export of a name whose binding decides the withheld fix": "import jax\nfrom jax.experimental import export\n"
                                                                "g = jax.jit(f)\ne = export.export(g)(x)\n",
}


def _examples() -> list:
    return [*JAX302.VALID, *JAX302.INVALID]


@pytest.mark.parametrize("settings,source", [*((None, s) for s in DECIDED.values()),
                                             *((LOW_MIN, s) for s in LOW_MIN_DECIDED.values())],
                         ids=[*DECIDED, *(f"low min: {name}" for name in LOW_MIN_DECIDED)])
def test_decided_from_ast_exactly_as_libcst(settings, source):
    decided = ast_decided(source, [JAX302], settings)
    assert decided is not None, "the fast path must answer this case"
    assert decided == libcst_findings(source, [JAX302], settings)


@pytest.mark.parametrize("settings,source", [*((None, s) for s in UNDECIDED.values()),
                                             *((LOW_MIN, s) for s in LOW_MIN_UNDECIDED.values())],
                         ids=[*UNDECIDED, *(f"low min: {name}" for name in LOW_MIN_UNDECIDED)])
def test_undecidable_cases_go_to_libcst(settings, source):
    assert ast_decided(source, [JAX302], settings) is None


def test_the_cases_are_not_vacuous():
    """The decided cases report what they say: so many findings, withheld fixes only where the range alone stands."""
    counts = {name: len(libcst_findings(source, [JAX302])) for name, source in DECIDED.items()}
    assert {name for name, count in counts.items() if not count} == {
        "no jax at all", "the words in a string", "an import bound otherwise too", "jax.export fully spelled", "other experimental modules",
        "a project's own experimental.export", "a relative import", "compat try/except ImportError",
        "compat hasattr", "compat import in a function"}
    assert counts["fully spelled twice"] == 2 and counts["a submodule import, aliased"] == 2
    withheld = {name: [d["fix_withheld"] is not None for d in libcst_findings(source, [JAX302], LOW_MIN)]
                for name, source in LOW_MIN_DECIDED.items()}
    assert {name for name, marks in withheld.items() if all(marks)} == {
        "the module renamed, every use the same", "a from-import of same names", "a renamed constant",
        "fully spelled with its import", "a function-local import"}
    assert all(marks for marks in withheld.values()), "every low-min case reports something"
    # and every finding has no fix: that is what the fast path answers
    assert not any(d["fix"] for source in [*DECIDED.values()] for d in libcst_findings(source, [JAX302]))


@pytest.mark.parametrize("example", _examples(), ids=[f"JAX302-{index}" for index in range(len(_examples()))])
def test_rule_examples_both_ways(example):
    """Every example: decided exactly as libcst, or undecided."""
    settings = example_settings(JAX302, example)
    code = textwrap.dedent(example.code)
    decided = ast_decided(code, [JAX302], settings)
    if decided is not None:
        assert decided == libcst_findings(code, [JAX302], settings)


def test_which_examples_are_decided():
    """The examples without a fix are answered from ``ast``; those with one (or a star import) go to libcst."""
    decided = [ast_decided(textwrap.dedent(example.code), [JAX302], example_settings(JAX302, example)) is not None
               for example in _examples()]
    notes = {example.note for example, answered in zip(_examples(), decided) if not answered}
    assert notes == {
        "star import: nothing known for sure", "every use means the same: rename the module",
        "plain function, serialize and call: only an unsafe fix", "from-import of names; a @jax.jit function",
        "import statement and fully spelled use, renamed together",
        "fully spelled use without an import that loads jax.export: only an unsafe fix",
        "renamed constant; lowering_platforms keyword: unsafe", "function-local import"}
