"""Does a block of code reach a project module that may break under ``jax.set_mesh``? (JAX401's fix safety.)

The project index (``jaxlint.project.index``) knows which modules read ``thread_resources`` or run a ``pjit`` with
``PartitionSpec``s, and which import such modules. This search looks at every name the block uses (called,
constructed or passed on), the names in the values of local variables it uses (``trainer = Trainer(cfg)`` before
the block, ``trainer.fit()`` in it), in the annotations of parameters it uses (``trainer: Trainer``), in what the
attributes of ``self`` it uses hold (``self.model.train()`` with ``self.model = Model(cfg)`` or ``self.model: Model``
in the class: ``attribute_values``), in what the project's constructions of the class pass to an unannotated
``__init__`` parameter (``self.model = model``: ``construction_sites``), in a factory's return annotation
(``def make() -> Model``) and, transitively, in the bodies of the module's own functions it calls; a name
imported from a risky project module is the answer. Conservative by design: a module counts as a whole, whatever the
block takes from it (``self.model.train()`` reaches the module of ``Model``, whichever of its functions ``train``
runs).
"""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.attribute_values import AttributeValues, self_attribute
from jaxlint.analysis.construction_sites import construction_sites
from jaxlint.lint.names import NameResolver
from jaxlint.lint.walk import iter_children
from jaxlint.project.index import ProjectIndex

_MAX_NODES = 64  # function bodies and values one search may open


class ProjectReach:
    def __init__(self, resolver: NameResolver, index: ProjectIndex, path: str, root: str | None = None) -> None:
        self.resolver = resolver
        self.index = index
        self.path = path
        self.root = root  # where the paths in the reasons are shown from
        self._attributes = AttributeValues(resolver)

    def risky_use(self, body: cst.CSTNode) -> tuple[str, str, str, str] | None:
        """("calls"/"uses", the name as spelled, the module's path, why it is risky): the first risky call, else
        the first risky use (a constant of the module); one the block spells itself before one found through an
        attribute of ``self`` (a base class's module, say)."""
        best: tuple[int, tuple[str, str, str, str]] | None = None
        for *use, through_attribute in self._risky_uses(body):
            rank = (0 if use[0] == "calls" else 1) + (2 if through_attribute else 0)
            if rank == 0:
                return tuple(use)
            if best is None or rank < best[0]:
                best = (rank, tuple(use))
        return best[1] if best is not None else None

    def _risky_uses(self, body: cst.CSTNode):
        """Each risky use: (verb, name, path, why, whether found through an attribute of ``self``). One found in what
        such an attribute holds is told by the chain the block spells (``self.model.train``), not by the name inside
        the class (``Model``)."""
        seen: set[int] = {id(body)}
        pending: list[tuple[cst.CSTNode, tuple[str, str] | None]] = [(body, None)]

        def open_next(node: cst.CSTNode | None, told: tuple[str, str] | None) -> None:
            if node is not None and id(node) not in seen and len(seen) < _MAX_NODES:
                seen.add(id(node))
                pending.append((node, told))

        while pending:
            current, origin = pending.pop()
            for node, called in _names(current):
                verb, spelled = origin or (_verb(called), "")
                if isinstance(node, cst.Attribute):
                    qualified = self.resolver.qualified_name(node)
                    if qualified is not None:
                        found = self._risky_module(self.index.resolve(self.path, 0, qualified))
                        if found is not None:
                            yield verb, spelled or cst.helpers.get_full_name_for_node(node) or qualified, *found, bool(spelled)
                        continue
                    link = self_attribute(node)
                    sources = self._attributes.sources(link) if link is not None else None
                    for source in sources or ():
                        open_next(source, origin or (_verb(called), cst.helpers.get_full_name_for_node(node) or link.attr.value))
                    continue
                if isinstance(node, cst.SimpleString):  # a string annotation: ``self.model: "Model"``
                    for name, statement, qualified in self._string_annotation(node):
                        found = self._risky_module(self._imported_module(name, qualified, statement))
                        if found is not None:
                            yield verb, spelled or name, *found, bool(spelled)
                    continue
                for binding in self.resolver.bindings(node):
                    bound = binding.node
                    if isinstance(bound, (cst.Import, cst.ImportFrom)):
                        found = self._risky_module(self._imported_module(node.value, binding.qualified, bound))
                        if found is not None:
                            yield verb, spelled or node.value, *found, bool(spelled)
                        continue
                    if isinstance(bound, cst.Param) and bound.annotation is None:
                        # ``def __init__(self, model)``: what the project's constructions of the class pass.
                        for path in self._constructed(node, bound):
                            found = self._risky_module(path)
                            if found is not None:
                                yield verb, spelled or node.value, *found, bool(spelled)
                        open_next(bound.default, origin)
                        continue
                    if isinstance(bound, cst.FunctionDef) and bound.returns is not None:
                        open_next(bound.returns, origin)  # a factory's ``-> Model``
                    open_next(_opened(bound), origin)

    def _constructed(self, name: cst.Name, parameter: cst.Param) -> list[str]:
        """The project modules whose classes every construction of the module's class passes to ``parameter`` of
        its ``__init__`` (``construction_sites``). Empty for any other parameter, and where a construction passes
        an unknown value or none is seen: the value stays unknown, as before, and the fix is still offered (withheld
        only on evidence, as for every other unknown)."""
        scope = self.resolver.scope_of(name)
        while scope is not None and not (scope.kind == "function" and isinstance(scope.node, cst.FunctionDef)
                                         and _has_param(scope.node, parameter)):
            scope = scope.parent
        owner = scope.parent if scope is not None else None
        if owner is None or owner.kind != "class" or owner.parent is None or owner.parent.kind != "module" \
                or scope.node.name.value != "__init__":
            return []
        parameters = scope.node.params
        positional = [*parameters.posonly_params, *parameters.params]
        place = next((number for number, item in enumerate(positional) if item is parameter), None)
        if place == 0:
            return []  # ``self``
        if place is None and not any(item is parameter for item in parameters.kwonly_params):
            return []  # ``*args``, ``**kwargs``
        return construction_sites(self.index).passed_modules(
            self.path, owner.node.name.value, None if place is None else place - 1, parameter.name.value) or []

    def _string_annotation(self, node: cst.SimpleString):
        """(name, import statement, qualified name) of the module's import a string annotation starts with
        (``"Model"``, ``"m.Model"``); nothing for any other string."""
        value = node.evaluated_value
        text = value.strip() if isinstance(value, str) else ""
        first, _, rest = text.partition(".")
        if not first.isidentifier() or (rest and not all(part.isidentifier() for part in rest.split("."))):
            return
        for binding in self.resolver.module_scope.bindings.get(first, ()):
            if isinstance(binding.node, (cst.Import, cst.ImportFrom)):
                qualified = binding.qualified
                yield first, binding.node, (f"{qualified}.{rest}" if qualified and rest else qualified)

    def _risky_module(self, path: str | None) -> tuple[str, str] | None:
        if path is None or path == self.path:
            return None
        why = self.index.risk_of(path, self.root)
        return None if why is None else (path, why)

    def _imported_module(self, name: str, qualified: str | None, node: cst.Import | cst.ImportFrom) -> str | None:
        if isinstance(node, cst.Import) or not node.relative:
            return self.index.resolve(self.path, 0, qualified) if qualified else None
        module = cst.helpers.get_full_name_for_node(node.module) if node.module is not None else ""
        if isinstance(node.names, cst.ImportStar):
            return None
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name) and bound.value == name:
                imported = cst.helpers.get_full_name_for_node(alias.name) or ""
                return self.index.resolve(self.path, len(node.relative), module or "", imported)
        return None


def _verb(called: bool) -> str:
    return "calls" if called else "uses"


def _has_param(function: cst.FunctionDef, parameter: cst.Param) -> bool:
    parameters = function.params
    return any(item is parameter for item in (*parameters.posonly_params, *parameters.params,
                                               *parameters.kwonly_params))


def _opened(bound: cst.CSTNode) -> cst.CSTNode | None:
    """What to search next for a name bound by ``bound``: a function's body, an assigned value, a parameter's
    annotation."""
    if isinstance(bound, (cst.FunctionDef, cst.ClassDef)):
        return bound.body
    if isinstance(bound, cst.Assign):
        return bound.value
    if isinstance(bound, cst.AnnAssign):
        return bound.value
    if isinstance(bound, cst.WithItem):
        return bound.item
    if isinstance(bound, cst.Param):  # ``trainer: Trainer``
        return bound.annotation
    return None


def _names(node: cst.CSTNode):
    """(``Name`` or outermost ``Attribute`` chain over a name, whether it is called) for every use in ``node``, and
    the strings of annotations (``"Model"`` names a class too)."""
    stack: list[tuple[cst.CSTNode, bool, bool]] = [(node, False, False)]  # (node, called, in an annotation)
    while stack:
        current, called, annotation = stack.pop()
        if isinstance(current, cst.Name) or (annotation and isinstance(current, cst.SimpleString)):
            yield current, called
            continue
        if isinstance(current, cst.Annotation):
            annotation = True
        if isinstance(current, cst.Attribute):
            root = current
            while isinstance(root, cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name):
                yield current, called
                yield root, called  # the name itself (a local variable, a relative import)
                continue
            stack.append((current.value, False, annotation))
            continue
        if isinstance(current, cst.Call):
            stack.append((current.func, True, annotation))
            stack.extend((child, False, annotation) for child in iter_children(current) if child is not current.func)
            continue
        stack.extend((child, False, annotation) for child in iter_children(current))
