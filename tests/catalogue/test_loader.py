"""The loader: merge of generated + overlay, lookups, required words, speed."""
from __future__ import annotations

import datetime
import json
import os

import pytest

from jaxlint import catalogue
from jaxlint.catalogue import load, load_from
from jaxlint.project.cache_key import seal
from jaxlint.project.toml_parser import toml_parser
from support.signed import signed_json_bytes, signed_with_another_key


def test_load_is_cached_per_process():
    assert load() is load()


def test_lookups_by_name_and_kind():
    cat = load()
    e = cat.symbol("jax.tree_map")
    assert e is not None and e.kind == "symbol" and e.module == "jax"
    assert e.removed_in == "0.6.0" and e.replacement == "jax.tree.map"
    assert cat.get("jax.tree_map") is e
    assert cat.module("jax.cloud_tpu_init").removed_in == "0.11.0"
    assert cat.config("jax_exec_time_optimization_effort").removed_in == "0.11.1"
    assert cat.get("jax.tree_util.tree_map") is None  # still valid: the most common call in real code


def test_by_module_and_module_of():
    cat = load()
    names = {e.name for e in cat.in_module("jax.core")}
    assert {"jax.core.DebugInfo", "jax.core.call"} <= names
    assert cat.module_of("jax.experimental.maps.xmap").name == "jax.experimental.maps"
    assert cat.module_of("jax.numpy.zeros") is None


def test_overlay_merges_into_generated_entries():
    e = load().symbol("jax.tree_map")
    assert e.equivalent and e.portable == "jax.tree_util.tree_map" and e.reason
    assert e.message.startswith("jax.tree_map was removed in JAX v0.6.0")  # from the generated table


def test_overlay_adds_entries_and_tables():
    cat = load()
    assert cat.symbol("jax.tree_multimap").source == "overlay"
    assert cat.behaviour("jax.numpy.empty").changed_in == "0.11.0"
    assert [a.argument for a in cat.arguments_of("jax.numpy.array")] == ["copy", "order", "ndmin"]


@pytest.mark.parametrize("min_version,expected", [
    ("0.4.20", "jax.tree_util.tree_map"),  # jax.tree.map needs 0.4.25: the portable spelling
    ("0.4.24", "jax.tree_util.tree_map"),
    ("0.4.25", "jax.tree.map"),
    ("0.10.2", "jax.tree.map"),
])
def test_version_aware_replacement(min_version, expected):
    assert load().symbol("jax.tree_map").safe_replacement(min_version) == expected


def test_same_object_rename_needs_the_replacement_at_min_version():
    e = load().symbol("jax.core.abstract_token")
    assert e.replacement == "jax.ffi.abstract_token" and e.same_object
    assert e.safe_replacement("0.10.2") is None  # jax.ffi.abstract_token only exists from 0.11.0
    assert e.safe_replacement("0.11.0") == "jax.ffi.abstract_token"


def test_manual_entries_have_no_safe_replacement():
    assert load().symbol("jax.core.CallPrimitive").safe_replacement("0.12.0") is None


def test_removed_and_deprecated_at():
    e = load().symbol("jax.core.DebugInfo")
    assert e.deprecated_at("0.10.2") and not e.removed_at("0.10.2")
    assert e.removed_at("0.11.0") and not e.deprecated_at("0.12.0")


def test_required_words_are_the_components_of_each_name():
    words = load().required_words_for(("symbol", "module"))
    assert frozenset({"jax", "tree_map"}) in words
    assert frozenset({"jax", "core", "DebugInfo"}) in words
    assert frozenset({"jax", "cloud_tpu_init"}) in words
    assert not any("." in word for required in words for word in required)
    assert frozenset({"jax_exec_time_optimization_effort"}) not in words  # config entries are not symbols


def test_overlay_without_reason_is_rejected(tmp_path):
    over = tmp_path / "o.toml"
    over.write_text('[[symbol]]\nname = "jax.tree_map"\nequivalent = true\n')
    with pytest.raises(ValueError, match="no reason"):
        load_from(catalogue.GENERATED, over, use_cache=False)


def test_unknown_overlay_key_is_rejected(tmp_path):
    over = tmp_path / "o.toml"
    over.write_text('[[symbol]]\nname = "jax.tree_map"\nbogus = 1\nreason = "x"\n')
    with pytest.raises(ValueError, match="unknown keys"):
        load_from(catalogue.GENERATED, over, use_cache=False)


def test_disk_cache_roundtrip(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = load_from()
    cache = catalogue._cache_file()
    assert cache.parent == tmp_path / "jaxlint"
    assert cache.exists() and _rows_of(cache)["stamp"][0] == catalogue._FORMAT
    again = load_from()
    assert again == first and again.entries == first.entries and again.parameters == first.parameters
    assert again.get("jax.tree_map") == first.get("jax.tree_map")  # the lookups are rebuilt too
    for damage in (b"garbage", b"[]", b'{"stamp": 1}', cache.read_bytes()[:-200]):
        cache.write_bytes(damage)
        assert load_from() == first  # a broken cache is rebuilt, never fatal


def _rows_of(path):
    """The JSON of a copy jaxlint wrote (signed with this session's cache key)."""
    return signed_json_bytes(path.read_bytes(), "catalogue copy", path.name)


def _write_signed(path, data) -> None:
    """A copy as jaxlint itself would have written it (signed with this session's key)."""
    path.write_bytes(seal("catalogue copy", path.name, json.dumps(data).encode()))


def test_a_cache_of_other_files_or_other_fields_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = load_from()
    cache = catalogue._cache_file()
    data = _rows_of(cache)
    data["catalogue"]["entries"]["rows"] = data["catalogue"]["entries"]["rows"][:1]
    _write_signed(cache, data)
    assert len(load_from().entries) == 1  # same stamp, signed: the cache is believed (it is what jaxlint wrote)
    data["stamp"][1][3] = "0" * 32  # another generated.toml content, same size and mtime
    _write_signed(cache, data)
    assert load_from() == first
    data = _rows_of(cache)
    data["catalogue"]["entries"]["fields"] = data["catalogue"]["entries"]["fields"][::-1]
    _write_signed(cache, data)
    assert load_from() == first


def test_a_planted_copy_with_the_right_stamp_is_not_believed(tmp_path, monkeypatch):
    """A copy in ``~/.cache`` that a CI system restored from another branch's cache: its stamp is right (the stamp
    is no secret), its rows dropped ``jax.tree_map``. Unsigned, or signed with another key: read the TOML again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = load_from()
    cache = catalogue._cache_file()
    data = _rows_of(cache)
    rows = data["catalogue"]["entries"]["rows"]
    name = data["catalogue"]["entries"]["fields"].index("name")
    data["catalogue"]["entries"]["rows"] = [row for row in rows if row[name] != "jax.tree_map"]
    payload = json.dumps(data).encode()
    for planted in (payload, signed_with_another_key("catalogue copy", cache.name, payload)):
        cache.write_bytes(planted)
        loaded = load_from()
        assert loaded == first and loaded.get("jax.tree_map") is not None
        assert len(_rows_of(cache)["catalogue"]["entries"]["rows"]) == len(rows)  # replaced by jaxlint's own


def test_a_planted_pickle_in_the_cache_never_runs(tmp_path):
    # The payload creates a file when unpickled. jaxlint must read neither the former pickle file nor a pickle put
    # where its JSON cache lies, in a real `jaxlint check` (cached run, then --no-cache).
    import pickle
    import subprocess
    import sys

    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    folder = tmp_path / "cache" / "jaxlint"
    folder.mkdir(parents=True)
    keyed = catalogue._cache_file().name  # where this install's JSON copy lies
    for name in ("catalogue.pickle", "catalogue.json", keyed):
        (folder / name).write_bytes(pickle.dumps(Payload()))
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("import jax\njax.tree_map(f, x)\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for extra in ([], ["--no-cache"]):
        proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "a.py", *extra], cwd=project, env=env,
                              capture_output=True, text=True)
        assert proc.returncode == 1 and "JAX101" in proc.stdout, proc.stderr
        assert not marker.exists()
    for name in ("catalogue.pickle", "catalogue.json"):  # not ours (the former names): left alone
        assert pickle.dumps(Payload()) == (folder / name).read_bytes()
    assert _rows_of(folder / keyed)["stamp"][0] == catalogue._FORMAT  # replaced


def test_two_installs_keep_a_copy_each(tmp_path, monkeypatch):
    """Two installs (a project's virtualenv and pre-commit's) used by turns: each keeps its own copy, so neither
    reads its TOML again because the other overwrote a shared one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    other = tmp_path / "other"
    other.mkdir()
    copies = {name: other / name.name for name in (catalogue.GENERATED, catalogue.OVERLAY)}
    for source, copy in copies.items():
        copy.write_bytes(source.read_bytes())
    ours = load_from()
    theirs = load_from(copies[catalogue.GENERATED], copies[catalogue.OVERLAY])
    assert catalogue._cache_file() != catalogue._cache_file(tuple(copies.values()))

    def no_toml(*args, **kwargs):
        raise AssertionError("a copy was overwritten by the other install's")

    monkeypatch.setattr(toml_parser(), "load", no_toml)
    assert load_from() == ours and load_from(copies[catalogue.GENERATED], copies[catalogue.OVERLAY]) == theirs


def test_a_second_load_reads_the_cache_not_the_toml(tmp_path, monkeypatch):
    # The catalogue is read at every lint start: parsing the TOML takes ~10x longer than the cache (timings in
    # docs/catalogue.md, measured by hand: no timing assertion here). The second load must not parse TOML at all.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = load_from()

    def no_toml(*args, **kwargs):
        raise AssertionError("the catalogue was parsed again instead of read from its cache")

    monkeypatch.setattr(toml_parser(), "load", no_toml)
    monkeypatch.setattr(toml_parser(), "loads", no_toml)
    assert load_from() == first


def test_parameter_rows_are_exposed_by_function():
    rows = load().parameters_of("jax.numpy.clip")
    assert rows["a_max"].change == "renamed" and rows["a_max"].replacement == "max"
    assert rows["a_max"].safe_replacement(rows["a_max"].replacement_since) == "max"
    assert rows["a_max"].safe_replacement("0.4.20") is None  # `max=` did not exist yet
    assert "jax.numpy.clip" in load().functions_with_parameters()


def test_overlay_parameter_rows_override_and_need_a_reason(tmp_path):
    over = tmp_path / "o.toml"
    over.write_text('[[parameter]]\nname = "jax.numpy.clip"\nparameter = "a_max"\nnote = "x"\nreason = "r"\n')
    row = load_from(catalogue.GENERATED, over, use_cache=False).parameters_of("jax.numpy.clip")["a_max"]
    assert row.note == "x" and row.replacement == "max"  # the generated fields stay
    over.write_text('[[parameter]]\nname = "jax.numpy.clip"\nparameter = "a_max"\nnote = "x"\n')
    with pytest.raises(ValueError, match="no reason"):
        load_from(catalogue.GENERATED, over, use_cache=False)


# -- read_toml: the small packaged tables through a stamped JSON copy (issue 38) ---------------------------------
def _no_toml_parser(monkeypatch):
    def parser():
        raise AssertionError("parsed again instead of read from its JSON copy")

    monkeypatch.setattr(catalogue, "toml_parser", parser)


def test_read_toml_reads_a_table_back_from_its_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    table = tmp_path / "table.toml"
    table.write_text('title = "t"\n\n[[row]]\nname = "a"\nvalues = [1, 2.5, true]\n\n[[row]]\nname = "b"\n')
    parsed = toml_parser().loads(table.read_text())
    assert catalogue.read_toml(table) == parsed  # the first read parses and writes the copy
    _no_toml_parser(monkeypatch)
    assert catalogue.read_toml(table) == parsed


def test_read_toml_parses_an_edited_table_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    table = tmp_path / "table.toml"
    table.write_text('[[row]]\nname = "a"\n')
    assert catalogue.read_toml(table) == {"row": [{"name": "a"}]}
    stat = table.stat()
    table.write_text('[[row]]\nname = "b"\n')  # same size and, restored below, same mtime: the hash tells
    os.utime(table, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert catalogue.read_toml(table) == {"row": [{"name": "b"}]}


def test_read_toml_keeps_no_copy_of_a_table_json_cannot_hold(tmp_path, monkeypatch):
    # a TOML date would come back from JSON as a string: such a table is parsed every time
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    table = tmp_path / "dated.toml"
    table.write_text("checked = 2026-12-06\n")
    first = catalogue.read_toml(table)
    assert first == catalogue.read_toml(table) and isinstance(first["checked"], datetime.date)
    assert not list((tmp_path / "cache").rglob("toml-*.json"))


def test_the_packaged_tables_read_the_same_from_their_copies(tmp_path, monkeypatch):
    from jaxlint.catalogue import behaviour, ecosystem_warnings, flax_frozendict, return_types

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for path in (behaviour.DATA, ecosystem_warnings.WARNINGS, flax_frozendict.DATA, return_types.DATA):
        with open(path, "rb") as handle:
            parsed = toml_parser().load(handle)
        assert catalogue.read_toml(path) == parsed  # parsed, then copied
        assert catalogue.read_toml(path) == parsed  # from the copy


def test_required_words_are_built_once_per_kinds():
    # JAX101 and JAX402 ask for the same sets: one object, which the prefilter then indexes once
    words = load().required_words_for(("symbol", "module"))
    assert load().required_words_for(["module", "symbol"]) is words
    assert words == frozenset(frozenset(e.name.split(".")) for e in load().entries if e.kind in ("symbol", "module"))


def test_signature_rows_restored_without_init_equal_those_built_by_it():
    from dataclasses import fields

    from jaxlint.catalogue.signatures import SignatureRow, _checked_blocks, _row

    names = {f.name for f in fields(SignatureRow)}
    blocks = _checked_blocks()
    assert blocks
    for block in blocks:
        built = SignatureRow(**{key: value for key, value in block.items() if key in names})
        restored = _row(block)
        assert restored == built and repr(restored) == repr(built) and hash(restored) == hash(built)
    with pytest.raises(TypeError):  # a row without its owner is refused as before
        _row({"change": "removed", "changed_in": "0.4.1", "last_seen": "0.4.0"})


def test_restored_rows_of_another_length_are_refused():
    from jaxlint.catalogue.ecosystem_generated import ParameterRow

    names = [f.name for f in catalogue.fields(ParameterRow)]
    row = [f"v{i}" for i in range(len(names))]
    assert catalogue.restore_rows(ParameterRow, names, [row])[0] == ParameterRow(*row)
    with pytest.raises(ValueError):
        catalogue.restore_rows(ParameterRow, names, [row[:-1]])
