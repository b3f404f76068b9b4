"""Watched sites end to end: a program written for JAX 0.4.20 run on 0.4.20 (BEFORE) and 0.12.0.1 (AFTER). Its
``jnp.unique(..., return_inverse=True)`` (rules/behaviour.toml: the inverse's shape changed in 0.4.24) has no fix;
verify measures the change at that line, and an ``einsum`` whose default ``optimize`` changed (0.5.0) computes the
same values."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.jax
REPO = Path(__file__).resolve().parents[2]
PROGRAM = """\
import jax.numpy as jnp

x = jnp.array([[1, 2], [2, 1]])
grid = jnp.meshgrid(jnp.arange(2), jnp.arange(3))
grid.append(x)
values, inverse = jnp.unique(x, return_inverse=True)
a = jnp.arange(6.0).reshape(2, 3)
out = jnp.einsum("ij,jk,kl->il", a, a.T, a)
print("inverse", inverse.shape, "out", float(out.sum()), len(grid))
"""


def _verify(project: Path, *options: str):
    from tests.support.jaxenv import jax_python, old_jax_python

    old, new = str(old_jax_python("0.4.20", "3.12")), str(jax_python("0.12.0.1"))
    return subprocess.run([sys.executable, "-m", "jaxlint", "verify", "prog.py", "--min-version", "0.4.20",
                           "--baseline-python", old, "--target-python", new, "--platform", "cpu", *options, "--",
                           "python", "prog.py"], cwd=project, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO / "src")))


def test_a_watched_change_is_measured_at_its_line_and_the_fixes_still_pass(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    proc = _verify(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # a watched difference is no failure of the fixes
    assert "  BEFORE | inverse (4,) out 825.0 3" in proc.stderr  # what the program itself prints
    assert "  AFTER | inverse (2, 2) out 825.0 3" in proc.stderr
    assert "prog.py:4:8: JAX201 ok (1 call): 1 call(s) compared" in proc.stdout
    assert ("prog.py:6:19: JAX601 watched: values differ (old [0, 1, 1, 0] (int32[4]), new [[0, 1],  [1, 0]] "
            "(int32[2, 2]); call 1: value[1]: shape: [4] vs [2, 2])") in proc.stdout
    assert "prog.py:8:7: JAX601 watched: same values (1 call(s) compared)" in proc.stdout
    assert "1 site(s): 1 verified; all reached sites verified" in proc.stdout

    strict = _verify(tmp_path, "--fail-on-watched", "--output-format", "json")
    assert strict.returncode == 1, strict.stderr
    report = json.loads(strict.stdout)
    assert [s["status"] for s in report["sites"]] == ["verified"]
    assert [(w["row"], w["code"], w["status"]) for w in report["watched"]] == [
        (6, "JAX601", "differs"), (8, "JAX601", "same")]
