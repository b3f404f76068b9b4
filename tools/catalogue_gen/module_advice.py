"""What to do instead, per removed internal module family, for the names that have no public successor.

One clause each (the headline reads "`name` was removed in JAX X; <advice>"), quoting the JAX changelog line
(CHANGELOG.md of jax-ml/jax) that announced the family's removal. Every public API named here exists in the newest
release's wheel (``tests/catalogue/test_successors.py`` checks it against the catalogue's newest snapshot).
"""
from __future__ import annotations

_AD_BATCHING_PE = ('JAX 0.7.1 changelog: "most are deprecated without any public replacement"')

# Longest prefix wins; a prefix ends at a dot or is a whole module name.
MODULE_ADVICE: dict[str, str] = {
    "jax.interpreters.xla": (
        "it belonged to the pre-MLIR XLA lowering, which is gone: lower custom primitives with "
        "`jax.interpreters.mlir` (JAX 0.4.16 changelog: \"Custom primitives should be defined using the StableHLO "
        "lowering utilities in jax.interpreters.mlir\")"),
    "jax.interpreters.pxla": (
        "it was a JAX internal (JAX 0.8.2 changelog: \"These are primarily JAX internal APIs, and users should not "
        "rely on them\"): shard with `jax.jit` and `jax.sharding.NamedSharding`, or `jax.shard_map`"),
    "jax.interpreters.ad": (
        f"it was a JAX internal ({_AD_BATCHING_PE}): define derivatives with `jax.custom_jvp` or "
        "`jax.custom_vjp`, or copy the helper into your code"),
    "jax.interpreters.batching": (
        f"it was a JAX internal ({_AD_BATCHING_PE}): define batching rules with "
        "`jax.custom_batching.custom_vmap`, or copy the helper into your code"),
    "jax.interpreters.partial_eval": (
        f"it was a JAX internal ({_AD_BATCHING_PE}): trace to a jaxpr with `jax.make_jaxpr` (its types are in "
        "`jax.extend.core`), or copy the helper into your code"),
    "jax.interpreters.mlir": (
        "it was internal to JAX's StableHLO lowering: for custom calls use `jax.ffi` (JAX 0.6.0 changelog: \"The "
        "APIs provided by jax.ffi should be used instead\"), for MLIR dialects `jax.extend.mlir`"),
    "jax.interpreters": (
        "it was an internal JAX module, removed without a public successor (the JAX changelog names none): use the "
        "public transformations (`jax.jit`, `jax.vmap`, `jax.grad`) instead"),
    "jax.core": (
        "it was internal and has no public successor (JAX 0.6.0 changelog: \"Most have no public replacement, "
        "though a few are available at jax.extend.core\"): copy what you need into your code"),
    "jax.lib": (
        "JAX no longer exposes XLA's bindings in `jax.lib` (JAX 0.8.0 changelog: \"The deprecated functions in "
        "jax.lib.xla_bridge, jax.lib.xla_client, and jax.lib.xla_extension were removed\"): use the public "
        "`jax` API (`jax.devices`, `jax.extend.backend`)"),
    "jax.experimental.optix": (
        "move to the standalone `optax` package (JAX 0.2.7 changelog: \"jax.experimental.optix has been deleted, in "
        "favor of the standalone optax Python package\")"),
}


def family(name: str) -> str | None:
    """The longest ``MODULE_ADVICE`` key that ``name`` is, or lies under."""
    keys = [k for k in MODULE_ADVICE if name == k or name.startswith(k + ".")]
    return max(keys, key=len) if keys else None


def add_module_advice(entries: list) -> int:
    """Advice for every removed name of a known family that still has neither replacement nor advice; how many."""
    given = 0
    for e in entries:
        if e.kind == "config" or not e.removed_in or e.replacement or e.advice:
            continue
        key = family(e.name)
        if key is None:
            continue
        e.advice = MODULE_ADVICE[key]
        given += 1
    return given
