import jax.numpy as jnp

grids = jnp.meshgrid(jnp.arange(2), jnp.arange(3))  # breaks
grids.append(0)  # breaks
print(len(grids))
