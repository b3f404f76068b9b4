import jax
import jax.numpy as jnp
import flax.linen as nn


class LSTMCell(nn.Module):
    """The project's own cell: its initialize_carry is still a static method."""

    @staticmethod
    def initialize_carry(rng, batch_dims, size):
        return jnp.zeros(batch_dims + (size,)), jnp.zeros(batch_dims + (size,))

    @nn.compact
    def __call__(self, carry, x):
        return carry, x


carry = LSTMCell.initialize_carry(jax.random.PRNGKey(0), (2,), 4)
print(carry[0].shape)
