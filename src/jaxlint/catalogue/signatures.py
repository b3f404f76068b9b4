"""The signature rows read from every jax, jaxlib, flax and optax wheel (``rules/signatures_generated.toml``, written
by ``tools/generate_catalogue.py --only-signatures``): per public class, the changes of its methods and constructor
(JAX105); per function, parameters newly required and literal defaults changed (JAX103).

A class is found under every public name it has had (``spellings``), so ``jax.experimental.maps.Mesh`` and
``jax.sharding.Mesh`` share their rows. A flax or optax row (``library``) that JAX507/JAX509 already report (a
keyword of the same class's method or function in ``[[parameter]]``, a ``now-required`` ``[[method_change]]``) is
left to them: one finding per call.

``signatures_confirmed.toml`` (``tools/catalogue_gen/signature_check.py``) holds each row's outcome by execution: a
row that execution contradicted is left out, and a rename that execution did not leave a plain rename (the new
keyword not bound at both ends of its fix's range, or annotated with another type) is read as a removed keyword
that names its successor (the hint stays, no fix is written). ``signatures_contradicted.toml``
(``tools/catalogue_gen/library_signature_check.py --write``) lists the flax, optax and jaxlib rows execution
contradicted: left out too."""
from __future__ import annotations

from dataclasses import MISSING, dataclass, fields as dataclass_fields
from functools import lru_cache
from pathlib import Path

from jaxlint.catalogue import RULES_DIR
from jaxlint.project.toml_parser import toml_parser

DATA = RULES_DIR / "signatures_generated.toml"
CONFIRMED = RULES_DIR / "signatures_confirmed.toml"
# flax, optax and jaxlib rows that execution contradicted (``tools/catalogue_gen/library_signature_check.py``)
CONTRADICTED = RULES_DIR / "signatures_contradicted.toml"
# The libraries whose rows are judged against their own pinned range (jaxlib's releases are numbered as jax's).
OWN_RANGE = frozenset({"flax", "optax"})
INIT = "__init__"
# Changes a call that passes the keyword hits; the others are about what a call omits (or a member it names).
KEYWORD_CHANGES = frozenset({"removed", "renamed", "positional-only"})
OMITTED_CHANGES = frozenset({"newly-required", "default-changed"})


@dataclass(frozen=True)
class SignatureRow:
    owner: str
    change: str
    changed_in: str
    last_seen: str
    member: str = ""  # "" for a function
    parameter: str = ""
    replacement: str | None = None
    replacement_since: str | None = None
    old_default: str | None = None
    new_default: str | None = None
    member_kind: str | None = None
    position: int | None = None
    library: str = "jax"

    @property
    def release(self) -> str:
        """How a message names the release of the change: ``JAX 0.4.14``, ``flax 0.11.0``."""
        return f"{'JAX' if self.library == 'jax' else self.library} {self.changed_in}"

    @property
    def callable(self) -> str:
        """As a message spells it: ``jax.stages.Lowered.compile``, the class for its constructor, the function."""
        return self.owner if self.member in ("", INIT) else f"{self.owner}.{self.member}"


def row_key(block: dict) -> tuple[str, str, str, str, str]:
    """What names a row in both files."""
    return block["owner"], block.get("member", ""), block.get("parameter", ""), block["change"], block["changed_in"]


def outcomes(path: Path | None = None) -> dict[tuple, dict]:
    """Row key -> its ``[[row]]`` of ``signatures_confirmed.toml`` (empty without the file)."""
    return {row_key(r): r for r in _rows(path or CONFIRMED)}


def contradicted(path: Path | None = None) -> frozenset[tuple]:
    """The keys of the library rows execution contradicted (``signatures_contradicted.toml``; empty without it)."""
    return frozenset(row_key(r) for r in _rows(path or CONTRADICTED))


def _rows(path: Path) -> list[dict]:
    try:
        with open(path, "rb") as handle:
            return toml_parser().load(handle).get("row", [])
    except FileNotFoundError:
        return []


def checked(block: dict, outcome: dict | None) -> dict | None:
    """``block`` as execution leaves it: None when contradicted; a rename execution did not leave plain becomes a
    removed keyword that names its successor."""
    if outcome is None:
        return block
    if outcome["outcome"] == "contradicted":
        return None
    if block["change"] == "renamed" and not outcome.get("plain_rename", False):
        return {**block, "change": "removed"}
    return block


def _checked_blocks() -> list[dict]:
    """The ``[[signature]]`` rows as execution leaves them (``checked``). Read from the JSON copy in the user's
    cache folder when its stamp matches the two TOML files (JAX105's words are built from these rows when the rule
    is imported: parsing both files cost every run 50 ms, a sixth of a one-file check)."""
    from jaxlint.catalogue import _cache_file, _stamp, read_stamped, write_stamped

    sources = tuple(path for path in (DATA, CONFIRMED, CONTRADICTED) if path.is_file())
    if DATA not in sources:
        return []
    cache, stamp = _cache_file(sources, "signatures"), _stamp(sources)
    cached = read_stamped(cache, stamp)
    blocks = cached.get("blocks") if cached is not None else None
    if isinstance(blocks, list) and all(isinstance(block, dict) for block in blocks):
        return blocks
    with open(DATA, "rb") as handle:
        data = toml_parser().load(handle)
    confirmed, refuted = outcomes(), contradicted()
    blocks = [block for block in (checked(block, confirmed.get(row_key(block)))
                                  for block in data.get("signature", ()) if row_key(block) not in refuted)
              if block is not None]
    write_stamped(cache, stamp, blocks=blocks)
    return blocks


@lru_cache(maxsize=1)
def _load() -> tuple[dict, dict]:
    classes: dict[str, dict[str, list[SignatureRow]]] = {}
    functions: dict[str, list[SignatureRow]] = {}
    reported = _reported_elsewhere()
    for block in _checked_blocks():
        row = _row(block)
        if row.library in OWN_RANGE and _key(row) in reported:
            continue
        for name in (row.owner, *block.get("spellings", ())):
            if row.member:
                classes.setdefault(name, {}).setdefault(row.member, []).append(row)
            else:
                functions.setdefault(name, []).append(row)
    return classes, functions


_FIELDS = {f.name: f for f in dataclass_fields(SignatureRow)}
_DEFAULTS = {name: f.default for name, f in _FIELDS.items() if f.default is not MISSING}
_REQUIRED = _FIELDS.keys() - _DEFAULTS.keys()


def _row(block: dict) -> SignatureRow:
    """``SignatureRow(**block's fields)``, built as pickle restores one where every required field is there (the
    frozen ``__init__`` sets each field through ``object.__setattr__``: 1,000 rows, 3 ms of every start-up)."""
    values = {key: value for key, value in block.items() if key in _FIELDS}
    if not _REQUIRED <= values.keys():
        return SignatureRow(**values)  # raises the TypeError it always did
    row = object.__new__(SignatureRow)
    row.__dict__.update(_DEFAULTS)
    row.__dict__.update(values)
    return row


def class_rows() -> dict[str, dict[str, list[SignatureRow]]]:
    """Class (each public spelling) -> member (``__init__`` for the constructor) -> its rows."""
    return _load()[0]


def function_rows() -> dict[str, list[SignatureRow]]:
    """Function (each public spelling) -> its newly-required and default-changed rows."""
    return _load()[1]


def _key(row: SignatureRow) -> tuple[str, str, str, str]:
    """(library, the function or class's last name, member, parameter) as JAX507/JAX509's rows can be matched: their
    rows name the defining module (``flax.linen.recurrent.LSTMCell``), these rows the shortest public one."""
    short = row.owner.rpartition(".")[2]
    if row.change in KEYWORD_CHANGES:
        return row.library, short, row.member, row.parameter
    return row.library, short, row.member, "" if row.change == "newly-required" else "-"


# Rows a hand-written rule reports with its own fix: JAX505 (``nnx.Optimizer(model, tx)`` without ``wrt=``).
_BY_HAND = frozenset({("flax", "Optimizer", INIT, "")})


def _reported_elsewhere() -> set[tuple[str, str, str, str]]:
    from jaxlint.catalogue.ecosystem_generated import method_changes, parameters
    found = set(_BY_HAND)
    for row in parameters():
        parts = row.name.split(".")
        if row.method_of:
            found.add((row.library, row.method_of, parts[-1], row.parameter))
        else:
            found.add((row.library, parts[-1], INIT, row.parameter))  # a class's constructor keyword
            found.add((row.library, parts[-1], "", row.parameter))
    for change in method_changes():
        if change.change == "now-required":
            found.add((change.library, change.method_of, change.name.rpartition(".")[2], ""))
    return found
