import jax
import jax.numpy as jnp

compiled = jax.jit(lambda x: x @ x).lower(jnp.ones((4, 4))).compile()
print(compiled.cost_analysis()['flops'])
