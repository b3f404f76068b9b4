"""Call an artifact on deterministic inputs and save (and optionally compare) its outputs.

Request: {"artifact", "mesh": [[axis, size], ...] | null, "dims": {symbol: int}, "inputs_dir", "make_inputs",
"outputs_dir", "compare_with": dir | null, "rtol", "atol"}.
Result: {"ok", "error", "jax_version", "used_flag", "inputs": [{"shape", "dtype"}], "outputs": [{"shape", "dtype",
"match", "max_abs_diff"}], "dims": {...}}.
The inputs depend only on the input avals and the chosen symbolic dimensions, and are saved so that the other JAX
version calls its artifact on the very same arrays.
"""
import json
import os

import _common

import jax
import numpy as np


def concrete_shape(aval, dims):
    shape = []
    for d in aval.shape:
        if isinstance(d, (int, np.integer)):
            shape.append(int(d))
            continue
        for name in d._get_vars():
            dims.setdefault(name, 3)  # a small size; recorded so the choice is visible
        shape.append(int(d._evaluate(dims)))
    return tuple(shape)


def _kind(dtype):
    """floating | complex | unsigned | signed | bool, as JAX classifies it (bfloat16, float8_*, int4 included)."""
    import jax.numpy as jnp
    if dtype == np.bool_:
        return "bool"
    for kind, family in (("complex", jnp.complexfloating), ("floating", jnp.floating),
                         ("unsigned", jnp.unsignedinteger), ("signed", jnp.signedinteger)):
        if jnp.issubdtype(dtype, family):
            return kind
    return None


def make_input(shape, dtype):
    """Distinct, deterministic values of ``dtype``: every dtype jax.export takes except keys, float0 and tokens."""
    size = int(np.prod(shape, dtype=np.int64))
    dtype = np.dtype(dtype)
    kind = _kind(dtype)
    if kind == "bool":
        flat = np.arange(size) % 3 == 0
    elif kind == "complex":
        flat = np.linspace(-2.0, 2.0, size) + 1j * np.linspace(1.0, -1.0, size)
    elif kind == "floating":
        # Exactly representable in every float down to float8_e4m3 / e5m2 (halves and quarters, both signs).
        flat = (np.arange(size) % 13 - 6) * 0.25 + 0.5
        if np.isnan(flat.astype(dtype).astype(np.float64)).any():  # float8_e8m0fnu: powers of two, no sign
            flat = 2.0 ** (np.arange(size) % 5 - 2)
    elif kind in ("unsigned", "signed"):
        import jax.numpy as jnp
        info = jnp.iinfo(dtype)  # int2/int4 hold only a few values
        span = min(7, int(info.max) - int(info.min) + 1)
        flat = np.arange(size) % span + max(int(info.min), -3)
    else:
        raise TypeError(f"cannot synthesise inputs of dtype {dtype} (PRNG keys, float0 and tokens have no "
                        "meaningful deterministic values)")
    return np.asarray(flat).astype(dtype).reshape(shape)


def save_array(path, array):
    """Raw bytes plus dtype name and shape: np.save cannot round-trip bfloat16 and the other ml_dtypes."""
    array = np.asarray(array)
    shape = list(array.shape)  # before ascontiguousarray, which makes a 0-d array 1-d
    np.save(path + ".npy", np.ascontiguousarray(array).reshape(-1).view(np.uint8))
    with open(path + ".json", "w") as handle:
        json.dump({"dtype": str(array.dtype), "shape": shape}, handle)


def load_array(path):
    import jax.numpy as jnp
    with open(path + ".json") as handle:
        meta = json.load(handle)
    return np.load(path + ".npy").view(jnp.dtype(meta["dtype"])).reshape(tuple(meta["shape"]))


def run_mesh(exported, axes):
    if axes:
        return _common.make_mesh(jax, axes)
    for sharding in exported.in_shardings_jax(None):
        if sharding is not None:  # NamedSharding on the export's AbstractMesh
            amesh = sharding.mesh
            return _common.make_mesh(jax, list(zip(amesh.axis_names, amesh.axis_sizes)))
    return None


def compare(expected, got, rtol, atol):
    if expected.shape != got.shape or expected.dtype != got.dtype:
        return False, None
    kind = _kind(got.dtype)
    if kind in ("floating", "complex"):
        wide = np.complex128 if kind == "complex" else np.float64
        expected, got = expected.astype(wide), got.astype(wide)
        diff = float(np.max(np.abs(expected - got))) if got.size else 0.0
        return bool(np.allclose(expected, got, rtol=rtol, atol=atol, equal_nan=True)), diff
    return bool(np.array_equal(expected, got)), None


def main():
    request = _common.read_request()
    result = {"ok": False, "error": None, "jax_version": jax.__version__, "used_flag": False}
    try:
        with open(request["artifact"], "rb") as handle:
            exported, result["used_flag"] = _common.deserialize(jax, handle.read(), allow_flag=True)
        dims = dict(request.get("dims") or {})
        inputs = []
        for i, aval in enumerate(exported.in_avals):
            path = os.path.join(request["inputs_dir"], f"in{i}")
            if request["make_inputs"]:
                save_array(path, make_input(concrete_shape(aval, dims), aval.dtype))
            inputs.append(load_array(path))
        result["dims"] = dims
        result["inputs"] = [{"shape": list(x.shape), "dtype": str(x.dtype)} for x in inputs]
        mesh = run_mesh(exported, request.get("mesh"))
        if mesh is not None:
            shardings = exported.in_shardings_jax(mesh)
            inputs = [x if s is None else jax.device_put(x, s) for x, s in zip(inputs, shardings)]
        args, kwargs = jax.tree_util.tree_unflatten(exported.in_tree, inputs)
        outputs = [np.asarray(y) for y in jax.tree_util.tree_leaves(exported.call(*args, **kwargs))]
        result["outputs"] = []
        for i, y in enumerate(outputs):
            save_array(os.path.join(request["outputs_dir"], f"out{i}"), y)
            entry = {"shape": list(y.shape), "dtype": str(y.dtype), "match": None, "max_abs_diff": None}
            if request.get("compare_with"):
                expected = load_array(os.path.join(request["compare_with"], f"out{i}"))
                entry["match"], entry["max_abs_diff"] = compare(expected, y, request["rtol"], request["atol"])
            result["outputs"].append(entry)
        if request.get("compare_with"):
            expected_count = len([n for n in os.listdir(request["compare_with"]) if n.endswith(".json")])
            if expected_count != len(outputs):
                raise ValueError(f"{len(outputs)} outputs, the original artifact gave {expected_count}")
        result["ok"] = True
    except Exception as err:  # noqa: BLE001 - reported as the reason verification failed
        result["error"] = _common.first_line(err)
    _common.respond(result)


if __name__ == "__main__":
    main()
