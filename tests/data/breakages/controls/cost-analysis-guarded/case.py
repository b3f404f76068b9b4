import jax
import jax.numpy as jnp

compiled = jax.jit(lambda x: x @ x).lower(jnp.ones((4, 4))).compile()
costs = compiled.cost_analysis()
costs = costs[0] if isinstance(costs, list) else costs
print(costs['flops'])
