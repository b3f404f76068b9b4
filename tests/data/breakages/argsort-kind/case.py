import jax.numpy as jnp

print(jnp.argsort(jnp.array([3, 1, 2]), kind='stable'))  # breaks
