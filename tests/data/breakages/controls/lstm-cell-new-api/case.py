import jax
import flax.linen as nn

carry = nn.LSTMCell(features=4).initialize_carry(jax.random.PRNGKey(0), (2, 3))
print(carry[0].shape)
