import jax

jax.config.update("jax_threefry_partitionable", True)
print(jax.random.uniform(jax.random.PRNGKey(0), (3,)))
