"""Sanity of the catalogue data."""
from __future__ import annotations

import re

import pytest

from jaxlint.catalogue import load
from jaxlint.project.versions import parse_version

CAT = load()
VERSIONS = [parse_version(v) for v in CAT.versions]


def test_versions_sorted_and_complete():
    assert VERSIONS == sorted(VERSIONS)
    assert CAT.versions[0] == CAT.first_version == "0.1.1"
    assert CAT.versions[-1] == CAT.newest_version


def test_counts_by_kind():
    kinds = {k: len(CAT.of_kind(k)) for k in ("symbol", "module", "config")}
    assert kinds["symbol"] > 500 and kinds["module"] > 20 and kinds["config"] > 20, kinds


@pytest.mark.parametrize("e", [e for e in CAT.entries if e.removed_in and e.deprecated_in], ids=lambda e: e.name)
def test_removed_not_before_deprecated(e):
    assert parse_version(e.removed_in) >= parse_version(e.deprecated_in)


def test_every_entry_is_deprecated_or_removed():
    assert all(e.deprecated_in or e.removed_in for e in CAT.entries)


def test_every_same_object_replacement_has_a_since_version():
    bad = [e.name for e in CAT.entries if e.same_object and not e.replacement_since]
    assert not bad


def test_same_object_only_with_replacement():
    assert not [e.name for e in CAT.entries if e.same_object is not None and not e.replacement]


def test_replacements_are_not_themselves_removed():
    removed = {e.name for e in CAT.entries if e.removed_at(CAT.newest_version) and not e.attribute_survives}
    bad = [(e.name, e.replacement) for e in CAT.entries
           if e.replacement and e.replacement in removed and e.fix != "manual"]
    assert not bad


def test_overlay_entries_have_reasons():
    assert all(e.reason for e in CAT.entries if e.source == "overlay")
    assert all(b.reason for b in CAT.behaviours) and all(a.reason for a in CAT.arguments)


def test_qualified_names_are_well_formed():
    for e in CAT.entries:
        if e.kind == "config":
            # ``jax_...`` mostly; a few options were defined without the prefix (``check_rep``: overlay rows)
            bare = e.source == "overlay" and re.fullmatch(r"[a-z][a-z0-9_]+", e.name)
            assert re.fullmatch(r"jax\w+", e.name) or bare, e.name
        else:
            assert re.fullmatch(r"jax(lib)?(\.\w+)*", e.name), e.name  # jaxlib: objects_generated.toml
            if e.kind == "symbol":
                assert e.name.startswith(e.module + "."), e.name


def test_known_facts_from_jax_changes_md():
    """A few rows of ../shared/reference/jax-changes.md, re-derived by the generator."""
    core = {n: CAT.symbol(f"jax.core.{n}") for n in ("DebugInfo", "Effect", "check_jaxpr", "JaxprTypeError")}
    for e in core.values():
        assert (e.deprecated_in, e.removed_in, e.same_object) == ("0.10.0", "0.11.0", True), e
    assert CAT.symbol("jax.core.JaxprTypeError").replacement == "jax.errors.JaxprTypeError"
    assert CAT.symbol("jax.core.abstract_token").replacement_since == "0.11.0"
    assert CAT.symbol("jax.core.pytype_aval_mappings").deprecated_at("0.12.0.1")
    assert CAT.symbol("jax.interpreters.pxla.MeshExecutable").removed_in == "0.11.0"
    assert CAT.symbol("jax.extend.core.CallPrimitive").removed_in == "0.11.1"
    assert CAT.symbol("jax.experimental.pallas.dot").removed_in == "0.11.2"
    assert CAT.symbol("jax.lax.psend").deprecated_in == "0.12.0"
    assert CAT.symbol("jax.custom_remat").removed_in == "0.12.0"
    assert CAT.module("jax.cloud_tpu_init").deprecated_in == "0.8.1"
    for flag, version in [("jax_exec_time_optimization_effort", "0.11.1"), ("jax_memory_fitting_effort", "0.11.1"),
                          ("jax_refs_to_pins", "0.11.1"), ("jax_pallas_use_mosaic_gpu", "0.11.2"),
                          ("jax_ragged_dot_use_gpu_pallas_triton_lowering", "0.12.0")]:
        assert CAT.config(flag).removed_in == version, flag


def test_tree_aliases():
    for n in ("tree_map", "tree_flatten", "tree_leaves", "tree_structure", "tree_unflatten", "tree_transpose"):
        e = CAT.symbol(f"jax.{n}")
        assert e.removed_in and e.any_version_replacement == f"jax.tree_util.{n}", e
        assert e.any_version_same_object is True, e
