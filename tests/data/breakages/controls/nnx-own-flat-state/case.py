from flax import nnx


class Registry:
    def flat_state(self):
        return {('kernel',): 1, ('bias',): 2}


model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
print(sorted(Registry().flat_state().keys()), type(model).__name__)
