"""The sample project's "test suite": computes everything and prints it (one line per result)."""
import sys

import jax.numpy as jnp
import numpy as np

from sample import model


def main() -> None:
    idx = jnp.array([-1, 1, 5])
    results = {
        "grid": model.grid_features(3),
        "gather": model.gather(model.VALUES, idx),
        "gather_promise": model.gather_promise(model.VALUES, jnp.array([-1, 1, 2])),
        "running_pick": model.running_pick(model.VALUES, 3),
        "grad": model.grad_loss(model.VALUES, jnp.array([-1, 2])),
    }
    for name, value in results.items():
        leaves = value if isinstance(value, tuple) else (value,)
        print(name, " ".join(np.array2string(np.asarray(leaf), precision=6) for leaf in leaves).replace("\n", ""))
    if len(sys.argv) > 1:
        np.savez(sys.argv[1], **{f"{name}_{i}": np.asarray(leaf) for name, value in results.items()
                                 for i, leaf in enumerate(value if isinstance(value, tuple) else (value,))})


if __name__ == "__main__":
    main()
