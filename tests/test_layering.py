"""jaxlint's modules import one another one way only: no import cycle, however indirect.

Every import counts, including those under ``if TYPE_CHECKING:`` and inside functions: a cycle hidden that way is
still two layers that know each other (the rule API importing the context that runs the rules). Importing
``a.b.c`` also counts as importing the packages ``a.b`` and ``a``, whose ``__init__`` runs first. Not seen:
``importlib.import_module`` with a computed name (the rule registry finding the ``jaxNNN_*`` modules).
"""
from __future__ import annotations

import ast
from pathlib import Path

import jaxlint

SOURCE_ROOT = Path(jaxlint.__file__).resolve().parent.parent


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted((SOURCE_ROOT / "jaxlint").rglob("*.py")):
        parts = list(path.relative_to(SOURCE_ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _imported_names(module: str, path: Path) -> list[tuple[str, int]]:
    """Every module name an import statement of ``module`` mentions (``from m import n``: m and m.n), with lines."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            found.append((base, node.lineno))
            found.extend((f"{base}.{alias.name}", node.lineno) for alias in node.names)
    return found


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {jaxlint module it imports: first line}, packages of imported submodules included."""
    modules = _modules()
    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    for module, path in modules.items():
        own_packages = {module.rsplit(".", i)[0] for i in range(module.count(".") + 1)}
        for name, line in _imported_names(module, path):
            while name and name not in modules:  # ``from m import function``: the module is m
                name = name.rpartition(".")[0]
            while name:
                if name not in own_packages:
                    graph[module].setdefault(name, line)
                name = name.rpartition(".")[0]
    return graph


def import_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(graph[successor])))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    return cycles


def test_no_import_cycle_among_jaxlint_modules():
    graph = import_graph()
    problems = []
    for cycle in import_cycles(graph):
        edges = [f"    {a} -> {b} (line {graph[a][b]})" for a in cycle for b in sorted(graph[a]) if b in cycle]
        problems.append("cycle: " + ", ".join(cycle) + "\n" + "\n".join(edges))
    assert not problems, "\n".join(problems)


def test_the_cycle_finder_finds_cycles():
    assert import_cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b": 1}, "b": {}}) == []


def test_the_graph_sees_hidden_and_package_imports():
    graph = import_graph()
    assert "jaxlint.rules.base" in graph["jaxlint.lint.context"]  # a plain import
    assert "jaxlint.rules" in graph["jaxlint.lint.context"]  # the package of an imported submodule runs first
    assert "jaxlint.run.notebooks" in graph["jaxlint.run.runner"]  # an import inside a function
