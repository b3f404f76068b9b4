from jax.config import config  # breaks

config.update('jax_enable_x64', False)
print('ok')
