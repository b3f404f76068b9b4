import jax.numpy as jnp

x = jnp.array([[1, 2], [2, 1]])
_, inverse = jnp.unique(x, return_inverse=True)  # breaks
print(inverse.shape)
