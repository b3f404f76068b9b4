import jax.numpy as jnp

_, inverse = jnp.unique(jnp.array([2, 1, 2]), return_inverse=True)
print(inverse.shape)
