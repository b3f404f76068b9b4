import optax

print(optax.additive_weight_decay(1e-4).__class__.__name__)  # breaks
