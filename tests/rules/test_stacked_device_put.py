"""JAX101's ``stacked-device-put`` rewrite (``catalogue.rewrites._stacked_device_put``): the migration guide's
recipe for ``jax.device_put_sharded``/``device_put_replicated``, as an unsafe fix. Executed in
``test_catalogue_rewrites_exec.py``."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.jax101_removed_symbol import RemovedSymbol

PLACED = 'jax.sharding.NamedSharding(jax.sharding.Mesh(d, ("x",)), jax.sharding.PartitionSpec("x"))'


def _settings(min_version: str) -> Settings:
    return Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                    explicit_min_version=Version(min_version), min_version_source="test")


def _fixed(source: str, min_version: str = "0.4.1", unsafe: bool = True) -> str:
    return fix_source(source, "m.py", _settings(min_version), unsafe=unsafe, rules=[RemovedSymbol]).source


@pytest.mark.parametrize("call, after", [
    ("jax.device_put_sharded(xs, d)", f"jax.device_put(jax.numpy.stack(xs), {PLACED})"),
    ("jax.device_put_sharded(a + b, d)", f"jax.device_put(jax.numpy.stack(a + b), {PLACED})"),
    ("jax.device_put_replicated(x, d)", f"jax.device_put(jax.numpy.stack([x] * len(d)), {PLACED})"),
])
def test_the_calls_are_rewritten_as_an_unsafe_fix(call, after):
    source = f"import jax\ny = {call}  # keep\n"
    assert _fixed(source, unsafe=False) == source
    fixed = _fixed(source)
    assert fixed == f"import jax\ny = {after}  # keep\n"
    assert _fixed(fixed) == fixed


def test_an_alias_of_jax_spells_the_recipe():
    assert _fixed("import jax as j\ny = j.device_put_sharded(xs, d)\n") == (
        'import jax as j\ny = j.device_put(j.numpy.stack(xs), j.sharding.NamedSharding(j.sharding.Mesh(d, ("x",)), '
        'j.sharding.PartitionSpec("x")))\n')


@pytest.mark.parametrize("source", [
    "import jax\ny = jax.device_put_replicated(x, jax.devices())\n",  # devices would be evaluated twice
    "import jax\ny = jax.device_put_sharded(*args)\n",
    "import jax\ny = jax.device_put_sharded(xs, devices=d)\n",
    "import jax\ny = jax.device_put_sharded(xs,  # why\n    d)\n",
    "import jax\nput = jax.device_put_sharded\n",
])
def test_other_shapes_are_reported_without_a_fix(source):
    [diagnostic] = lint_source(source, "m.py", _settings("0.4.1"), rules=[RemovedSymbol]).diagnostics
    assert diagnostic.fix is None
    assert _fixed(source) == source


def test_below_0_4_1_the_fix_is_withheld():
    source = "import jax\ny = jax.device_put_sharded(xs, d)\n"
    [diagnostic] = lint_source(source, "m.py", _settings("0.4.0"), rules=[RemovedSymbol]).diagnostics
    assert diagnostic.fix is None and "needs JAX 0.4.1" in (diagnostic.detail or "")
