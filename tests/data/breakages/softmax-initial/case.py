import jax
import jax.numpy as jnp

x = jnp.arange(3.0)
print(jax.nn.softmax(x, where=x > 0, initial=-jnp.inf))  # breaks
