import jax.numpy as jnp

print(jnp.ones(3).device())  # breaks
