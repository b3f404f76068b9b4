"""JAX105 on the flax, optax and jaxlib rows of ``rules/signatures_generated.toml``: each judged against its own
library's pins (jaxlib's against JAX's range), rows of JAX505/JAX507/JAX509 left to them."""
from __future__ import annotations

import pytest

from jaxlint.catalogue.signatures import class_rows, function_rows
from tests.cli.test_cli import run
from tests.rules.test_ecosystem import findings, project

LSTM = "from flax import linen as nn\ncell = nn.LSTMCell()\n"
PRODIGY = "import optax\ntx = optax.contrib.prodigy()\n"
DOG = "import optax\nstate = optax.contrib.DoGState(first_step=True, init_params=p, estim_dist=d, sum_dist_grad=g)\n"
DOG_FIXED = DOG.replace("first_step", "is_init_step").replace("estim_dist", "max_dist")


def codes(root, *args):
    return [(f["code"], f["message"]) for f in findings(root, "--select", "JAX105", *args)]


def test_library_rows_are_loaded_under_their_spellings():
    rows = class_rows()
    assert rows["flax.linen.LSTMCell"]["__init__"][0].library == "flax"
    assert rows["flax.linen.recurrent.LSTMCell"]["__init__"][0].release == "flax 0.7.0"
    assert function_rows()["optax.contrib.prodigy"][0].library == "optax"
    assert any(row.library == "jaxlib" for members in rows.values() for member in members.values() for row in member)


def test_rows_other_rules_report_are_left_to_them():
    # JAX509's keyword rows of initialize_carry, JAX505's nnx.Optimizer(wrt=), JAX509's now-required update
    assert not [row for row in class_rows().get("flax.linen.LSTMCell", {}).get("initialize_carry", [])
                if row.change == "removed"]
    assert "__init__" not in class_rows().get("flax.nnx.Optimizer", {})


@pytest.mark.parametrize("pins,source,words", [
    ("", LSTM, "`features` is required from flax 0.7.0"),  # no flax pin: the newest release
    ("flax>=0.6.4\n", LSTM, "`features` is required from flax 0.7.0"),
    ("optax>=0.1.8\n", PRODIGY, "the default of `learning_rate` changed from `0.1` to `1.0` in optax 0.1.9"),
    ("", "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return cell.make_rng()\n", None),
    # a method call on a receiver whose class the inference knows: annotated, or bound to the constructor
    ("flax>=0.8.0\n", "from flax import linen as nn\ndef f(cell: nn.GRUCell):\n    return cell.make_rng()\n",
     "`cell.make_rng(...)` (`flax.linen.GRUCell.make_rng`): the default of `name` changed from `'default'` to "
     "`'params'` in flax 0.8.2"),
    ("flax>=0.8.0\n", "from flax import linen as nn\ndense = nn.Dense(4)\nkey = dense.make_rng()\n",
     "the default of `name` changed"),
])
def test_flagged(tmp_path, pins, source, words):
    project(tmp_path, pins, source)
    found = codes(tmp_path)
    if words is None:
        assert found == []  # make_rng's default changed in 0.8.2: no floor pinned, no notice
        return
    ((code, message),) = found
    assert code == "JAX105" and words in message


@pytest.mark.parametrize("pins,source", [
    ("flax<0.7\n", LSTM),  # the range never reaches 0.7.0
    ("flax>=0.7.0\n", "from flax import linen as nn\ncell = nn.LSTMCell(8)\n"),
    ("", PRODIGY),  # a changed default: no optax floor pinned, no notice
    ("optax>=0.1.9\n", PRODIGY),  # the floor already has the new default
    ("", "class LSTMCell:\n    pass\nimport flax\ncell = LSTMCell()\n"),
    ("", "from flax import nnx\nimport optax\nopt = nnx.Optimizer(model, optax.sgd(0.1))\n"),  # JAX505's
    ("flax>=0.8.0\n", "from flax import linen as nn\ndense = nn.Dense(4)\nkey = dense.make_rng('params')\n"),
    ("flax>=0.8.0\n", "from flax import linen as nn\ndef f(cell):\n    return cell.make_rng()\n"),  # unknown
    ("flax>=0.8.0\n", "from flax import linen as nn\nclass M(nn.Module):\n    def f(self):\n"
                      "        return self.make_rng()\n"),  # a project class: its own signature may differ
])
def test_not_flagged(tmp_path, pins, source):
    project(tmp_path, pins, source)
    assert codes(tmp_path) == []


@pytest.mark.parametrize("pins,fixed", [("", DOG_FIXED), ("optax>=0.2.6\n", DOG_FIXED), ("optax>=0.2.0\n", DOG)])
def test_rename_fixed_where_the_floor_has_the_new_keyword(tmp_path, pins, fixed):
    path = project(tmp_path, pins, DOG)
    run(["--fix", "--no-cache", "--select", "JAX105"], tmp_path)
    assert path.read_text() == fixed
    run(["--fix", "--no-cache", "--select", "JAX105"], tmp_path)
    assert path.read_text() == fixed  # idempotent
