import jax

print(jax.random.KeyArray.__name__)  # breaks
