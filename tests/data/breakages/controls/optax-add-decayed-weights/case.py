import optax

print(optax.add_decayed_weights(1e-4).__class__.__name__)
