"""What JAX101/JAX402 say about a catalogue entry: a one-sentence headline and, apart, the details.

The headline is what a user reads in one glance (``jaxlint check``): the name, the release that removed (or
deprecated) it, and a replacement that exists at the target version. Everything else (the overlay's note, JAX's own
message, why there is no fix) is the detail, shown by ``--output-format full`` and ``jaxlint rule``.

JAX's messages are data scraped from its wheels: a few are the name of the variable that held the text
(``_deprecation_msg``), some end with "please file an issue", and some recommend a name that a later release
deprecated in turn (``jax.experimental.shard_map``). None of that reaches the user.
"""
from __future__ import annotations

import re

from jaxlint.catalogue import Catalogue, Entry
from jaxlint.project.versions import Version, parse_version

# A "message" that is only an identifier: the generator read the name of JAX's message variable, not its text.
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*$")
# Sentences that address JAX's own issue tracker (they make no sense coming from a linter).
_FILE_AN_ISSUE = re.compile(r"\b(?:file|open|report)\s+an?\s+(?:issue|bug)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")
_MAX_HOPS = 5
# "Use jax.util.safe_map", "use `jax.experimental.shard_map`": the name a message tells the user to write.
_USE_NAME = re.compile(r"\b(?:[Uu]se|[Uu]sed|with|to)\s+`?(jax(?:\.\w+)+)`?")


def jax_message(entry: Entry) -> str | None:
    """JAX's own message for the entry, without internal names or requests to file issues (None: nothing left)."""
    text = (entry.message or "").strip()
    if not text or _IDENTIFIER.match(text):
        return None
    text = " ".join(sentence for sentence in _SENTENCE_END.split(text) if not _FILE_AN_ISSUE.search(sentence))
    return text.strip() or None


def _entry_named(catalogue: Catalogue, name: str) -> Entry | None:
    """The entry of ``name``; for a module without one, the entry of its namesake function (the module
    ``jax.experimental.shard_map`` is the home of ``jax.experimental.shard_map.shard_map``, deprecated in 0.8.0)."""
    entry = catalogue.symbol(name) or catalogue.module(name)
    if entry is None:
        entry = catalogue.symbol(f"{name}.{name.rpartition('.')[2]}")
    return entry


def usable_replacement(catalogue: Catalogue, entry: Entry, target: Version | str) -> str | None:
    """The replacement to recommend at ``target``: JAX's named one, followed while it is itself removed or
    deprecated there (``jax.experimental.shard_map`` -> ``jax.shard_map``); None when the chain ends nowhere."""
    target = parse_version(target)
    name = entry.replacement
    for _ in range(_MAX_HOPS):
        if not name:
            return None
        successor = _entry_named(catalogue, name)
        if successor is None or not (successor.removed_at(target) or successor.deprecated_at(target)):
            return name
        if successor.kind == "module" and successor.attribute_survives:
            return name
        name = successor.replacement if successor.replacement not in (name, entry.replacement) else None
    return None


def headline(catalogue: Catalogue, entry: Entry, target: Version | str, min_version: Version | str, *,
             shown: str | None = None, fixed_to: str | None = None) -> str:
    """One sentence: ``jax.tree_map`` was removed in JAX 0.6.0; use ``jax.tree.map`` (JAX 0.4.25+)."""
    name = shown or entry.name
    if entry.removed_in and entry.removed_at(target):
        head = f"`{name}` was removed in JAX {entry.removed_in}"
    elif entry.deprecated_in:
        head = f"`{name}` is deprecated since JAX {entry.deprecated_in}"
    else:
        head = f"`{name}` is deprecated"
    if entry.source == "extend-rules":
        return team_headline(catalogue, entry, target, min_version, shown=shown, fixed_to=fixed_to)
    if entry.advice and not fixed_to:
        return f"{head}; {entry.advice}"
    replacement = fixed_to or usable_replacement(catalogue, entry, target)
    if replacement:
        head += f"; use `{replacement}`"
        since = entry.replacement_since if replacement == entry.replacement else None
        # (not for a name outside JAX: ``functools.partial`` exists everywhere, its ``since`` is about the rename)
        if not fixed_to and since and replacement.startswith("jax.") \
                and parse_version(since) > parse_version(min_version):
            head += f" (JAX {since}+)"
    return head


def team_state(removed_in: str | None, deprecated_in: str | None, removed: bool) -> str:
    """How a user rule (``extend-rules``) names its state: the team's decision, gated by a JAX version, not a JAX
    release that removed anything (``removed by this project from JAX 0.10.0 on``)."""
    if removed:
        return f"removed by this project from JAX {removed_in} on"
    return "deprecated by this project" + (f" from JAX {deprecated_in} on" if deprecated_in else "")


def team_headline(catalogue: Catalogue, entry: Entry, target: Version | str, min_version: Version | str, *,
                  shown: str | None = None, fixed_to: str | None = None) -> str:
    """A user rule's headline: ``ourlib.old`` is deprecated by this project: <the team's message>. The team's
    own words are the advice (their message, else their replacement); nothing is attributed to JAX."""
    head = f"`{shown or entry.name}` is " + team_state(entry.removed_in, entry.deprecated_in,
                                                       bool(entry.removed_in and entry.removed_at(target)))
    message = (entry.message or "").strip().rstrip(".")
    if message:
        return f"{head}: {message}"
    advice = entry.advice or None
    replacement = fixed_to or usable_replacement(catalogue, entry, target)
    if advice is None and replacement:
        advice = f"use `{replacement}`"
        since = entry.replacement_since if replacement == entry.replacement else None
        if not fixed_to and since and parse_version(since) > parse_version(min_version):
            advice += f" (JAX {since}+)"
    return f"{head}; {advice}" if advice else head


def recommends_gone_name(catalogue: Catalogue, text: str, target: Version | str) -> str | None:
    """A ``jax....`` name that ``text`` tells the user to use and that is removed or deprecated at ``target``."""
    for match in _USE_NAME.finditer(text):
        name = match.group(1).rstrip(".")
        successor = _entry_named(catalogue, name)
        if successor is not None and not (successor.kind == "module" and successor.attribute_survives) and (
                successor.removed_at(target) or successor.deprecated_at(target)):
            return name
    return None


def details(entry: Entry, *, not_fixed: str | None = None, catalogue: Catalogue | None = None,
            target: Version | str | None = None) -> str | None:
    """What follows the headline in ``--output-format full``: the note, why there is no fix, JAX's message (left
    out when it recommends a name that is itself gone at ``target``, given with ``catalogue``)."""
    parts = []
    if entry.note:
        parts.append(entry.note.rstrip(".") + ".")
    if not_fixed:
        parts.append(f"Not fixed automatically: {not_fixed}.")
    message = jax_message(entry) if entry.source != "extend-rules" else None  # a team's message is the headline
    if message and catalogue is not None and target is not None and recommends_gone_name(catalogue, message, target):
        message = None
    if message:
        parts.append(f"JAX: \"{message}\"")
    return " ".join(parts) or None
