"""Every message JAX101/JAX402 can print for a catalogue entry, rendered and checked: one sentence with the release,
a replacement that exists at the target, no JAX-internal variable names, no "please file an issue". Rendered from
the data, so that regenerated rows cannot bring those back."""
from __future__ import annotations

import re

import pytest

from jaxlint.catalogue import Entry, load
from jaxlint.catalogue.messages import (details, headline, jax_message, recommends_gone_name,
                                              usable_replacement)
from jaxlint.project.versions import Version

CAT = load()
NEWEST = Version(CAT.newest_version)
ENTRIES = [e for e in CAT.entries if e.kind in ("symbol", "module") and (e.removed_in or e.deprecated_in)]
USE = re.compile(r"; use `([^`]+)`")


def _targets(entry: Entry) -> list[Version]:
    """The newest release and the releases where the entry's state changes (deprecated, removed)."""
    found = {NEWEST}
    for version in (entry.deprecated_in, entry.removed_in):
        if version and Version(version) <= NEWEST:
            found.add(Version(version))
    return sorted(found)


def _outside_code(text: str) -> str:
    return re.sub(r"`[^`]*`", "``", text)


def _gone_at(name: str, target: Version) -> bool:
    """Removed or deprecated at ``target``; a module is judged by its namesake function (``jax.experimental.
    shard_map`` by ``jax.experimental.shard_map.shard_map``)."""
    entry = CAT.symbol(name) or CAT.module(name) or CAT.symbol(f"{name}.{name.rpartition('.')[2]}")
    return entry is not None and not (entry.kind == "module" and entry.attribute_survives) and (
        entry.removed_at(target) or entry.deprecated_at(target))


def test_the_catalogue_has_entries_to_render():
    assert len(ENTRIES) > 1000


@pytest.mark.parametrize("min_first", [True, False], ids=["min=oldest", "min=target"])
def test_every_headline_is_one_sentence_with_the_release_and_a_live_replacement(min_first):
    problems = []
    for entry in ENTRIES:
        for target in _targets(entry):
            if not (entry.removed_at(target) or entry.deprecated_at(target)):
                continue
            minimum = CAT.first_version if min_first else target
            text = headline(CAT, entry, target, minimum)
            prose = _outside_code(text)
            if "\n" in text or ". " in prose or prose.endswith("."):
                problems.append(f"{entry.name}: more than one sentence: {text}")
            version = entry.removed_in if entry.removed_at(target) else entry.deprecated_in
            if version and f"JAX {version}" not in text:
                problems.append(f"{entry.name}: no release in: {text}")
            for replacement in USE.findall(text):
                if _gone_at(replacement, target):
                    problems.append(f"{entry.name} at {target}: recommends `{replacement}`, gone or deprecated there")
    assert problems == []


def test_no_message_names_jax_internals_or_asks_to_file_an_issue():
    problems = []
    for entry in ENTRIES:
        rendered = [headline(CAT, entry, NEWEST, NEWEST), details(entry, not_fixed="a reason") or ""]
        for text in rendered:
            if re.search(r"\b_\w*deprecat\w*|\b_msg\b", text) or re.search(r"file an? (issue|bug)", text, re.I):
                problems.append(f"{entry.name}: {text}")
    assert problems == []


def test_no_detail_quotes_advice_to_use_a_gone_name():
    problems = []
    for entry in ENTRIES:
        for target in _targets(entry):
            text = details(entry, catalogue=CAT, target=target) or ""
            gone = recommends_gone_name(CAT, text, target)
            if gone:
                problems.append(f"{entry.name} at {target}: {text}")
    assert problems == []


def test_jax_advice_to_use_a_removed_name_is_left_out():
    entry = CAT.symbol("jax.core.safe_map")
    assert "jax.util.safe_map" in (details(entry) or "")  # JAX's text, as the data holds it
    assert "jax.util.safe_map" not in (details(entry, catalogue=CAT, target=NEWEST) or "")


def test_jax_message_drops_variable_names_and_issue_requests():
    entry = Entry("jax.a", "symbol", "jax", message="_deprecation_msg")
    assert jax_message(entry) is None
    entry = Entry("jax.b", "symbol", "jax", message="b is gone. Use c. Please file an issue on "
                                                     "https://github.com/google/jax/issues if c does not fit.")
    assert jax_message(entry) == "b is gone. Use c."


def test_the_experimental_shard_map_points_to_jax_shard_map():
    entry = CAT.symbol("jax.experimental.shard_map.shard_map")
    assert usable_replacement(CAT, entry, NEWEST) == "jax.shard_map"
    assert "use `jax.shard_map`" in headline(CAT, entry, NEWEST, NEWEST)


@pytest.mark.parametrize("name, advice", [
    ("jax.experimental.maps.Mesh", "use `jax.sharding.Mesh`"),
    ("jax.experimental.maps.xmap", "use `jax.shard_map`"),
])
def test_maps_symbols_get_advice_of_their_own(name, advice):
    assert advice in headline(CAT, CAT.symbol(name), NEWEST, NEWEST)


@pytest.mark.parametrize("name", ["jax.experimental.maps.thread_resources", "jax.experimental.maps.ResourceEnv"])
def test_maps_helpers_are_not_told_to_become_shard_map(name):
    entry = CAT.symbol(name)
    assert "shard_map" not in headline(CAT, entry, NEWEST, NEWEST)
    assert "xmap" not in (details(entry) or "")


def test_a_replacement_removed_at_the_target_is_followed_to_its_own_replacement():
    # jax.util.safe_map was the advice of some rows; the catalogue lists jax.util itself as removed
    for entry in ENTRIES:
        if entry.replacement and _gone_at(entry.replacement, NEWEST):
            assert usable_replacement(CAT, entry, NEWEST) != entry.replacement


def test_jaxlint_rule_grep_gives_the_details():
    from jaxlint.ui.docs import entries_documentation
    from jaxlint.rules.jax101_removed_symbol import RemovedSymbol

    text = entries_documentation(RemovedSymbol, grep="thread_resources")
    assert "- `jax.experimental.maps.thread_resources`: it held the mesh of `with mesh:`" in text


def test_full_output_adds_the_details_that_text_output_leaves_out(tmp_path):
    from click.testing import CliRunner

    from jaxlint.ui.cli import main

    path = tmp_path / "m.py"
    path.write_text("import jax\nz = jax.lax.tie_in(x, y=y)\n")
    short = CliRunner().invoke(main, ["check", "--no-cache", str(path)]).output
    full = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "full", str(path)]).output
    headline_line = "JAX101 `jax.lax.tie_in` was removed in JAX 0.4.29"
    assert headline_line in short and headline_line in full
    assert "= note:" not in short and "tie_in(x, y)" not in short
    assert "  = note: a no-op since JAX 0.2.0: `tie_in(x, y)` is `y`. Not fixed automatically: only a call" in full


# Findings that had no fix and no word on what to do (the dev corpus, 2026-12-05: 62 `pl.load`, 26 `safe_map`, ...);
# each now says what the code should do instead, in the one-line message.
ADVISED = {
    "jax.experimental.pallas.load": "`ref[idx]`",
    "jax.experimental.pallas.store": "`ref[idx] = value`",
    "jax.util": "copy the few you use",
    "jax.util.safe_map": "`list(map(f, *xs))`",
    "jax.util.safe_zip": "`list(zip(*xs, strict=True))`",
    "jax.util.unzip2": "`tuple(zip(*pairs))`",
    "jax.sharding.PositionalSharding": "`NamedSharding(Mesh(devices, ('x',)), P('x', None))`",
    "jax.core.axis_frame": "`jax.lax.axis_size(name)`",
    "jax.experimental.compilation_cache.compilation_cache.initialize_cache": '"jax_compilation_cache_dir"',
    "jax.canonicalize_dtype": "`jax.dtypes.canonicalize_dtype`",
}


@pytest.mark.parametrize("name", sorted(ADVISED))
def test_a_removed_name_without_a_successor_says_what_to_do_instead(name):
    entries = [e for e in ENTRIES if e.name == name]
    assert entries
    for entry in entries:  # the symbol and, for a module, its import's row
        assert ADVISED[name] in headline(CAT, entry, NEWEST, NEWEST), entry.kind


def test_the_pjit_deprecation_says_when_jax_jit_takes_its_partition_specs(tmp_path):
    # executed (rules/overlay.toml's reason): jit rejects bare PartitionSpecs under `with mesh:` on 0.5.0 and older,
    # takes them on 0.6.2+; the finding has no fix (pjit keeps use_resource_env=True in every release read)
    from jaxlint.lint.engine import lint_source
    from jaxlint.project.settings import Settings
    from jaxlint.rules import rule_by_code

    source = "from jax.experimental.pjit import pjit\nf = pjit(g, in_shardings=P('x'))\n"
    [finding] = lint_source(source, "m.py", Settings(), rules=[rule_by_code("JAX402")]).diagnostics
    assert "on JAX 0.6.2 and later it resolves bare `PartitionSpec`s" in finding.message
    assert "`NamedSharding(mesh, spec)`" in finding.message and finding.fix is None
