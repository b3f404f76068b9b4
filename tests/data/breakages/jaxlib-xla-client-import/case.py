from jax.lib import xla_client  # breaks

print(xla_client.__name__)
