"""JAX508's fixes, executed: code written for flax 0.7.0 (init returns a FrozenDict) runs there and fails on 0.7.1
(a dict); its safe fixes run on both, with the same output as the original on 0.7.0 and the same values on 0.7.1."""
from __future__ import annotations

import re
import subprocess

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.project.settings import Settings
from support.jaxenv import flax_python

pytestmark = pytest.mark.slow

SCRIPT = '''\
import jax
import jax.numpy as jnp
import flax
import flax.linen as nn
import optax
from flax.training import train_state


class M(nn.Module):
    @nn.compact
    def __call__(self, x, train=True):
        x = nn.Dense(3)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        return nn.Dense(2)(x)


def show(z):
    if hasattr(z, "keys"):
        return {k: show(z[k]) for k in sorted(z)}
    return jnp.asarray(z).round(4).tolist()


model = M()
x = jnp.ones((4, 5))
variables = model.init(jax.random.PRNGKey(0), x)
a = variables["params"].unfreeze()
b = variables["params"]["Dense_0"].unfreeze()
c = variables.copy({"extra": {"k": 1}})
y, updates = model.apply(variables, x, mutable=["batch_stats"])
e = updates["batch_stats"].unfreeze()
rest, stats = updates.pop("batch_stats")
p1 = variables["params"].pop("Dense_0")[1]
state = train_state.TrainState.create(apply_fn=model.apply, params=variables["params"], tx=optax.sgd(0.1))
f = state.params.pretty_repr()
for name, value in [("a", a), ("b", b), ("c", c), ("e", e), ("rest", rest), ("stats", stats), ("p1", p1)]:
    print(name, type(value).__name__, show(value))
print("f", f.count("kernel"))
print("variables unchanged", sorted(variables), sorted(variables["params"]))
'''


def run(version: str, source: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(flax_python(version)), "-W", "ignore", "-c", source], capture_output=True, text=True,
                          timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})


def test_the_safe_fixes_keep_flax_0_7_0_and_work_on_0_7_1():
    fixed = fix_source(SCRIPT, "train.py", Settings(select=("JAX508",))).source
    assert fixed.count("flax.core.") == 7  # every use in the script
    old_on_old, old_on_new = run("0.7.0", SCRIPT), run("0.7.1", SCRIPT)
    assert old_on_old.returncode == 0, old_on_old.stderr[-2000:]
    assert "AttributeError: 'dict' object has no attribute 'unfreeze'" in old_on_new.stderr
    fixed_on_old, fixed_on_new = run("0.7.0", fixed), run("0.7.1", fixed)
    assert fixed_on_old.returncode == 0 and fixed_on_new.returncode == 0, fixed_on_new.stderr[-2000:]
    assert fixed_on_old.stdout == old_on_old.stdout
    # the same values on the new flax, in dicts
    assert re.sub(r"\bFrozenDict\b", "dict", old_on_old.stdout) == fixed_on_new.stdout
