import jax.numpy as jnp

print(jnp.clip(jnp.arange(5.0), min=1.0, max=3.0))
