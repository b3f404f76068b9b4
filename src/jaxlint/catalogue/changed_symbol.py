"""The visits JAX502 (optax) and JAX506 (flax) share: a name of the library's table of removed or deprecated names,
spelled as an attribute chain or imported with ``from M import name``.

A rule names its ``table`` and ``library`` and says how it words a finding (``outcome``) and rewrites a from-import
(``import_edits``); the visits here, and their ast mirror (``catalogue.ecosystem_ast``), do the rest.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.diagnostics import Applicability, WithheldFix
from jaxlint.rules.base import Replace, Rule, safe_fix, unsafe_fix
from jaxlint.catalogue import ecosystem_ast
from jaxlint.catalogue.ecosystem import Change, dotted_name


class ChangedSymbolRule(Rule):
    """A rule that reports the names of ``table``, all under the package ``library``."""

    table: ClassVar[dict[str, Change]]
    library: ClassVar[str]

    @classmethod
    def findings_from_ast(cls, view):
        """The visits' findings from the ast gate's tree (``catalogue.ecosystem_ast``)."""
        return ecosystem_ast.findings(cls, view, cls.table, cls.library)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        change = self.table.get(self.qualified_name(node) or "")
        if change is None:
            return
        text = self.spelled_from_root(node, change.replacement) if change.replacement else None
        self._report(node, change, [Replace(node, text)] if text else None)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted_name(node.module)
        for alias in node.names:
            name = dotted_name(alias.name)
            change = self.table.get(f"{module}.{name}")
            if change is None:
                continue
            edits = self.import_edits(module, name, alias.asname is not None, change, len(node.names))
            self._report(node, change, edits and [Replace(alias.name if part == "name" else node.module, text)
                                                  for part, text in edits])

    @staticmethod
    def import_edits(module: str, name: str, aliased: bool, change: Change, count: int) -> list[tuple[str, str]] | None:
        """The from-import's edits, as ("name" or "module", new text) (``ecosystem_ast`` places them too)."""
        raise NotImplementedError

    def outcome(self, change: Change, has_edits: bool) \
            -> tuple[str, Applicability | None, WithheldFix | None] | None:
        """(message, the fix's applicability or None, withheld fix) of a finding of ``change`` (None: no finding)."""
        raise NotImplementedError

    def _report(self, node: cst.CSTNode, change: Change, edits: list | None) -> None:
        outcome = self.outcome(change, bool(edits))
        if outcome is None:
            return
        message, applicability, withheld = outcome
        fix = None
        if applicability is not None:
            make = safe_fix if applicability is Applicability.SAFE else unsafe_fix
            fix = make(f"Use `{change.replacement}`", *edits)
        self.report(node, message, fix, detail=change.reason or None, withheld=withheld)
