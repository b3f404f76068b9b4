import jax

if hasattr(jax.lib, 'xla_bridge'):
    platform = jax.lib.xla_bridge.get_backend().platform
else:
    platform = jax.default_backend()
print(platform)
