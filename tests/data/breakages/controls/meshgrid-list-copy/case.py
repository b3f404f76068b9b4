import jax.numpy as jnp

grids = list(jnp.meshgrid(jnp.arange(2), jnp.arange(3)))
grids.append(0)
x, y = jnp.meshgrid(jnp.arange(2), jnp.arange(3))
print(len(grids), x.shape)
