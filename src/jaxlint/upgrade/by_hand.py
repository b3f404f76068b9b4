"""The behaviour changes no static pattern recognises (``rules/behaviour.toml`` rows with ``match = "none"``: they
depend on a value's dtype or shape), listed in the upgrade report under "changes to check by hand" with the count of
uses of each API in the project: the rows whose release lies in a file's range (JAX's ``(min, target]``, or the
pins of the row's library: ``flax>=0.6.0`` crosses flax 0.7.1)."""
from __future__ import annotations

import ast
from functools import lru_cache, partial
from typing import Callable, Iterable

from jaxlint.catalogue.behaviour import Change, by_hand, crossed
from jaxlint.lint.ast_gate import AstFacts, collect_facts
from jaxlint.project.files import SourceFile
from jaxlint.project.versions import parse_version

_ARRAY = "jax.Array."


def count_uses(change: Change, source: str, facts_of: Callable[[], AstFacts | None] | None = None) -> int | None:
    """Uses of the API in ``source``: its calls; for a method (``jax.Array.astype``, a row with ``uses = "method"``)
    the calls of that method name on anything, in a file that uses the row's library; for ``uses = "subclasses"``
    the classes deriving from it. None where a use has no name to count (``bool(x)`` is ``jax.Array.__bool__``).
    ``facts_of``: the file's facts, parsed once for all the rows (``collect_facts(source)`` without it)."""
    method = change.api[len(_ARRAY):] if change.api.startswith(_ARRAY) else None
    if change.uses == "method":
        method = change.api.rpartition(".")[2]
    if method is not None and method.startswith("__"):
        return None
    last = method or change.api.rpartition(".")[2]
    if (f".{last}" if method else last) not in source:  # ``.init``, not the ``init`` of every ``__init__``
        return 0
    facts = facts_of() if facts_of is not None else collect_facts(source)
    if facts is None:
        return 0
    if change.uses == "subclasses":
        return sum(1 for node in ast.walk(facts.tree) if type(node) is ast.ClassDef
                   and any(change.api in facts.qualified_names(base) for base in node.bases))
    if method is None:
        return len(facts.calls_to(change.api))
    if not facts.refers_to_any(frozenset({change.library})):
        return 0
    return sum(1 for call in facts.calls if type(call.func) is ast.Attribute and call.func.attr == method)


def changes_to_check(files: Iterable[SourceFile]) -> list[dict]:
    """One entry per row that some file's range crosses: ``uses`` (None: not countable) and ``files`` with uses."""
    rows = by_hand()
    found: dict[tuple[str, str], dict] = {}  # by API and release: one API may have changed twice
    for file in files:
        settings = file.settings
        in_range = [row for row in rows if crossed(row, settings)]
        if not in_range:
            continue
        try:
            source = file.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        facts_of = lru_cache(maxsize=1)(partial(collect_facts, source))
        for row in in_range:
            entry = found.setdefault((row.api, row.changed_in), {"api": row.api, "library": row.library,
                                               "changed_in": row.changed_in, "what": row.what,
                                               "keep_old": row.keep_old, "uses": 0, "files": 0,
                                               "reason": row.reason})
            uses = count_uses(row, source, facts_of) if entry["uses"] is not None else None
            if uses is None:
                entry["uses"] = None
            elif uses:
                entry["uses"] += uses
                entry["files"] += 1
    return sorted((e for e in found.values() if e["uses"] != 0),
                  key=lambda e: (e["library"] != "jax", e["library"], parse_version(e["changed_in"]), e["api"]))
