import jax

print(jax.random.uniform(jax.random.PRNGKey(0), (3,)))
