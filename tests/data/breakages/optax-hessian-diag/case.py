import jax.numpy as jnp
import optax


def loss(params, inputs, targets):
    return jnp.sum(params['w'] ** 2)


print(optax.hessian_diag(loss, {'w': jnp.ones(2)}, jnp.ones(1), jnp.ones(1)))  # breaks
