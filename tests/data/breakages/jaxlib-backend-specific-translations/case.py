from jax.interpreters import xla

print('cpu' in xla.backend_specific_translations)  # breaks
