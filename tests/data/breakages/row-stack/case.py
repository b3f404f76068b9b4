import jax.numpy as jnp

print(jnp.row_stack([jnp.ones(2), jnp.zeros(2)]).shape)  # breaks
