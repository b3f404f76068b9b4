"""Where the project constructs a class, and what it passes: JAX401's fix safety through plain names.

``def __init__(self, model): self.model = model`` says nothing of what ``self.model`` holds; the constructions of
the class do (``Trainer(Model(cfg))``, ``Trainer(model=make_model())``, in any module of the project, through any
import or alias). ``ConstructionSites.passed_modules`` answers, for one parameter of a class's ``__init__``, the
project modules whose classes every construction passes there. A value is known when it is a literal, an instance
or a class of a project module (a module counts as a whole, as in ``project_reach``), of another package
(harmless), the result of a factory whose return annotation names one (``def make() -> Model``), or a local
variable assigned one of those once. Anything else (a parameter, a factory without an annotation, ``**kwargs``) is
unknown.

The search reads every module of the index that spells the class's name (an ``ast`` parse each, once per process),
so a file whose findings used it depends on modules other than its imports: the index is told
(``ProjectIndex.depend_on_sources``) and the runner does not cache that result.
"""
from __future__ import annotations

import ast
import builtins
import re
import warnings
from dataclasses import dataclass, field

from jaxlint.project.index import ProjectIndex

_BUILTINS = frozenset(dir(builtins))
HARMLESS = ""  # a known value that is no project class (a literal, another package's object)
_MAX_HOPS = 4  # re-exports followed from an import to the module that defines a name
_MAX_DEPTH = 3  # local variables followed from a passed value to what it was assigned


@dataclass
class _Module:
    """What one module's ``ast`` says: its import bindings (name -> level, dotted name), its top-level classes and
    functions, and its calls with the function (or module) each sits in."""

    imports: dict[str, tuple[int, str]] = field(default_factory=dict)
    classes: set[str] = field(default_factory=set)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    calls: list[tuple[ast.Call, ast.AST]] = field(default_factory=list)
    assigned: set[str] = field(default_factory=set)  # names the module body stores
    tree: ast.Module | None = None


class ConstructionSites:
    def __init__(self, index: ProjectIndex) -> None:
        self.index = index
        self._modules: dict[str, _Module | None] = {}
        self._sites: dict[tuple[str, str], list[tuple[str, ast.Call, ast.AST]]] = {}

    def passed_modules(self, path: str, name: str, position: int | None, keyword: str | None) -> list[str] | None:
        """The project modules (in the order of the sites, each once) whose classes the constructions of class
        ``name`` of ``path`` pass as the ``__init__`` parameter at ``position`` (after ``self``; None:
        keyword-only) or named ``keyword``. None when no construction is seen, or when any passes an unknown value:
        then the caller knows nothing more than before, and does what it did (JAX401 still offers its fix)."""
        self.index.depend_on_sources()
        sites = self._sites.get((path, name))
        if sites is None:
            sites = self._sites[(path, name)] = list(self._find_sites(path, name))
        if not sites:
            return None
        found: list[str] = []
        for module, call, scope in sites:
            value = _argument(call, position, keyword)
            if value is None:
                return None
            if value is _NOT_PASSED:
                continue  # the default: the caller follows it in the class's own module
            known = self._value_module(module, value, scope, 0)
            if known is None:
                return None
            if known != HARMLESS and known not in found:
                found.append(known)
        return found

    # -- the sites -----------------------------------------------------------------------------------------------
    def _find_sites(self, path: str, name: str):
        spelled = _Spelled(name)
        for module_path in sorted(self.index.paths):
            info = self._module(module_path, spelled)
            if info is None:
                continue
            # The names a construction can be spelled with here: the class's, or an alias imported for it.
            spellings = {name} | {alias for alias, (_, dotted) in info.imports.items()
                                  if dotted.rsplit(".", 1)[-1] == name}
            for call, scope in info.calls:
                func = call.func
                last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if last in spellings and self._origin(module_path, func, scope) == (path, name):
                    yield module_path, call, scope

    def _module(self, path: str, spelled: _Spelled | None = None) -> _Module | None:
        """The module's ``ast`` facts (parsed once); None when it cannot be read or parsed, or, with ``spelled``,
        when its bytes do not spell that name (a construction must; then it is not parsed)."""
        if path in self._modules and spelled is None:
            return self._modules[path]
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        if spelled is not None and not spelled.in_(data):
            return None
        if path not in self._modules:
            self._modules[path] = _read_module(data)
        return self._modules[path]

    # -- what a name refers to -----------------------------------------------------------------------------------
    def _origin(self, path: str, expression: ast.expr, scope: ast.AST) -> tuple[str, str] | None:
        """(defining module, name) of the project class or function ``expression`` names in module ``path``;
        (``HARMLESS``, "") for a name of another package; None when unknown (a local value, an attribute of one)."""
        chain = _dotted(expression)
        if chain is None:
            return None
        head, *rest = chain
        if _bound_locally(scope, head):
            return None
        info = self._module(path)
        if info is None:
            return None
        if head in info.imports:
            level, dotted = info.imports[head]
            parts = [part for part in dotted.split(".") if part] + rest
            if not parts:
                return None
            target = self.index.resolve(path, level, ".".join(parts[:-1]), parts[-1])
            if target is None:
                return (HARMLESS, "") if level == 0 else None  # another package (a relative miss: unknown)
            return self._defined(target, parts[-1], 0)
        if not rest and (head in info.classes or head in info.functions):
            return path, head
        return None

    def _defined(self, path: str, name: str, hops: int) -> tuple[str, str] | None:
        """Follow re-exports (``from pkg.model import Model`` in ``pkg/__init__.py``) to the defining module."""
        info = self._module(path)
        if info is None or name in info.classes or name in info.functions:
            return path, name
        if hops < _MAX_HOPS and name in info.imports:
            level, dotted = info.imports[name]
            parts = [part for part in dotted.split(".") if part]
            if parts:
                target = self.index.resolve(path, level, ".".join(parts[:-1]), parts[-1])
                if target is not None and target != path:
                    return self._defined(target, parts[-1], hops + 1)
        return path, name  # a submodule, or a name made otherwise: the module counts as a whole

    def _value_module(self, path: str, value: ast.expr, scope: ast.AST, depth: int) -> str | None:
        """The project module of the class ``value`` is an instance of (or names), ``HARMLESS``, or None."""
        if isinstance(value, ast.Constant):
            return HARMLESS
        callee = value.func if isinstance(value, ast.Call) else value
        if isinstance(callee, ast.Name):
            info = self._module(path)
            local = _bound_locally(scope, callee.id)
            if info is None:
                return None
            if not local and callee.id in _BUILTINS and callee.id not in info.assigned:
                return HARMLESS  # ``dict(...)``, ``print``
            if local or callee.id in info.assigned:
                # A variable of the function (else of the module): what its one assignment holds.
                owner = scope if local else info.tree
                assigned = _single_assignment(owner, callee.id)
                if isinstance(value, ast.Call) or assigned is None or depth >= _MAX_DEPTH:
                    return None  # a local callable's result, or a variable assigned more than once
                return self._value_module(path, assigned, owner, depth + 1)
        origin = self._origin(path, callee, scope)
        if origin is None:
            return None
        module, name = origin
        if module == HARMLESS:
            return HARMLESS
        info = self._module(module)
        function = info.functions.get(name) if info is not None else None
        if function is None:
            return module  # a class (or a module's name): its module
        if not isinstance(value, ast.Call) or function.returns is None:
            return None  # a function passed on, or a factory that does not say what it returns
        return self._annotation_module(module, function.returns)

    def _annotation_module(self, path: str, annotation: ast.expr) -> str | None:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(annotation, ast.Constant) and annotation.value is None:
            return HARMLESS
        origin = self._origin(path, annotation, _MODULE_SCOPE)
        return None if origin is None else origin[0]


class _Spelled:
    """Whether a module's bytes spell a name as a word (``Model``, not ``ModelConfig``). A substring search first:
    most modules lack even that, and ``bytes.find`` is many times faster than a pattern that opens with ``\\b``
    (the regular expression engine tries it at every position)."""

    def __init__(self, name: str) -> None:
        self.word = name.encode()
        self.pattern = re.compile(rb"\b%s\b" % re.escape(self.word))

    def in_(self, data: bytes) -> bool:
        return self.word in data and self.pattern.search(data) is not None


_NOT_PASSED = object()
_MODULE_SCOPE = ast.Module(body=[], type_ignores=[])


def _argument(call: ast.Call, position: int | None, keyword: str | None):
    """The value a call passes to the parameter, ``_NOT_PASSED``, or None when it cannot be told (``*args`` or
    ``**kwargs`` before it is found)."""
    starred = any(isinstance(argument, ast.Starred) for argument in call.args)
    if position is not None and not starred and position < len(call.args):
        return call.args[position]
    for item in call.keywords:
        if item.arg is not None and item.arg == keyword:
            return item.value
    if starred or any(item.arg is None for item in call.keywords):
        return None
    return _NOT_PASSED


def _dotted(expression: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(expression, ast.Attribute):
        parts.append(expression.attr)
        expression = expression.value
    if not isinstance(expression, ast.Name):
        return None
    parts.append(expression.id)
    return parts[::-1]


def _scope_statements(scope: ast.AST):
    """The nodes of a function's own body (not of functions or classes inside it)."""
    stack = list(getattr(scope, "body", []))
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def _bound_locally(scope: ast.AST, name: str) -> bool:
    """Whether a function binds ``name`` itself (a parameter or a store); module-level names are looked up in the
    module's imports and definitions instead. A function's names are computed once (kept on its node)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    names = getattr(scope, "_jaxlint_own_names", None)
    if names is None:
        arguments = scope.args
        names = {argument.arg for argument in
                 arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [arguments.vararg, arguments.kwarg]
                 if argument is not None}
        names.update(node.id for node in _scope_statements(scope)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
        scope._jaxlint_own_names = names  # type: ignore[attr-defined]
    return name in names


def _single_assignment(scope: ast.AST, name: str) -> ast.expr | None:
    """The value of the one ``name = value`` of a function (or module) that stores ``name`` once (no parameter),
    else None."""
    arguments = getattr(scope, "args", None)
    if arguments is not None and any(argument.arg == name for argument in
                                     arguments.posonlyargs + arguments.args + arguments.kwonlyargs):
        return None
    stores = [node for node in _scope_statements(scope)
              if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)]
    if len(stores) != 1:
        return None
    for node in _scope_statements(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and node.targets[0] is stores[0]:
            return node.value
        if isinstance(node, ast.AnnAssign) and node.target is stores[0] and node.value is not None:
            return node.value
    return None


def _read_module(data: bytes) -> _Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    info = _Module(tree=tree)
    info.assigned = {node.id for node in _scope_statements(tree)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            info.classes.add(statement.name)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            info.functions[statement.name] = statement
    stack: list[tuple[ast.AST, ast.AST]] = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    info.imports[alias.asname] = (0, alias.name)
                else:
                    head = alias.name.split(".")[0]
                    info.imports[head] = (0, head)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    info.imports[alias.asname or alias.name] = (node.level, f"{node.module or ''}.{alias.name}")
        elif isinstance(node, ast.Call):
            info.calls.append((node, scope))
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    info.calls.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return info


_SITES: list = [None, None]  # (index, its ConstructionSites): one per run and process


def construction_sites(index: ProjectIndex) -> ConstructionSites:
    if _SITES[0] is not index:
        _SITES[0], _SITES[1] = index, ConstructionSites(index)
    return _SITES[1]

