from flax import optim  # flax.optim went in flax 0.6.0

OPTIMIZER = optim.Adam
