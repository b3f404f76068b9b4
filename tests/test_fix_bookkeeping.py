"""The fix loop's bookkeeping for files with thousands of fixes gives exactly what the plain per-edit functions give:
``TakenEdits`` answers ``edits_overlap`` against every edit chosen so far, ``OffsetMap`` answers ``map_offset``."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jaxlint.lint.diagnostics import Edit
from jaxlint.lint.fixes import OffsetMap, TakenEdits, edits_overlap, map_offset

_edit = st.builds(lambda start, length, content: Edit(start, start + length, content),
                  st.integers(0, 40), st.integers(0, 4), st.sampled_from(["", "x", "abc", "0123456"]))


@given(st.lists(st.lists(_edit, min_size=1, max_size=3), max_size=25))
def test_taken_edits_answer_edits_overlap_against_everything_taken(fixes):
    taken = TakenEdits()
    everything: list[Edit] = []
    for edits in fixes:
        expected = edits_overlap(edits, everything)
        assert taken.overlaps(edits) == expected
        if not expected:  # as the fix loop does: only fixes that touch nothing chosen are added
            taken.add(edits)
            everything.extend(edits)


@given(st.lists(_edit, max_size=25))
def test_taken_edits_hold_any_edits_added(edits):
    # Edits of one fix may touch each other: the union is still exact.
    taken = TakenEdits()
    taken.add(edits)
    for probe in [Edit(start, start + length, "") for start in range(0, 46, 3) for length in (0, 2)]:
        assert taken.overlaps([probe]) == edits_overlap([probe], edits)


def _non_overlapping(draws: list[Edit]) -> list[Edit]:
    """Keep edits that apply together (``apply_edits``): none starts before the previous one ends."""
    kept: list[Edit] = []
    for edit in sorted(draws, key=lambda e: (e.start, e.end)):
        if not kept or edit.start >= kept[-1].end:
            kept.append(edit)
    return kept


@given(st.lists(_edit, max_size=12), st.randoms(use_true_random=False))
def test_offset_map_answers_map_offset(draws, random):
    edits = _non_overlapping(draws)
    random.shuffle(edits)  # map_offset takes them in any order
    mapping = OffsetMap(edits)
    for offset in range(0, 50):
        for inclusive_end in (False, True):
            assert mapping.map(offset, inclusive_end=inclusive_end) == map_offset(offset, edits,
                                                                                   inclusive_end=inclusive_end)


def test_offset_map_inside_and_at_the_edges_of_edits():
    # An insertion at 2, a replacement of [4, 7) by one character, a deletion of [9, 10).
    edits = [Edit(2, 2, "ins"), Edit(4, 7, "R"), Edit(9, 10, "")]
    mapping = OffsetMap(edits)
    assert [mapping.map(o, inclusive_end=False) for o in (0, 2, 3, 4, 5, 7, 9, 10, 12)] == [0, 2, 6, 7, 7, 8, 10,
                                                                                            10, 12]
    assert [mapping.map(o, inclusive_end=True) for o in (0, 2, 3, 4, 5, 7, 9, 10, 12)] == [0, 5, 6, 7, 8, 8, 10,
                                                                                           10, 12]
