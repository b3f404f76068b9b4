import jax, jax.numpy as jnp
import flax.linen as nn


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.BatchNorm(use_running_average=False)(nn.Dense(2)(x))


model = Model()
variables = model.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
result = model.apply(variables, jnp.ones((1, 3)), mutable=["batch_stats"])
print(sorted(result[1].unfreeze()))  # breaks
