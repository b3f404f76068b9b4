import jax.numpy as jnp

print(jnp.in1d(jnp.arange(3), jnp.array([1])))  # breaks
