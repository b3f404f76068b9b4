from flax import nnx


class Model(nnx.Module):
    def __init__(self, rngs):
        self.encoder = nnx.Linear(2, 1, rngs=rngs)


state = nnx.state(Model(nnx.Rngs(0)))
print(type(state['encoder']).__name__)
