"""What the ecosystem rules (JAX5xx: flax, optax) know about those libraries, and their version range per file.

The optax rows come from two places. ``tools/generate_ecosystem_catalogue.py`` reads every optax and flax wheel
on the package index (optax 0.0.1 ... 0.2.8, flax 0.0.1 ... 0.12.12: public names per module, ``_deprecations``
tables, functions that always warn, and aliases followed to their definition to prove a rename is the same object)
into ``rules/ecosystem_generated.toml`` (``ecosystem_generated``). The hand-written rows below stay on top of the
generated ones: they add advice and the one rename no wheel can prove (``global_norm`` -> ``optax.tree.norm``: the
same result, another function). ``tools/check_ecosystem_catalogue.py`` re-checks the hand-written rows against the
wheels (public before, gone or in ``_deprecations`` at ``since``, the replacement public at
``replacement_since``).

A library's range comes from the project's own pins (``project.pins.LIBRARIES``): the lowest lower bound of the
file's package, as for ``jax``. Unpinned, the range is the newest release below: fixes are offered as for a project
on it, as JAX's rules do when ``jax`` is unpinned.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue.ecosystem_generated import MethodChangeRow, ParameterRow, Row, changes as generated_changes, \
    method_changes as generated_method_changes, parameters as generated_parameters, rows as generated_rows
from jaxlint.catalogue.ecosystem_warnings import checks as warning_checks
from jaxlint.catalogue.flax_reach import is_api, is_private, reachable, reachable_parameters
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version

NEWEST = {"flax": Version("0.12.12"), "optax": Version("0.2.8")}
# flax 0.7.1: ``flax_return_frozendict`` defaults to False (True in 0.7.0): ``init``/``apply`` return a plain dict.
PLAIN_DICT = "0.7.1"


def library_min(settings: Settings, library: str) -> Version:
    """The oldest ``library`` release the file must keep working on (the newest known when unpinned)."""
    lower, _ = settings.library_range(library)
    return lower or NEWEST[library]


def library_may_reach(settings: Settings, library: str, version: str) -> bool:
    """Whether the pinned range of ``library`` may reach ``version``: False only under an upper bound at or below it
    (``flax<0.7.1``; ``==0.7.1`` counts as below too: an edge case, and silence is the cautious answer)."""
    _, upper = settings.library_range(library)
    return upper is None or upper > Version(version)


@dataclass(frozen=True)
class Change:
    """One optax (or flax) name that was removed or deprecated."""

    name: str  # ``optax.additive_weight_decay``
    status: str  # "removed" or "deprecated"
    since: str  # the optax release that removed (or deprecated) it
    # What to use instead (a qualified name), or None; ``advice`` when the port is more than a rename.
    replacement: str | None
    # The optax release the replacement exists from.
    replacement_since: str | None = None
    # The rename as a fix: "safe" (the same object), "unsafe" (same result, another function) or "" (none).
    rename: str = ""
    advice: str = ""
    reason: str = ""
    # The release from which the old name is known to be the replacement's object (a generated rename: the wheels
    # show it in every release from there up to the last with both names); None: from ``replacement_since``
    # (hand-checked rows).
    same_from: str | None = None

    def fix_floor(self) -> Version | None:
        """The min library version from which the rename is offered as a fix; None: never."""
        if not (self.replacement and self.rename and self.replacement_since):
            return None
        return max(Version(self.replacement_since), Version(self.same_from or self.replacement_since))


_MONTE_CARLO = ("optax 0.1.8 moved it to `optax.monte_carlo`, which optax 0.2.7 removed: no "
                "replacement in optax; keep a copy of the estimator in your own code")
_SECOND_ORDER = ("optax 0.1.8 moved it to `optax.second_order` (a new implementation, deprecated there since 0.2.x): "
                 "compute it with `jax.hessian`/`jax.jvp` or keep a copy")

HAND_WRITTEN_OPTAX: dict[str, Change] = {change.name: change for change in (
    Change("optax.additive_weight_decay", "removed", "0.1.8", "optax.add_decayed_weights", "0.0.3", "safe",
           reason="optax 0.0.3-0.1.7 `_src/transform.py`: `additive_weight_decay = add_decayed_weights`; gone from "
                  "`optax/__init__.py` in 0.1.8"),
    Change("optax.AdditiveWeightDecayState", "removed", "0.1.8", "optax.AddDecayedWeightsState", "0.0.3", "safe",
           reason="optax 0.0.3-0.1.7: `AdditiveWeightDecayState = AddDecayedWeightsState`; gone in 0.1.8"),
    *(Change(f"optax.{name}", "removed", "0.1.8", None, advice=_MONTE_CARLO,
             reason="in optax/__init__.py up to 0.1.7, not in 0.1.8; optax.monte_carlo removed in 0.2.7")
      for name in ("control_delta_method", "control_variates_jacobians", "measure_valued_jacobians",
                   "moving_avg_baseline", "pathwise_jacobians", "score_function_jacobians")),
    *(Change(f"optax.{name}", "removed", "0.1.8", None, advice=_SECOND_ORDER,
             reason="in optax/__init__.py up to 0.1.7, not in 0.1.8; reimplemented in optax/second_order/")
      for name in ("fisher_diag", "hessian_diag", "hvp")),
    Change("optax.monte_carlo", "removed", "0.2.7", None, advice="no replacement in optax; keep a copy of the "
           "estimators you use",
           reason="optax 0.2.7 drops `optax/monte_carlo/`; its `_deprecations` maps `monte_carlo` to None: "
                  "`AttributeError: optax.monte_carlo is deprecated`"),
    Change("optax.maybe_update", "removed", "0.2.5", "optax.conditionally_transform", "0.2.3",
           advice="`optax.conditionally_transform(inner, should_transform_fn)` is its generalization (a different "
                  "function: check the arguments)",
           reason="optax 0.2.4 `_src/wrappers.py`: `maybe_update` calls `conditionally_transform`; gone in 0.2.5"),
    Change("optax.MaybeUpdateState", "removed", "0.2.5", "optax.ConditionallyTransformState", "0.2.3", "safe",
           reason="optax 0.2.4 `_src/wrappers.py`: `MaybeUpdateState = ConditionallyTransformState`"),
    *(Change(f"optax.{name}", "deprecated", "0.2.3", f"optax.contrib.{name}", "0.1.8", "safe",
             reason="optax 0.2.3+ `_deprecations` maps it to `optax.contrib`'s object; optax 0.1.8-0.2.2 "
                    f"`{name} = contrib.{name}`")
      for name in ("differentially_private_aggregate", "DifferentiallyPrivateAggregateState", "dpsgd")),
    Change("optax.global_norm", "deprecated", "0.2.7", "optax.tree.norm", "0.2.5", "unsafe",
           advice="`optax.tree.norm(tree)` (optax 0.2.5+) computes the same L2 norm; optax 0.2.7+ `global_norm` "
                  "warns and calls it",
           reason="optax 0.2.7 `_src/linear_algebra.py`: `warnings.warn('optax.global_norm is deprecated in favor of "
                  "optax.tree.norm')`; `optax.tree` since 0.2.5"),
    Change("optax.tree_utils.tree_scalar_mul", "deprecated", "0.2.5", "optax.tree_utils.tree_scale", "0.2.5", "safe",
           reason="optax 0.2.5+ `tree_utils/_deprecations`: `'tree_scalar_mul': (..., tree_scale)`"),
    Change("optax.tree_utils.tree_add_scalar_mul", "deprecated", "0.2.5", "optax.tree_utils.tree_add_scale", "0.2.5",
           "safe", reason="optax 0.2.5+ `tree_utils/_deprecations`: `'tree_add_scalar_mul': (..., tree_add_scale)`"),
    *(Change(f"optax.tree_utils.{name}", "deprecated", "0.2.5", "optax.tree_utils.tree_norm", "0.2.5",
             advice=f"`optax.tree_utils.tree_norm(tree, ord={order})` (optax 0.2.5+)",
             reason=f"optax 0.2.5+ `tree_utils/_deprecations`: `functools.partial(tree_norm, ord={order})`")
      for name, order in (("tree_l1_norm", "1"), ("tree_l2_norm", "2"), ("tree_linf_norm", "jnp.inf"))),
)}


def reported(changes: dict[str, Change]) -> dict[str, Change]:
    """The changes the rules report: every removal, and a deprecation only where using the name warns under default
    settings on the newest release (``ecosystem_warnings``, by execution), with that provenance in its reason.
    ``save_checkpoint`` warns only with ``flax_use_orbax_checkpointing`` off, which is not the default: silent."""
    kept: dict[str, Change] = {}
    for name, change in changes.items():
        record = warning_checks().get(name)
        if change.status != "deprecated":
            kept[name] = change
        elif record is not None and record.warns_by_default:
            kept[name] = replace(change, reason=f"{change.reason}; {record.note()}")
    return kept


OPTAX: dict[str, Change] = reported({**generated_changes("optax", Change), **HAND_WRITTEN_OPTAX})


# Advice the wheels cannot give (read in them by hand): the row's name -> what to do instead.
_CONV_LSTM = ("flax 0.6.4 renamed the class `ConvLSTMCell` (the same class body, a new name; flax 0.7 then changed "
              "the cells' `initialize_carry` signature)")
_GEGLU = "no replacement in flax: keep a copy of the layer (flax 0.10.0 `flax/linen/activation.py`)"
FLAX_ADVICE = {"flax.linen.ConvLSTM": _CONV_LSTM, "flax.linen.recurrent.ConvLSTM": _CONV_LSTM,
               "flax.linen.GeGLU": _GEGLU, "flax.linen.activation.GeGLU": _GEGLU}


def flax_change(row: Row) -> Change:
    """A generated flax row as a ``Change``: a same-object rename is a fix only to a name users may spell (not
    ``flax.nnx.graph.is_array_ref``) and only from the release where the wheels show both names are one object
    (``same_from``: ``flax.nnx.VariableState`` was a class of its own until 0.11.0, then an alias of ``Variable``)."""
    rename, advice = row.rename, ""
    if row.replacement and row.rename == "safe" and not is_api(row.replacement):
        rename, advice = "", (f"the same object lives on as `{row.replacement}`, in an implementation module that "
                              "may change without notice: use the public API around it")
    elif row.replacement and row.rename != "safe":
        advice = (f"`{row.replacement}` (flax {row.replacement_since}+) replaces it; not the same object: check the "
                  "arguments")
    elif not row.replacement and row.message:
        advice = f"flax says: \"{row.message}\""
    advice = FLAX_ADVICE.get(row.name, advice)
    return Change(row.name, row.status, row.since, row.replacement, row.replacement_since, rename, advice,
                  reason=f"generated from the flax wheels ({row.source}; present up to flax {row.last_seen})"
                         + (f"; the same object as `{row.replacement}` from flax {row.same_from}" if rename else ""),
                  same_from=row.same_from if rename else None)


# The flax names JAX506 reports: the generated rows that users reach (``flax_reach``: 169 of 340), deprecations only
# where they warn by default.
FLAX: dict[str, Change] = reported({row.name: flax_change(row) for row in reachable(generated_rows())})


def keywords_by_function(rows: "list[ParameterRow] | tuple[ParameterRow, ...]") -> dict[str, dict[str, ParameterRow]]:
    """function -> keyword -> its row: the flax rows users reach (``reachable_parameters``) and every public optax
    row (JAX507)."""
    kept = reachable_parameters(rows) + [row for row in rows if row.library == "optax" and not is_private(row.name)]
    table: dict[str, dict[str, ParameterRow]] = {}
    for row in kept:
        table.setdefault(row.name, {})[row.parameter] = row
    return table


KEYWORDS: dict[str, dict[str, ParameterRow]] = keywords_by_function(generated_parameters())


def methods_by_class(rows: "list[ParameterRow] | tuple[ParameterRow, ...]") \
        -> dict[str, dict[str, dict[str, ParameterRow]]]:
    """class -> method -> keyword -> its row: every public method row of flax and optax (JAX509). The class is
    spelled through each module that names it (``flax.linen.LSTMCell``, ``flax.linen.recurrent.LSTMCell``): an
    instance's class is the same object whichever module the project imported it from."""
    table: dict[str, dict[str, dict[str, ParameterRow]]] = {}
    for row in rows:
        if row.method_of and not is_private(row.name):
            owner = f"{row.module}.{row.method_of}"
            method = row.function.rpartition(".")[2]
            table.setdefault(owner, {}).setdefault(method, {})[row.parameter] = row
    return table


METHOD_KEYWORDS = methods_by_class(generated_parameters())
# [[method_change]] rows of public classes (JAX509): instance-method rows by the method as spelled through its class
# (``flax.linen.LSTMCell.initialize_carry``), now-required rows by class, then method.
INSTANCE_METHODS: dict[str, MethodChangeRow] = {row.name: row for row in generated_method_changes()
                                                 if row.change == "instance-method" and not is_private(row.name)}
NOW_REQUIRED: dict[str, dict[str, MethodChangeRow]] = {}
REMOVED_ATTRIBUTES: dict[str, dict[str, MethodChangeRow]] = {}  # class -> attribute -> its row
for _row in generated_method_changes():
    if _row.change in ("now-required", "removed-attribute") and not is_private(_row.name):
        _table = NOW_REQUIRED if _row.change == "now-required" else REMOVED_ATTRIBUTES
        _table.setdefault(_row.owner, {})[_row.method] = _row

# Advice the signatures cannot give (read in the flax wheels by hand): (function, keyword) -> what to pass instead.
# flax 0.12.0's nnx.shard_map handed check_rep/auto to jax.experimental.shard_map.shard_map; 0.12.1's hands
# check_vma/axis_names to jax.shard_map. The signature changed in more than names, so the rows are removals.
_NNX_SHARD_MAP = ("flax.nnx.shard_map", "flax.experimental.nnx.shard_map", "flax.nnx.transforms.compilation.shard_map")
KEYWORD_ADVICE: dict[tuple[str, str], str] = {
    **{(name, "check_rep"): "flax 0.12.1 takes `check_vma=` in its place (the flag JAX renamed in 0.6.1)"
       for name in _NNX_SHARD_MAP},
    **{(name, "auto"): "flax 0.12.1 takes `axis_names=`, the mesh axes that are not in `auto`"
       for name in _NNX_SHARD_MAP},
    # flax 0.7.0 flax/linen/recurrent.py: ``initialize_carry(self, rng, input_shape)``, the carry's shape is
    # ``input_shape[:-1] + (self.features,)``: a method of the cell (its ``features``), no longer a static one.
    **{(f"{module}.{cell}.initialize_carry", keyword): (
        "from flax 0.7.0 it is a method of the cell instance, `cell.initialize_carry(rng, input_shape)` with the "
        "shape of one step's input (batch dimensions first); the carry size is the cell's `features`")
       for module in ("flax.linen", "flax.linen.recurrent")
       for cell in ("LSTMCell", "OptimizedLSTMCell", "GRUCell", "ConvLSTMCell", "RNNCellBase")
       for keyword in ("batch_dims", "size", "init_fn")},
}


def dotted_name(node: "cst.BaseExpression | None") -> str:
    """``flax.optim`` for the node that spells it (libcst's own helper); "" for none (``from . import x``)."""
    return (cst.helpers.get_full_name_for_node(node) or "") if node is not None else ""
