"""jaxlint verify (copied as ``sitecustomize.py`` into the probe directory): loaded first in every Python process of a verified run (the probe directory is first on
``PYTHONPATH``), so that each process that uses JAX reports its devices even if it reaches no site. Then the
environment's own ``sitecustomize`` (if any) is loaded, exactly as Python would have. Standalone: stdlib only.
"""
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import _jaxlint_probe

    _jaxlint_probe._ensure_atexit()
except Exception:  # never break the program
    pass


def _chain():
    rest = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_chain()
