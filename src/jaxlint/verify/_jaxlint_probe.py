"""jaxlint verify probe runtime. Standalone on purpose: it runs inside the user's program, in interpreters that do
not have jaxlint installed; it is put on ``PYTHONPATH`` by ``jaxlint verify`` and must import nothing but the
standard library (JAX and NumPy only when the program already imported them).

The instrumented code calls ``__import__("_jaxlint_probe").record(SITE, <expr>)``, which returns the value
unchanged. Values are encoded as plain tuples (containers kept exactly: list/tuple/namedtuple/dict/dataclass, array
leaves as ``("array", dtype, shape, bytes)``, Python scalars as they are). Inside ``jit``/``vmap``/``scan``/``grad``
the leaves are tracers: the structure is recorded at trace time, and ``jax.debug.callback`` delivers the concrete
leaves each time the compiled code runs. Where that is impossible only shape and dtype are recorded ("abstract").
Records go to ``$JAXLINT_PROBE_DIR/records-<pid>.pkl`` at exit (atexit: also when the program raises).
"""
import atexit
import os
import pickle
import sys
import threading
import time

_DIR = os.environ.get("JAXLINT_PROBE_DIR")
_MAX = int(os.environ.get("JAXLINT_PROBE_MAX_CALLS", "10"))
_PID = os.getpid()
_START = time.time()
_lock = threading.RLock()
# site -> {"count": executions seen, "calls": [encoded values], "traces": [abstract values], "errors": [str]}
_sites = {}
_registered = False


def _site(site):
    entry = _sites.get(site)
    if entry is None:
        entry = _sites[site] = {"count": 0, "calls": [], "traces": [], "errors": []}
    return entry


def _ensure_atexit():
    global _registered
    if not _registered:
        _registered = True
        atexit.register(_write)


def reach(site):
    """A statement that the fix deletes: only whether (and how often) it ran is recorded."""
    with _lock:
        _ensure_atexit()
        _site(site)["count"] += 1


def record(site, value):
    """Record ``value`` for ``site`` and return it unchanged. Never raises."""
    try:
        with _lock:
            _ensure_atexit()
            _record(site, value)
    except Exception as error:  # a probe must never break the program
        try:
            _site(site)["errors"].append(f"{type(error).__name__}: {error}")
        except Exception:
            pass
    return value


def _tracer_type():
    jax = sys.modules.get("jax")
    if jax is None:
        return None
    try:
        return jax.core.Tracer
    except AttributeError:
        from jax._src.core import Tracer
        return Tracer


def _record(site, value):
    entry = _site(site)
    tracer_type = _tracer_type()
    tracers = []
    encoded = _encode(value, tracer_type, tracers)
    if not tracers:
        entry["count"] += 1
        if len(entry["calls"]) < _MAX:
            entry["calls"].append(encoded)
        return
    # Traced: the structure and avals now, the concrete leaves when the compiled code runs.
    if len(entry["traces"]) < _MAX:
        entry["traces"].append(_fill(encoded, [("abstract", _dtype_name(t), tuple(t.shape)) for t in tracers]))
    import jax

    def deliver(*leaves):
        with _lock:
            got = _site(site)
            got["count"] += 1
            if len(got["calls"]) < _MAX:
                got["calls"].append(_fill(encoded, [_encode(leaf, None, []) for leaf in leaves]))

    try:
        jax.debug.callback(deliver, *tracers)
    except Exception as error:
        entry["errors"].append(f"abstract only: jax.debug.callback failed here: {type(error).__name__}: {error}")


def _dtype_name(value):
    try:
        return str(value.dtype)
    except Exception:
        return type(value).__name__


def _qualname(kind):
    return f"{kind.__module__}.{kind.__qualname__}"


def _encode(value, tracer_type, tracers):
    kind = type(value)
    if value is None or kind in (bool, int, float, complex, str, bytes):
        return ("py", kind.__name__, value)
    if tracer_type is not None and isinstance(value, tracer_type):
        tracers.append(value)
        return ("tracer", len(tracers) - 1)
    # Containers: ("seq"/"map", module.qualname (shown), fields or keys, children, qualname (compared)).
    if isinstance(value, tuple) and hasattr(kind, "_fields"):
        return ("seq", _qualname(kind), tuple(kind._fields), [_encode(v, tracer_type, tracers) for v in value],
                kind.__qualname__)
    if isinstance(value, (list, tuple)):
        return ("seq", _qualname(kind), None, [_encode(v, tracer_type, tracers) for v in value], kind.__qualname__)
    if isinstance(value, dict):
        keys = list(value.keys())
        return ("map", _qualname(kind), [repr(k) for k in keys], [_encode(value[k], tracer_type, tracers) for k in keys],
                kind.__qualname__)
    fields = getattr(kind, "__dataclass_fields__", None)
    if fields is not None and not isinstance(value, type):
        names = [name for name in fields]
        return ("map", _qualname(kind), names, [_encode(getattr(value, n, None), tracer_type, tracers) for n in names],
                kind.__qualname__)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.generic):
        array = numpy.asarray(value)
        return ("array", str(array.dtype), (), array.tobytes(), "scalar")
    if hasattr(value, "shape") and hasattr(value, "dtype") and (hasattr(value, "__array__") or numpy is not None):
        try:
            import numpy
            array = numpy.asarray(value)
            if array.dtype == object:
                raise TypeError("object array")
            return ("array", str(array.dtype), tuple(array.shape), numpy.ascontiguousarray(array).tobytes(),
                    _qualname(kind))
        except Exception as error:
            return ("abstract", _dtype_name(value), tuple(getattr(value, "shape", ())), f"{type(error).__name__}")
    if isinstance(value, type):  # a class (jnp.int8, a dtype's scalar type): by name, its module may move
        return ("py", "type", value.__qualname__)
    if callable(value) and not hasattr(value, "shape"):
        # A function (a renamed one is another object by design): only that it is callable can be compared.
        return ("abstract", "callable", ())
    text = repr(value)
    if len(text) > 200:
        text = text[:200] + "..."
    return ("opaque", _qualname(kind), text)


def _fill(encoded, leaves):
    tag = encoded[0]
    if tag == "tracer":
        return leaves[encoded[1]]
    if tag in ("seq", "map"):
        return (tag, encoded[1], encoded[2], [_fill(e, leaves) for e in encoded[3]], *encoded[4:])
    return encoded


def _meta():
    meta = {"pid": _PID, "start": _START, "python": sys.version.split()[0], "executable": sys.executable,
            "jax_version": None, "devices": None}
    jax = sys.modules.get("jax")
    if jax is not None:
        try:
            meta["jax_version"] = jax.__version__
            meta["devices"] = [f"{d.platform}:{d.id} {d.device_kind}" for d in jax.devices()]
        except Exception as error:
            meta["devices"] = [f"unknown ({type(error).__name__}: {error})"]
    return meta


def _write():
    if not _DIR or os.getpid() != _PID:
        return
    jax = sys.modules.get("jax")
    if jax is None and not _sites:
        return  # a helper process that neither used JAX nor reached a site
    if jax is not None:
        try:
            jax.effects_barrier()  # deliver pending jax.debug.callback calls
        except Exception:
            pass
    with _lock:
        data = {"meta": _meta(), "sites": _sites}
        path = os.path.join(_DIR, f"records-{_PID}.pkl")
        temporary = path + ".tmp"
        with open(temporary, "wb") as handle:
            pickle.dump(data, handle, protocol=4)
        os.replace(temporary, path)


def witness(site, value):
    """Record whether any element of ``value`` is negative (JAX202: did a negative index reach the call?) and return
    ``value`` unchanged. Never raises. Traced values are checked when the compiled code runs."""
    key = site + "::negative"
    try:
        with _lock:
            _ensure_atexit()
            entry = _site(key)
        tracer_type = _tracer_type()
        if tracer_type is not None and isinstance(value, tracer_type):
            import jax
            import jax.numpy as jnp

            jax.debug.callback(lambda flag: _witnessed(key, bool(flag)), jnp.any(jnp.asarray(value) < 0))
        else:
            numpy = sys.modules.get("numpy")
            if numpy is None:
                import numpy
            _witnessed(key, bool(numpy.any(numpy.asarray(value) < 0)))
    except Exception as error:  # a probe must never break the program
        try:
            entry["errors"].append(f"{type(error).__name__}: {error}")
        except Exception:
            pass
    return value


def _witnessed(key, flag):
    with _lock:
        entry = _site(key)
        entry["count"] += 1
        seen = bool(entry["calls"] and entry["calls"][0][2]) or flag
        entry["calls"] = [("py", "bool", seen)]
