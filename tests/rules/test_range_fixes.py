"""Fixes across a version range, each floor read in JAX's wheels/sdists: a fix is offered from the first release where
what it writes works, and below it the finding says why (``fix_withheld``); where no keyword spelling spans the
range, keywords in positional order are passed by position."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from jaxlint.catalogue import floors
from jaxlint.ui.cli import main

TARGET = "0.12.0.1"


def _check(tmp_path, source: str, min_version: str, *args: str) -> list[dict]:
    (tmp_path / "m.py").write_text(source)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", "--min-version", min_version,
                                       "--target-version", TARGET, *args, str(tmp_path / "m.py")])
    return json.loads(result.output)


def _fixed(tmp_path, source: str, min_version: str, *args: str) -> str:
    (tmp_path / "m.py").write_text(source)
    CliRunner().invoke(main, ["check", "--no-cache", "--fix", "--min-version", min_version, "--target-version", TARGET,
                              *args, str(tmp_path / "m.py")])
    return (tmp_path / "m.py").read_text()


# -- jax.tree_multimap -> jax.tree_util.tree_map: several trees from 0.2.13 ---------------------------------------
MULTIMAP = "import jax\n\ny = jax.tree_multimap(lambda a, b: a + b, xs, ys)\n"


def test_tree_multimap_is_not_renamed_where_tree_map_takes_one_tree(tmp_path):
    (finding,) = _check(tmp_path, MULTIMAP, "0.2.6", "--select", "JAX101")
    assert finding["fix"] is None
    assert finding["fix_withheld"] == {
        "reason": "`jax.tree_util.tree_map(f, tree, *rest)` (several trees) exists from JAX 0.2.13; the min version "
                  "is 0.2.6 (--min-version)", "needs_min_version": "0.2.13"}
    assert _fixed(tmp_path, MULTIMAP, "0.2.12", "--select", "JAX101") == MULTIMAP


def test_tree_multimap_is_renamed_from_0_2_13(tmp_path):
    assert _fixed(tmp_path, MULTIMAP, "0.2.13", "--select", "JAX101") == \
        "import jax\n\ny = jax.tree_util.tree_map(lambda a, b: a + b, xs, ys)\n"


# -- jax.set_mesh: in 0.7.1's wheel -------------------------------------------------------------------------------
WITH_MESH = 'import jax\nmesh = jax.make_mesh((4,), ("data",))\nwith mesh:\n    pass\n'


def test_set_mesh_is_written_from_0_7_1(tmp_path):
    assert floors.FLOORS["jax.set_mesh"].since == "0.7.1"
    assert _fixed(tmp_path, WITH_MESH, "0.7.1", "--select", "JAX401", "--unsafe-fixes") == \
        WITH_MESH.replace("with mesh:", "with jax.set_mesh(mesh):")
    (finding,) = _check(tmp_path, WITH_MESH, "0.7.0", "--select", "JAX401")
    assert finding["fix"] is None and finding["fix_withheld"]["needs_min_version"] == "0.7.1"
    assert "`jax.set_mesh` exists from JAX 0.7.1" in finding["fix_withheld"]["reason"]


# -- -> jnp.DeviceArray below jax.Array: withheld, with the reason -------------------------------------------------
DEVICE_ARRAY = "import jax\nimport jax.numpy as jnp\n\n\ndef f(x) -> jnp.DeviceArray:\n    return x\n"


def test_device_array_below_jax_array_says_which_release_it_needs(tmp_path):
    (finding,) = _check(tmp_path, DEVICE_ARRAY, "0.3.10", "--select", "JAX101")
    assert finding["fix"] is None
    assert finding["fix_withheld"] == {"reason": "`jax.Array` exists from JAX 0.4.1; the min version is 0.3.10 "
                                                 "(--min-version)", "needs_min_version": "0.4.1"}
    assert _fixed(tmp_path, DEVICE_ARRAY, "0.4.1", "--select", "JAX101") == DEVICE_ARRAY.replace(
        "jnp.DeviceArray", "jax.Array")


def test_device_array_used_as_a_class_has_no_range_reason(tmp_path):
    (finding,) = _check(tmp_path, "import jax.numpy as jnp\n\n\nclass A(jnp.DeviceArray):\n    pass\n", "0.3.10",
                        "--select", "JAX101")
    assert finding["fix"] is None and finding["fix_withheld"] is None  # a newer min version would not fix it either


# -- from jax.random import KeyArray: no fix, and the reason ------------------------------------------------------
@pytest.mark.parametrize("min_version", ["0.3.10", "0.4.20"])
def test_key_array_import_says_why_it_is_not_rewritten(tmp_path, min_version):
    (finding,) = _check(tmp_path, "from jax.random import KeyArray\n\n\ndef f(k: KeyArray):\n    return k\n",
                        min_version, "--select", "JAX101")
    assert finding["fix"] is None
    assert finding["fix_withheld"] == {
        "reason": "the import is not rewritten: `jax.Array` replaces `KeyArray` only in annotations (a runtime check "
                  "needs `jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)`); annotate with `jax.Array` and "
                  "delete the import", "needs_min_version": None}


# -- jnp.clip: by position where no keyword spans the range -------------------------------------------------------
def test_clip_keywords_in_positional_order_are_passed_by_position_below_0_4_27(tmp_path):
    source = "import jax.numpy as jnp\n\ny = jnp.clip(x, a_min=lo, a_max=hi)\nz = jnp.clip(x, a_max=hi)\n"
    # the upper bound alone: `None` (the default on every release) passed for the lower one it skips
    assert _fixed(tmp_path, source, "0.4.20", "--select", "JAX103") == \
        "import jax.numpy as jnp\n\ny = jnp.clip(x, lo, hi)\nz = jnp.clip(x, None, hi)\n"
    withheld = [f["fix_withheld"] for f in _check(tmp_path, source, "0.4.20", "--select", "JAX103")]
    assert withheld == [None, None]


def test_clip_keywords_out_of_positional_order_keep_the_range_reason(tmp_path):
    source = "import jax.numpy as jnp\n\ny = jnp.clip(x, a_max=hi, a_min=lo)\n"
    assert _fixed(tmp_path, source, "0.4.20", "--select", "JAX103") == source
    (finding,) = _check(tmp_path, source, "0.4.20", "--select", "JAX103")
    assert finding["fix_withheld"]["needs_min_version"] == "0.4.27"


def test_clip_keywords_are_renamed_where_the_new_ones_span_the_range(tmp_path):
    source = "import jax.numpy as jnp\n\ny = jnp.clip(x, a_min=lo, a_max=hi)\n"
    assert _fixed(tmp_path, source, "0.4.27", "--select", "JAX103") == \
        "import jax.numpy as jnp\n\ny = jnp.clip(x, min=lo, max=hi)\n"


def test_clip_by_position_keeps_the_layout_and_is_idempotent(tmp_path):
    source = "import jax.numpy as jnp\n\ny = jnp.clip(\n    x,  # the values\n    a_min=0.0,\n    a_max=1.0,\n)\n"
    fixed = _fixed(tmp_path, source, "0.4.20", "--select", "JAX103")
    assert fixed == "import jax.numpy as jnp\n\ny = jnp.clip(\n    x,  # the values\n    0.0,\n    1.0,\n)\n"
    assert _fixed(tmp_path, fixed, "0.4.20", "--select", "JAX103") == fixed


# -- jnp.reshape(newshape=): by position below 0.4.28 ---------------------------------------------------------------
def test_reshape_newshape_is_passed_by_position_below_0_4_28(tmp_path):
    # 18 dev-corpus findings (floor jax>=0.3) were withheld: `shape=` needs 0.4.28, the position spans every release
    source = "import jax.numpy as jnp\n\ny = jnp.reshape(x, newshape=(2, -1))\nz = x.reshape(newshape=(2, 3))\n"
    fixed = _fixed(tmp_path, source, "0.3", "--select", "JAX103")
    assert fixed == "import jax.numpy as jnp\n\ny = jnp.reshape(x, (2, -1))\nz = x.reshape(newshape=(2, 3))\n"
    assert _fixed(tmp_path, fixed, "0.3", "--select", "JAX103") == fixed
    assert _fixed(tmp_path, source, "0.4.28", "--select", "JAX103") == source.replace("newshape=(2, -1)",
                                                                                       "shape=(2, -1)")
