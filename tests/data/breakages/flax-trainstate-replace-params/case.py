import jax, jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training import train_state


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)


model = Model()
variables = model.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
state = train_state.TrainState.create(apply_fn=model.apply, params=variables["params"], tx=optax.sgd(0.1))
restarted = state.replace(step=0)
rest, dense = restarted.params.pop("Dense_0")  # breaks
print(sorted(rest))
