import jax.numpy as jnp
import optax
from flax import nnx

model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
flat = nnx.state(model).flat_state()
print(sorted(flat.keys()))  # breaks
