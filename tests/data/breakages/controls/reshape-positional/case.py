import jax.numpy as jnp

print(jnp.reshape(jnp.arange(6), (2, 3)).shape)
