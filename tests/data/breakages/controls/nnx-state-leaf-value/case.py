from flax import nnx

model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
leaf = nnx.state(model)['kernel']
print(leaf.value.shape)
