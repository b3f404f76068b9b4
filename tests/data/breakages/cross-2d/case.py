import jax.numpy as jnp

print(jnp.cross(jnp.array([1.0, 0.0]), jnp.array([0.0, 1.0])))  # breaks
