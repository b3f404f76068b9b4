"""JAX101's ``x64-switch`` rewrite: ``jax.experimental.enable_x64(v)`` / ``disable_x64()`` -> ``jax.enable_x64(v)``
(``catalogue.rewrites._x64_switch``). Executed in ``test_catalogue_rewrites_exec.py``."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.jax101_removed_symbol import RemovedSymbol


def _settings(min_version: str) -> Settings:
    return Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                    explicit_min_version=Version(min_version), min_version_source="test")


def _fixed(source: str, min_version: str = "0.8.0", unsafe: bool = False) -> str:
    return fix_source(source, "m.py", _settings(min_version), unsafe=unsafe, rules=[RemovedSymbol]).source


@pytest.mark.parametrize("before, after", [
    ("with jax.experimental.enable_x64():\n    pass\n", "with jax.enable_x64(True):\n    pass\n"),
    ("with jax.experimental.enable_x64(flag) as c:\n    pass\n", "with jax.enable_x64(flag) as c:\n    pass\n"),
    ("with jax.experimental.enable_x64(new_val=False):\n    pass\n", "with jax.enable_x64(False):\n    pass\n"),
    ("with jax.experimental.disable_x64():\n    pass\n", "with jax.enable_x64(False):\n    pass\n"),
    ("with jax.experimental.x64_context.enable_x64():\n    pass\n", "with jax.enable_x64(True):\n    pass\n"),
    ("with a(), jax.experimental.disable_x64():  # keep\n    pass\n",
     "with a(), jax.enable_x64(False):  # keep\n    pass\n"),
])
def test_a_switch_in_a_with_statement_is_rewritten_safely(before, after):
    fixed = _fixed("import jax\n" + before)
    assert fixed == "import jax\n" + after
    assert _fixed(fixed) == fixed  # idempotent


def test_outside_a_with_statement_the_rewrite_is_unsafe():
    source = "import jax\nswitch = jax.experimental.enable_x64()\n"
    assert _fixed(source) == source
    assert _fixed(source, unsafe=True) == "import jax\nswitch = jax.enable_x64(True)\n"


@pytest.mark.parametrize("source", [
    "import jax\nwith jax.experimental.enable_x64(*args):\n    pass\n",
    "import jax\nwith jax.experimental.disable_x64(True):\n    pass\n",
    "import jax\nwith jax.experimental.enable_x64(True, 1):\n    pass\n",
    "import jax\nwith jax.experimental.enable_x64(  # why\n    True):\n    pass\n",
    "import jax\nmanager = jax.experimental.enable_x64\n",
])
def test_other_shapes_are_reported_without_a_fix(source):
    [diagnostic] = lint_source(source, "m.py", _settings("0.8.0"), rules=[RemovedSymbol]).diagnostics
    assert diagnostic.fix is None
    assert _fixed(source, unsafe=True) == source


def test_below_the_release_of_jax_enable_x64_the_fix_is_withheld():
    source = "import jax\nwith jax.experimental.enable_x64():\n    pass\n"
    [diagnostic] = lint_source(source, "m.py", _settings("0.7.2"), rules=[RemovedSymbol]).diagnostics
    assert diagnostic.fix is None and "needs JAX 0.8.0" in (diagnostic.detail or "")
    assert _fixed(source, "0.7.2", unsafe=True) == source
