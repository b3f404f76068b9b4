import jax, jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training import train_state


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)


def layer_names(state: train_state.TrainState):
    return sorted(state.params.unfreeze())  # breaks


model = Model()
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))["params"]
print(layer_names(train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(0.1))))
