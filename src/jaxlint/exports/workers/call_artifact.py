"""Call an artifact on deterministic inputs and save (and optionally compare) its outputs.

Request: {"artifact", "mesh": [[axis, size], ...] | null, "dims": {symbol: int}, "inputs_dir", "make_inputs",
"outputs_dir", "compare_with": dir | null, "rtol", "atol"}.
Result: {"ok", "error", "jax_version", "used_flag", "inputs": [{"shape", "dtype"}], "outputs": [{"shape", "dtype",
"match", "max_abs_diff"}], "dims": {...}}.
The inputs depend only on the input avals and the chosen symbolic dimensions, and are saved so that the other JAX
version calls its artifact on the very same arrays.
"""
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


def make_input(shape, dtype):
    size = int(np.prod(shape, dtype=np.int64))
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        flat = np.arange(size) % 3 == 0
    elif np.issubdtype(dtype, np.complexfloating):
        flat = np.linspace(-2.0, 2.0, size) + 1j * np.linspace(1.0, -1.0, size)
    elif np.issubdtype(dtype, np.floating):
        flat = np.linspace(-2.5, 3.5, size)  # distinct, non-integer, both signs
    elif np.issubdtype(dtype, np.unsignedinteger):
        flat = np.arange(size) % 7
    elif np.issubdtype(dtype, np.integer):
        flat = np.arange(size) % 7 - 3
    else:
        raise TypeError(f"cannot synthesise inputs of dtype {dtype}")
    return flat.astype(dtype).reshape(shape)


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
    if np.issubdtype(got.dtype, np.inexact):
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
            path = os.path.join(request["inputs_dir"], f"in{i}.npy")
            if request["make_inputs"]:
                np.save(path, make_input(concrete_shape(aval, dims), aval.dtype))
            inputs.append(np.load(path))
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
            np.save(os.path.join(request["outputs_dir"], f"out{i}.npy"), y)
            entry = {"shape": list(y.shape), "dtype": str(y.dtype), "match": None, "max_abs_diff": None}
            if request.get("compare_with"):
                expected = np.load(os.path.join(request["compare_with"], f"out{i}.npy"))
                entry["match"], entry["max_abs_diff"] = compare(expected, y, request["rtol"], request["atol"])
            result["outputs"].append(entry)
        if request.get("compare_with"):
            expected_count = len([n for n in os.listdir(request["compare_with"]) if n.startswith("out")])
            if expected_count != len(outputs):
                raise ValueError(f"{len(outputs)} outputs, the original artifact gave {expected_count}")
        result["ok"] = True
    except Exception as err:  # noqa: BLE001 - reported as the reason verification failed
        result["error"] = _common.first_line(err)
    _common.respond(result)


if __name__ == "__main__":
    main()
