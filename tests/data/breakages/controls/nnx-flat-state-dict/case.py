from flax import nnx

model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
flat = dict(nnx.state(model).flat_state())
print(sorted(flat.keys()))
