import jax.numpy as jnp
import optax

tx = optax.multi_transform({'a': optax.sgd(0.1)}, {'w': 'a'})
state = tx.init({'w': jnp.ones(1)})
print(isinstance(state, optax.MultiTransformState), len(state.inner_states))
