"""The first stage of the per-file pipeline: the words (then ``text_gate``, ``ast_gate``, the cut, libcst).

A file that contains none of its rules' trigger strings (``Rule.triggers``), and for no word set of theirs
(``Rule.required_words``) all of its words, cannot produce a finding, and is never parsed. It answers per rule
(``rules_that_may_match``), so that only the rules it keeps go on to the next stage; ``engine`` runs the stages in
order. Like the gates it sits below the rule API: it reads only the two class attributes of ``WordRule``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import chain
from typing import Collection, Protocol, Sequence


class WordRule(Protocol):
    """What the prefilter asks of a rule class (``jaxlint.rules.base.Rule``; ``required_words`` may be absent)."""

    triggers: tuple[str, ...]


def may_match(source: str, rules: Sequence[type[WordRule]]) -> bool:
    """The word prefilter: a file that contains none of its rules' trigger strings, and for no word set of theirs
    all of its words, cannot produce a finding, and is never parsed.

    Triggers are plain substring tests (``str.__contains__`` is a fast C search; one regular-expression
    alternation of the ~70 triggers was 3x slower). Word sets (``required_words``) are indexed by one of their
    words: the file's words are intersected with the index keys, then only the sets under the keys found are
    tested. A word every set shares (``jax``) is first looked up as a substring, which skips most files without
    splitting them into words.
    """
    return _combined_match(Scan(source), rules)


def rules_that_may_match(source: str, rules: Sequence[type[WordRule]]) -> list[type[WordRule]]:
    """The rules whose own triggers or word sets the file contains (``may_match`` answers for all at once, faster)."""
    return rules_matching_scan(Scan(source), rules)


WordIndex = dict[str, list[frozenset[str]]]
# ``\w`` on ASCII, every other byte a separator: ``bytes.translate`` and ``split`` find the ASCII words 2.5x
# faster than ``re.findall(r"\w+")``. Every ASCII word of the regex's result is among them (a non-ASCII
# character ends a word either way), and the names looked up are ASCII (``_Prefilter`` checks).
_ASCII_WORDS = bytes(byte if byte < 128 and (chr(byte).isalnum() or byte == ord("_")) else ord(" ")
                     for byte in range(256))


class Scan:
    """One file's text, with its ASCII words split on first use."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._words: set[str] | None = None
        self._joined: str | None = None

    @property
    def joined_words(self) -> str:
        """The distinct words, space-separated: a quarter of the text's length. A trigger made of word characters
        occurs in the text exactly when it occurs in a word (its characters lie within one run of word characters),
        so exactly when it occurs here."""
        if self._joined is None:
            self._joined = " ".join(self.words)
        return self._joined

    @property
    def words(self) -> set[str]:
        if self._words is None:
            encoded = self.source.encode("utf-8", "surrogatepass").translate(_ASCII_WORDS)
            self._words = set(encoded.decode("ascii").split())
        return self._words


@dataclass(frozen=True)
class _TriggerGroup:
    """Triggers that start with the same four characters (``guard``): a file without ``jax_`` skips every
    config-name trigger that starts so with one substring test (a trigger in the file implies its guard is)."""

    guard: str
    triggers: tuple[str, ...]
    in_words: bool  # every trigger is ASCII word characters only: it may be searched for among the joined words
    # A large group (JAX102's sixty option names) is not searched trigger by trigger: each place the guard occurs
    # is looked up by its first ``width`` characters (the shortest trigger's length).
    width: int
    by_prefix: dict[str, tuple[str, ...]]

    def found_in(self, source: str) -> list[str]:
        # a list, not a generator: most groups find nothing, and a generator costs more to start than a list
        triggers = self.triggers
        if len(triggers) < _LOOK_UP_FROM:
            if len(triggers) == 1 or self.guard in source:
                return [trigger for trigger in triggers if trigger in source]
            return []
        found = []
        guard, width, by_prefix = self.guard, self.width, self.by_prefix
        start = source.find(guard)
        while start >= 0:
            for trigger in by_prefix.get(source[start:start + width], ()):
                if source.startswith(trigger, start):
                    found.append(trigger)
            start = source.find(guard, start + 1)
        return found


_LOOK_UP_FROM = 4  # triggers in a group


def _trigger_group(guard: str, triggers: list[str]) -> _TriggerGroup:
    width = min(map(len, triggers))
    by_prefix: dict[str, list[str]] = {}
    for trigger in triggers:
        by_prefix.setdefault(trigger[:width], []).append(trigger)
    in_words = all(trigger and trigger.isascii() and (trigger.isalnum() or set(trigger) <= _WORD_CHARS)
                   for trigger in triggers)
    return _TriggerGroup(guard, tuple(triggers), in_words, width,
                         {key: tuple(group) for key, group in by_prefix.items()})


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True)
class _Prefilter:
    guarded: tuple[_TriggerGroup, ...]  # every rule's triggers, by their first four characters
    index: WordIndex
    shared: tuple[str, ...]  # words every word set holds: a file without one of them matches no set
    keys: frozenset[str] = frozenset()  # the index's keys, as a set (``words & keys`` walks the smaller one)
    # ``guarded`` split for ``_triggers_in``: the triggers alone in their group (two thirds of the groups: one
    # comprehension tests them all, without a call per group), of word characters and not; the other groups
    lone_words: tuple[str, ...] = ()
    lone_text: tuple[str, ...] = ()
    grouped: tuple[_TriggerGroup, ...] = ()
    # A few strings one of which every word set holds a word containing (``jax``, ``flax``, ``optax``: ``_anchors``):
    # a file that contains none matches no set, known without splitting it into words. Empty: no such few.
    anchors: tuple[str, ...] = ()
    unanchored: "_Prefilter | None" = None  # the triggers that contain no anchor, alone (when there are anchors)

    def may_hold_a_set(self, source: str) -> bool:
        """False only where no word set can be among ``source``'s words (``shared`` and ``anchors``)."""
        return all(word in source for word in self.shared) \
            and (not self.anchors or any(anchor in source for anchor in self.anchors))


def _triggers_in(source: str, prefilter: _Prefilter, words: str | None = None) -> list[str]:
    """The triggers that occur in ``source`` (a trigger may come more than once). ``words``: the scan's
    ``joined_words``, searched instead of the text for the groups of word-character triggers (exact, and a quarter
    of the text's length). A list built in a loop: most groups find nothing, and generators cost more to start."""
    in_words = source if words is None else words
    found = [trigger for trigger in prefilter.lone_words if trigger in in_words]
    found += [trigger for trigger in prefilter.lone_text if trigger in source]
    for group in prefilter.grouped:
        found += group.found_in(in_words if group.in_words else source)
    return found


def _combined_match(scan: Scan, rules: Sequence[type[WordRule]]) -> bool:
    prefilter = _prefilter_for(tuple(rules))
    # a trigger found is enough (an empty list: none; an empty trigger is a match too)
    return bool(_triggers_in(scan.source, prefilter)) or _has_word_set(scan, prefilter)


def _words_wanted(scan: Scan, prefilter: _Prefilter) -> bool:
    """Whether ``_has_word_set`` would split the file into words anyway (it does for nearly every file that spells
    ``jax``): then the triggers are searched for among the words."""
    if scan._words is not None:
        return True
    index = prefilter.index
    return bool(index) and "" not in index and prefilter.may_hold_a_set(scan.source)


def rules_matching_scan(scan: Scan, rules: Sequence[type[WordRule]]) -> list[type[WordRule]]:
    rules = tuple(rules)
    prefilter = _prefilter_for(rules)
    if prefilter.unanchored is not None and scan._words is None \
            and not any(anchor in scan.source for anchor in prefilter.anchors):
        # no anchor (``jax``, ``flax``, ``optax``: 7 in 10 files of old research code): no word set can match, nor a
        # trigger that contains one; the others are looked for in the text, which is not split into words
        found = frozenset(_triggers_in(scan.source, prefilter.unanchored))
        matched = _word_set_owners(rules).always
    else:
        words = scan.joined_words if _words_wanted(scan, prefilter) else None
        found = frozenset(_triggers_in(scan.source, prefilter, words))
        matched = _rules_with_a_word_set(scan, prefilter, _word_set_owners(rules))
    if not found and not matched:
        return []
    return [rule for bit, rule in enumerate(rules) if matched >> bit & 1 or not found.isdisjoint(rule.triggers)]


@dataclass(frozen=True)
class _WordSetOwners:
    """Every word set of a rule tuple, indexed as ``_Prefilter.index`` is, and under each key grouped by the rules
    that hold them (a bit per rule, in the tuple's order): one pass over the file's words answers for every rule at
    once, and a group whose rules are already matched is passed over in one test (``experimental`` keys 393 sets
    of JAX101 and JAX402, ``numpy`` 133)."""
    index: dict[str, tuple[tuple[int, tuple[frozenset[str], ...]], ...]]
    always: int  # the rules with an empty word set, which every file contains
    every: int  # the rules with a word set: once all are matched, no more set need be tested
    # the index's keys as a set: ``words & keys`` walks the smaller one (``words & index.keys()`` copies the 2,300
    # keys into a set first: 10 us a file, not 4)
    keys: frozenset[str] = frozenset()


_OWNERS: dict[tuple, _WordSetOwners] = {}


def _word_set_owners(rules: tuple[type[WordRule], ...]) -> _WordSetOwners:
    try:
        return _OWNERS[rules]
    except KeyError:
        pass
    # The rules that hold the same word sets (JAX101 and JAX402: 3,400 from the catalogue) are walked once: equal
    # collections, not only one object (a rule's card holds its own copy, ``rules.cards``).
    holders: dict[Collection[frozenset[str]], int] = {}  # a rule's word sets -> the mask of the rules holding them
    for bit, rule in enumerate(rules):
        words = getattr(rule, "required_words", ())
        holders[words] = holders.get(words, 0) | 1 << bit
    owners: dict[frozenset[str], int] = {}
    for words, mask in holders.items():
        for required in words:
            owners[required] = owners.get(required, 0) | mask
    always = owners.pop(frozenset(), 0)
    index: dict[str, dict[int, list[frozenset[str]]]] = {}
    every = 0
    for required, mask in owners.items():
        index.setdefault(_index_key(required), {}).setdefault(mask, []).append(required)
        every |= mask
    if len(_OWNERS) > 256:
        _OWNERS.clear()
    found = _OWNERS[rules] = _WordSetOwners(
        {key: tuple((mask, tuple(sets)) for mask, sets in groups.items()) for key, groups in index.items()},
        always, every, frozenset(index))
    return found


def _rules_with_a_word_set(scan: Scan, prefilter: _Prefilter, owners: _WordSetOwners) -> int:
    """The bits of the rules one of whose word sets the file contains (``_has_word_set`` of each rule's own)."""
    matched = owners.always
    if not owners.index or not prefilter.may_hold_a_set(scan.source):
        return matched  # a word every set holds, or every anchor, is missing: no set can match
    words = scan.words
    every = owners.every | matched
    for key in words & owners.keys:
        for mask, sets in owners.index[key]:
            if mask & ~matched:
                for required in sets:
                    if required <= words:
                        matched |= mask
                        break
        if matched == every:
            break
    return matched


def _has_word_set(scan: Scan, prefilter: _Prefilter) -> bool:
    index = prefilter.index
    if not index:
        return False
    if "" in index:  # an empty set, which every file contains
        return True
    if not prefilter.may_hold_a_set(scan.source):
        return False
    words = scan.words
    return any(required <= words for key in words & prefilter.keys for required in index[key])


def _index_word_sets(word_sets) -> WordIndex:
    """Word sets indexed by their longest word (long words are the rare ones); an empty set under ``""``."""
    index: WordIndex = {}
    for required in word_sets:
        index.setdefault(_index_key(required) if required else "", []).append(required)
    return index


@lru_cache(maxsize=None)
def _index_key(required: frozenset[str]) -> str:
    """The longest word of a non-empty set (long words are the rare ones; ties: the greatest). Cached: the combined
    prefilter, each rule's own and ``_word_set_owners`` index the same few thousand sets."""
    # The same word as ``max(required, key=lambda word: (len(word), word))``, without a Python call per word (9 ms
    # of a one-file check): sorted greatest first, ``max`` keeps the first of the longest.
    return max(sorted(required, reverse=True), key=len)


MAX_ANCHORS = 8  # substring tests per file: beyond this many, splitting the file costs less


def _anchors(word_sets: list[frozenset[str]]) -> tuple[str, ...]:
    """A few strings, one of which is part of some word of every set (greedily, the word most sets hold first;
    then none that contains another: a file without ``jax`` has no ``jaxlib``); () where more would be needed, or
    where a set is empty (every file holds it)."""
    left = [required for required in word_sets]
    chosen: list[str] = []
    while left:
        if len(chosen) == MAX_ANCHORS or not all(left):
            return ()
        counts: dict[str, int] = {}
        for required in left:
            for word in required:
                counts[word] = counts.get(word, 0) + 1
        best = max(sorted(counts), key=counts.__getitem__)
        chosen.append(best)
        left = [required for required in left if best not in required]
    return tuple(sorted(anchor for anchor in chosen if not any(other != anchor and other in anchor
                                                             for other in chosen)))


_PREFILTERS: dict[tuple, _Prefilter] = {}


def _prefilter_for(rules: tuple[type[WordRule], ...]) -> _Prefilter:
    try:
        return _PREFILTERS[rules]
    except KeyError:
        pass
    # Longer triggers first: a shorter one that is a substring of a longer one is then usually redundant.
    triggers = tuple(sorted({t for rule in rules for t in rule.triggers}, key=lambda t: (-len(t), t)))
    # Each set once: JAX101 and JAX402 share their 3,400 (a set held twice answers as once).
    word_sets = list(dict.fromkeys(chain.from_iterable(getattr(rule, "required_words", ()) for rule in rules)))
    if not all(map(str.isascii, chain.from_iterable(word_sets))):  # a C loop: 30,000 words in each check
        raise ValueError("required_words must be ASCII: the prefilter reads ASCII words only")
    anchors = _anchors(word_sets)
    unanchored = None
    if anchors:
        unanchored = _prefilter_of(tuple(t for t in triggers if not any(anchor in t for anchor in anchors)), [])
    prefilter = replace(_prefilter_of(triggers, word_sets), anchors=anchors, unanchored=unanchored)
    if len(_PREFILTERS) > 256:
        _PREFILTERS.clear()
    _PREFILTERS[rules] = prefilter
    return prefilter


def _prefilter_of(triggers: tuple[str, ...], word_sets: list[frozenset[str]]) -> _Prefilter:
    shared = tuple(sorted(frozenset.intersection(*word_sets))) if word_sets else ()
    groups: dict[str, list[str]] = {}
    for trigger in triggers:
        groups.setdefault(trigger[:4], []).append(trigger)
    guarded = tuple(_trigger_group(guard, group) for guard, group in groups.items())
    index = _index_word_sets(word_sets)
    lone = [group for group in guarded if len(group.triggers) == 1]
    return _Prefilter(guarded, index, shared, frozenset(index),
                      tuple(group.triggers[0] for group in lone if group.in_words),
                      tuple(group.triggers[0] for group in lone if not group.in_words),
                      tuple(group for group in guarded if len(group.triggers) > 1))
