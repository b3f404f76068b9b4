"""`jaxlint rule CODE` lists the catalogue entries a catalogue-driven rule reports (JAX101, JAX402, JAX102)."""
from __future__ import annotations

import re

from click.testing import CliRunner

from jaxlint.ui.cli import main
from jaxlint.ui.docs import FULL_TABLE_LIMIT, entry_rows
from jaxlint.rules import rule_by_code
from jaxlint.project.versions import parse_version


def rule(*args: str):
    return CliRunner().invoke(main, ["rule", *args], catch_exceptions=False)


def table_list(output: str) -> list[tuple[str, list[str]]]:
    """The rows of the entries table (after "## Entries"): (name, [kind, deprecated in, removed in, replacement,
    fix])."""
    rows = []
    for line in output.partition("\n## Entries\n")[2].splitlines():
        m = re.match(r"^\| `([^`]+)` \| (.*) \|$", line)
        if m:
            rows.append((m[1], [cell.strip() for cell in m[2].split(" | ")]))
    return rows


def table_rows(output: str) -> dict[str, list[str]]:
    """The same, by name; a second row of the same name (a module and a symbol) as "name (kind)"."""
    rows: dict[str, list[str]] = {}
    for name, cells in table_list(output):
        rows[name if name not in rows else f"{name} ({cells[0]})"] = cells
    return rows


def test_jax101_summarises_per_module_by_default():
    result = rule("JAX101")
    assert result.exit_code == 0
    assert "# JAX101 removed-symbol" in result.output and "## Entries" in result.output
    count = len(entry_rows(rule_by_code("JAX101")))
    assert count > FULL_TABLE_LIMIT  # over a thousand: the default is the summary
    assert f"{count} entries removed at JAX 0.12.0.1" in result.output
    assert "| module | entries | deprecated in | removed in | safe fix |" in result.output
    assert re.search(r"^\| `jax\.core` \| \d+ \| ", result.output, re.M)
    assert "jaxlint rule JAX101 --all" in result.output
    assert "`jax.tree_map`" not in result.output.partition("\n## Entries\n")[2]
    assert len(result.output.splitlines()) < 350


def test_jax101_all_lists_every_entry_with_versions_and_replacement():
    result = rule("JAX101", "--all")
    assert result.exit_code == 0
    assert len(table_list(result.output)) == len(entry_rows(rule_by_code("JAX101")))
    rows = table_rows(result.output)
    kind, deprecated, removed, replacement, fix = rows["jax.tree_map"]
    assert (kind, deprecated, removed, fix) == ("symbol", "0.4.26", "0.6.0", "safe")
    assert "`jax.tree.map` (0.4.25+)" in replacement and "`jax.tree_util.tree_map` (any version)" in replacement
    assert rows["jax.tree_multimap"][2:] == ["0.3.16", "`jax.tree_util.tree_map` (0.2.13+)",  # several trees
                                             "safe (min ≥ 0.2.13) (positional calls)"]
    assert rows["jax.experimental.maps"][0] == "module"
    assert rows["jax.cloud_tpu_init"][-1] == "safe (delete import)"
    assert "jax.core.pytype_aval_mappings" not in rows  # only deprecated: JAX402's
    assert not any(name.startswith("jax.experimental.export") for name in rows)  # JAX301's


def test_grep_filters_the_rows():
    result = rule("JAX101", "--grep", "TREE_MAP")
    assert result.exit_code == 0
    rows = table_rows(result.output)
    assert "jax.tree_map" in rows and "jax.tree_multimap" in rows  # by name, case-insensitive
    assert "jax.core.call" not in rows
    assert all("tree_map" in name.lower() or "tree_map" in cells[3].lower() for name, cells in rows.items())
    assert f"{len(rows)} matching `TREE_MAP`:" in result.output
    none = rule("JAX101", "--grep", "no_such_name_anywhere")
    assert none.exit_code == 0 and "None matches `no_such_name_anywhere`." in none.output
    assert not table_rows(none.output)


def test_jax402_lists_deprecated_entries_not_removed_ones():
    result = rule("JAX402")
    assert result.exit_code == 0
    rows = table_rows(result.output)
    assert len(rows) == len(entry_rows(rule_by_code("JAX402"))) <= FULL_TABLE_LIMIT  # the full table
    assert rows["jax.lax.psend"][:3] == ["symbol", "0.12.0", "—"]
    assert rows["jax.core.pytype_aval_mappings"][1:3] == ["0.10.0", "—"]
    assert rows["jax.experimental.pallas.ops.gpu.softmax"][0] == "module"
    assert "jax.tree_map" not in rows  # removed at the newest target
    assert all(cells[2] == "—" for cells in rows.values())


def test_target_version_selects_the_entries():
    rows = table_rows(rule("JAX402", "--target-version", "0.5.3").output)
    assert rows["jax.tree_map"][1:3] == ["0.4.26", "0.6.0"]  # deprecated there, removed later
    assert "jax.lax.psend" not in rows
    early = table_rows(rule("JAX101", "--target-version", "0.4.24").output)
    # removed at or before the target: a version, or a range "0.1.16 … 0.4.24" in the per-module summary
    assert early and all(parse_version(cells[2].split(" … ")[-1]) <= parse_version("0.4.24")
                         for cells in early.values())
    assert "jax.core.call" not in early and "jax.tree_map" not in early  # removed later
    assert rule("JAX101", "--target-version", "latest").exit_code == 2


def test_jax102_lists_its_removed_config_options():
    result = rule("JAX102")
    assert result.exit_code == 0
    rows = table_rows(result.output)
    assert rows["jax_memory_fitting_effort"] == ["config", "—", "0.11.1", "`jax_memory_fitting_level` (by hand)",
                                                 "safe (default value only)"]
    assert rows["exec_time_optimization_effort"][0] == "compiler option"
    assert rows["jax_ragged_dot_use_gpu_pallas_triton_lowering"][2:] == ["0.12.0", "—", "manual"]
    assert rows["jax_enable_memories"] == ["config", "—", "0.5.1", "—", "manual"]  # from the catalogue
    assert "does not report" not in result.output  # every removed flag the catalogue knows is a row
    before = table_rows(rule("JAX102", "--target-version", "0.11.1").output)
    assert "jax_refs_to_pins" in before and "jax_pallas_use_mosaic_gpu" not in before


def test_no_entries_and_rules_without_entries():
    plain = rule("JAX101", "--no-entries")
    assert plain.exit_code == 0 and "## Entries" not in plain.output and "# JAX101 removed-symbol" in plain.output
    other = rule("JAX202", "--grep", "x")
    assert other.exit_code == 0 and "## Entries" not in other.output
    assert rule("JAX000").exit_code == 0


def test_unknown_code_is_still_an_error():
    result = rule("JAX999")
    assert result.exit_code == 2 and "unknown rule code 'JAX999'" in result.output
    assert rule("JAX999", "--all").exit_code == 2


def test_rules_doc_has_the_tables():
    from jaxlint.ui.docs import rules_markdown

    text = rules_markdown()
    assert "| `jax.lax.psend` | symbol | 0.12.0 |" in text  # JAX402: every row
    assert "| `jax_memory_fitting_effort` | config |" in text  # JAX102: every row
    assert re.search(r"^\| `jax\.core` \| \d+ \| ", text, re.M)  # JAX101: per module
    assert "| `jax.tree_map` |" not in text
