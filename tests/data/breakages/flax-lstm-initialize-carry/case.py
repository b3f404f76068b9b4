import jax
import flax.linen as nn

carry = nn.LSTMCell.initialize_carry(jax.random.PRNGKey(0), (2,), 4)  # breaks
print(carry[0].shape)
