import jax.numpy as jnp

print(jnp.quantile(jnp.arange(5.0), 0.5, interpolation='linear'))  # breaks
