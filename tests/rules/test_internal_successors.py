"""Issue 36 item 7: a removed internal name without a replacement in JAX's message says what to do instead. Real
catalogue rows: a re-export whose object lives on publicly (``jax.interpreters.ad.float0`` is ``jax.float0``) is
renamed; a successor that no release had beside the old name is named, not written; the rest get their module
family's advice, quoting JAX's changelog (``tools/catalogue_gen/successors.py``, ``module_advice.py``)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxlint.catalogue import load
from jaxlint.catalogue.messages import headline
from tests.cli.test_cli import run

CAT = load()
NEWEST = CAT.newest_version
RANGE = ("--min-version", "0.4.20", "--target-version", NEWEST)

SOURCE = """\
from jax.interpreters import ad
from jax.interpreters import partial_eval as pe
from jax.interpreters import pxla
import jax
z = ad.float0
p = pe.Primitive("p")
m = pxla.mesh_sharding_specs
ok = jax.float0
"""
PXLA_ADVICE = ('it was a JAX internal (JAX 0.8.2 changelog: "These are primarily JAX internal APIs, and users should '
               'not rely on them"): shard with `jax.jit` and `jax.sharding.NamedSharding`, or `jax.shard_map`')


def findings(tmp_path: Path, source: str, *args: str) -> list[tuple[int, str, bool]]:
    (tmp_path / "m.py").write_text(source)
    result = run(["check", "--no-cache", "--output-format", "json", *args, "m.py"], tmp_path)
    return [(f["location"]["row"], f["message"], f["fix"] is not None) for f in json.loads(result.output)]


def test_each_removed_internal_says_what_to_do(tmp_path):
    assert findings(tmp_path, SOURCE, *RANGE) == [
        (5, "`jax.interpreters.ad.float0` was removed in JAX 0.4.3; use `jax.float0`", True),
        (6, "`jax.interpreters.partial_eval.Primitive` was removed in JAX 0.4.8; use `jax.extend.core.Primitive` "
            "(JAX 0.4.27+)", False),
        (7, f"`jax.interpreters.pxla.mesh_sharding_specs` was removed in JAX 0.4.24; {PXLA_ADVICE}", False),
    ]


def test_the_same_object_is_renamed_and_the_rest_is_left(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    run(["check", "--no-cache", "--fix", *RANGE, "m.py"], tmp_path)
    assert (tmp_path / "m.py").read_text() == SOURCE.replace("z = ad.float0", "z = jax.float0")


@pytest.mark.parametrize("name,advice", [
    ("jax.interpreters.xla.abstractify", "it belonged to the pre-MLIR XLA lowering, which is gone: lower custom "
                                         "primitives with `jax.interpreters.mlir`"),
    ("jax.interpreters.batching.batch_jaxpr", "define batching rules with `jax.custom_batching.custom_vmap`, or "
                                              "copy the helper into your code"),
    ("jax.interpreters.ad.backward_pass_internal", None),  # renamed re-export: `jax.interpreters.ad.backward_pass`
    ("jax.interpreters.masking", "it was an internal JAX module, removed without a public successor"),
    ("jax.lib.xla_client.ops", "JAX no longer exposes XLA's bindings in `jax.lib`"),
    ("jax.experimental.optix", "move to the standalone `optax` package"),
])
def test_real_rows_read_as_one_sentence_of_advice(name, advice):
    entry = CAT.symbol(name) or CAT.module(name)
    text = headline(CAT, entry, NEWEST, NEWEST)
    assert text.startswith(f"`{name}` was removed in JAX {entry.removed_in}; ")
    assert (advice or "use `jax.interpreters.ad.backward_pass`") in text


def test_no_removed_internal_is_left_without_advice_or_replacement():
    families = ("jax.interpreters.", "jax.core.", "jax.lib.")
    bare = [e.name for e in CAT.entries if e.kind != "config" and e.removed_in and e.name.startswith(families)
            and not (e.replacement or e.advice)]
    assert bare == []


def test_a_successor_is_the_same_object_only_where_one_release_had_both():
    float0 = CAT.symbol("jax.interpreters.ad.float0")
    assert (float0.replacement, float0.same_object, float0.source) == ("jax.float0", True, "diff+origin")
    primitive = CAT.symbol("jax.interpreters.partial_eval.Primitive")
    assert primitive.same_object is None and primitive.same_object_checked.startswith("origin:")
    assert primitive.fix_candidates() == []
