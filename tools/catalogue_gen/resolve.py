"""How user code reaches a dotted JAX name at run time: the one resolver of the catalogue generator (same-object
checks), the catalogue's execution test (``tests/catalogue/test_sample_execution.py``) and the recall oracle
(``tools/recall_oracle.py``).

They run it in other interpreters (a JAX venv's python, which cannot import this package): ``probe(driver)`` is this
file's text followed by the driver script, run with ``python -c``. So this file imports nothing beyond the standard
library and must run on every Python a JAX venv may have.
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


def longest_module(parts, stop_at_foreign=False):
    """``(i, module, None)`` for the longest importable prefix ``parts[:i]``; ``(0, None, None)`` when none imports.

    With ``stop_at_foreign``, a prefix that exists but needs a package outside ``parts[0]`` (``jax.experimental.jax2tf``
    needs tensorflow) ends the search as ``(i, None, that package)``; without it, shorter prefixes are tried.
    """
    for i in range(len(parts), 0, -1):
        try:
            return i, importlib.import_module(".".join(parts[:i])), None
        except ModuleNotFoundError as error:
            if stop_at_foreign and error.name and error.name.split(".")[0] != parts[0]:
                return i, None, error.name
        except Exception:
            pass
    return 0, None, None


def import_first(parts):
    # as ``from a.b import c`` sees it: the longest importable module, then attributes
    i, obj, _ = longest_module(parts)
    if not i:
        raise ImportError(".".join(parts))
    for p in parts[i:]:
        obj = getattr(obj, p)
    return obj


def get(dotted):
    parts = dotted.split(".")
    try:
        return attribute_first(parts)
    except Exception:
        # a name of a submodule that an attribute shadows: jax.config.config (``from jax.config import config``)
        return import_first(parts)


def missing(dotted):
    """The first prefix of ``dotted`` that does not resolve (longest module, then attributes), or None when it all
    does, or when it reaches a module that needs a package JAX does not install (not a missing name)."""
    parts = dotted.split(".")
    i, obj, foreign = longest_module(parts, stop_at_foreign=True)
    if foreign:
        return None
    if not i:
        return parts[0]
    for j in range(i, len(parts)):
        try:
            obj = getattr(obj, parts[j])
        except Exception:
            return ".".join(parts[: j + 1])
    return None


def probe(driver):
    """A script for another interpreter: this file, then ``driver`` (which calls ``get`` or ``missing``)."""
    with open(__file__, encoding="utf-8") as fh:
        return fh.read() + "\n" + driver
