import jax.numpy as jnp

x = jnp.arange(5.0)
print(jnp.clip(x, a_min=1.0, a_max=3.0))  # breaks
