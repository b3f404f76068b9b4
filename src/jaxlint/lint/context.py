"""Per-file state shared by the rules of one batched traversal, and the traversal itself."""
from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst
from jaxlint.lint.lazy_libcst import Visits, visitor

from jaxlint.lint.inference import ValueInference
from jaxlint.lint.names import NameResolver
from jaxlint.rules.base import Report, Rule
from jaxlint.project.settings import Settings
from jaxlint.lint.walk import child_fields, skippable_classes


class FileContext:
    def __init__(self, module: cst.Module, source: str, path: str, settings: Settings,
                 file_text: str | None = None) -> None:
        self.module = module
        self.source = source
        # The whole file, when ``source`` is a part of it (``focus``, ``large_files``): what rules search as text.
        self.file_text = source if file_text is None else file_text
        self.path = path
        self.settings = settings
        self.resolver = NameResolver(module)
        self.ancestors: list[cst.CSTNode] = []
        self.reports: list[Report] = []
        self._inference: ValueInference | None = None

    @property
    def inference(self) -> ValueInference:
        """What names and attributes hold (``jaxlint.lint.inference``), built on first use: most files never ask."""
        if self._inference is None:
            self._inference = ValueInference(self.module, self.resolver)
        return self._inference

    def add_report(self, report: Report) -> None:
        self.reports.append(report)

    @property
    def parent(self) -> cst.CSTNode | None:
        """The parent of the node being visited (the last ancestor is the node itself)."""
        return self.ancestors[-2] if len(self.ancestors) >= 2 else None


class BatchedVisits(Visits):
    """One traversal for all rules: dispatches ``visit_<Type>``/``leave_<Type>`` by node class name.

    ``run(module)`` walks the tree with ``jaxlint.lint.walk`` (same order as ``module.visit(self)``, without rebuilding
    every node, and skipping whitespace/punctuation subtrees no rule looks at); ``module.visit(self)`` still works.
    The class is ``BatchedVisitor``, made on first use (``lazy_libcst.visitor``).
    """

    def __init__(self, context: FileContext, rules: Sequence[Rule]) -> None:
        self.context = context
        self._visit: dict[str, list[Callable]] = defaultdict(list)
        self._leave: dict[str, list[Callable]] = defaultdict(list)
        for rule in rules:
            for attribute in _hook_names(type(rule)):
                if attribute.startswith("visit_"):
                    self._visit[attribute[6:]].append(getattr(rule, attribute))
                else:
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

    def run(self, module: cst.CSTNode) -> None:
        # Subtrees that hold no class any rule visits: whitespace, punctuation and leaves (names, numbers, strings).
        skip = skippable_classes(frozenset(self._visit) | frozenset(self._leave))
        visit, leave = self._visit, self._leave
        ancestors = self.context.ancestors
        push, pop = ancestors.append, ancestors.pop
        plans: dict[type, tuple] = {}
        sentinel = cst.MaybeSentinel

        def walk(node: cst.CSTNode) -> None:
            cls = type(node)
            plan = plans.get(cls)
            if plan is None:
                name = cls.__name__
                plan = plans[cls] = (tuple(visit.get(name, ())), tuple(leave.get(name, ())), child_fields(cls))
            on_visit, on_leave, fields = plan
            push(node)
            for method in on_visit:
                method(node)
            for field_name in fields:
                value = getattr(node, field_name)
                kind = type(value)
                if kind is tuple or kind is list:
                    for child in value:
                        if type(child) not in skip:
                            walk(child)
                elif kind not in skip and value is not None and kind is not sentinel:
                    walk(value)
            for method in on_leave:
                method(node)
            pop()

        try:
            walk(module)
        finally:
            # ``walk`` refers to itself through its closure, and through ``plans`` to the rules and the tree: without
            # this, each file's tree would wait for the (rarely run) cycle collector.
            del walk


@lru_cache(maxsize=None)
def _hook_names(rule_class: type) -> tuple[str, ...]:
    return tuple(a for a in dir(rule_class) if a.startswith(("visit_", "leave_")))


# -- compatibility shims -------------------------------------------------------------------------------------
_GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})
_VERSION_ATTRIBUTES = frozenset({"__version__", "__version_info__"})
# The packages whose feature tests mark compat code: JAX, and the libraries with rules of their own (JAX5xx).
_TESTED_PACKAGES = ("jax", "jaxlib", "flax", "optax")


def _in_tested_package(qualified: str) -> bool:
    return qualified.split(".")[0] in _TESTED_PACKAGES


def in_compat_code(ancestors: Sequence[cst.CSTNode], resolver: NameResolver) -> bool:
    """True inside code that deliberately keeps old spellings working.

    ``try:`` blocks (and their handlers) that catch ImportError/ModuleNotFoundError/AttributeError or everything;
    ``if``/conditional expressions whose test is ``hasattr(<jax thing>, ...)`` or compares JAX's version
    (``jax.__version_info__``, or any call given ``"jax"`` or the ``jax`` module, e.g. ``version("jax") < (0, 5)``);
    the same for flax and optax (``hasattr(optax, "tree")``, ``flax.__version__``).
    Both branches are skipped: which one is meant for older versions is not decidable in general. Also the right
    operand of ``and`` after such a test: ``hasattr(jax, "pxla") and isinstance(x, jax.pxla.ShardedDeviceArray)``.
    """
    for index, node in enumerate(ancestors):
        if isinstance(node, cst.Try) and _catches_missing_names(node):
            return True
        if isinstance(node, (cst.If, cst.IfExp)) and _is_jax_feature_test(node.test, resolver):
            return True
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And) \
                and index + 1 < len(ancestors) and ancestors[index + 1] is node.right \
                and _is_jax_feature_test(node.left, resolver):
            return True
    return False


def silent_import_guard(ancestors: Sequence[cst.CSTNode]) -> cst.Try | None:
    """The ``try`` around an import whose fallback leaves the imported names unbound, or None.

    ``ancestors`` end at the import statement. Only the innermost ``try`` that catches ImportError-like errors and
    holds the import in its body counts, and only when every handler that catches them does nothing but ``pass``,
    ``...``, or calls (a warning, a log line): it binds nothing (neither the name, an alternative such as
    ``from jax.sharding import Mesh``, nor a flag such as ``HAS_X = False`` that later code may test) and neither
    raises nor returns. Then a use of an imported name outside the ``try`` raises ``NameError`` wherever the import
    fails.
    """
    for index in range(len(ancestors) - 1, -1, -1):
        node = ancestors[index]
        if not isinstance(node, cst.Try):
            continue
        if not _catches_missing_names(node):
            return None
        if index + 1 >= len(ancestors) or ancestors[index + 1] is not node.body:
            return None  # in a handler, ``else`` or ``finally``: the fallback itself
        handlers = [handler for handler in node.handlers if _catches_missing_names_in(handler)]
        return node if handlers and all(_does_nothing(handler.body) for handler in handlers) else None
    return None


def _does_nothing(body: cst.BaseSuite) -> bool:
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.Call, cst.Ellipsis, cst.SimpleString,
                                                                          cst.ConcatenatedString)):
                continue
            return False
    return True


def _catches_missing_names(node: cst.Try) -> bool:
    return any(_catches_missing_names_in(handler) for handler in node.handlers)


def _catches_missing_names_in(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    for element in types:
        expression = element.value if isinstance(element, cst.Element) else element
        name = cst.helpers.get_full_name_for_node(expression) or ""
        if name.split(".")[-1] in _GUARD_EXCEPTIONS:
            return True
    return False


def __getattr__(name: str) -> type:
    if name == "BatchedVisitor":  # the visitor class, made (and libcst imported) when first asked for
        return visitor(BatchedVisits)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _FeatureTestFinder(Visits):
    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "hasattr" and node.args:
            target = self.resolver.qualified_name(node.args[0].value) or ""
            if _in_tested_package(target):
                self.found = True

    def visit_Comparison(self, node: cst.Comparison) -> None:
        # A project's own version helper: `module_version("jax") < (0, 8, 2)`, `version("jax") >= "0.4.30"`,
        # `get_version(jax) < ...`: any call that is given JAX (by name or as the module) compared to something.
        operands = [node.left, *(target.comparator for target in node.comparisons)]
        if any(isinstance(operand, cst.Call) and self._names_jax(operand) for operand in operands):
            self.found = True

    def _names_jax(self, call: cst.Call) -> bool:
        for argument in call.args:
            value = argument.value
            if isinstance(value, cst.SimpleString) and value.evaluated_value in _TESTED_PACKAGES:
                return True
            if isinstance(value, cst.Name) and self.resolver.qualified_name(value) in _TESTED_PACKAGES:
                return True
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _VERSION_ATTRIBUTES:
            base = self.resolver.qualified_name(node.value) or ""
            if base.startswith("jax") or _in_tested_package(base):
                self.found = True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in _VERSION_ATTRIBUTES or "jax_version" in node.value.lower():
            self.found = True


def _is_jax_feature_test(test: cst.BaseExpression, resolver: NameResolver) -> bool:
    finder = visitor(_FeatureTestFinder)(resolver)
    test.visit(finder)
    return finder.found
