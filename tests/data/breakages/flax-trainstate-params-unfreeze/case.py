import jax, jax.numpy as jnp
import flax.linen as nn


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)


variables = Model().init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
import optax
from flax.training import train_state

state = train_state.TrainState.create(apply_fn=Model().apply, params=variables['params'], tx=optax.sgd(0.1))
print(sorted(state.params.unfreeze()))  # breaks
