import jax.numpy as jnp

z = jnp.array(3 + 4j)
print(jnp.sign(jnp.abs(z)))
