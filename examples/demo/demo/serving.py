"""Loading exported models, written for JAX 0.4."""
from jax.experimental import export


def load(path):
    with open(path, "rb") as f:
        exp = export.deserialize(f.read())
    print("input shardings:", exp.in_shardings_hlo)
    return exp
