"""Code written for JAX 0.10.2: every fix site jaxlint verify has to prove is here."""
import jax
import jax.numpy as jnp
from jax import lax

jax.config.update("jax_exec_time_optimization_effort", 0.0)

VALUES = jnp.array([10.0, 20.0, 30.0, 40.0])


def grid_features(n):
    xs = jnp.linspace(0.0, 1.0, n)
    ys = jnp.linspace(-1.0, 1.0, n)
    grids = jnp.meshgrid(xs, ys)
    grids.append(grids[0] * grids[1])
    return jnp.stack(grids)


def gather(values, idx):
    return jnp.take_along_axis(values, idx, axis=0, wrap_negative_indices=None)


@jax.jit
def gather_promise(values, idx):
    return jnp.take_along_axis(values, idx, axis=0, mode="promise_in_bounds") * 2.0


def running_pick(values, steps):
    def body(carry, i):
        picked = jnp.take_along_axis(values, jnp.stack([i - 2, i]), axis=0, wrap_negative_indices=None)
        return carry + picked.sum(), picked

    return lax.scan(body, 0.0, jnp.arange(steps))


def loss(weights, idx):
    return jnp.sum(jnp.take_along_axis(weights, idx, axis=0, mode="promise_in_bounds") ** 2)


grad_loss = jax.grad(loss)
