import jax

print(jax.tree.map(lambda v: v + 1, [1, 2]))
