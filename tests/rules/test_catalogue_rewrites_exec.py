"""Execution check for JAX101's hand-written fixes (``catalogue.rewrites`` and the pre-0.4.20 renames): the old
spellings fail on today's JAX; the rewritten module runs on JAX 0.10.2 and 0.12.0.1 and computes what the old
functions were documented to compute (NumPy, in the same script, gives the reference)."""
from __future__ import annotations

import subprocess

import pytest

from jaxlint.lint.engine import fix_source
from jaxlint.rules.jax101_removed_symbol import RemovedSymbol
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from support.jaxenv import jax_python, old_jax_python, run_on_jax

pytestmark = pytest.mark.jax

BEFORE = """import numpy as np
import jax
import jax.numpy as jnp
from jax.config import config
from jax import core
from jax.experimental import optimizers
from jax.experimental.maps import Mesh
from jax.experimental.pjit import PartitionSpec
config.update("jax_enable_x64", False)
x = jnp.arange(12.0).reshape(3, 4)
ref = np.arange(12.0).reshape(3, 4)
a = jax.ops.index_update(x, jax.ops.index[1:, 0], -1.0)
ref_a = ref.copy(); ref_a[1:, 0] = -1.0
b = jax.ops.index_add(x, 2, jnp.ones(4))
ref_b = ref.copy(); ref_b[2] += 1
c = jax.ops.index_max(x, (0, 1), 100.0)
ref_c = ref.copy(); ref_c[0, 1] = max(ref_c[0, 1], 100.0)
y = jax.lax.tie_in(x, x * 2)
def total(v: jnp.DeviceArray) -> jnp.DeviceArray:
    return v.sum()
print(np.array_equal(np.asarray(a), ref_a), np.array_equal(np.asarray(b), ref_b), np.array_equal(np.asarray(c), ref_c))
print(np.array_equal(np.asarray(y), ref * 2), float(total(x)), isinstance(x, jnp.DeviceArray))
print(core.Primitive("p").name, tuple(PartitionSpec("d")), Mesh.__name__)
init, update, get = optimizers.sgd(0.1)
print(round(float(get(update(0, jnp.ones(2), init(jnp.zeros(2))))[0]), 6))
"""


@pytest.fixture(scope="module")
def fixed() -> str:
    settings = Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test")
    outcome = fix_source(BEFORE, "module.py", settings, unsafe=True, rules=[RemovedSymbol])
    return outcome.source


def test_every_old_spelling_is_rewritten(fixed):
    for old in ("jax.ops", "tie_in", "DeviceArray", "jax.config import", "experimental", "print(core."):
        assert old not in fixed, old
    assert "a = x.at[1:, 0].set(-1.0)" in fixed
    assert "b = x.at[2].add(jnp.ones(4))" in fixed
    assert "y = x * 2" in fixed
    assert 'print(jax.extend.core.Primitive("p").name' in fixed
    assert "def total(v: jax.Array) -> jax.Array:" in fixed


def test_the_fixed_module_computes_the_documented_values(fixed):
    expected = "True True True\nTrue 66.0 True\np ('d',) Mesh\n-0.1\n"
    for version in ("0.10.2", "0.12.0.1"):
        assert run_on_jax(version, fixed) == expected, version


def test_the_original_fails_on_the_new_jax():
    proc = subprocess.run([str(jax_python("0.12.0.1")), "-c", BEFORE], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0
    assert "ModuleNotFoundError" in proc.stderr or "AttributeError" in proc.stderr


X64_BEFORE = """import jax
import jax.numpy as jnp
with jax.experimental.enable_x64():
    wide = jnp.arange(2.0).dtype
with jax.experimental.enable_x64(True):
    inner = jnp.arange(2.0).dtype
    with jax.experimental.disable_x64():
        narrow = jnp.arange(2.0).dtype
print(wide, inner, narrow, jnp.arange(2.0).dtype)
"""


def test_the_x64_switches_compute_the_same_before_and_after():
    """``jax.experimental.enable_x64/disable_x64`` on the old JAX, ``jax.enable_x64(v)`` on the new ones."""
    settings = Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test")
    fixed = fix_source(X64_BEFORE, "module.py", settings, unsafe=False, rules=[RemovedSymbol]).source
    assert "experimental" not in fixed and fixed.count("jax.enable_x64(") == 3
    expected = "float64 float64 float32 float32\n"
    old = subprocess.run([str(old_jax_python("0.4.20", "3.12")), "-W", "ignore", "-c", X64_BEFORE],
                         capture_output=True, text=True, timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert (old.returncode, old.stdout) == (0, expected), old.stderr[-2000:]
    for version in ("0.8.0", "0.10.2", "0.12.0.1"):  # 0.8.0: the first with jax.enable_x64, the fix's floor
        assert run_on_jax(version, fixed) == expected, version


STACKED_BEFORE = """import jax
import jax.numpy as jnp
import numpy as np
devices = jax.devices()
shards = [jnp.full(2, float(i)) for i in range(len(devices))]
a = jax.device_put_sharded(shards, devices)
b = jax.device_put_replicated(jnp.arange(3.0), devices)
for value in (a, b):
    # each device's shard, flattened: the old PmapSharding's shards drop the leading axis (shape (2,)), the
    # NamedSharding's keep it (shape (1, 2)), the unsafe part of the fix
    placed = sorted((s.device.id, np.asarray(s.data).reshape(-1).tolist()) for s in value.addressable_shards)
    print(value.shape, np.asarray(value).tolist(), placed)
"""


def _on_four_cpus(python, source: str) -> str:
    proc = subprocess.run([str(python), "-W", "ignore", "-c", source], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin",
                               "XLA_FLAGS": "--xla_force_host_platform_device_count=4"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_the_stacked_device_put_places_the_same_values_on_the_same_devices():
    """``device_put_sharded``/``_replicated`` on the old JAX; the migration guide's recipe on 0.4.20 and the newest."""
    settings = Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.4.20"), min_version_source="test")
    fixed = fix_source(STACKED_BEFORE, "module.py", settings, unsafe=True, rules=[RemovedSymbol]).source
    assert "device_put_sharded" not in fixed and "device_put_replicated" not in fixed
    old = _on_four_cpus(old_jax_python("0.4.20", "3.12"), STACKED_BEFORE)
    assert old.count("[(0, ") == 2 and "(4, 3)" in old  # four devices, one shard (a row) on each
    assert _on_four_cpus(old_jax_python("0.4.20", "3.12"), fixed) == old
    assert _on_four_cpus(jax_python("0.12.0.1"), fixed) == old


PALLAS_BEFORE = """import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
def kernel(x_ref, o_ref):
    top = pl.load(x_ref, (pl.dslice(0, 4), slice(None)))
    pl.store(o_ref, (pl.dslice(0, 4),), top * 2)
    pl.store(o_ref, (pl.dslice(4, 4), slice(None)), pl.load(x_ref, (pl.dslice(4, 4),)) + 1)
x = jnp.arange(16.0).reshape(8, 2)
with jax.disable_jit():  # interpret mode on the CPU of JAX 0.4.20 runs only outside jit
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 2), jnp.float32), interpret=True)(x)
print(np.asarray(out).tolist())
"""


def test_pallas_load_and_store_become_ref_indexing_with_the_same_values():
    """The old calls on 0.4.20; the indexing at the fix's floor (0.4.24: refs take `pl.ds` there) and the newest."""
    settings = Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.4.24"), min_version_source="test")
    fixed = fix_source(PALLAS_BEFORE, "module.py", settings, unsafe=True, rules=[RemovedSymbol]).source
    assert "pl.load" not in fixed and "pl.store" not in fixed
    assert "o_ref[(pl.dslice(0, 4),)] = top * 2" in fixed
    old_python = old_jax_python("0.4.20", "3.12")
    old = subprocess.run([str(old_python), "-W", "ignore", "-c", PALLAS_BEFORE], capture_output=True, text=True,
                         timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert old.returncode == 0, old.stderr[-2000:]
    expected = [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0], [12.0, 14.0], [9.0, 10.0], [11.0, 12.0], [13.0, 14.0],
                [15.0, 16.0]]
    assert old.stdout == f"{expected}\n"
    new = subprocess.run([str(old_jax_python("0.4.24", "3.12")), "-W", "ignore", "-c", fixed], capture_output=True,
                         text=True, timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert (new.returncode, new.stdout) == (0, old.stdout), new.stderr[-2000:]
    assert run_on_jax("0.12.0.1", fixed) == old.stdout


PALLAS_DOT_BEFORE = """import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
def kernel(q_ref, k_ref, o_ref, p_ref):
    o_ref[...] = pl.dot(q_ref[...], k_ref[...], trans_b=True)
    p_ref[...] = pl.dot(q_ref[...], k_ref[...].T, precision=jax.lax.Precision.HIGHEST)
q = (jnp.arange(16.0).reshape(4, 4) / 7).astype(jnp.bfloat16)
k = (jnp.arange(16.0).reshape(4, 4)[::-1] / 3).astype(jnp.bfloat16)
shape = jax.ShapeDtypeStruct((4, 4), jnp.float32)
with jax.disable_jit():  # interpret mode on the CPU of JAX 0.4.20 runs only outside jit
    o, p = pl.pallas_call(kernel, out_shape=(shape, shape), interpret=True)(q, k)
r = jax.jit(lambda a, b: pl.dot(a, b))(q, k)
print(np.asarray(o).tolist(), np.asarray(p).tolist(), r.dtype)
"""


def test_pallas_dot_becomes_a_float32_lax_dot_with_the_same_values():
    """``pl.dot`` of bfloat16 operands on 0.4.20 (a float32 result); the fix on 0.4.20 and 0.12.0.1 (where pl.dot
    is gone) gives the same values and the same float32 result, where a plain ``jnp.dot`` gives bfloat16."""
    settings = Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.4.20"), min_version_source="test")
    fixed = fix_source(PALLAS_DOT_BEFORE, "module.py", settings, unsafe=True, rules=[RemovedSymbol]).source
    assert "pl.dot(" not in fixed and "jax.lax.dot(q_ref[...], k_ref[...].T, preferred_element_type" in fixed
    env = {"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}
    old = subprocess.run([str(old_jax_python("0.4.20", "3.12")), "-W", "ignore", "-c", PALLAS_DOT_BEFORE],
                         capture_output=True, text=True, timeout=300, env=env)
    assert old.returncode == 0, old.stderr[-2000:]
    assert old.stdout.rstrip().endswith("float32")
    new_old = subprocess.run([str(old_jax_python("0.4.20", "3.12")), "-W", "ignore", "-c", fixed],
                             capture_output=True, text=True, timeout=300, env=env)
    assert (new_old.returncode, new_old.stdout) == (0, old.stdout), new_old.stderr[-2000:]
    assert run_on_jax("0.12.0.1", fixed) == old.stdout
    plain = fixed.replace("jax.lax.dot(a, b, preferred_element_type=jax.numpy.float32)", "jnp.dot(a, b)")
    assert plain != fixed and run_on_jax("0.12.0.1", plain).rstrip().endswith("bfloat16")  # JAX's message's advice
