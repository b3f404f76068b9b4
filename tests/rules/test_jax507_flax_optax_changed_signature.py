"""JAX507 flax-optax-changed-signature: the generated [[parameter]] rows of flax and optax, by the project's pins."""
from __future__ import annotations

import pytest

from jaxlint.catalogue.ecosystem import KEYWORDS, keywords_by_function
from jaxlint.catalogue.ecosystem_generated import ParameterRow, parameters
from tests.cli.test_cli import run
from tests.rules.test_ecosystem import findings, project

BOX = "import optax\nx = optax.projections.projection_box(pytree=p, lower=0.0, upper=1.0)\n"
BOX_FIXED = "import optax\nx = optax.projections.projection_box(tree=p, lower=0.0, upper=1.0)\n"
FIX = ["--fix", "--no-cache", "--select", "JAX507"]


def codes(root, *args):
    return [(f["code"], f["message"]) for f in findings(root, "--select", "JAX507", *args)]


# -- which rows ---------------------------------------------------------------------------------------------------
def keyword(name: str, library: str = "flax", **kw) -> ParameterRow:
    return ParameterRow(**{"name": name, "library": library, "parameter": "k", "change": "removed",
                           "removed_in": "0.9.0", **kw})


def test_reach_policy_on_its_cases():
    table = keywords_by_function([
        keyword("flax.nnx.jit"),  # an API module: kept
        keyword("flax.nnx.transforms.compilation.jit"),  # its package lost the same keyword: kept
        keyword("flax.core.spmd.shard_value"),  # flax's own helper: dropped
        keyword("flax.nnx._private.f"),  # private: dropped
        keyword("optax.contrib.dog", library="optax"),  # every public optax function: kept
        keyword("optax._src.alias.dog", library="optax"),
    ])
    assert sorted(table) == ["flax.nnx.jit", "flax.nnx.transforms.compilation.jit", "optax.contrib.dog"]


def test_the_table_is_the_generated_rows():
    assert len(parameters()) > 100
    assert KEYWORDS["optax.projections.projection_box"]["pytree"].replacement == "tree"
    assert KEYWORDS["flax.core.freeze"]["x"].replacement == "xs"
    assert "flax.core.spmd.shard_value" not in KEYWORDS
    # methods of public classes, where the class is an API module's name (not flax.linen.attention.Module)
    assert KEYWORDS["flax.linen.LSTMCell.initialize_carry"]["size"].method_of == "LSTMCell"
    assert KEYWORDS["flax.linen.LSTMCell.initialize_carry"]["size"].module == "flax.linen"
    assert "flax.linen.attention.Module.make_rng" not in KEYWORDS
    # not a plain rename (flax 0.2.2 merged variable_in_axes/variable_out_axes): a removal without a replacement
    assert KEYWORDS["flax.core.scan"]["variable_in_axes"].replacement is None


# -- findings -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source,words", [
    (BOX, "optax 0.2.4 renamed `pytree=` -> `tree=`"),
    ("from flax import nnx\nf = nnx.shard_map(g, mesh=m, in_specs=P(), out_specs=P(), check_rep=False)\n",
     "`check_rep=` was removed in flax 0.12.1 (`TypeError` from there): flax 0.12.1 takes `check_vma=`"),
    ("from flax.training import checkpoints\ncheckpoints.save_checkpoint(d, s, 1, gda_manager=g)\n",
     "`gda_manager=` was removed in flax 0.6.1"),
    ("from flax import nnx\nm = nnx.iter_modules(module=model)\n", "`module` is positional-only from flax 0.12.5"),
    ("from flax.core import freeze\nf = freeze(x=d)\n", "`freeze(x=...)`: flax 0.2.2 renamed `x=` -> `xs=`"),
    # a method spelled through its class: the old static initialize_carry(rng, batch_dims, size)
    ("from flax import linen as nn\nc = nn.LSTMCell.initialize_carry(rng, batch_dims=(8,), size=128)\n",
     "`batch_dims=`, `size=` were removed in flax 0.7.0 (`TypeError` from there): from flax 0.7.0 it is a method of "
     "the cell instance"),
    ("import optax\nimport functools\nf = functools.partial(optax.contrib.dog, reps_rel=1e-6)\n",
     "`optax.contrib.dog(reps_rel=...)`: `reps_rel=` was removed in optax 0.2.6"),
])
def test_flagged(tmp_path, source, words):
    project(tmp_path, "", source)
    ((code, message),) = codes(tmp_path)
    assert code == "JAX507" and words in message


@pytest.mark.parametrize("pins,source", [
    ("", "import optax\ndef projection_box(pytree, lower, upper):\n    return pytree\n"
         "x = projection_box(pytree=p, lower=0.0, upper=1.0)\n"),  # the project's own function
    ("", "import optax\nx = optax.projections.projection_box(**kwargs)\n"),  # hidden in **kwargs
    ("", "import optax\nx = optax.projections.projection_box(p, 0.0, 1.0)\n"),  # positional
    ("", "import numpy as np\nimport optax\ny = np.sort(x, kind='stable')\n"),
    ("", "from mylib import nnx\nimport flax\nf = nnx.shard_map(g, check_rep=False)\n"),  # not flax's nnx
    ("optax>=0.1.8,<0.2.4\n", BOX),  # pinned below the rename
    # the method on an instance: JAX509's (tests/rules/test_jax509_flax_optax_method_signature.py)
    ("", "from flax import linen as nn\ncell = nn.LSTMCell(128)\nc = cell.initialize_carry(rng, size=128)\n"),
    ("", "from flax import linen as nn\nc = nn.LSTMCell.initialize_carry(rng, (8,), 128)\n"),  # positional
])
def test_not_flagged(tmp_path, pins, source):
    project(tmp_path, pins, source)
    assert codes(tmp_path) == []


# -- fixes ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pins", ["", "optax>=0.2.4\n", "optax>=0.2.5,<0.3\n"])
def test_rename_is_fixed_and_idempotent(tmp_path, pins):
    path = project(tmp_path, pins, BOX)
    run(FIX, tmp_path)
    assert path.read_text() == BOX_FIXED
    assert run(FIX, tmp_path).exit_code == 0
    assert path.read_text() == BOX_FIXED
    assert codes(tmp_path) == []


def test_multi_line_call_keeps_its_layout_and_comments(tmp_path):
    source = ("import optax.projections as proj\n"
              "x = proj.projection_simplex(\n"
              "    pytree=p,  # the parameters\n"
              "    scale=2.0,\n"
              ")\n")
    path = project(tmp_path, "", source)
    run(FIX, tmp_path)
    assert path.read_text() == source.replace("pytree=p", "tree=p")


def test_fix_withheld_below_the_release_of_the_new_keyword(tmp_path):
    path = project(tmp_path, "optax>=0.2.0\n", BOX)
    (found,) = findings(tmp_path, "--select", "JAX507")
    assert found["fix"] is None and "`tree=` exists from optax 0.2.4" in found["fix_withheld"]["reason"]
    run(FIX, tmp_path)
    assert path.read_text() == BOX


@pytest.mark.parametrize("source", [
    # the new keyword is passed too
    "import optax\nx = optax.projections.projection_box(pytree=p, tree=p, lower=0.0, upper=1.0)\n",
    # a removed keyword beside the renamed one: the call needs more than a rename
    "import optax\nx = optax.per_example_layer_norm_clip(g, 1.0, eps=1e-6)\n",
])
def test_no_fix_where_a_rename_is_not_enough(tmp_path, source):
    path = project(tmp_path, "", source)
    (found,) = findings(tmp_path, "--select", "JAX507")
    assert found["fix"] is None
    run(FIX, tmp_path)
    assert path.read_text() == source
