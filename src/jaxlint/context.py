"""Per-file state shared by the rules of one batched traversal, and the traversal itself."""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Sequence

import libcst as cst

from jaxlint.names import NameResolver
from jaxlint.rules.base import Report, Rule
from jaxlint.settings import Settings


class FileContext:
    def __init__(self, module: cst.Module, source: str, path: str, settings: Settings) -> None:
        self.module = module
        self.source = source
        self.path = path
        self.settings = settings
        self.resolver = NameResolver(module)
        self.ancestors: list[cst.CSTNode] = []
        self.reports: list[Report] = []

    def add_report(self, report: Report) -> None:
        self.reports.append(report)

    @property
    def parent(self) -> cst.CSTNode | None:
        """The parent of the node being visited (the last ancestor is the node itself)."""
        return self.ancestors[-2] if len(self.ancestors) >= 2 else None


class BatchedVisitor(cst.CSTVisitor):
    """One traversal for all rules: dispatches ``visit_<Type>``/``leave_<Type>`` by node class name."""

    def __init__(self, context: FileContext, rules: Sequence[Rule]) -> None:
        self.context = context
        self._visit: dict[str, list[Callable]] = defaultdict(list)
        self._leave: dict[str, list[Callable]] = defaultdict(list)
        for rule in rules:
            for attribute in dir(type(rule)):
                if attribute.startswith("visit_"):
                    self._visit[attribute[6:]].append(getattr(rule, attribute))
                elif attribute.startswith("leave_"):
                    self._leave[attribute[6:]].append(getattr(rule, attribute))

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.context.ancestors.append(node)
        for method in self._visit.get(type(node).__name__, ()):
            method(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for method in self._leave.get(type(original_node).__name__, ()):
            method(original_node)
        self.context.ancestors.pop()


# -- compatibility shims -------------------------------------------------------------------------------------
_GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})
_VERSION_ATTRIBUTES = frozenset({"__version__", "__version_info__"})


def in_compat_code(ancestors: Sequence[cst.CSTNode], resolver: NameResolver) -> bool:
    """True inside code that deliberately keeps old spellings working.

    ``try:`` blocks (and their handlers) that catch ImportError/ModuleNotFoundError/AttributeError or everything;
    ``if``/conditional expressions whose test is ``hasattr(<jax thing>, ...)`` or compares JAX's version.
    Both branches are skipped: which one is meant for older versions is not decidable in general.
    """
    for node in ancestors:
        if isinstance(node, cst.Try) and _catches_missing_names(node):
            return True
        if isinstance(node, (cst.If, cst.IfExp)) and _is_jax_feature_test(node.test, resolver):
            return True
    return False


def _catches_missing_names(node: cst.Try) -> bool:
    for handler in node.handlers:
        if handler.type is None:
            return True
        types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
        for element in types:
            expression = element.value if isinstance(element, cst.Element) else element
            name = cst.helpers.get_full_name_for_node(expression) or ""
            if name.split(".")[-1] in _GUARD_EXCEPTIONS:
                return True
    return False


class _FeatureTestFinder(cst.CSTVisitor):
    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "hasattr" and node.args:
            target = self.resolver.qualified_name(node.args[0].value) or ""
            if target == "jax" or target.startswith("jax."):
                self.found = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _VERSION_ATTRIBUTES:
            base = self.resolver.qualified_name(node.value) or ""
            if base.startswith("jax"):
                self.found = True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in _VERSION_ATTRIBUTES or "jax_version" in node.value.lower():
            self.found = True


def _is_jax_feature_test(test: cst.BaseExpression, resolver: NameResolver) -> bool:
    finder = _FeatureTestFinder(resolver)
    test.visit(finder)
    return finder.found
