"""JAX502/JAX506's findings (optax's and flax's removed or deprecated names) from the ast gate's tree
(``jaxlint.lint.ast_findings``), fixes included.

Mirrors the two rules' visits (``catalogue.changed_symbol.ChangedSymbolRule``): every attribute chain whose
qualified name is in the rule's table (a rename spelled through the chain's own root, as ``Rule.spelled_from_root``
spells it), and every ``from M import name`` of a name in the table (the edits ``import_edits`` gives, placed on the
statement's text). The rule's own ``outcome`` words each finding and says whether its fix is offered. What cannot be
placed exactly (a module spelled with spaces, a name that is not its source text) is ``Undecidable``.
"""
from __future__ import annotations

import ast

from jaxlint.catalogue.ecosystem import Change
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, statement_of, walk
from jaxlint.lint.diagnostics import Edit


def findings(rule_class, view: AstView, table: dict[str, Change], package: str) -> list[AstFinding]:
    """What ``rule_class`` reports for the names of ``table`` (all under ``package``), or ``Undecidable``."""
    rule = view.rule(rule_class)
    found: list[AstFinding] = []
    for node in walk(view, (ast.ImportFrom, ast.Attribute)):
        if type(node) is ast.ImportFrom:
            found += _import_from(rule, view, node, table)
        else:
            finding = _attribute(rule, view, node, table, package)
            if finding is not None:
                found.append(finding)
    return found


def _attribute(rule, view: AstView, node: ast.Attribute, table: dict[str, Change],
               package: str) -> AstFinding | None:
    """``visit_Attribute``: every attribute of a chain (inner prefixes too, as libcst visits them)."""
    root = node.value
    while type(root) is ast.Attribute:
        root = root.value
    if type(root) is not ast.Name or not (view.star_import or any(
            bound == package or bound.startswith(package + ".") for bound in view.may_import(root.id))):
        return None  # the resolver qualifies the root to nothing under the package
    change = table.get(view.qualified_name_unless(node, table.__contains__) or "")
    if change is None:
        return None
    text = None
    if change.replacement:  # ``spelled_from_root``: the root is decided, as the chain was
        root_q = view.qualified_name(root)
        if root_q and change.replacement.startswith(root_q + "."):
            text = view.text(root) + change.replacement[len(root_q):]
    outcome = rule.outcome(change, text is not None)
    if outcome is None:
        return None
    message, applicability, withheld = outcome
    fix = None
    if applicability is not None:
        start, end = view.span(node, statement_of(view.ancestors(node)))
        fix = AstFix(applicability, f"Use `{change.replacement}`", (Edit(start, end, text),))
    return AstFinding(rule.code, node, message, change.reason or None, withheld, fix)


def _import_from(rule, view: AstView, node: ast.ImportFrom, table: dict[str, Change]) -> list[AstFinding]:
    """``visit_ImportFrom``: one finding (on the statement) per name of the table it imports."""
    if node.level or node.module is None or any(alias.name == "*" for alias in node.names):
        return []
    module = node.module
    found = []
    for alias in node.names:
        change = table.get(f"{module}.{alias.name}")
        if change is None:
            continue
        parts = rule.import_edits(module, alias.name, alias.asname is not None, change, len(node.names))
        outcome = rule.outcome(change, bool(parts))
        if outcome is None:
            continue
        message, applicability, withheld = outcome
        fix = None
        if applicability is not None:
            edits = tuple(Edit(*(_name_span(view, alias) if part == "name" else _module_span(view, node)), text)
                          for part, text in parts)
            fix = AstFix(applicability, f"Use `{change.replacement}`", edits)
        found.append(AstFinding(rule.code, node, message, change.reason or None, withheld, fix))
    return found


def _name_span(view: AstView, alias: ast.alias) -> tuple[int, int]:
    """The imported name's own text (libcst's ``alias.name``), without its ``as``."""
    start = view.offset_of(alias)
    end = start + len(alias.name)
    if view.source[start:end] != alias.name or _continues_a_name(view.source, end):
        raise Undecidable("an imported name that is not its source text")
    return start, end


def _module_span(view: AstView, node: ast.ImportFrom) -> tuple[int, int]:
    """The module's text after ``from`` (libcst's ``node.module``), where it is spelled without spaces."""
    source = view.source
    start = view.offset_of(node)
    if not source.startswith("from", start):
        raise Undecidable("an import statement that does not start with `from`")
    start += 4
    while start < len(source) and source[start] in " \t":
        start += 1
    end = start + len(node.module)
    if source[start:end] != node.module or _continues_a_name(source, end):
        raise Undecidable("a module spelled with spaces or continuation lines")
    return start, end


def _continues_a_name(source: str, offset: int) -> bool:
    return offset < len(source) and (source[offset].isalnum() or source[offset] in "_.")
