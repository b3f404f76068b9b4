"""The verdicts of issue 36 (verify in upgrade) on real runs, JAX 0.10.2 (BEFORE) and 0.12.0.1 (AFTER): the
arguments entering a site are recorded (eagerly and inside ``jit``), a site whose arguments differ is
``inputs-differ``, a site after the new run died is ``died-before`` with the line it died at, not a warning's."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.jax, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]

PROGRAM = '''import warnings

import jax
import jax.numpy as jnp

NEW = not jax.__version__.startswith("0.10.")


def gather(values, idx):
    return jnp.take_along_axis(values, idx, axis=0, wrap_negative_indices=None)


@jax.jit
def gather_jit(values, idx):
    return jnp.take_along_axis(values, idx, axis=0, wrap_negative_indices=None)


def late(values, idx):
    return jnp.take_along_axis(values, idx, axis=0, wrap_negative_indices=None)


idx = jnp.array([-1, 1])
# The two environments hand the first site different values (as an older flax hands a FrozenDict).
print(gather(jnp.array([10.0, 20.0, 30.0]) * (2.0 if NEW else 1.0), idx))
print(gather_jit(jnp.array([1.0, 2.0, 3.0]), idx))
warnings.warn("deprecated here", FutureWarning)
if NEW:
    raise ImportError("the new run dies here")
print(late(jnp.array([1.0, 2.0, 3.0]), idx))
'''


def test_inputs_differ_and_died_before_on_real_runs(tmp_path, old_python, new_python):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "t"\nversion = "0"\n'
                                             'dependencies = ["jax>=0.10.2,<0.11"]\n')
    (tmp_path / "m.py").write_text(PROGRAM)
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "verify", "m.py", "--baseline-python", old_python,
                           "--target-python", new_python, "--platform", "cpu", "--output-format", "json", "--",
                           "python", "m.py"], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO / "src")))
    assert proc.returncode == 1, proc.stderr  # the AFTER run died
    sites = {s["row"]: s for s in json.loads(proc.stdout)["sites"]}
    assert sites[10]["status"] == "inputs-differ", sites[10]
    assert "argument `values`: call 1: value: values differ in 3 of 3 elements" in sites[10]["detail"]
    assert "at the site: call 1: value: values differ in 2 of 2 elements" in sites[10]["detail"]
    assert sites[15]["status"] == "verified" and sites[15]["calls"] == 1, sites[15]  # under jit: same inputs
    assert sites[19]["status"] == "died-before", sites[19]
    # The FutureWarning on line 26 is printed first; the run died on line 28.
    assert sites[19]["detail"] == ("the new (AFTER) run died before this site (at m.py:28: ImportError: the new run "
                                   "dies here)")
