import jax

print(jax.core.ClosedJaxpr.__name__)  # breaks
