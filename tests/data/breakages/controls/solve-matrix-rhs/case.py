import jax.numpy as jnp

a = jnp.stack([jnp.eye(3)] * 2)
b = jnp.ones((2, 3, 1))
print(jnp.linalg.solve(a, b).shape)
