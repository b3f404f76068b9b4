"""``pjit_specs.PjitSpecFinder`` on Python's ``ast``: whether a ``with`` body may run a ``pjit`` whose shardings are
(or may be) ``PartitionSpec``s, with the same answers. libcst's search stops at ``_MAX_FUNCTIONS`` opened nodes, in
its own order; this one opens every node it reaches, and where that is as many as the cap the answer could depend on
the order: ``Undecidable``.
"""
from __future__ import annotations

import ast

from jaxlint.analysis.ast_attribute_values import AstAttributeValues, method_body, self_attribute
from jaxlint.analysis.pjit_specs import _MAX_FUNCTIONS, CONCRETE_SHARDINGS, PARTIAL, PJIT, SHARDING_KEYWORDS
from jaxlint.lint.ast_findings import Undecidable
from jaxlint.lint.ast_names import AstNames

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class AstPjitSpecFinder:
    def __init__(self, names: AstNames) -> None:
        self.names = names
        self._untracked: bool | None = None
        self._attributes = AstAttributeValues(names)

    def body_runs_pjit_with_specs(self, view, body: list[ast.stmt]) -> bool:
        """``view``: the file's ``AstView`` (not kept: the view keeps this object)."""
        return self._reaches(body) or self._module_has_untracked(view)

    def _module_has_untracked(self, view) -> bool:
        if self._untracked is None:
            self._untracked = False
            for node in view.nodes:
                if type(node) is not ast.Call or not self._is_pjit_with_specs(node):
                    continue
                parent, field = view.parent(node)
                bound_to_name = type(parent) is ast.Assign and parent.value is node \
                    and all(type(target) is ast.Name for target in parent.targets)
                if not bound_to_name and field != "decorator_list":
                    self._untracked = True
                    break
        return self._untracked

    def _reaches(self, body: list[ast.stmt]) -> bool:
        """libcst's answer where it is certain: every node the search may open is opened; fewer than the cap, the
        order does not matter."""
        seen: set[int] = set()
        pending: list[object] = [body]
        found = False
        while pending:
            for call in _calls(pending.pop()):
                if self._is_pjit_with_specs(call):
                    found = True
                if type(call.func) is ast.Attribute:
                    for node, is_annotation in self._through_self(call.func):
                        if type(node) is ast.Name and not is_annotation:
                            found |= self._name_runs(node, seen, pending)
                        elif id(node) not in seen:
                            seen.add(id(node))
                            pending.append(node)
                    continue
                if type(call.func) is ast.Name:
                    found |= self._name_runs(call.func, seen, pending)
            if len(seen) >= _MAX_FUNCTIONS:
                raise Undecidable("the pjit search opens as many nodes as its cap (its order decides)")
        return found

    def _name_runs(self, name: ast.Name, seen: set[int], pending: list) -> bool:
        runs = False
        for binding in self.names.bindings(name):
            node = binding.node
            if type(node) is ast.Assign and type(node.value) is ast.Call and self._is_pjit_with_specs(node.value):
                runs = True  # libcst stops here; the search goes on to see every node it could open
                continue
            if type(node) in _FUNCTIONS and id(node) not in seen:
                if any(type(decorator) is ast.Call and self._is_pjit_with_specs(decorator)
                       for decorator in node.decorator_list):
                    runs = True
                    continue
                seen.add(id(node))
                pending.append(node.body)
        return runs

    def _through_self(self, func: ast.Attribute) -> list[tuple[object, bool]]:
        link = self_attribute(func)
        sources = self._attributes.sources(link) if link is not None else None
        if not sources:
            return []
        following = func.attr if func is not link and func.value is link else None
        opened: list[tuple[object, bool]] = []
        for source, is_annotation in sources:
            if type(source) is ast.Name and not is_annotation and func is not link:
                continue
            opened.append((source, is_annotation))
            if following is not None and not is_annotation and type(source) is ast.Call \
                    and type(source.func) is ast.Name:
                for binding in self.names.bindings(source.func):
                    if type(binding.node) is ast.ClassDef:
                        opened.append((method_body(binding.node, following) or binding.node.body, False))
        return opened

    def _is_pjit_with_specs(self, call: ast.Call) -> bool:
        qualified = self.names.qualified_name(call.func)
        if qualified in PARTIAL:
            arguments = _arguments(call)
            if arguments and self.names.qualified_name(_value(arguments[0])) in PJIT:
                return self._has_spec_shardings(call)
        return qualified in PJIT and self._has_spec_shardings(call)

    def _has_spec_shardings(self, call: ast.Call) -> bool:
        positional = len(call.args) + sum(keyword.arg is None for keyword in call.keywords)
        if positional > (2 if self.names.qualified_name(call.func) in PARTIAL else 1):
            return True
        if any(type(argument) is ast.Starred for argument in call.args) \
                or any(keyword.arg is None for keyword in call.keywords):
            return True
        return any(keyword.arg in SHARDING_KEYWORDS and not self._spec_free(keyword.value)
                   for keyword in call.keywords)

    def _spec_free(self, value: ast.expr, depth: int = 0) -> bool:
        if depth > 4:
            return False
        kind = type(value)
        if kind is ast.Constant:
            return value.value is None
        if kind in (ast.Tuple, ast.List):
            return all(type(element) is not ast.Starred and self._spec_free(element, depth + 1)
                       for element in value.elts)
        if kind is ast.Call:
            return self.names.qualified_name(value.func) in CONCRETE_SHARDINGS
        if kind is ast.Name:
            bindings = self.names.bindings(value)
            return bool(bindings) and all(type(binding.node) is ast.Assign
                                          and self._spec_free(binding.node.value, depth + 1) for binding in bindings)
        return False


def _arguments(call: ast.Call) -> list[ast.AST]:
    """libcst's ``Call.args``: positional, starred and keyword arguments in source order."""
    return sorted([*call.args, *call.keywords], key=lambda item: (item.lineno, item.col_offset))


def _value(argument: ast.AST) -> ast.AST:
    return argument.value if type(argument) in (ast.keyword, ast.Starred) else argument


def _calls(node) -> list[ast.Call]:
    found = []
    stack = list(node) if type(node) is list else [node]
    while stack:
        current = stack.pop()
        if type(current) is ast.Call:
            found.append(current)
        stack.extend(ast.iter_child_nodes(current))
    return found
