"""A rule mixin: whether the file imports anything from JAX (in any scope), for rules that report a name only in
files that use JAX (``.device_buffers``, ``.in_shardings_hlo``: spelled the same on a project's own objects)."""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst


def _is_jax(name: cst.CSTNode) -> bool:
    return (cst.helpers.get_full_name_for_node(name) or "").split(".")[0] == "jax"


class TracksJaxImports:
    """Sets ``self.imports_jax`` once any ``import jax...`` / ``from jax... import`` of the file is visited."""

    imports_jax: bool = False

    def visit_Import(self, node: cst.Import) -> None:
        if any(_is_jax(alias.name) for alias in node.names):
            self.imports_jax = True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and not node.relative and _is_jax(node.module):
            self.imports_jax = True
