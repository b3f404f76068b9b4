"""The names a release's public modules export on purpose, as opposed to helpers they import for their own use.

JAX marks a re-export with the redundant alias of PEP 484 (``from jax._src.dtypes import float0 as float0``), or
lists it in ``__all__``; ``from jax._src.util import safe_zip as zip`` in ``jax.example_libraries.optimizers`` is a
helper, not an API. Only an export may be offered as a removed name's successor (``successors``).
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

from catalogue_gen.wheel import Archive, is_public_module, module_name

EXPORTS_FORMAT = 1


def _statements(body: list[ast.stmt]):
    """Module-level statements, through ``if``/``try`` blocks (``TYPE_CHECKING`` included: a declared export)."""
    for st in body:
        if isinstance(st, ast.If):
            yield from _statements(st.body + st.orelse)
        elif isinstance(st, ast.Try):
            yield from _statements(st.body + st.orelse + st.finalbody + [s for h in st.handlers for s in h.body])
        else:
            yield st


def module_exports(source: str) -> set[str]:
    """Names the module defines, re-exports as ``x as x``, or lists in ``__all__``."""
    names: set[str] = set()
    for st in _statements(ast.parse(source).body):
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(st.name)
        elif isinstance(st, ast.ImportFrom):  # ``import jax._src.core as core`` is the module's own helper
            names.update(a.asname for a in st.names if a.asname == a.name)
        elif isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in st.targets):
            try:
                names.update(str(x) for x in ast.literal_eval(st.value))
            except (ValueError, TypeError, SyntaxError):
                pass
    return names


def exports(wheel_file: Path, package: str = "jax") -> list[str]:
    """Dotted names of every deliberate export of the wheel's public modules."""
    archive = Archive(wheel_file, package)
    out: set[str] = set()
    for path in archive.namelist():
        mod = module_name(path, package)
        if mod is None or not is_public_module(mod):
            continue
        try:
            out.update(f"{mod}.{n}" for n in module_exports(archive.read(path).decode("utf-8", "replace")))
        except SyntaxError:
            continue
    return sorted(out)


def load_exports(cache: Path, version: str, wheel_file: Path) -> set[str]:
    path = cache / f"exports-{version}-v{EXPORTS_FORMAT}.json"
    if not path.exists():
        path.write_text(json.dumps(exports(wheel_file)))
    return set(json.loads(path.read_text()))
