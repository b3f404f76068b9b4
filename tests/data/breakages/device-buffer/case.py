import jax.numpy as jnp

print(type(jnp.ones(3).device_buffer).__name__)  # breaks
