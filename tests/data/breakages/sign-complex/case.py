import jax.numpy as jnp

print(jnp.sign(jnp.array(3 + 4j)))  # breaks
