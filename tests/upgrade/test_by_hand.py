"""The upgrade report's "changes to check by hand": the behaviour changes no rule recognises, in the files' range,
with the count of uses of each API."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from jaxlint.catalogue.behaviour import by_hand
from jaxlint.project.files import SourceFile
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.upgrade.by_hand import changes_to_check, count_uses
from jaxlint.upgrade.report import UpgradeReport, render_markdown

ROWS = {row.api: row for row in by_hand()}
SOURCE = """\
import jax.numpy as np
from jax.sharding import PartitionSpec as P
a = np.floor(x) + np.floor(y)
b = x.astype(bool)
spec = P("data")
c = jnp.cov(x)  # `jnp` is not imported here: not a use
"""


def file(tmp_path: Path, name: str, text: str, min_version: str) -> SourceFile:
    path = tmp_path / name
    path.write_text(text)
    settings = replace(Settings(), explicit_min_version=Version(min_version), min_version_source="test",
                       target_version=Version("0.12.0.1"))
    return SourceFile(path, settings)


def test_uses_are_counted_through_the_imports():
    assert count_uses(ROWS["jax.numpy.floor"], SOURCE) == 2
    assert count_uses(ROWS["jax.numpy.cov"], SOURCE) == 0
    assert count_uses(ROWS["jax.sharding.PartitionSpec"], SOURCE) == 1
    assert count_uses(ROWS["jax.Array.astype"], SOURCE) == 1  # a method: by its name, in a file that uses JAX
    assert count_uses(ROWS["jax.Array.astype"], "import numpy\nb = x.astype(bool)\n") == 0
    assert count_uses(ROWS["jax.Array.__bool__"], SOURCE) is None  # `bool(x)`, `if x:`: no name to count


def test_only_rows_the_range_crosses_and_that_are_used(tmp_path):
    files = [file(tmp_path, "a.py", SOURCE, "0.4.30"), file(tmp_path, "b.py", "import jax.numpy as jnp\njnp.floor(1)\n",
                                                           "0.4.30")]
    changes = {c["api"]: (c["uses"], c["files"]) for c in changes_to_check(files)}
    # astype's complex-to-bool (0.4.27) and bool (0.4.24) are older than the min; cov is not used; astype of an
    # array as the dtype (0.8.0) is in the range
    assert changes == {"jax.numpy.floor": (3, 2), "jax.sharding.PartitionSpec": (1, 1), "jax.Array.astype": (1, 1)}
    # a range from 0.4.20 crosses 0.4.24 (bool of an empty array, not countable) and 0.4.27 (astype)
    older = {c["api"]: c["uses"] for c in changes_to_check([file(tmp_path, "c.py", SOURCE, "0.4.20")])}
    assert older["jax.Array.__bool__"] is None and older["jax.Array.astype"] == 1


def test_an_api_that_changed_twice_is_listed_once_per_change(tmp_path):
    """`PartitionSpec` stopped being a tuple in 0.6.1 and equal to tuples in 0.10.0: two entries, each counted."""
    listed = [(c["api"], c["changed_in"], c["uses"]) for c in changes_to_check([file(tmp_path, "a.py", SOURCE, "0.6.0")])
              if c["api"] == "jax.sharding.PartitionSpec"]
    assert listed == [("jax.sharding.PartitionSpec", "0.6.1", 1), ("jax.sharding.PartitionSpec", "0.10.0", 1)]


def test_seeded_keys_are_listed_where_the_range_crosses_the_threefry_default(tmp_path):
    """JAX 0.5.0 turned `jax_threefry_partitionable` on: every draw from a seeded key changes. No finding (that would
    flag every seed), but the upgrade report counts the keys made in the project."""
    source = "import jax\nfrom jax import random\nk = jax.random.PRNGKey(0)\nk2 = random.key(1)\nk3 = random.PRNGKey(2)\n"
    crossing = {c["api"]: (c["changed_in"], c["uses"]) for c in changes_to_check([file(tmp_path, "a.py", source, "0.4.30")])}
    assert crossing["jax.random.PRNGKey"] == ("0.5.0", 2) and crossing["jax.random.key"] == ("0.5.0", 1)
    after = {c["api"] for c in changes_to_check([file(tmp_path, "b.py", source, "0.5.0")])}
    assert not after & {"jax.random.PRNGKey", "jax.random.key"}


def test_a_range_that_crosses_nothing_lists_nothing(tmp_path):
    assert changes_to_check([file(tmp_path, "a.py", SOURCE, "0.10.0")]) == []


def test_the_markdown_section(tmp_path):
    report = UpgradeReport(project=".", target="0.12.0.1", dry_run=True, python="python")
    report.changes_to_check_by_hand = changes_to_check([file(tmp_path, "a.py", SOURCE, "0.4.20")])
    text = render_markdown(report)
    assert "## Changes to check by hand (7)" in text  # astype and PartitionSpec: two changes each (no seeded key)
    assert "| `jax.numpy.floor` | 0.4.31 | integer and boolean inputs keep their dtype" in text
    assert "| 2 in 1 file(s) | cast the input to float first |" in text
    assert "| not countable |" in text
    assert report.done  # information, not something left to do


# -- flax and optax rows: counted by their own kind of use, in the range of the library's pins ----------------------
FLAX_SOURCE = """\
import optax
from flax import nnx
import flax.linen as nn
from flax.training.early_stopping import EarlyStopping

class Model(nnx.Module):
    pass

class Other(nn.Module):
    pass

variables = nn.Dense(2).init(key, x)
state = tx.init(variables)
es = EarlyStopping(patience=3)
opt = optax.MultiSteps(optax.adam(1e-3), every_k_schedule=4)
"""


def test_flax_and_optax_uses_are_counted_by_kind():
    assert count_uses(ROWS["flax.nnx.Module"], FLAX_SOURCE) == 1  # the classes deriving from it
    assert count_uses(ROWS["flax.linen.Module.init"], FLAX_SOURCE) == 2  # `.init` calls in a flax file
    assert count_uses(ROWS["flax.linen.Module.init"], "import optax\nstate = tx.init(params)\n") == 0
    assert count_uses(ROWS["flax.training.early_stopping.EarlyStopping"], FLAX_SOURCE) == 1
    assert count_uses(ROWS["optax.MultiSteps"], FLAX_SOURCE) == 1
    assert count_uses(ROWS["optax.inject_hyperparams"], FLAX_SOURCE) == 0
    saves = "from flax.training import checkpoints\ncheckpoints.save_checkpoint(d, state, 0)\n"
    assert count_uses(ROWS["flax.training.checkpoints.save_checkpoint"], saves) == 1


def pinned_file(tmp_path: Path, text: str, pins: dict[str, str]) -> SourceFile:
    from jaxlint.project.version_pins import Bound, PinnedRange

    path = tmp_path / "m.py"
    path.write_text(text)
    libraries = tuple((name, Bound(Version(low), "requirements.txt:1", f"{name}>={low}"), None)
                      for name, low in pins.items())
    settings = replace(Settings(), explicit_min_version=Version("0.10.0"), min_version_source="test",
                       target_version=Version("0.12.0.1"), pinned=PinnedRange(tmp_path, None, None, libraries))
    return SourceFile(path, settings)


def test_flax_and_optax_rows_follow_their_pins(tmp_path):
    # the JAX range (0.10.0, 0.12.0.1] crosses no JAX row used here; flax>=0.7.0 and optax>=0.2.4 cross theirs
    changes = changes_to_check([pinned_file(tmp_path, FLAX_SOURCE, {"flax": "0.7.0", "optax": "0.2.4"})])
    assert [(c["library"], c["api"], c["uses"]) for c in changes] == [
        ("flax", "flax.linen.Module.init", 2), ("flax", "flax.training.early_stopping.EarlyStopping", 1),
        ("flax", "flax.nnx.Module", 1), ("optax", "optax.MultiSteps", 1)]
    later = changes_to_check([pinned_file(tmp_path, FLAX_SOURCE, {"flax": "0.11.0"})])
    assert later == []  # flax's pins start after its changes; optax is not pinned, and JAX 0.10.0 runs optax 0.2.8
    # optax not pinned, JAX from 0.4.30: below the 0.5.3 that optax 0.2.8 needs, so an older optax runs there
    older = changes_to_check([file(tmp_path, "o.py", FLAX_SOURCE, "0.4.30")])
    assert [(c["library"], c["api"]) for c in older if c["library"] != "jax"] == [("flax", "flax.nnx.Module"),
                                                                                  ("optax", "optax.MultiSteps")]
    report = UpgradeReport(project=".", target="0.12.0.1", dry_run=True, python="python")
    report.changes_to_check_by_hand = changes
    assert "| `flax.nnx.Module` | flax 0.11.0 | modules are pytrees" in render_markdown(report)
