"""The classes and functions of one release, read statically (``ast``): per public class, its constructor and its
members (instance, class and static methods, properties, attributes) with their parameters and default values, its
bases followed within the wheel; per public function, its parameters with their default values. Cached beside the
wheel as JSON, as ``snapshot.py`` caches the names."""
from __future__ import annotations

import ast
from pathlib import Path

from catalogue_gen.snapshot import cached
from catalogue_gen.wheel import Wheel, is_public_module, parameters

SIGNATURE_FORMAT = 1

# Bases that add no public member the diff needs to know (a class with any other base from outside the wheel has
# members the wheel does not show: its members are "open", and no member is reported removed).
_CLOSED_BASES = frozenset({"object", "Generic", "Protocol", "ABC", "abc.ABC", "typing.Generic", "typing.Protocol",
                           "NamedTuple", "typing.NamedTuple", "metaclass"})
# Decorators that leave a method's own signature as written.
_PLAIN_DECORATORS = frozenset({"abstractmethod", "abc.abstractmethod", "final", "typing.final", "override",
                               "typing_extensions.override", "api_boundary", "traceback_util.api_boundary"})
_KINDS = {"staticmethod": "staticmethod", "classmethod": "classmethod", "property": "property",
          "cached_property": "property", "functools.cached_property": "property"}
_DATACLASS = ("dataclass", "dataclasses.dataclass", "dataclass(", "dataclasses.dataclass(")


def load_signature_snapshot(cache: Path, version: str, wheel_file: Path) -> dict:
    return cached(cache / f"signatures-{version}-v{SIGNATURE_FORMAT}.json", lambda: signature_snapshot(wheel_file))


def signature_snapshot(wheel_file: Path, package: str = "jax") -> dict:
    return ClassReader(Wheel(wheel_file, package)).snapshot()


class ClassReader:
    def __init__(self, wheel: Wheel):
        self.w = wheel
        self._trees: dict[str, dict[str, ast.AST]] = {}
        self._classes: dict[str, dict | None] = {}

    def snapshot(self) -> dict:
        classes: dict[str, dict] = {}
        functions: dict[str, list] = {}
        for mod in sorted(self.w.files):
            if not is_public_module(mod) or self.w.info(mod) is None:
                continue
            for name, origin in self.w.public_names(mod).items():
                origin = self.w.resolve(origin)
                node = self._definition(origin)
                if isinstance(node, ast.ClassDef):
                    read = self.read_class(origin)
                    if read is not None:
                        classes[f"{mod}.{name}"] = read
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _decorators_plain(node):
                    params, defaults = signature(node, drop_first=False)
                    functions[f"{mod}.{name}"] = {"kind": "function", "params": params,
                                                        "defaults": defaults, "origin": origin}
        return {"format": SIGNATURE_FORMAT, "classes": classes, "functions": functions}

    # -- definitions -------------------------------------------------------------------------------------------
    def _definitions(self, mod: str) -> dict[str, ast.AST]:
        """The module's top-level definitions (inside ``if``/``try`` too; the last one wins, as at import)."""
        if mod not in self._trees:
            found: dict[str, ast.AST] = {}
            fname = self.w.files.get(mod)
            if fname is not None:
                try:
                    _collect(ast.parse(self.w.zip.read(fname)).body, found)
                except SyntaxError:
                    pass
            self._trees[mod] = found
        return self._trees[mod]

    def _definition(self, origin: str) -> ast.AST | None:
        mod, _, name = origin.partition(":")
        return self._definitions(mod).get(name) if name else None

    def read_class(self, origin: str, depth: int = 0) -> dict | None:
        """``{"origin", "init", "members", "open"}``: members of the class and of its bases in the wheel."""
        if origin in self._classes:
            return self._classes[origin]
        self._classes[origin] = None  # a cycle reads as unknown
        node = self._definition(origin)
        if not isinstance(node, ast.ClassDef) or depth > 20:
            return None
        mod = origin.partition(":")[0]
        info = self.w.info(mod)
        members: dict[str, dict] = {}
        is_open = any(k.arg == "metaclass" for k in node.keywords)
        init = None
        # bases first, so that the class's own members override them (a simplified MRO: later bases lose)
        for base in reversed(node.bases):
            base_origin = self._base_origin(base, info) if info is not None else ""
            read = self.read_class(self.w.resolve(base_origin), depth + 1) if base_origin else None
            if read is None:
                text = ast.unparse(base.value if isinstance(base, ast.Subscript) else base)
                is_open = is_open or text not in _CLOSED_BASES
                continue
            members.update(read["members"])
            is_open = is_open or read["open"]
            init = read["init"] if read["init"] is not None else init
        own = class_members(node)
        if "__getattr__" in own:
            is_open = True
        members.update({n: m for n, m in own.items() if n != "__init__"})
        if "__init__" in own:
            init = own["__init__"]
        elif _is_dataclass(node):
            init = {"kind": "constructor", "params": dataclass_init(node, (init or {}).get("params")), "defaults": {}}
        members = {n: m for n, m in members.items() if not n.startswith("_")}
        result = {"origin": origin, "init": init, "members": members, "open": is_open}
        self._classes[origin] = result
        return result

    def _base_origin(self, base: ast.expr, info) -> str:
        if isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name):
            return info.bindings.get(base.id, "") or (f"{info.name}:{base.id}"
                                                     if base.id in self._definitions(info.name) else "")
        if isinstance(base, ast.Attribute):
            return self.w._attr_origin(base, info)
        return ""


def _collect(body: list[ast.stmt], found: dict[str, ast.AST]) -> None:
    for st in body:
        if isinstance(st, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if not any(_dotted(d) in ("overload", "typing.overload") for d in st.decorator_list):
                found[st.name] = st
        elif isinstance(st, ast.If):
            _collect(st.body, found)
            _collect(st.orelse, found)
        elif isinstance(st, ast.Try):
            _collect(st.body, found)
            for handler in st.handlers:
                _collect(handler.body, found)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "("
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover
        return ""


def _decorators_plain(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return all(_dotted(d) in _PLAIN_DECORATORS for d in node.decorator_list)


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any(_dotted(d).startswith(_DATACLASS) for d in node.decorator_list)


def class_members(node: ast.ClassDef) -> dict[str, dict]:
    """Name -> ``{"kind", "params", "defaults"}`` for what the class body defines; ``params`` None when a decorator
    may change the signature (``functools.wraps``, a project decorator)."""
    members: dict[str, dict] = {}
    for st in node.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = [_dotted(d) for d in st.decorator_list]
            if any(d in ("overload", "typing.overload") for d in decorators):
                continue
            if any(d.endswith((".setter", ".deleter")) for d in decorators):
                continue
            kind = next((_KINDS[d] for d in decorators if d in _KINDS), "method")
            plain = all(d in _KINDS or d in _PLAIN_DECORATORS for d in decorators)
            entry = {"kind": kind, "params": None, "defaults": {}}
            if plain and kind != "property":
                entry["params"], entry["defaults"] = signature(st, drop_first=kind != "staticmethod")
            members[st.name] = entry
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    members[t.id] = {"kind": "attribute", "params": None, "defaults": {}}
    return members


def dataclass_init(node: ast.ClassDef, inherited: list | None) -> list | None:
    """The generated ``__init__`` of a dataclass: its bases' fields, then its own annotated fields (``ClassVar``s and
    ``field(init=False)`` are not parameters); keyword-only when the decorator says ``kw_only=True``."""
    kw_only = any(isinstance(d, ast.Call) and any(k.arg == "kw_only" and ast.unparse(k.value) == "True"
                                                   for k in d.keywords) for d in node.decorator_list)
    params = [p for p in (inherited or []) if p[1] in ("pk", "kw")]
    for st in node.body:
        if not isinstance(st, ast.AnnAssign) or not isinstance(st.target, ast.Name):
            continue
        if "ClassVar" in ast.unparse(st.annotation) or (
                isinstance(st.value, ast.Call) and any(k.arg == "init" and ast.unparse(k.value) == "False"
                                                       for k in st.value.keywords)):
            continue
        params = [p for p in params if p[0] != st.target.id]
        params.append([st.target.id, "kw" if kw_only else "pk", "" if st.value is None else "d"])
    return params


def signature(node: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool) -> tuple[list, dict[str, str]]:
    """The parameters (``wheel.parameters``' triples), without ``self``/``cls``; a ``**kwargs`` whose body only
    reads named keys (``kwargs.pop("axis")``) and rejects the rest becomes those keys; and name -> default value
    (source text) for literal defaults."""
    params = parameters(node.args)
    if drop_first and params and params[0][1] in ("po", "pk"):
        params = params[1:]
    if params and params[-1][1] == "varkw":
        read, closed = kwargs_read(node, params[-1][0])
        known = {p[0] for p in params}
        extra = [[k, "kw", "d"] for k in read if k not in known]
        params = params[:-1] + extra + ([] if closed else [params[-1]])
    return params, literal_defaults(node.args)


def literal_defaults(args: ast.arguments) -> dict[str, str]:
    """Name -> the default's source, for defaults that are literals (``True``, ``None``, ``1e-6``, ``"auto"``): the
    values a changed default can be stated with; a sentinel object or a call is left out."""
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    out = {}
    for arg, default in pairs:
        try:
            ast.literal_eval(default)
        except Exception:
            continue
        out[arg.arg] = ast.unparse(default)
    return out


def kwargs_read(node: ast.FunctionDef | ast.AsyncFunctionDef, kwargs: str) -> tuple[list[str], bool]:
    """The keys the body reads from ``**kwargs`` (``pop``/``get``/``[...]``/``in``), and whether it rejects the rest
    (``if kwargs: raise ...``, ``assert not kwargs``). Not closed when ``kwargs`` is handed on anywhere."""
    read: list[str] = []
    closed = False
    handed_on = False
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and _is(sub.func.value, kwargs) \
                and sub.func.attr in ("pop", "get") and sub.args and isinstance(sub.args[0], ast.Constant) \
                and isinstance(sub.args[0].value, str):
            read.append(sub.args[0].value)
        elif isinstance(sub, ast.Subscript) and _is(sub.value, kwargs) and isinstance(sub.slice, ast.Constant) \
                and isinstance(sub.slice.value, str):
            read.append(sub.slice.value)
        elif isinstance(sub, ast.Compare) and len(sub.ops) == 1 and isinstance(sub.ops[0], ast.In) \
                and _is(sub.comparators[0], kwargs) and isinstance(sub.left, ast.Constant):
            read.append(str(sub.left.value))
        elif isinstance(sub, ast.If) and _mentions(sub.test, kwargs) and any(isinstance(s, ast.Raise)
                                                                               for s in sub.body):
            closed = True
        elif isinstance(sub, ast.Assert) and isinstance(sub.test, ast.UnaryOp) and isinstance(sub.test.op, ast.Not) \
                and _mentions(sub.test.operand, kwargs):
            closed = True
        elif isinstance(sub, ast.keyword) and sub.arg is None and _is(sub.value, kwargs):
            handed_on = True
    return list(dict.fromkeys(read)), closed and not handed_on


def _is(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _mentions(test: ast.expr, name: str) -> bool:
    """``kwargs``, ``len(kwargs)``, ``kwargs.keys()``: a test of whether anything is left in it."""
    if _is(test, name):
        return True
    if isinstance(test, ast.Call) and test.args == [] and isinstance(test.func, ast.Attribute):
        return _is(test.func.value, name)
    return isinstance(test, ast.Call) and _dotted(test.func) == "len" and len(test.args) == 1 \
        and _is(test.args[0], name)
