import jax.numpy as jnp
import optax
from flax import nnx

model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
tx = optax.sgd(0.1)
state = tx.init({"w": jnp.ones(2)})
updates, state = tx.update({"w": jnp.ones(2)}, state)  # optax's update: not nnx.Optimizer's
print(float(updates["w"][0]))
