"""The behaviour changes of JAX, flax and optax APIs that are still there (``rules/behaviour.toml``): a default, a
validation or a result type that changed in a release of the row's ``library``. JAX601 reports the uses its static
patterns recognise; ``jaxlint upgrade`` lists the others (``match = "none"``) as changes to check by hand."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from jaxlint.catalogue import RULES_DIR, read_toml
from jaxlint.project.settings import Settings
from jaxlint.project.versions import parse_version

DATA = RULES_DIR / "behaviour.toml"
# How a use is recognised: the keyword absent (its default changed), present, or given one of ``values``; the
# positional argument at ``position`` written as one of ``values`` (``number``: a numeric literal); ``none``: no
# static pattern (the change depends on the values' dtype or shape); ``positional-count``: at least
# ``requires_positional`` positional arguments (a positional parameter that changed meaning); ``complex-argument``:
# the argument at ``position`` (or ``keyword``) is certainly complex; ``batched-vector``: ``solve(a, b)`` with
# ``b.ndim == a.ndim - 1 >= 2`` certain (``analysis.value_matches``).
MATCHES = ("keyword-absent", "keyword-present", "keyword-value", "argument-value", "positional-count",
           "complex-argument", "batched-vector", "none")
LIBRARIES = ("jax", "flax", "optax")
# What the upgrade report counts as a use of a by-hand row: calls of the API (through the imports), calls of the
# method its last name is on anything in a file that imports the library (``jax.Array.astype``, ``Module.init``),
# or classes that derive from it (``class Model(nnx.Module)``).
USES = ("calls", "method", "subclasses")


@dataclass(frozen=True)
class Change:
    api: str
    changed_in: str
    match: str
    what: str
    keep_old: str
    reason: str
    example: str
    example_old_version: str
    example_new_version: str
    example_old_result: str
    example_new_result: str
    executed: bool
    keyword: str | None = None
    # ``keyword-value``: these keywords with one of the values match too (``nnx.LayerNorm(use_scale=False)`` or
    # ``use_bias=False``)
    other_keywords: tuple[str, ...] = ()
    # the keyword must be absent too (``dctn(s=...)`` without ``axes``)
    absent: str | None = None
    position: int | None = None
    values: tuple[str, ...] = ()
    # at least this many positional arguments (``arange(start, stop, step, ...)``: the step is given)
    requires_positional: int | None = None
    # not where the first argument is a literal 1-D array (``jnp.unique(jnp.array([2, 1, 2]), return_inverse=True)``:
    # a flat input has flat inverse indices on both sides of the change)
    unless_flat_argument: bool = False
    example_note: str | None = None
    # whose release ``changed_in`` is: the range that must cross it is the project's pin of that library
    library: str = "jax"
    # the pattern is about the call of an instance made in the same expression (``nn.MultiHeadDotProductAttention(
    # num_heads=8)(q, kv, mask)``: flax modules are built and called at once), not the constructor's call
    instance_call: bool = False
    uses: str = "calls"
    # the JAX that the library's release ``changed_in`` requires (its pyproject): a JAX min version below it runs an
    # older release of the library, so the range crosses the change where the project does not pin the library
    needs_jax: str | None = None
    # the environments (folders of ``$JAXLINT_JAXENVS``) that run the example; default ``jax-<example_*_version>``
    example_old_env: str | None = None
    example_new_env: str | None = None
    # a recognisable row whose other uses (the value's dtype or shape not known) are listed by hand too
    also_by_hand: bool = False

    @property
    def recognisable(self) -> bool:
        return self.match != "none"

    @property
    def keywords(self) -> tuple[str, ...]:
        """The keyword and the other keywords a ``keyword-value`` row looks at."""
        return (self.keyword, *self.other_keywords) if self.keyword else self.other_keywords

    @property
    def release(self) -> str:
        """``JAX 0.5.0``, ``flax 0.7.5``: the release, with its library, as messages say it."""
        return f"{'JAX' if self.library == 'jax' else self.library} {self.changed_in}"


def crossed(row: Change, settings: Settings) -> bool:
    """Whether the range the file runs on crosses the row's release: JAX's (min, target]; for a flax or optax row,
    the project's pins of that library (a lower bound below the release, no upper bound at or below it). Where the
    project pins no lower bound of the library, its JAX min version decides: below the JAX that the release needs
    (``needs_jax``), the min runs an older release of the library. Otherwise silent, as JAX without a min version."""
    changed = parse_version(row.changed_in)
    if row.library == "jax":
        return settings.min_version < changed <= settings.target_version
    lower, upper = settings.library_range(row.library)
    if upper is not None and upper <= changed:
        return False
    if lower is not None:
        return lower < changed
    return row.needs_jax is not None and settings.min_version_known and \
        settings.min_version < parse_version(row.needs_jax) <= settings.target_version


@lru_cache(maxsize=1)
def changes() -> tuple[Change, ...]:
    rows = read_toml(DATA).get("change", [])
    found = []
    for row in rows:
        if row.get("match") not in MATCHES:
            raise ValueError(f"rules/behaviour.toml: {row.get('api')}: unknown match {row.get('match')!r}")
        if row.get("library", "jax") not in LIBRARIES or row.get("uses", "calls") not in USES:
            raise ValueError(f"rules/behaviour.toml: {row.get('api')}: unknown library or uses")
        found.append(Change(**{**row, "values": tuple(row.get("values", ())),
                                "other_keywords": tuple(row.get("other_keywords", ()))}))
    return tuple(found)


def recognisable() -> dict[str, Change]:
    """The rows JAX601 reports, by API."""
    return {change.api: change for change in changes() if change.recognisable}


def by_hand() -> tuple[Change, ...]:
    """The rows no static pattern recognises, and those it recognises only where a value's dtype or shape is known
    (``also_by_hand``)."""
    return tuple(change for change in changes() if not change.recognisable or change.also_by_hand)
