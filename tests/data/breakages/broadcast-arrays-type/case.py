import jax.numpy as jnp

out = jnp.broadcast_arrays(jnp.ones(2), jnp.ones((3, 2)))  # breaks
print(isinstance(out, list))  # breaks
