"""Where a name stands in a statement: an assignment or deletion target (shared by rules that follow a variable)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst


def target_context(chain: Sequence[cst.CSTNode]) -> str | None:
    """"del" or "store" when ``chain[-1]`` is (inside) an assignment/deletion target, else None."""
    i = len(chain) - 1
    node = chain[i]
    while i >= 1:
        parent = chain[i - 1]
        if isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
            node, i = parent, i - 1
            continue
        if isinstance(parent, cst.Del) and parent.target is node:
            return "del"
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)) \
                and parent.target is node:
            return "store"
        if isinstance(parent, cst.AsName) and parent.name is node:
            return "store"
        return None
    return None
