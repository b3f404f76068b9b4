"""The flax/optax catalogue generator (tools/catalogue_gen/ecosystem.py) on tiny fake wheels, offline, and the loader
of its data file (jaxlint.catalogue.ecosystem_generated)."""
from __future__ import annotations

import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

from jaxlint.catalogue import ecosystem_generated

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from catalogue_gen import ecosystem  # noqa: E402
from catalogue_gen.method_changes import MethodChange  # noqa: E402

RELEASES = {
    ("optax", "0.1.0"): {
        "optax/__init__.py": """
            from optax._src.transform import add_decayed_weights
            from optax._src.transform import additive_weight_decay
            from optax._src.transform import conditionally_transform
            from optax._src.transform import maybe_update
            from optax._src.transform import global_norm
            from optax._src.transform import project, merge, Sampler
            from optax import contrib
            from optax import monte_carlo
            from optax.contrib import dpsgd
        """,
        "optax/_src/transform.py": """
            def add_decayed_weights(weight_decay=0.0):
                return weight_decay
            additive_weight_decay = add_decayed_weights
            def conditionally_transform(inner, should_transform_fn):
                return inner
            def maybe_update(inner, should_update_fn):
                return conditionally_transform(inner, should_update_fn)
            def global_norm(tree):
                return tree
            def project(pytree, scale=1.0):
                return pytree
            def merge(fn, in_axes=0, out_axes=0):
                return fn
            class Sampler:
                def sample(self, seed, shape=()):
                    return seed
                @property
                def size(self):
                    return 0
        """,
        "optax/_src/privacy.py": "def dpsgd(learning_rate):\n    return learning_rate\n",
        "optax/contrib/__init__.py": "from optax._src.privacy import dpsgd\n",
        "optax/monte_carlo/__init__.py": "def score_function_jacobians():\n    pass\n",
    },
    ("optax", "0.2.0"): {
        "optax/__init__.py": """
            from optax._src.transform import add_decayed_weights
            from optax._src.transform import conditionally_transform
            from optax._src.transform import global_norm
            from optax._src.transform import project, merge, Sampler
            from optax import contrib
            from optax import tree
            from optax.contrib import dpsgd as _deprecated_dpsgd
            _deprecations = {
                "dpsgd": ("optax.dpsgd is deprecated: use optax.contrib.dpsgd (optax v0.1.0 or newer).",
                          _deprecated_dpsgd),
                "monte_carlo": ("optax.monte_carlo is deprecated.", None),
            }
        """,
        "optax/_src/transform.py": """
            import warnings
            def add_decayed_weights(weight_decay=0.0):
                return weight_decay
            def conditionally_transform(inner, should_transform_fn):
                return inner
            def global_norm(tree):
                warnings.warn("optax.global_norm is deprecated in favor of optax.tree.norm", DeprecationWarning)
                return tree
            def project(tree, scale=1.0):
                return tree
            def merge(fn, axes=0):
                return fn
            class Sampler:
                @staticmethod
                def sample(key, shape=()):
                    return key
        """,
        "optax/_src/privacy.py": "def dpsgd(learning_rate):\n    return learning_rate\n",
        "optax/contrib/__init__.py": "from optax._src.privacy import dpsgd\n",
        "optax/tree/__init__.py": "def norm(tree):\n    return tree\n",
    },
    ("flax", "0.1.0"): {
        "flax/__init__.py": "from . import optim\nfrom . import nnx\n",
        "flax/optim/__init__.py": "class Adam:\n    pass\n",
        "flax/nnx/__init__.py": "from .variablelib import Variable\nVariableState = Variable\n",
        "flax/nnx/variablelib.py": """
            class Variable:
                pass
            class Cell:
                @staticmethod
                def initialize_carry(rng, batch_dims, size):
                    return rng
            class Optimizer:
                def __init__(self, model):
                    self.model = model
                def update(self, grads):
                    return grads
            class Primitive:
                def jvp(_, primals, tangents):
                    return primals
        """,
    },
    ("flax", "0.2.0"): {
        "flax/__init__.py": "from . import nnx\n",
        "flax/nnx/__init__.py": """
            from .variablelib import Variable
            import typing as _tp
            if _tp.TYPE_CHECKING:
                VariableState = Variable
            else:
                def __getattr__(name):
                    if name == "VariableState":
                        import warnings
                        warnings.warn("'VariableState' was removed: use 'Variable'.", DeprecationWarning)
                        return Variable
                    raise AttributeError(name)
        """,
        "flax/nnx/variablelib.py": """
            class Variable:
                pass
            class Cell:
                def initialize_carry(self, rng, input_shape):
                    return rng
            class Optimizer:
                def __init__(self, model):
                    self.step = 0
                if True:
                    def __getattribute__(self, name):
                        if name == "model" and name not in vars(self):
                            raise AttributeError(f"{type(self)} has no 'model' since 0.2.0")
                        return object.__getattribute__(self, name)
                def update(self, model, grads, /, **kwargs):
                    return grads
            class Primitive:
                def jvp(self, primals, tangents):
                    return primals
        """,
    },
}


def fake_wheels(folder: Path) -> dict[str, dict[str, Path]]:
    wheels: dict[str, dict[str, Path]] = {}
    for (library, version), files in RELEASES.items():
        path = folder / f"{library}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(path, "w") as zf:
            for name, text in files.items():
                zf.writestr(name, textwrap.dedent(text).lstrip())
        wheels.setdefault(library, {})[version] = path
    return wheels


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("wheels")
    text, parameters = ecosystem.generate(fake_wheels(folder), folder, workers=0)
    data = tomllib.loads(text)
    data["rows"] = {row["name"]: row for row in data.get("symbol", ())}
    data["modules"] = {row["name"]: row for row in data.get("module", ())}
    data["text"], data["parameters"] = text, parameters
    return data


def fields(row: dict, *keys: str) -> tuple:
    return tuple(row.get(k) for k in keys)


KEYS = ("status", "since", "replacement", "replacement_since", "same_object", "rename", "source")


def test_alias_assignment_is_a_safe_rename(generated):
    # `additive_weight_decay = add_decayed_weights` in 0.1.0, gone in 0.2.0: the same object, proven in 0.1.0
    row = generated["rows"]["optax.additive_weight_decay"]
    assert fields(row, *KEYS) == ("removed", "0.2.0", "optax.add_decayed_weights", "0.1.0", True, "safe", "diff")
    assert row["same_object_checked"] == "static:0.1.0" and row["last_seen"] == "0.1.0"


def test_a_wrapper_is_not_a_rename(generated):
    # maybe_update calls conditionally_transform: another function, so no replacement at all
    row = generated["rows"]["optax.maybe_update"]
    assert fields(row, *KEYS) == ("removed", "0.2.0", None, None, None, None, "diff")


def test_deprecations_table(generated):
    dpsgd = generated["rows"]["optax.dpsgd"]
    assert fields(dpsgd, *KEYS) == ("deprecated", "0.2.0", "optax.contrib.dpsgd", "0.1.0", True, "safe", "table")
    assert dpsgd["message"].startswith("optax.dpsgd is deprecated")
    # mapped to None: an AttributeError, a submodule before
    assert fields(generated["rows"]["optax.monte_carlo"], *KEYS) == ("removed", "0.2.0", None, None, None, None,
                                                                     "table")


def test_warning_in_the_body_names_a_replacement_without_a_fix(generated):
    row = generated["rows"]["optax.global_norm"]
    assert fields(row, *KEYS) == ("deprecated", "0.2.0", "optax.tree.norm", "0.2.0", False, None, "warning")


def test_removed_module_and_module_getattr_deprecation(generated):
    assert fields(generated["modules"]["flax.optim"], "status", "since", "last_seen", "within") == \
        ("removed", "0.2.0", "0.1.0", None)
    row = generated["rows"]["flax.nnx.VariableState"]
    assert fields(row, *KEYS) == ("deprecated", "0.2.0", "flax.nnx.Variable", "0.1.0", True, "safe", "table")


def test_must_not_produce(generated):
    rows = generated["rows"]
    # still public and silent in the newest release; module objects and stdlib names are not API rows
    for name in ("optax.add_decayed_weights", "optax.conditionally_transform", "optax.contrib.dpsgd",
                 "optax.contrib", "flax.nnx.Variable", "flax.nnx", "optax.tree", "optax._src.transform.warnings",
                 "optax.monte_carlo.score_function_jacobians", "flax.optim.Adam"):
        assert name not in rows, name
    assert set(rows) == {"optax.additive_weight_decay", "optax.maybe_update", "optax.dpsgd", "optax.monte_carlo",
                         "optax.global_norm", "flax.nnx.VariableState"}
    # a module that went (its members are covered by it), and the submodule optax.monte_carlo
    assert set(generated["modules"]) == {"flax.optim", "optax.monte_carlo"}
    assert generated["flax_versions"] == ["0.1.0", "0.2.0"] and generated["optax_versions"] == ["0.1.0", "0.2.0"]


def test_checked_in_file_is_the_generators_output():
    """Re-rendered from its own rows, the data file is unchanged: nothing in it was edited by hand."""
    text = ecosystem_generated.GENERATED.read_text()
    data = tomllib.loads(text)
    rows = [ecosystem.Row(kind=kind, **row) for kind in ("symbol", "module") for row in data[kind]]
    parameters = [ecosystem.LibraryParameter(**row) for row in data["parameter"]]
    changes = [MethodChange(**row) for row in data["method_change"]]
    versions = {lib: data[f"{lib}_versions"] for lib in ecosystem.LIBRARIES}
    assert ecosystem.render(rows, versions, parameters, changes) == text


# -- calling conventions: [[method_change]] rows --------------------------------------------------------------------
def test_a_static_method_turned_instance_method_is_a_row(generated):
    """``@staticmethod initialize_carry(rng, batch_dims, size)`` -> ``initialize_carry(self, rng, input_shape)``."""
    rows = {(row["name"], row["change"]): row for row in generated["method_change"]}
    row = rows[("flax.nnx.variablelib.Cell.initialize_carry", "instance-method")]
    assert fields(row, "library", "method_of", "changed_in", "last_seen") == ("flax", "Cell", "0.2.0", "0.1.0")


def test_more_required_positional_arguments_is_a_now_required_row(generated):
    """``update(self, grads)`` -> ``update(self, model, grads, /, **kwargs)``: a call with one argument fails."""
    rows = {(row["name"], row["change"]): row for row in generated["method_change"]}
    row = rows[("flax.nnx.variablelib.Optimizer.update", "now-required")]
    assert fields(row, "parameter", "required", "was_required", "changed_in") == ("model", 2, 1, "0.2.0")


def test_a_receiver_named_otherwise_is_no_change(generated):
    """``def jvp(_, primals, tangents)`` -> ``def jvp(self, ...)``: both bind the instance (no ``@staticmethod``)."""
    assert not [row for row in generated["method_change"] if "Primitive" in row["name"]]
    assert len(generated["method_change"]) == 3


def test_an_attribute_init_stored_and_the_class_now_refuses_is_a_row(generated):
    """``self.model = model`` in 0.1.0's ``__init__``; 0.2.0's ``__getattribute__`` raises for ``model``."""
    rows = {(row["name"], row["change"]): row for row in generated["method_change"]}
    row = rows[("flax.nnx.variablelib.Optimizer.model", "removed-attribute")]
    assert fields(row, "changed_in", "last_seen", "message") == ("0.2.0", "0.1.0", "{...} has no 'model' since 0.2.0")


def test_method_change_rows_of_the_checked_in_file():
    """flax 0.7.0's recurrent cells and flax 0.11.0's nnx.Optimizer.update, read by the loader."""
    rows = {(row.name, row.change): row for row in ecosystem_generated.method_changes()}
    carry = rows[("flax.linen.LSTMCell.initialize_carry", "instance-method")]
    assert (carry.changed_in, carry.last_seen, carry.owner, carry.method) == \
        ("0.7.0", "0.6.11", "flax.linen.LSTMCell", "initialize_carry")
    update = rows[("flax.nnx.Optimizer.update", "now-required")]
    assert (update.changed_in, update.parameter, update.required, update.was_required) == ("0.11.0", "model", 2, 1)
    assert sum(row.change == "instance-method" for row in rows.values()) == 10
    assert sum(row.change == "now-required" for row in rows.values()) == 6
    model = rows[("flax.nnx.Optimizer.model", "removed-attribute")]
    assert (model.changed_in, model.last_seen) == ("0.11.0", "0.10.7") and "nnx.ModelAndOptimizer" in model.message
    assert sum(row.change == "removed-attribute" for row in rows.values()) == 3


# -- keywords: [[parameter]] rows -----------------------------------------------------------------------------------
def test_a_plain_rename_is_a_renamed_parameter_row(generated):
    """``project(pytree, scale=1.0)`` -> ``project(tree, scale=1.0)``: one name changed, nothing else."""
    row = next(row for row in generated["parameter"] if row["name"] == "optax.project")
    assert fields(row, "library", "parameter", "change", "removed_in", "last_seen", "replacement",
                  "replacement_since") == ("optax", "pytree", "renamed", "0.2.0", "0.1.0", "tree", "0.2.0")


def test_a_restructured_signature_is_a_removal(generated):
    """``merge(fn, in_axes=0, out_axes=0)`` -> ``merge(fn, axes=0)``: ``axes`` sits where ``in_axes`` sat, but
    ``out_axes`` went too: the release changed more than a name, so neither keyword is renamed."""
    rows = {row["parameter"]: row for row in generated["parameter"] if row["name"] == "optax.merge"}
    assert set(rows) == {"in_axes", "out_axes"}
    assert all(fields(row, "change", "replacement", "replacement_since") == ("removed", None, None)
               for row in rows.values())


def test_methods_of_public_classes_are_diffed_too(generated):
    """``Sampler.sample(self, seed, shape=())`` -> a static ``sample(key, shape=())``: ``seed`` went (not a plain
    rename: ``self`` went too), ``self`` is no keyword anyone passes; a property is no method."""
    rows = {row["parameter"]: row for row in generated["parameter"] if row["name"] == "optax.Sampler.sample"}
    assert set(rows) == {"seed"}
    assert fields(rows["seed"], "method_of", "change", "replacement") == ("Sampler", "removed", None)


def test_parameter_rows_of_the_checked_in_file():
    data = tomllib.loads(ecosystem_generated.GENERATED.read_text())
    rows = {(row["name"], row["parameter"]): row for row in data["parameter"]}
    assert fields(rows[("optax.projections.projection_box", "pytree")], "library", "change", "replacement",
                  "replacement_since") == ("optax", "renamed", "tree", "0.2.4")
    # flax 0.2.2 turned variable_in_axes/variable_out_axes into variable_axes/variable_broadcast: not a rename
    assert fields(rows[("flax.core.scan", "variable_in_axes")], "change", "replacement") == ("removed", None)
    assert rows[("flax.core.freeze", "x")]["replacement"] == "xs"
    assert {row["library"] for row in data["parameter"]} == {"flax", "optax"}


def test_loader_reads_the_parameter_rows():
    rows = {(row.name, row.parameter): row for row in ecosystem_generated.parameters()}
    assert rows[("optax.projections.projection_box", "pytree")] == ecosystem_generated.ParameterRow(
        name="optax.projections.projection_box", library="optax", parameter="pytree", change="renamed",
        removed_in="0.2.4", first_seen="0.1.8", last_seen="0.2.3", replacement="tree", replacement_since="0.2.4")
    assert rows[("flax.nnx.shard_map", "check_rep")].change == "removed"


def test_loader_reads_the_data_file():
    rows = {row.name: row for row in ecosystem_generated.rows()}
    row = rows["optax.additive_weight_decay"]
    assert (row.kind, row.status, row.since, row.replacement, row.rename) == \
        ("symbol", "removed", "0.1.8", "optax.add_decayed_weights", "safe")
    assert rows["flax.optim"].kind == "module" and rows["flax.optim"].since == "0.6.0"
    assert set(ecosystem_generated.removed_modules("flax")) >= {"flax.nn", "flax.deprecated", "flax.optim"}
    assert "flax.optim.adam" not in ecosystem_generated.removed_modules("flax")  # covered by flax.optim


def test_changes_as_the_tables_objects(tmp_path, generated, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # not a copy of a temporary file in the user's
    path = tmp_path / "ecosystem_generated.toml"
    path.write_text(generated["text"])
    changes = ecosystem_generated.changes("optax", dict, path)
    assert set(changes) == {"optax.additive_weight_decay", "optax.maybe_update", "optax.dpsgd", "optax.monte_carlo",
                            "optax.global_norm"}
    assert changes["optax.dpsgd"]["rename"] == "safe" and changes["optax.dpsgd"]["advice"] == ""
    # another function: advice, and no rename to offer as a fix
    norm = changes["optax.global_norm"]
    assert norm["rename"] == "" and norm["replacement"] == "optax.tree.norm" and "not the same object" in norm["advice"]
    assert ecosystem_generated.changes("optax", dict, tmp_path / "missing.toml") == {}


# -- same_from: since when the old name is the replacement's object, in every release up to the last with both ------
# ``Old`` is a class of its own in 0.1.0 and an alias from 0.2.0; ``Kept`` is an alias in every release; ``Table`` is a
# class of its own in 0.1.0, an alias in 0.2.0 and in a ``_deprecations`` table (returning the object) in 0.3.0.
SAME_FROM_RELEASES = {
    "0.1.0": """
        class GradientTransformation:
            pass
        class Old:
            pass
        class Table:
            pass
        Kept = GradientTransformation
    """,
    "0.2.0": """
        class GradientTransformation:
            pass
        Old = GradientTransformation
        Table = GradientTransformation
        Kept = GradientTransformation
    """,
    "0.3.0": """
        class GradientTransformation:
            pass
        _deprecations = {"Table": ("optax.Table is deprecated: use optax.GradientTransformation.",
                                   GradientTransformation)}
    """,
}


@pytest.fixture(scope="module")
def same_from_rows(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("same_from")
    wheels = {}
    for version, text in SAME_FROM_RELEASES.items():
        wheels[version] = folder / f"optax-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheels[version], "w") as zf:
            zf.writestr("optax/__init__.py", textwrap.dedent(text).lstrip())
    text, _ = ecosystem.generate({"optax": wheels}, folder, workers=0)
    (folder / "generated.toml").write_text(text)
    return {"rows": {row["name"]: row for row in tomllib.loads(text)["symbol"]}, "path": folder / "generated.toml"}


@pytest.mark.parametrize("name,same_from", [
    ("optax.Old", "0.2.0"),  # another class in 0.1.0: the floor is above replacement_since
    ("optax.Kept", "0.1.0"),  # the same object in every release that has it
    ("optax.Table", "0.2.0"),  # the table's object in 0.3.0, the alias in 0.2.0, another class in 0.1.0
])
def test_same_from_is_the_start_of_the_same_object_run(same_from_rows, name, same_from):
    row = same_from_rows["rows"][name]
    assert fields(row, "replacement", "replacement_since", "same_object", "rename", "same_from") == \
        ("optax.GradientTransformation", "0.1.0", True, "safe", same_from)


def test_not_the_same_object_has_no_same_from(generated):
    assert "same_from" not in generated["rows"]["optax.global_norm"]
    assert generated["rows"]["optax.additive_weight_decay"]["same_from"] == "0.1.0"


def test_changes_floor_a_generated_rename_at_same_from(same_from_rows, tmp_path, monkeypatch):
    from jaxlint.catalogue.ecosystem import Change

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # not a copy of a temporary file in the user's

    changes = ecosystem_generated.changes("optax", Change, same_from_rows["path"])
    assert {name: str(change.fix_floor()) for name, change in changes.items()} == \
        {"optax.Old": "0.2.0", "optax.Kept": "0.1.0", "optax.Table": "0.2.0"}


def test_rows_are_read_back_from_the_json_copy(tmp_path, monkeypatch):
    """The TOML is parsed once (74 ms per process), then read from a JSON copy checked against its stamp; a
    changed or damaged copy is never used."""
    import json as json_module
    import shutil

    from jaxlint.catalogue import ecosystem_generated

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    data = tmp_path / "ecosystem_generated.toml"
    shutil.copy(ecosystem_generated.GENERATED, data)
    ecosystem_generated._load.cache_clear()
    parsed = ecosystem_generated.rows(data)
    from jaxlint.catalogue import _cache_file

    copy = _cache_file((data,), "ecosystem")
    assert copy.parent == tmp_path / "cache" / "jaxlint"
    assert copy.is_file() and len(parsed) > 400
    ecosystem_generated._load.cache_clear()
    from jaxlint.project.cache_key import seal
    from support.signed import signed_json_bytes, unverified

    stored = signed_json_bytes(copy.read_bytes(), "catalogue copy", copy.name)
    stored["rows"][0][0] = "optax.read_from_the_copy"
    copy.write_bytes(seal("catalogue copy", copy.name, json_module.dumps(stored).encode()))  # as jaxlint writes
    assert ecosystem_generated.rows(data)[0].name == "optax.read_from_the_copy"  # the copy is what was read
    keywords = ecosystem_generated.parameters(data)
    assert len(keywords) > 100 and keywords == ecosystem_generated.parameters(ecosystem_generated.GENERATED)
    ecosystem_generated._load.cache_clear()
    copy.write_bytes(unverified(copy.read_bytes()))  # the same copy, unsigned (planted): not believed
    assert ecosystem_generated.rows(data) == parsed
    ecosystem_generated._load.cache_clear()
    data.write_text(data.read_text() + "\n")  # a changed file: its stamp differs, the copy is rebuilt
    assert ecosystem_generated.rows(data) == parsed
    ecosystem_generated._load.cache_clear()
    copy.write_text("{not json")
    assert ecosystem_generated.rows(data) == parsed
    ecosystem_generated._load.cache_clear()
