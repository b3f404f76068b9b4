"""JAX506 flax-changed-symbol: the generated flax rows that users reach, by the project's flax pins."""
from __future__ import annotations

import pytest

from jaxlint.catalogue.ecosystem_generated import Row, rows
from jaxlint.catalogue.flax_reach import reachable
from tests.cli.test_cli import run
from tests.rules.test_ecosystem import findings, project

SPMD = "import flax\nrules = flax.linen.spmd.logical_axis_rules\n"
SPMD_FIXED = "import flax\nrules = flax.linen.logical_axis_rules\n"
FIX = ["--fix", "--no-cache", "--select", "JAX506"]


def codes(root, *args):
    return [(f["code"], f["message"]) for f in findings(root, "--select", "JAX506", *args)]


# -- which rows: flax_reach --------------------------------------------------------------------------------------
def row(name: str, **kw) -> Row:
    return Row(**{"name": name, "kind": "symbol", "library": "flax", "module": name.rpartition(".")[0],
                  "status": "removed", "since": "0.10.2", **kw})


def test_reach_policy_on_its_cases():
    given = [
        row("flax.linen.Gone"),  # an API module: kept
        row("flax.linen._private.Gone"), row("flax.linen._gone"),  # private: dropped
        row("flax.linen.recurrent.Gone"),  # the package lost it too: kept
        row("flax.linen.spmd.rules", replacement="flax.linen.rules", replacement_since="0.6.4", rename="safe",
            first_seen="0.6.4"),  # lives on in the package: kept
        row("flax.nnx.rnglib.Object", replacement="flax.nnx.Object", replacement_since="0.8.4", rename="safe",
            first_seen="0.10.0"),  # the file imported an older object: dropped
        row("flax.nnx.graph.State", replacement="flax.nnx.statelib.State", replacement_since="0.10.0",
            rename="safe", first_seen="0.10.0"),  # imported from a sibling implementation file: dropped
        row("flax.nnx.State", status="deprecated"),
        row("flax.linen.module.freeze"),  # an implementation file's own name, not the package's: dropped
        row("flax.testing.benchmark.FLAGS"),
    ]
    assert [r.name for r in reachable(given)] == [
        "flax.linen.Gone", "flax.linen.recurrent.Gone", "flax.linen.spmd.rules", "flax.nnx.State"]


def test_reach_on_the_generated_rows():
    kept = {r.name for r in reachable(rows())}
    assert {"flax.linen.ConvLSTM", "flax.linen.recurrent.ConvLSTM", "flax.linen.spmd.logical_axis_rules",
            "flax.core.lift.FrozenDict", "flax.nnx.Jit", "flax.experimental.nnx.VariableState",
            "flax.jax_utils.pmean"} <= kept
    assert not kept & {"flax.linen.module.freeze", "flax.nnx.graph.fingerprint", "flax.nnx.rnglib.Object",
                       "flax.nnx.graph.VariableState", "flax.configurations.define_bool_state",
                       "flax.linen.fp8_ops.q_dot_dq"}
    assert all(r.library == "flax" for r in reachable(rows()))


# -- findings ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source,words", [
    ("import flax\ncell = flax.linen.ConvLSTM(8, (3, 3))\n", "removed in flax 0.6.4: flax 0.6.4 renamed the class"),
    ("from flax import linen as nn\nact = nn.GeGLU(8)\n", "removed in flax 0.10.1"),
    ("from flax.linen import GeGLU\n", "`flax.linen.GeGLU` was removed in flax 0.10.1"),
    ("from flax.experimental import nnx\nf = nnx.Jit\n", "`flax.experimental.nnx.Jit` was removed in flax 0.10.6"),
    ("import flax.jax_utils\ng = flax.jax_utils.pmean(x, 'i')\n", "deprecated since flax 0.1.0: flax says"),
    ("from flax.training.prefetch_iterator import PrefetchIterator\n", "deprecated since flax 0.3.0"),
    ("from flax import nnx\nis_ref = nnx.is_array_ref\n", "implementation module"),
])
def test_flagged(tmp_path, source, words):
    project(tmp_path, "", source)
    ((code, message),) = codes(tmp_path)
    assert code == "JAX506" and words in message


@pytest.mark.parametrize("pins,source", [
    ("", "def f(flax):\n    return flax.linen.ConvLSTM(8, (3, 3))\n"),  # a local `flax`
    ("", "import flax\nflax = make()\ncell = flax.linen.ConvLSTM\n"),  # rebound
    ("", "import flax\ncell = flax.linen.ConvLSTMCell\nrules = flax.linen.logical_axis_rules\n"),  # still there
    ("", "from flax.linen.module import freeze\nfrom flax.nnx.graph import fingerprint\n"),  # implementation files
    ("flax>=0.5,<0.6.4\n", "import flax\ncell = flax.linen.ConvLSTM(8, (3, 3))\n"),  # pinned below the removal
    ("flax<0.10\n", "from flax.linen import GeGLU\n"),
])
def test_not_flagged(tmp_path, pins, source):
    project(tmp_path, pins, source)
    assert codes(tmp_path) == []


# -- fixes ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pins", ["flax>=0.10.1\n", "flax>=0.9\n", "flax>=0.6.4\n"])
def test_same_object_rename_is_fixed_and_idempotent(tmp_path, pins):
    # flax.linen re-exports flax.linen.spmd's function in every release from 0.6.4 to 0.10.1 (``same_from``)
    path = project(tmp_path, pins, SPMD)
    run(FIX, tmp_path)
    assert path.read_text() == SPMD_FIXED
    assert run(FIX, tmp_path).exit_code == 0
    assert path.read_text() == SPMD_FIXED
    assert codes(tmp_path) == []


@pytest.mark.parametrize("source,fixed", [
    ("from flax.linen.spmd import logical_axis_rules as lar\n", "from flax.linen import logical_axis_rules as lar\n"),
    ("from flax import nnx\nfrom flax.nnx import VariableState\nv = nnx.VariableState\n",
     "from flax import nnx\nfrom flax.nnx import Variable as VariableState\nv = nnx.Variable\n"),
])
def test_from_imports_keep_the_local_name(tmp_path, source, fixed):
    path = project(tmp_path, "", source)
    run(FIX, tmp_path)
    assert path.read_text() == fixed


def test_two_names_from_a_moved_module_are_reported_not_fixed(tmp_path):
    source = "from flax.linen.spmd import logical_axis_rules, set_logical_axis_rules\n"
    path = project(tmp_path, "", source)
    found = findings(tmp_path, "--select", "JAX506")
    assert len(found) == 2 and all(f["fix"] is None for f in found)
    run(FIX, tmp_path)
    assert path.read_text() == source


@pytest.mark.parametrize("pins,source,needs", [
    ("flax>=0.6\n", SPMD, "0.6.4"),  # flax.linen.logical_axis_rules is new in 0.6.4
    # a class of its own up to 0.10.7; ``VariableState = Variable`` from 0.11.0, then a deprecation in 0.12.1
    ("flax>=0.10\n", "from flax import nnx\nv = nnx.VariableState\n", "0.11.0"),
])
def test_fix_withheld_below_the_release_that_proves_the_rename(tmp_path, pins, source, needs):
    path = project(tmp_path, pins, source)
    (found,) = findings(tmp_path, "--select", "JAX506")
    assert found["fix"] is None and f"from flax {needs}" in found["fix_withheld"]["reason"]
    run(FIX, tmp_path)
    assert path.read_text() == source
