"""jaxlint's modules import one another one way only: no import cycle, however indirect; no stage of the per-file
pipeline imports a later one; the rules (and what they share) never reach what runs them.

Every import counts, including those under ``if TYPE_CHECKING:`` and inside functions: a cycle hidden that way is
still two layers that know each other (the rule API importing the context that runs the rules). Importing
``a.b.c`` also counts as importing the packages ``a.b`` and ``a``, whose ``__init__`` runs first. Not seen:
``importlib.import_module`` with a computed name (the rule registry finding the ``jaxNNN_*`` modules).
"""
from __future__ import annotations

import ast
import re
from collections import deque
from pathlib import Path
from typing import Callable, Sequence

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


# -- layers: what may import what, beyond "no cycle" ------------------------------------------------------------
# The per-file pipeline, in the order a file goes through it (a tuple: modules of one stage). No module of a stage
# imports a later stage, however indirectly: a gate that needs the engine is no longer a gate below it.
PIPELINE: tuple[tuple[str, ...], ...] = (
    ("jaxlint.lint.prefilter",),
    ("jaxlint.lint.text_gate",),
    ("jaxlint.lint.ast_gate",),
    # cutting a file: the cut and its map back to the file (``cuts``), and the two policies choosing the cuts
    ("jaxlint.lint.cuts", "jaxlint.lint.focus", "jaxlint.lint.large_files"),
    ("jaxlint.lint.engine",),
    ("jaxlint.run",),
    ("jaxlint.output",),
    ("jaxlint.ui",),
)
# What runs the rules: a rule (and what the rules share) sees a file only through the rule API.
RUNS_THE_RULES = ("jaxlint.lint.engine", "jaxlint.run", "jaxlint.output", "jaxlint.ui")
RULE_PACKAGE = "jaxlint.rules"
SHARED_BY_RULES = ("jaxlint.analysis", "jaxlint.catalogue")


def _within(module: str, prefixes: Sequence[str]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def _is_rule_module(module: str) -> bool:
    name = module.rpartition(".")[2]
    return module.startswith(RULE_PACKAGE + ".") and re.fullmatch(r"jax\d{3}_\w+", name) is not None


def import_chain(graph: dict[str, dict[str, int]], start: str, wanted: Callable[[str], bool]) -> list[str] | None:
    """The shortest chain of imports from ``start`` to a module ``wanted`` accepts (``[start, ..., found]``)."""
    parents: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for imported in graph.get(module, {}):
            if imported in parents:
                continue
            parents[imported] = module
            if wanted(imported):
                chain = [imported]
                while parents[chain[-1]] is not None:
                    chain.append(parents[chain[-1]])
                return chain[::-1]
            queue.append(imported)
    return None


def _describe(graph: dict[str, dict[str, int]], chain: list[str]) -> str:
    return " -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(chain, chain[1:])) + f" -> {chain[-1]}"


def later_stage_imports(graph: dict[str, dict[str, int]], pipeline=PIPELINE) -> list[str]:
    """Every module of a stage that reaches a module of a later stage, with the chain of imports."""
    problems = []
    for position, stage in enumerate(pipeline):
        later = [prefix for following in pipeline[position + 1:] for prefix in following]
        for module in sorted(m for m in graph if _within(m, stage)):
            chain = import_chain(graph, module, lambda found: _within(found, later))
            if chain:
                problems.append(_describe(graph, chain))
    return problems


def rules_reaching_what_runs_them(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every module of the rules, the rule API or what they share that reaches the engine, the runner, the output
    or the ui."""
    problems = []
    for module in sorted(m for m in graph if _within(m, (RULE_PACKAGE, *SHARED_BY_RULES))):
        chain = import_chain(graph, module, lambda found: _within(found, RUNS_THE_RULES))
        if chain:
            problems.append(_describe(graph, chain))
    return problems


def shared_modules_reaching_rules(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every module of ``analysis``/``catalogue`` that reaches a rule module (``jaxNNN_*``): what the rules share sits
    below every rule (the rule API, ``jaxlint.rules.base``, it may use)."""
    problems = []
    for module in sorted(m for m in graph if _within(m, SHARED_BY_RULES)):
        chain = import_chain(graph, module, _is_rule_module)
        if chain:
            problems.append(_describe(graph, chain))
    return problems


def test_no_pipeline_stage_imports_a_later_one():
    problems = later_stage_imports(import_graph())
    assert not problems, "a stage imports a later one:\n" + "\n".join(problems)


def test_no_rule_imports_the_engine_or_what_runs_it():
    problems = rules_reaching_what_runs_them(import_graph())
    assert not problems, "rules reach what runs them:\n" + "\n".join(problems)


def test_what_the_rules_share_imports_no_rule():
    problems = shared_modules_reaching_rules(import_graph())
    assert not problems, "analysis/catalogue reach a rule module:\n" + "\n".join(problems)


def test_the_rules_folder_holds_only_rules_and_their_api():
    folder = SOURCE_ROOT / "jaxlint" / "rules"
    # besides the rules: the registry (``__init__``, and the cards that stand for rules it has not imported) and the
    # rule API (``base``)
    others = sorted(path.name for path in folder.iterdir()
                    if path.name not in ("__pycache__", "__init__.py", "cards.py", "base.py")
                    and not re.fullmatch(r"jax\d{3}_\w+\.py", path.name))
    assert not others, f"not a rule module (move it to jaxlint/analysis or jaxlint/catalogue): {others}"


def test_the_two_cutting_policies_cut_only_through_cuts():
    # One way to cut a file: ``focus`` and ``large_files`` choose what to cut, ``cuts`` cuts and maps back; a
    # policy that imports the other one (for its map, its statement scan) is a second way again.
    graph = import_graph()
    policies = ("jaxlint.lint.focus", "jaxlint.lint.large_files")
    assert "jaxlint.lint.cuts" in graph[policies[0]] and "jaxlint.lint.cuts" in graph[policies[1]]
    assert not set(policies) & set(graph[policies[0]]) and not set(policies) & set(graph[policies[1]])


def test_every_stage_and_layer_named_exists():
    modules = import_graph()
    for prefix in [p for stage in PIPELINE for p in stage] + [*RUNS_THE_RULES, RULE_PACKAGE, *SHARED_BY_RULES]:
        assert any(_within(module, (prefix,)) for module in modules), f"{prefix}: no such module (renamed?)"


def test_the_layer_checks_find_violations():
    # a stage that reaches a later one through a module outside the pipeline, and one that reaches an earlier one
    graph = {"jaxlint.lint.text_gate": {"jaxlint.lint.names": 3}, "jaxlint.lint.names": {"jaxlint.lint.ast_gate": 7},
             "jaxlint.lint.ast_gate": {"jaxlint.lint.prefilter": 1}, "jaxlint.lint.prefilter": {},
             "jaxlint.lint.focus": {"jaxlint.lint.large_files": 2}, "jaxlint.lint.large_files": {}}
    assert later_stage_imports(graph) == [
        "jaxlint.lint.text_gate (line 3) -> jaxlint.lint.names (line 7) -> jaxlint.lint.ast_gate"]
    graph = {"jaxlint.rules.jax101_x": {"jaxlint.rules.base": 1}, "jaxlint.rules.base": {"jaxlint.run.runner": 2},
             "jaxlint.run.runner": {}, "jaxlint.analysis.calls": {"jaxlint.rules.base": 4}}
    assert rules_reaching_what_runs_them(graph) == [
        "jaxlint.analysis.calls (line 4) -> jaxlint.rules.base (line 2) -> jaxlint.run.runner",
        "jaxlint.rules.base (line 2) -> jaxlint.run.runner",
        "jaxlint.rules.jax101_x (line 1) -> jaxlint.rules.base (line 2) -> jaxlint.run.runner"]
    graph = {"jaxlint.catalogue.symbols": {"jaxlint.rules.base": 1, "jaxlint.analysis.calls": 2},
             "jaxlint.analysis.calls": {"jaxlint.rules.jax201_tuple_return": 5}, "jaxlint.rules.base": {},
             "jaxlint.rules.jax201_tuple_return": {}}
    assert shared_modules_reaching_rules(graph) == [
        "jaxlint.analysis.calls (line 5) -> jaxlint.rules.jax201_tuple_return",
        "jaxlint.catalogue.symbols (line 2) -> jaxlint.analysis.calls (line 5) -> jaxlint.rules.jax201_tuple_return"]


# -- the pipeline knows no rule --------------------------------------------------------------------------------
PIPELINE_PACKAGES = ("jaxlint.lint", "jaxlint.run")


def rule_specific_code(modules: dict[str, Path], graph: dict[str, dict[str, int]]) -> list[str]:
    """What of ``lint/`` and ``run/`` knows a particular rule: an import of a rule module (``jaxNNN_*``, directly),
    or a rule's code in a string the program uses (docstrings and comments may name rules as examples; the codes
    the engine reports itself, ``engine_codes``, are the engine's own)."""
    from jaxlint.lint.engine_codes import ENGINE_CODES

    problems = []
    for module in sorted(m for m in modules if _within(m, PIPELINE_PACKAGES)):
        problems += [f"{module} (line {line}) imports {imported}" for imported, line in graph[module].items()
                     if _is_rule_module(imported)]
        tree = ast.parse(modules[module].read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                codes = set(re.findall(r"\bJAX\d{3}\b", node.value)) - ENGINE_CODES.keys()
                if codes:
                    problems.append(f"{module} (line {node.lineno}) names {', '.join(sorted(codes))}")
    return problems


def test_the_pipeline_holds_no_rule_specific_code():
    # Issue 38: a rule's knowledge lives in its module; ``lint/`` and ``run/`` run whatever rules there are.
    problems = rule_specific_code(_modules(), import_graph())
    assert not problems, "rule-specific code in the pipeline:\n" + "\n".join(problems)


def test_the_rule_specific_code_check_finds_it(tmp_path):
    gate = tmp_path / "gate.py"
    gate.write_text('"""Gates JAX101 (a docstring may name it)."""\nSKIP = {"JAX201"}  # a rule\'s code\n'
                    'PARSE = "JAX000"\n')
    graph = {"jaxlint.lint.gate": {"jaxlint.rules.jax501_flax_removed_module": 3, "jaxlint.rules.base": 4}}
    assert rule_specific_code({"jaxlint.lint.gate": gate}, graph) == [
        "jaxlint.lint.gate (line 3) imports jaxlint.rules.jax501_flax_removed_module",
        "jaxlint.lint.gate (line 2) names JAX201"]
