"""Does a block of code reach a project module that may break under ``jax.set_mesh``? (JAX401's fix safety.)

The project index (``jaxlint.project.index``) knows which modules read ``thread_resources`` or run a ``pjit`` with
``PartitionSpec``s, and which import such modules. This search looks at every name the block uses (called,
constructed or passed on), the names in the values of local variables it uses (``trainer = Trainer(cfg)`` before
the block, ``trainer.fit()`` in it) and, transitively, in the bodies of the module's own functions it calls; a name
imported from a risky project module is the answer. Conservative by design: a module counts as a whole, whatever the
block takes from it.
"""
from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

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

    def risky_use(self, body: cst.CSTNode) -> tuple[str, str, str, str] | None:
        """("calls"/"uses", the name as spelled, the module's path, why it is risky): the first risky call, else
        the first risky use (a constant of the module)."""
        found = None
        for use in self._risky_uses(body):
            if use[0] == "calls":
                return use
            found = found or use
        return found

    def _risky_uses(self, body: cst.CSTNode):
        seen: set[int] = {id(body)}
        pending = [body]
        while pending:
            for node, called in _names(pending.pop()):
                if isinstance(node, cst.Attribute):
                    qualified = self.resolver.qualified_name(node)
                    if qualified is not None:
                        found = self._risky_module(self.index.resolve(self.path, 0, qualified))
                        if found is not None:
                            yield _verb(called), get_full_name_for_node(node) or qualified, *found
                    continue
                for binding in self.resolver.bindings(node):
                    bound = binding.node
                    if isinstance(bound, (cst.Import, cst.ImportFrom)):
                        found = self._risky_module(self._imported_module(node.value, binding.qualified, bound))
                        if found is not None:
                            yield _verb(called), node.value, *found
                        continue
                    opened = _opened(bound)
                    if opened is not None and id(opened) not in seen and len(seen) < _MAX_NODES:
                        seen.add(id(opened))
                        pending.append(opened)

    def _risky_module(self, path: str | None) -> tuple[str, str] | None:
        if path is None or path == self.path:
            return None
        why = self.index.risk_of(path, self.root)
        return None if why is None else (path, why)

    def _imported_module(self, name: str, qualified: str | None, node: cst.Import | cst.ImportFrom) -> str | None:
        if isinstance(node, cst.Import) or not node.relative:
            return self.index.resolve(self.path, 0, qualified) if qualified else None
        module = get_full_name_for_node(node.module) if node.module is not None else ""
        if isinstance(node.names, cst.ImportStar):
            return None
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name) and bound.value == name:
                imported = get_full_name_for_node(alias.name) or ""
                return self.index.resolve(self.path, len(node.relative), module or "", imported)
        return None


def _verb(called: bool) -> str:
    return "calls" if called else "uses"


def _opened(bound: cst.CSTNode) -> cst.CSTNode | None:
    """What to search next for a name bound by ``bound``: a function's body, an assigned value."""
    if isinstance(bound, (cst.FunctionDef, cst.ClassDef)):
        return bound.body
    if isinstance(bound, cst.Assign):
        return bound.value
    if isinstance(bound, cst.AnnAssign):
        return bound.value
    if isinstance(bound, cst.WithItem):
        return bound.item
    return None


def _names(node: cst.CSTNode):
    """(``Name`` or outermost ``Attribute`` chain over a name, whether it is called) for every use in ``node``."""
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    while stack:
        current, called = stack.pop()
        if isinstance(current, cst.Name):
            yield current, called
            continue
        if isinstance(current, cst.Attribute):
            root = current
            while isinstance(root, cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name):
                yield current, called
                yield root, called  # the name itself (a local variable, a relative import)
                continue
            stack.append((current.value, False))
            continue
        if isinstance(current, cst.Call):
            stack.append((current.func, True))
            stack.extend((child, False) for child in iter_children(current) if child is not current.func)
            continue
        stack.extend((child, False) for child in iter_children(current))
