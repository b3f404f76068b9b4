import jax, jax.numpy as jnp
import flax.linen as nn


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)


variables = Model().init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
y, new_variables = Model().init_with_output(jax.random.PRNGKey(0), jnp.ones((1, 3)))
print(sorted(new_variables.unfreeze()))  # breaks
