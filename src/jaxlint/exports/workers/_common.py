"""Helpers shared by the worker scripts (run inside a JAX venv; stdlib + numpy + jax only)."""
import json
import math
import sys
import warnings

EXPIRED_FLAG = "jax_export_deserialize_expired_versions"
RESULT_PREFIX = "JAXLINT-RESULT "


def read_request():
    """The JSON request on stdin; first imports the user's modules it names (``--import``), from the current
    directory too, so that effect types and custom pytree nodes defined there are registered before loading."""
    import importlib
    import os
    request = json.loads(sys.stdin.read())
    if request.get("imports"):
        sys.path.insert(0, os.getcwd())
        for name in request["imports"]:
            importlib.import_module(name)
    return request


def respond(payload):
    sys.stdout.write(RESULT_PREFIX + json.dumps(payload) + "\n")
    sys.stdout.flush()


def first_line(err):
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}"


def has_expired_flag(jax):
    return hasattr(jax.config, EXPIRED_FLAG)


def deserialize(jax, data, *, allow_flag):
    """(exported, used_flag). Tries without the expired-versions flag first; the flag only where it is needed."""
    from jax import export
    try:
        return export.deserialize(bytearray(data)), False
    except ValueError as err:
        if not (allow_flag and has_expired_flag(jax) and "backward-compatibility window" in str(err)):
            raise
    jax.config.update(EXPIRED_FLAG, True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return export.deserialize(bytearray(data)), True
    finally:
        jax.config.update(EXPIRED_FLAG, False)


def make_mesh(jax, axes):
    """A concrete Mesh over the first devices, from [[name, size], ...]."""
    import numpy as np
    names = tuple(name for name, _ in axes)
    sizes = tuple(int(size) for _, size in axes)
    needed = math.prod(sizes)
    devices = jax.devices()
    if len(devices) < needed:
        raise RuntimeError(f"the mesh {dict(zip(names, sizes))} needs {needed} devices, JAX sees {len(devices)}")
    return jax.sharding.Mesh(np.array(devices[:needed]).reshape(sizes), names)
