import jax.numpy as jnp

x = jnp.arange(6)
print(jnp.reshape(x, newshape=(2, 3)).shape)  # breaks
