import jax.numpy as jnp

print(jnp.percentile(jnp.arange(5.0), 50, interpolation='nearest'))  # breaks
