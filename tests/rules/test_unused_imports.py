"""What counts as a use of an imported name (``analysis.unused_imports``): any token but an attribute or a comment."""
from __future__ import annotations

import pytest

from jaxlint.analysis.unused_imports import is_unreferenced

IMPORT = "from jax.lib import xla_bridge\n"


@pytest.mark.parametrize("rest", [
    "jax.lib.xla_bridge.get_backend()\n",  # an attribute of something else
    "x = 1  # xla_bridge was here\n",  # a comment
    "m.\\\n    xla_bridge\n",  # an attribute over a continuation line
])
def test_unreferenced(rest):
    assert is_unreferenced(IMPORT + rest, "xla_bridge")


@pytest.mark.parametrize("rest", [
    "xla_bridge.get_backend()\n",
    "__all__ = ['xla_bridge']\n",
    "def f(b: 'xla_bridge.Backend'): ...\n",
    "f(xla_bridge=1)\n",
    "from jax._src import xla_bridge\n",  # bound twice
    "print(f'{xla_bridge}')\n",
    "x = (\n",  # does not tokenize: keep
])
def test_referenced(rest):
    assert not is_unreferenced(IMPORT + rest, "xla_bridge")
