import jax, jax.numpy as jnp
import flax.linen as nn
from flax.core import FrozenDict


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)


variables = Model().init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
# compatibility code: unfreeze only what is frozen
params = variables["params"].unfreeze() if isinstance(variables, FrozenDict) else variables["params"]
print(type(params).__name__, sorted(params))
