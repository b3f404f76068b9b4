import jax.numpy as jnp

xs = jnp.atleast_1d(1.0, 2.0)  # breaks
xs[0] = jnp.zeros(1)  # breaks
print(len(xs))
