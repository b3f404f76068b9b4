"""``project_reach.ProjectReach`` on Python's ``ast``: the same search, in the same order, with the same questions to
the project index and to ``construction_sites`` (so a result that read other modules' constructions is marked
uncacheable exactly when libcst's would be).

libcst's search walks a node's children from a stack, so it meets the names of a node last to first in source
order; ``_names`` lists them first to last and gives them reversed. What ``ast`` cannot tell apart as libcst does
(an implicitly concatenated or formatted string in an annotation, a ``match`` statement) is ``Undecidable``.
"""
from __future__ import annotations

import ast

from jaxlint.analysis.ast_attribute_values import AstAttributeValues, self_attribute, source_ordered_children
from jaxlint.analysis.ast_calls import simple_string
from jaxlint.analysis.construction_sites import construction_sites
from jaxlint.analysis import project_reach
from jaxlint.lint.ast_findings import Undecidable
from jaxlint.lint.ast_names import AstNames, all_parameters, identifier_of, parameter_defaults
from jaxlint.project.index import ProjectIndex

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class AstProjectReach:
    def __init__(self, names: AstNames, index: ProjectIndex, path: str, root: str | None = None) -> None:
        self.view = None  # the file's ``AstView`` while a search runs (not kept: the view keeps this object)
        self.names = names
        self.index = index
        self.path = path
        self.root = root
        self._attributes = AstAttributeValues(names)

    def risky_use(self, view, body: list[ast.stmt]) -> tuple[str, str, str, str] | None:
        self.view = view
        try:
            best = None
            for *use, through_attribute in self._risky_uses(body):
                rank = (0 if use[0] == "calls" else 1) + (2 if through_attribute else 0)
                if rank == 0:
                    return tuple(use)
                if best is None or rank < best[0]:
                    best = (rank, tuple(use))
            return best[1] if best is not None else None
        finally:
            self.view = None

    def _risky_uses(self, body: list[ast.stmt]):
        seen: set[int] = {id(body)}
        pending: list[tuple[object, bool, tuple[str, str] | None]] = [(body, False, None)]

        def open_next(node, told, annotation: bool = False) -> None:
            # as libcst's search: past ``_MAX_NODES`` nothing more is opened (the same nodes, in the same order:
            # ``tests/test_ast_findings_jax401_reach.py`` compares the two searches cut at every limit)
            if node is None or id(node) in seen or len(seen) >= project_reach._MAX_NODES:
                return
            seen.add(id(node))
            pending.append((node, annotation, told))

        while pending:
            current, annotation, origin = pending.pop()
            for node, called in self._names(current, annotation):
                verb, spelled = origin or (_verb(called), "")
                kind = type(node)
                if kind is ast.Attribute:
                    qualified = self.names.qualified_name(node)
                    if qualified is not None:
                        found = self._risky_module(self.index.resolve(self.path, 0, qualified))
                        if found is not None:
                            yield verb, spelled or _dotted(node), *found, bool(spelled)
                        continue
                    link = self_attribute(node)
                    sources = self._attributes.sources(link) if link is not None else None
                    for source, is_annotation in sources or ():
                        open_next(source, origin or (_verb(called), _dotted(node)), is_annotation)
                    continue
                if kind is ast.Constant:  # a string annotation
                    for name, statement, qualified in self._string_annotation(node):
                        found = self._risky_module(self._imported_module(name, qualified, statement))
                        if found is not None:
                            yield verb, spelled or name, *found, bool(spelled)
                    continue
                identifier = identifier_of(node)
                for binding in self.names.bindings(node):
                    bound = binding.node
                    bound_kind = type(bound)
                    if bound_kind in (ast.Import, ast.ImportFrom):
                        found = self._risky_module(self._imported_module(identifier, binding.qualified, bound))
                        if found is not None:
                            yield verb, spelled or identifier, *found, bool(spelled)
                        continue
                    if bound_kind is ast.arg and bound.annotation is None:
                        for path in self._constructed(node, bound):
                            found = self._risky_module(path)
                            if found is not None:
                                yield verb, spelled or identifier, *found, bool(spelled)
                        open_next(self._default_of(bound), origin)
                        continue
                    if bound_kind in _FUNCTIONS and bound.returns is not None:
                        open_next(bound.returns, origin, True)
                    opened, is_annotation = _opened(bound)
                    open_next(opened, origin, is_annotation)

    def _default_of(self, parameter: ast.arg) -> ast.expr | None:
        scope = self.names.scope_of(parameter)
        function = scope.node if scope is not None else None
        return parameter_defaults(function.args).get(id(parameter)) if function is not None else None

    def _constructed(self, name: ast.AST, parameter: ast.arg) -> list[str]:
        scope = self.names.scope_of(name)
        while scope is not None and not (scope.kind == "function" and type(scope.node) in _FUNCTIONS
                                         and any(item is parameter for item in all_parameters(scope.node.args))):
            scope = scope.parent
        owner = scope.parent if scope is not None else None
        if owner is None or owner.kind != "class" or owner.parent is None or owner.parent.kind != "module" \
                or scope.node.name != "__init__":
            return []
        arguments = scope.node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        place = next((number for number, item in enumerate(positional) if item is parameter), None)
        if place == 0:
            return []
        if place is None and not any(item is parameter for item in arguments.kwonlyargs):
            return []
        return construction_sites(self.index).passed_modules(
            self.path, owner.node.name, None if place is None else place - 1, parameter.arg) or []

    def _string_annotation(self, node: ast.Constant):
        value = node.value
        text = value.strip() if isinstance(value, str) else ""
        first, _, rest = text.partition(".")
        if not first.isidentifier() or (rest and not all(part.isidentifier() for part in rest.split("."))):
            return
        for binding in self.names.module_scope.bindings.get(first, ()):
            if type(binding.node) in (ast.Import, ast.ImportFrom):
                qualified = binding.qualified
                yield first, binding.node, (f"{qualified}.{rest}" if qualified and rest else qualified)

    def _risky_module(self, path: str | None) -> tuple[str, str] | None:
        if path is None or path == self.path:
            return None
        why = self.index.risk_of(path, self.root)
        return None if why is None else (path, why)

    def _imported_module(self, name: str, qualified: str | None, node) -> str | None:
        if type(node) is ast.Import or not node.level:
            return self.index.resolve(self.path, 0, qualified) if qualified else None
        if any(alias.name == "*" for alias in node.names):
            return None
        for alias in node.names:
            if (alias.asname or alias.name) == name:
                return self.index.resolve(self.path, node.level, node.module or "", alias.name)
        return None

    # -- the names of a node, in the order libcst's stack meets them -----------------------------------------
    def _names(self, node, annotation: bool) -> list[tuple[ast.AST, bool]]:
        groups: list[list[tuple[ast.AST, bool]]] = []
        self._collect(node, False, annotation, groups)
        return [item for group in reversed(groups) for item in group]

    def _collect(self, node, called: bool, annotation: bool, groups: list) -> None:
        if type(node) is list:
            for item in node:
                self._collect(item, False, annotation, groups)
            return
        kind = type(node)
        if kind is ast.Name:
            groups.append([(node, called)])
            return
        if kind is ast.Constant:
            if annotation and isinstance(node.value, (str, bytes)):
                if not simple_string(self.view.text(node)):
                    raise Undecidable("an implicitly concatenated string in an annotation")
                groups.append([(node, called)])
            return
        if kind is ast.Attribute:
            root = node
            while type(root) is ast.Attribute:
                root = root.value
            if type(root) is ast.Name:
                groups.append([(node, called), (root, called)])
            else:
                self._collect(node.value, False, annotation, groups)
            return
        if kind is ast.Match or kind.__name__ == "TypeAlias" or getattr(node, "type_params", None) \
                or (annotation and kind is ast.JoinedStr):
            raise Undecidable("a `match`, a type parameter or a formatted annotation in the project search")
        if kind in _FUNCTIONS or kind is ast.Lambda:
            if kind is not ast.Lambda:
                for decorator in node.decorator_list:
                    self._collect(decorator, False, annotation, groups)
                groups.append([(node, False)])  # its name
            defaults = parameter_defaults(node.args)
            for parameter in all_parameters(node.args):
                groups.append([(parameter, False)])
                if parameter.annotation is not None:
                    self._collect(parameter.annotation, False, True, groups)
                if id(parameter) in defaults:
                    self._collect(defaults[id(parameter)], False, annotation, groups)
            if kind is not ast.Lambda and node.returns is not None:
                self._collect(node.returns, False, True, groups)
            self._collect(node.body, False, annotation, groups)
            return
        if kind is ast.ClassDef:
            for decorator in node.decorator_list:
                self._collect(decorator, False, annotation, groups)
            groups.append([(node, False)])
            for item in [*node.bases, *(keyword.value for keyword in node.keywords)]:
                self._collect(item, False, annotation, groups)
            self._collect(node.body, False, annotation, groups)
            return
        if kind is ast.ExceptHandler:
            if node.type is not None:
                self._collect(node.type, False, annotation, groups)
            if node.name:
                groups.append([(node, False)])
            self._collect(node.body, False, annotation, groups)
            return
        if kind is ast.AnnAssign:
            self._collect(node.target, False, annotation, groups)
            self._collect(node.annotation, False, True, groups)
            if node.value is not None:
                self._collect(node.value, False, annotation, groups)
            return
        if kind is ast.Call:
            self._collect(node.func, True, annotation, groups)
            for child in source_ordered_children(node)[1:]:
                self._collect(child, False, annotation, groups)
            return
        for child in source_ordered_children(node):
            self._collect(child, False, annotation, groups)


def _verb(called: bool) -> str:
    return "calls" if called else "uses"


def _dotted(node: ast.AST) -> str:
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    parts.append(node.id)
    return ".".join(reversed(parts))


def _opened(bound: ast.AST) -> tuple[object, bool]:
    kind = type(bound)
    if kind in (*_FUNCTIONS, ast.ClassDef):
        return bound.body, False
    if kind in (ast.Assign, ast.AnnAssign):
        return bound.value, False
    if kind is ast.withitem:
        return bound.context_expr, False
    if kind is ast.arg:
        return bound.annotation, True
    return None, False

