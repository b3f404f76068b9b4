import jax.numpy as jnp

print(jnp.sign(jnp.array([-2.0, 0.0, 3.0])))
