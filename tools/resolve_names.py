"""How user code reaches a dotted JAX name at run time, as source text for probes run in other interpreters.

``tools/generate_catalogue.py`` (same-object checks) and ``tests/catalogue/test_sample_execution.py`` (rows checked
by execution) prepend this file to the scripts they run with a JAX venv's python, so both resolve names alike.
"""
import importlib


def attribute_first(parts):
    # as user code sees ``jax.config``: the attribute, importing a submodule only where no attribute exists
    obj = importlib.import_module(parts[0])
    for i in range(1, len(parts)):
        try:
            obj = getattr(obj, parts[i])
        except AttributeError:
            obj = importlib.import_module(".".join(parts[: i + 1]))
    return obj


def import_first(parts):
    # as ``from a.b import c`` sees it: the longest importable module, then attributes
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(".".join(parts))


def get(dotted):
    parts = dotted.split(".")
    try:
        return attribute_first(parts)
    except Exception:
        # a name of a submodule that an attribute shadows: jax.config.config (``from jax.config import config``)
        return import_first(parts)
