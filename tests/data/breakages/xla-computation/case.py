import jax

print(type(jax.xla_computation(lambda x: x + 1)(1.0)).__name__)  # breaks
