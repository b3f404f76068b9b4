import jax

print(jax.lib.xla_extension.XlaRuntimeError.__name__)  # breaks
