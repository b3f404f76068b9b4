import jax.numpy as jnp

from app import model

print(model.grid(3).sum())
print(model.gather(jnp.array([10.0, 20.0, 30.0]), jnp.array([-1, 1])))
