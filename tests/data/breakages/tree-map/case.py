import jax

print(jax.tree_map(lambda v: v + 1, [1, 2]))  # breaks
