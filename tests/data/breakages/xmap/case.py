from jax.experimental.maps import xmap  # breaks

print(xmap.__name__)
