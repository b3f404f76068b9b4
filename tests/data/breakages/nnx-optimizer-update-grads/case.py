import jax.numpy as jnp
import optax
from flax import nnx

model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
grads = nnx.grad(lambda m: jnp.sum(m(jnp.ones((1, 2)))))(model)
optimizer.update(grads)  # breaks
print(float(model.bias.value[0]))
