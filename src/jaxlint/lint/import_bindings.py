"""What an import statement binds, as both gates record it: the ast gate from ``ast`` nodes, the text gate from the
same statements read in the text (``text_gate`` comes first in the pipeline and must not import ``ast_gate``)."""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=16384)
def with_prefixes(dotted: str) -> tuple[str, ...]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c`` (cached: the same modules are imported by most files)."""
    parts = dotted.split(".")
    return tuple(".".join(parts[:i]) for i in range(1, len(parts) + 1))


def record_import(bindings: dict[str, set[str]], import_names: set[str], name: str, alias: str | None) -> None:
    """``import name [as alias]``."""
    import_names.update(with_prefixes(name))
    if alias:
        bindings.setdefault(alias, set()).add(name)
    else:
        top = name.split(".")[0]
        bindings.setdefault(top, set()).add(top)


def record_from_import(bindings: dict[str, set[str]], import_names: set[str], module: str, name: str,
                       alias: str | None) -> None:
    """``from module import name [as alias]`` (the module itself: ``import_names.update(with_prefixes(module))``)."""
    qualified = f"{module}.{name}"
    import_names.add(qualified)
    bindings.setdefault(alias or name, set()).add(qualified)
