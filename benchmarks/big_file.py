"""Generate one large JAX module for the benchmark (never committed): ``python benchmarks/big_file.py MB KIND``.

KIND ``many``: every block calls removed APIs (about one finding per 250 bytes, all with fixes); ``one``: a single
removed API at the top, then plain JAX code that still reaches libcst (it uses names the rules look for, such as
``jax.tree_util``). Both are valid Python made of repeated, numbered blocks.
"""
from __future__ import annotations

import sys

_HEADER = '"""A generated module of {size} bytes ({kind})."""\nimport jax\nimport jax.numpy as jnp\n'
_ONE = "\n\ndef old_api(params):\n    return jax.tree_map(lambda p: p, params)\n"
_BLOCK = '''

def layer_{i}(params, x, key):
    """Block {i}: a dense layer with dropout."""
    w, b = params["w_{i}"], params["b_{i}"]
    y = jax.nn.relu(jnp.dot(x, w) + b)
    keep = jax.random.bernoulli(key, 0.9, y.shape)
    y = jnp.where(keep, y / 0.9, 0.0)  # inverted dropout
    grads = jax.tree_util.tree_map(lambda g: g * 0.5, params)
    return y, grads
'''
_OLD_BLOCK = '''

def old_layer_{i}(params, updates):
    moved = jax.tree_map(lambda p, u: p - 0.1 * u, params, updates)
    leaves = jax.tree_leaves(moved)
    return jax.tree_unflatten(jax.tree_structure(moved), leaves)
'''


def generate(size: int, kind: str) -> str:
    if kind not in ("many", "one"):
        raise ValueError(f"KIND is 'many' or 'one', not {kind!r}")
    pieces = [_HEADER.format(size=size, kind=kind)]
    if kind == "one":
        pieces.append(_ONE)
    total = sum(map(len, pieces))
    i = 0
    while total < size:
        block = _BLOCK.format(i=i) + (_OLD_BLOCK.format(i=i) if kind == "many" else "")
        pieces.append(block)
        total += len(block)
        i += 1
    return "".join(pieces)


if __name__ == "__main__":
    megabytes, kind = float(sys.argv[1]), sys.argv[2]
    sys.stdout.write(generate(int(megabytes * 1_000_000), kind))
