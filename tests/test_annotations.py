"""Findings in code Python never evaluates say so (``Diagnostic.unevaluated_annotation``): ``if TYPE_CHECKING:``,
every annotation under ``from __future__ import annotations``, local-variable annotations; and nowhere else."""
from __future__ import annotations

import json
import textwrap

import pytest

from jaxlint.lint.annotations import has_future_annotations
from jaxlint.lint.engine import lint_source
from jaxlint.output.text import format_diagnostics
from jaxlint.project.settings import Settings

SETTINGS = Settings()


def _flags(source: str) -> dict[int, bool]:
    """Row -> the finding's flag, for a source with one finding per row at most."""
    found = lint_source(textwrap.dedent(source), "m.py", SETTINGS).diagnostics
    rows = [d.start.row for d in found]
    assert len(rows) == len(set(rows)), found
    return {d.start.row: d.unevaluated_annotation for d in found}


def _expected(source: str) -> dict[int, bool]:
    """Row -> True/False from the ``# unevaluated`` / ``# evaluated`` comment that ends the row."""
    marks = {}
    for row, line in enumerate(textwrap.dedent(source).splitlines(), 1):
        if line.endswith("# unevaluated"):
            marks[row] = True
        elif line.endswith("# evaluated"):
            marks[row] = False
    return marks


WITHOUT_FUTURE = """
    import typing
    from typing import TYPE_CHECKING
    import jax
    import jax.numpy as jnp

    if TYPE_CHECKING:
        from jax.random import KeyArray  # unevaluated
    else:
        from jax.random import PRNGKeyArray  # evaluated
    if typing.TYPE_CHECKING:
        T = jax.random.KeyArray  # unevaluated
    if not TYPE_CHECKING:
        U = jax.random.KeyArray  # evaluated

    def f(x: jnp.DeviceArray) -> int:  # evaluated
        y: jax.random.KeyArray = x  # unevaluated
        return jax.tree_map(f, y)  # evaluated

    def g() -> jax.random.KeyArray:  # evaluated
        pass

    class C:
        k: jax.random.KeyArray  # evaluated
        def m(self):
            class D:
                z: jax.random.PRNGKeyArray  # evaluated
            w: jax.random.PRNGKeyArray = 1  # unevaluated

    a: jax.random.KeyArray = 1  # evaluated
    isinstance(a, jax.random.KeyArray)  # evaluated
"""

WITH_FUTURE = """
    from __future__ import annotations
    import jax
    import jax.numpy as jnp

    def f(x: jnp.DeviceArray) -> int:  # unevaluated
        y: jax.random.KeyArray = x  # unevaluated
        return jax.tree_map(f, y)  # evaluated

    def g() -> jax.random.KeyArray:  # unevaluated
        pass

    class C:
        k: jax.random.KeyArray  # unevaluated

    a: jax.random.KeyArray = 1  # unevaluated
    b: int = jax.random.KeyArray  # evaluated
    isinstance(a, jax.random.KeyArray)  # evaluated
"""


@pytest.mark.parametrize("source", [WITHOUT_FUTURE, WITH_FUTURE], ids=["without-future", "with-future"])
def test_only_code_python_never_evaluates_is_marked(source):
    assert _flags(source) == _expected(source)


@pytest.mark.parametrize("text", [
    "from __future__ import annotations\n",
    '"""Doc."""\nfrom __future__ import division, annotations  # note\n',
    "from __future__ import (\n    division,\n    annotations,\n)\n",
])
def test_future_import_forms(text):
    assert has_future_annotations(text)


@pytest.mark.parametrize("text", [
    "from __future__ import division\n",
    "    from __future__ import annotations\n",  # not at module level
    "from __future__ import division  # annotations\n",
    "from __future__ import (division)\nannotations = 1\n",
    "import annotations\n",
])
def test_not_a_future_annotations_import(text):
    assert not has_future_annotations(text)


def test_the_flag_is_in_json_and_full_but_not_in_the_one_line_text():
    from jaxlint.output import full as full_output, json as json_output
    from jaxlint.run.results import FileResult

    source = "from __future__ import annotations\nimport jax\ndef f(k: jax.random.KeyArray): ...\n"
    diagnostics = lint_source(source, "m.py", SETTINGS).diagnostics
    result = FileResult("m.py", diagnostics)
    (item,) = json.loads(json_output.format_json([result]))
    assert item["unevaluated_annotation"] is True
    assert "in an annotation Python never evaluates" in full_output.format_full([result], unsafe=False, fixing=False)
    line = format_diagnostics([result], unsafe=False)
    assert line.endswith(diagnostics[0].message)
