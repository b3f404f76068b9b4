import jax
from jax.sharding import PositionalSharding  # breaks

print(PositionalSharding(jax.devices()).shape)
