"""Which generated flax rows name something users really reach (JAX506 reports only those).

The wheel diff (``rules/ecosystem_generated.toml``) lists every public-looking name of every flax module that went
away: 340 rows, most of them in implementation files (``flax/nnx/graph.py``, ``flax/linen/module.py``) whose names
reach users through their package's ``__init__`` (``nnx.split``, ``nn.Module``). A name such a file once imported
(``flax.linen.module.freeze``: ``from flax.core import freeze``) or used only inside flax
(``flax.nnx.graph.fingerprint``) is no API: nobody spells that path, so reporting it is noise.

The policy, in one place:

- ``API_MODULES``: the modules users import names from (flax's API reference, and what real code does: ``from
  flax.core.scope import VariableDict``). Every row of these is kept.
- Another flax module is an implementation file of the nearest ``API_MODULES`` package above it
  (``flax.linen.spmd`` of ``flax.linen``). Its row is kept only when its name was the package's API too: the package
  lost the same name (``flax.linen.recurrent.ConvLSTM`` with ``flax.linen.ConvLSTM``), or the package is where the
  name lives on (``flax.linen.spmd.logical_axis_rules`` -> ``flax.linen.logical_axis_rules``). Those are the deep
  imports real code does write (``from flax.linen.recurrent import ConvLSTM``). The rest were the file's own helpers
  or its imports of other modules' names. One import the rows do show: a same-object rename whose replacement was
  public before the old path first appeared (``flax.nnx.rnglib.Object`` from 0.10.0, ``flax.nnx.Object`` from
  0.8.4), or that another implementation file already had in the same release (``flax.nnx.graph.VariableState``,
  ``flax.nnx.variablelib.VariableState``), was the file importing an existing object, not the name's home: dropped
  even when the package has the name.
- A name with a ``_``-prefixed component is private wherever it is.

The keyword rows (``[[parameter]]``, JAX507) follow the same policy: a function of an API module is kept; one of an
implementation file only when its package's function lost the same keyword (``flax.nnx.transforms.compilation.
shard_map(check_rep=)`` with ``flax.nnx.shard_map(check_rep=)``); ``flax.core.spmd.shard_value`` is flax's helper.
A method is kept where its class is an API module's name (``flax.linen.LSTMCell.initialize_carry``), not where an
implementation file imported the class (``flax.linen.attention.Module``).
"""
from __future__ import annotations

from typing import Iterable

from jaxlint.catalogue.ecosystem_generated import ParameterRow, Row
from jaxlint.project.versions import Version

API_MODULES = frozenset({
    "flax", "flax.core", "flax.core.frozen_dict", "flax.core.lift", "flax.core.scope", "flax.core.meta",
    "flax.linen", "flax.linen.initializers", "flax.linen.partitioning",
    "flax.serialization", "flax.struct", "flax.jax_utils", "flax.errors", "flax.traverse_util", "flax.typing",
    "flax.cursor", "flax.metrics.tensorboard",
    "flax.training.checkpoints", "flax.training.common_utils", "flax.training.dynamic_scale",
    "flax.training.early_stopping", "flax.training.lr_schedule", "flax.training.orbax_utils",
    "flax.training.prefetch_iterator", "flax.training.train_state",
    "flax.nnx", "flax.experimental.nnx", "flax.nnx.bridge",
})


def is_private(name: str) -> bool:
    return any(part.startswith("_") for part in name.split("."))


def api_package(module: str) -> str:
    """The nearest module of ``API_MODULES`` at or above ``module`` (``flax`` at the latest)."""
    while module not in API_MODULES and "." in module:
        module = module.rpartition(".")[0]
    return module


def is_api(name: str) -> bool:
    """Whether a qualified flax name is spelled through an API module (a replacement a fix may write)."""
    module = name.rpartition(".")[0]
    return not is_private(name) and module in API_MODULES


def was_import(row: Row) -> bool:
    """A same-object alias whose target existed before it, or beside it in another implementation file."""
    if row.rename != "safe" or not (row.replacement and row.replacement_since and row.first_seen):
        return False
    target, alias = Version(row.replacement_since), Version(row.first_seen)
    return target < alias or (target == alias and row.replacement.rpartition(".")[0] not in API_MODULES)


def reachable(rows: Iterable[Row]) -> list[Row]:
    """The flax symbol rows users reach, by the policy above."""
    flax_rows = [row for row in rows if row.kind == "symbol" and row.library == "flax"]
    names = {row.name for row in flax_rows}
    kept = []
    for row in flax_rows:
        if is_private(row.name):
            continue
        if row.module in API_MODULES:
            kept.append(row)
            continue
        in_package = f"{api_package(row.module)}.{row.name.rpartition('.')[2]}"
        if (in_package in names or row.replacement == in_package) and not was_import(row):
            kept.append(row)
    return kept


def reachable_parameters(rows: Iterable[ParameterRow]) -> list[ParameterRow]:
    """The flax keyword rows users reach, by the policy above."""
    flax_rows = [row for row in rows if row.library == "flax" and not is_private(row.name)]
    keys = {(row.name, row.parameter) for row in flax_rows}
    kept = []
    for row in flax_rows:
        module = row.module
        if module in API_MODULES or (not row.method_of and (f"{api_package(module)}.{row.function}",
                                                             row.parameter) in keys):
            kept.append(row)
    return kept
