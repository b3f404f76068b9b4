import jax

try:
    tree_map = jax.tree_map
except AttributeError:
    tree_map = jax.tree_util.tree_map

print(tree_map(lambda v: v + 1, [1, 2]))
