import jax, jax.numpy as jnp
import flax.linen as nn


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)


variables = Model().init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
params = variables['params']
print(sorted(params), params['Dense_0']['kernel'].shape)
