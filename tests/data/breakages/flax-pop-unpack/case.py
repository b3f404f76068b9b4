import jax, jax.numpy as jnp
import flax.linen as nn


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)


variables = Model().init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
state, params = variables.pop('params')  # breaks
print(type(params).__name__)
