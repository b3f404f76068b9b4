"""``module_facts`` walks only the statements on lines that spell a name the facts are about (``_spelling_lines``):
the facts must equal those of the whole walk, on real files and on awkward ones (decorators above a statement's
first line, statements over many lines, identifiers spelled with non-ASCII letters that Python normalizes to such
a name, coding comments, ``\\r`` line ends)."""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from jaxlint.project import module_facts as facts_module
from jaxlint.project.module_facts import module_facts, spelled

REPOSITORY = Path(__file__).resolve().parent.parent


def _whole_walk(data: bytes) -> dict:
    """The facts from a walk of every statement (``lines=None``), as before ``_spelling_lines``."""
    facts = {"imports": facts_module._imports(data), "thread_resources": False, "pjit_specs": False,
             "hlo_classes": []}
    spells = spelled(data)
    if not spells:
        return facts
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        facts["thread_resources"] = b"thread_resources" in spells
        facts["pjit_specs"] = b"pjit" in spells
        return facts
    facts_module._read_tree(tree, facts, classes=b"_shardings_hlo" in spells, lines=None)
    return facts


def _agree(text: str | bytes) -> dict:
    data = text.encode() if isinstance(text, str) else text
    expected = _whole_walk(data)
    assert module_facts(data) == expected
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return expected
    assert module_facts(data, tree) == expected  # the runner's tree
    assert module_facts(data, tree, spelled(data)) == expected
    return expected


def test_the_repository_files_that_spell_the_names():
    files = [path for folder in ("src", "tests", "rules", "examples", "docs", "benchmarks")
             for path in sorted((REPOSITORY / folder).rglob("*.py"))]
    checked = 0
    for path in files:
        data = path.read_bytes()
        if spelled(data):
            _agree(data)
            checked += 1
    assert checked > 20


SNIPPETS = [
    "from jax.experimental.pjit import pjit\n",
    "from jax.experimental import pjit as pjit_module\n",
    "from jax._src.mesh import thread_resources\n",
    "import jax\n",
    "x = 1\n",
    "def f(x):\n    return x\n",
    "@pjit\ndef step(x):\n    return x\n",
    "@partial(\n    pjit,\n    in_shardings=P('x'))\ndef step(x):\n    return x\n",
    "@functools.partial(pjit, in_shardings=None)\ndef step(x):\n    return x\n",
    "@decorate\n@pjit\nclass C:\n    pass\n",
    "step = pjit(\n    f,\n    in_shardings=P('x'),\n)\n",
    "step = pjit(f, in_shardings=NamedSharding(mesh, P()))\n",
    "step = pjit(f, None, None)\n",
    "step = pjit.pjit(f)\n",
    "run = pjit\n",
    "mesh = jax.experimental.maps.thread_resources.env.physical_mesh\n",
    "def g():\n    def h():\n        return thread_resources\n    return h\n",
    "class Sharded:\n    in_shardings_hlo = None\n",
    "class Sharded:\n    def out_shardings_hlo(self):\n        return None\n",
    "class Other:\n    def __init__(self):\n        self.in_shardings_hlo = 1\n",
    "if x:\n    y = pjit(\n        f)\nelse:\n    y = 2\n",
    "text = '''\npjit(f, in_shardings=P())\n'''\n",
    "# pjit(f, in_shardings=P())\n",
    "ｐjit(f, in_shardings=P('x'))\n",  # NFKC: the identifier ``pjit``
    "x = thread_ｒesources\n",
    "class Ｓ:\n    in_ｓhardings_hlo = 1\n",
    "name = 'é'\n",
    "with mesh:\n    out = pjit(f, in_shardings=P())(x)\n",
    "try:\n    pass\nexcept E:\n    z = pjit\n",
    "match x:\n    case 1:\n        pjit(f, in_shardings=P())\n",
    "async def a():\n    async with m:\n        await pjit(f)(x)\n",
    "lam = lambda: pjit(f, in_shardings=spec)\n",
    "values = [pjit(f) for f in fs]\n",
    "print(f'{pjit(f, in_shardings=P())}')\n",
    "x = (1 +\n     2); y = pjit\n",
]


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_each_snippet_alone_and_after_others(snippet):
    _agree(snippet)
    _agree("import os\n\n\n" + snippet)
    _agree("from jax.experimental.pjit import pjit  # é\n" + snippet)


def test_random_files_of_snippets():
    rng = random.Random(38)
    outcomes = set()
    for _ in range(600):
        text = "".join(rng.choice(SNIPPETS) for _ in range(rng.randint(1, 8)))
        facts = _agree(text)
        outcomes.add((facts["thread_resources"], facts["pjit_specs"], bool(facts["hlo_classes"])))
    assert len(outcomes) >= 6


@pytest.mark.parametrize("text", [
    "# -*- coding: utf-7 -*-\nfrom jax.experimental.pjit import pjit\nx = +AHA-jit\n",
    "# -*- coding: latin-1 -*-\nimport pjit\nname = '\xe9'\nstep = pjit(f, in_shardings=P())\n",
    "import pjit\r\nx = 1\r\nstep = pjit(f, in_shardings=P())\r\n",
    "import pjit\rx = 1\rstep = pjit(f, in_shardings=P())\r",
    "\ufeffimport pjit\nstep = pjit(f, in_shardings=P())\n",
])
def test_line_ends_and_encodings(text):
    data = text.encode("latin-1") if "latin-1" in text else text.encode()
    _agree(data)
