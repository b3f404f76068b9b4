"""Does a ``with`` body run a ``pjit`` whose shardings are (or may be) bare ``PartitionSpec``s? (JAX401's fix safety.)

Under ``with jax.set_mesh(m):`` such a ``pjit`` raises ``RuntimeError: pjit requires a non-empty mesh in context if
you are passing `PartitionSpec`s to pjit`` (JAX 0.12.0.1), while under ``with m:`` it works. The search follows, in
the same module: calls in the body, the module's own functions they call (transitively), names bound to a
``pjit(...)`` object, functions decorated with ``pjit`` / ``functools.partial(pjit, ...)``, and calls through the
attributes of ``self`` (``attribute_values``): ``self.step(x)`` (the class's method, or what ``self.step`` holds) and
``self.model.train(x)`` where ``self.model`` holds an instance of one of the module's classes (its ``train``).
"""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.attribute_values import AttributeValues, method_body, self_attribute
from jaxlint.lint.names import NameResolver
from jaxlint.lint.walk import iter_children

PJIT = frozenset({"jax.experimental.pjit.pjit", "jax.experimental.pjit"})
CONCRETE_SHARDINGS = frozenset({
    "jax.sharding.NamedSharding", "jax.sharding.SingleDeviceSharding", "jax.sharding.PositionalSharding",
    "jax.sharding.GSPMDSharding",
})
SHARDING_KEYWORDS = frozenset({"in_shardings", "out_shardings", "in_axis_resources", "out_axis_resources"})
PARTIAL = frozenset({"functools.partial"})
_MAX_FUNCTIONS = 64  # how many of the module's functions one search may open


class PjitSpecFinder:
    def __init__(self, module: cst.Module, resolver: NameResolver) -> None:
        self.module = module
        self.resolver = resolver
        self._untracked: bool | None = None
        self._attributes = AttributeValues(resolver)

    def body_runs_pjit_with_specs(self, body: cst.CSTNode) -> bool:
        """True if the body may run such a pjit: it reaches one, or the module keeps one where calls are not
        followed (``self.step = pjit(...)``, a dict of them...)."""
        return self._reaches(body) or self._module_has_untracked()

    def _module_has_untracked(self) -> bool:
        if self._untracked is None:
            self._untracked = False
            for parent, call in _calls_with_parents(self.module):
                if not self._is_pjit_with_specs(call):
                    continue
                bound_to_name = isinstance(parent, cst.Assign) and parent.value is call \
                    and all(isinstance(t.target, cst.Name) for t in parent.targets)
                if not bound_to_name and not isinstance(parent, cst.Decorator):
                    self._untracked = True
                    break
        return self._untracked

    def _reaches(self, body: cst.CSTNode) -> bool:
        seen: set[int] = set()
        pending = [body]
        while pending and len(seen) < _MAX_FUNCTIONS:
            for call in _calls(pending.pop()):
                if self._is_pjit_with_specs(call):
                    return True
                if isinstance(call.func, cst.Attribute):
                    for node in self._through_self(call.func):
                        if isinstance(node, cst.Name):  # ``self.step = step``: the call runs ``step``
                            if self._name_runs(node, seen, pending):
                                return True
                        elif id(node) not in seen:
                            seen.add(id(node))
                            pending.append(node)
                    continue
                if isinstance(call.func, cst.Name) and self._name_runs(call.func, seen, pending):
                    return True
        return False

    def _name_runs(self, name: cst.Name, seen: set[int], pending: list) -> bool:
        """Whether calling ``name`` runs such a pjit directly; the bodies of the functions it names go to
        ``pending``."""
        for binding in self.resolver.bindings(name):
            node = binding.node
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) \
                    and self._is_pjit_with_specs(node.value):
                return True
            if isinstance(node, cst.FunctionDef) and id(node) not in seen:
                if any(self._is_pjit_decorator(d.decorator) for d in node.decorators):
                    return True
                seen.add(id(node))
                pending.append(node.body)
        return False

    def _through_self(self, func: cst.Attribute) -> list[cst.CSTNode]:
        """What a call of ``self.<a>(...)`` or ``self.<a>.<m>(...)`` runs, to search next: the class's method
        ``a``, or what ``self.<a>`` holds (a name the call runs, as a ``Name``; values, searched as written; for an
        instance of a class of the module, its method ``m``, else its whole body)."""
        link = self_attribute(func)
        sources = self._attributes.sources(link) if link is not None else None
        if not sources:
            return []
        following = func.attr.value if func is not link and func.value is link else None
        opened: list[cst.CSTNode] = []
        for source in sources:
            if isinstance(source, cst.Name) and func is not link:
                continue  # ``self.a = a`` then ``self.a.m()``: which class ``a`` holds is not followed
            opened.append(source)
            if following is not None and isinstance(source, cst.Call) and isinstance(source.func, cst.Name):
                for binding in self.resolver.bindings(source.func):
                    if isinstance(binding.node, cst.ClassDef):
                        opened.append(method_body(binding.node, following) or binding.node.body)
        return opened

    def _is_pjit_with_specs(self, call: cst.Call) -> bool:
        qualified = self.resolver.qualified_name(call.func)
        if qualified in PARTIAL and call.args and self.resolver.qualified_name(call.args[0].value) in PJIT:
            return self._has_spec_shardings(call)
        return qualified in PJIT and self._has_spec_shardings(call)

    def _is_pjit_decorator(self, decorator: cst.BaseExpression) -> bool:
        return isinstance(decorator, cst.Call) and self._is_pjit_with_specs(decorator)

    def _has_spec_shardings(self, call: cst.Call) -> bool:
        """Shardings that are, or may be, ``PartitionSpec``s: anything but ``None`` and concrete ``Sharding``s
        (``in_axis_resources=param_spec`` built by a helper may well hold specs)."""
        positional = [arg for arg in call.args if arg.keyword is None]
        if len(positional) > (2 if self.resolver.qualified_name(call.func) in PARTIAL else 1):
            return True  # shardings passed by position
        for arg in call.args:
            if arg.star:
                return True  # the shardings may be in there
            if arg.keyword is not None and arg.keyword.value in SHARDING_KEYWORDS and not self._spec_free(arg.value):
                return True
        return False

    def _spec_free(self, value: cst.BaseExpression, depth: int = 0) -> bool:
        """Known to hold no ``PartitionSpec``: ``None``, concrete shardings, containers and names of those."""
        if depth > 4:
            return False
        if isinstance(value, cst.Name) and value.value == "None":
            return True
        if isinstance(value, (cst.Tuple, cst.List)):
            return all(isinstance(e, cst.Element) and self._spec_free(e.value, depth + 1) for e in value.elements)
        if isinstance(value, cst.Call):
            return self.resolver.qualified_name(value.func) in CONCRETE_SHARDINGS
        if isinstance(value, cst.Name):
            bindings = self.resolver.bindings(value)
            return bool(bindings) and all(
                isinstance(b.node, cst.Assign) and self._spec_free(b.node.value, depth + 1) for b in bindings)
        return False


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, cst.Attribute):
            stack.append(current.value)  # not ``.attr``: it is no variable
        else:
            stack.extend(iter_children(current))


def _calls_with_parents(module: cst.Module):
    stack: list[tuple[cst.CSTNode | None, cst.CSTNode]] = [(None, module)]
    while stack:
        parent, current = stack.pop()
        if isinstance(current, cst.Call):
            yield parent, current
        stack.extend((current, child) for child in iter_children(current))


def _calls(node: cst.CSTNode):
    for child in _walk(node):
        if isinstance(child, cst.Call):
            yield child
