import jax.linear_util as lu  # breaks

print(lu.wrap_init.__name__)
