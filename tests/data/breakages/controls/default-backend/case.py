import jax

print(jax.default_backend())
