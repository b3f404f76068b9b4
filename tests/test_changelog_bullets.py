"""tools/changelog_bullets.py and its data (tools/data/changelog_jax.csv): every bullet of JAX's CHANGELOG.md from
0.4.0 on is classified, and each behaviour change names its ``rules/behaviour.toml`` row or why it has none."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from jaxlint.catalogue.behaviour import changes

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
try:
    import changelog_bullets as cb
finally:
    sys.path.remove(str(REPO / "tools"))

DATA = cb.load()

CHANGELOG = """# Change log

## Unreleased

* Changes
  * `jnp.foo` now returns a tuple.
    More text of the same bullet.
    * a nested item of it
  * Second change.

## JAX 0.5.0 (Jan 17, 2025)

* Breaking changes:
  * One with code
    ```python
    * not an item
    ```
* Deprecations & Removals
  * Removed `jax.bar`.

## jaxlib 0.4.3 (Feb 8, 2023)
  * A bullet without a section.

## jax 0.4.2 (Jan 24, 2023)

* Changes
  * Same text.
  * Same text.

## jax 0.3.25 (Nov 15, 2022)
* Changes
  * Too old.
"""


def test_the_parser_finds_each_bullet_with_its_release_and_section():
    found = [(b.release, b.section, b.text) for b in cb.parse(CHANGELOG)]
    assert found == [
        ("jax unreleased", "changes", "`jnp.foo` now returns a tuple. More text of the same bullet. * a nested item of it"),
        ("jax unreleased", "changes", "Second change."),
        ("jax 0.5.0", "breaking changes", "One with code ```python * not an item ```"),
        ("jax 0.5.0", "deprecations & removals", "Removed `jax.bar`."),
        ("jaxlib 0.4.3", "(none)", "A bullet without a section."),
        ("jax 0.4.2", "changes", "Same text."),
        ("jax 0.4.2", "changes", "Same text."),
    ]
    ids = [b.id for b in cb.parse(CHANGELOG)]
    assert len(set(ids)) == len(ids) and ids[-1].endswith("-1")  # a repeated bullet keeps its own id


def test_every_row_of_the_data_has_a_class_and_each_behaviour_change_its_row_or_a_reason():
    assert len(DATA) == 556  # the bullets of the changelog at jax-ml/jax cec06d1 (Unreleased, 0.11.0 ... 0.4.0)
    apis = {row.api for row in changes()}
    for row in DATA.values():
        assert row["class"] in cb.CLASSES, row["id"]
        assert row["how"] in ("read", "script"), row["id"]
        if row["class"] == "behaviour-change":
            assert row["row"] or row["note"], f"{row['id']}: a behaviour change names its row or why none"
            assert not row["row"] or row["row"] in apis or re.search(r"JAX\d{3}", row["note"]), row["id"]


@pytest.mark.parametrize("row", [row for row in changes() if row.library == "jax"], ids=lambda row: row.api)
def test_every_jax_row_comes_from_a_bullet_read_as_a_behaviour_change(row):
    quoted = row.reason.partition(': "')[2]
    assert any(bullet["class"] == "behaviour-change" and bullet["text"][:60] in quoted for bullet in DATA.values()), \
        f"{row.api}: its changelog bullet is not classified as a behaviour change"


@pytest.mark.skipif(not (cb.MIRROR / "HEAD").exists(), reason="no clone of jax-ml/jax at " + str(cb.MIRROR))
def test_every_bullet_of_the_changelog_is_classified():
    bullets = cb.parse(cb.read_changelog())
    assert [b.id for b in bullets if b.id not in DATA] == []
    assert {b.id for b in bullets} == set(DATA)
    # the classes marked as scripted are the script's; the rest were read (``how = "read"``)
    assert [b.id for b in bullets if DATA[b.id]["how"] == "script" and cb.scripted_class(b) != DATA[b.id]["class"]] == []
