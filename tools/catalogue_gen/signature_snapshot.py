"""The classes and functions of one release, read statically (``ast``): per public class, its constructor and its
members (instance, class and static methods, properties, attributes) with their parameters and default values, its
bases followed within the wheel; per public function, its parameters with their default values. Cached beside the
wheel as JSON, as ``snapshot.py`` caches the names.

The same reader serves jax, jaxlib (its ``.py`` modules), flax and optax (``library_signatures.py``). What it follows
beyond a plain ``def``, as ``inspect.signature`` would at run time:

- a constructor written as ``__new__`` (a class whose MRO defines ``__new__`` before any ``__init__``);
- a decorator of the wheel that hands back the function it is given (flax's ``nn.compact`` sets an attribute and
  returns it) or a ``functools.wraps`` wrapper of it (``__wrapped__``: the signature is the wrapped one's);
- the generated ``__init__`` of dataclasses, of classes built by a ``dataclass_transform`` base (flax's linen
  ``Module`` and ``struct.PyTreeNode``: every subclass is a dataclass, ``parent``/``name`` keyword-only) and of
  ``NamedTuple``s (optax's states), with the literal defaults of their fields."""
from __future__ import annotations

import ast
from pathlib import Path

from catalogue_gen.snapshot import cached
from catalogue_gen.wheel import Wheel, is_public_module, parameters

SIGNATURE_FORMAT = 2

# Bases that add no public member the diff needs to know (a class with any other base from outside the wheel has
# members the wheel does not show: its members are "open", and no member is reported removed).
_CLOSED_BASES = frozenset({"object", "Generic", "Protocol", "ABC", "abc.ABC", "typing.Generic", "typing.Protocol",
                           "NamedTuple", "typing.NamedTuple", "metaclass"})
# Decorators that leave a method's own signature as written.
_PLAIN_DECORATORS = frozenset({"abstractmethod", "abc.abstractmethod", "final", "typing.final", "override",
                               "typing_extensions.override", "api_boundary", "traceback_util.api_boundary"})
_KINDS = {"staticmethod": "staticmethod", "classmethod": "classmethod", "property": "property",
          "cached_property": "property", "functools.cached_property": "property"}
_DATACLASS = ("dataclass", "dataclasses.dataclass", "dataclass(", "dataclasses.dataclass(", "struct.dataclass",
              "flax.struct.dataclass")
# A class decorated with one of these makes each of its subclasses a dataclass (PEP 681): flax's ``ModuleBase``.
_DATACLASS_TRANSFORM = ("dataclass_transform", "typing.dataclass_transform", "typing_extensions.dataclass_transform",
                        "tpe.dataclass_transform")
# The same, for releases whose base carries no such decorator: flax's linen ``Module`` and ``struct.PyTreeNode``
# turn every subclass into a dataclass in ``__init_subclass__``.
_DATACLASS_BASES = frozenset({"flax.linen.module:Module", "flax.struct:PyTreeNode"})
_NAMEDTUPLE = frozenset({"NamedTuple", "typing.NamedTuple"})


def load_signature_snapshot(cache: Path, version: str, wheel_file: Path, package: str = "jax") -> dict:
    prefix = "" if package == "jax" else f"{package}-"
    return cached(cache / f"signatures-{prefix}{version}-v{SIGNATURE_FORMAT}.json",
                  lambda: signature_snapshot(wheel_file, package))


def signature_snapshot(wheel_file: Path, package: str = "jax") -> dict:
    return ClassReader(Wheel(wheel_file, package)).snapshot()


class ClassReader:
    def __init__(self, wheel: Wheel):
        self.w = wheel
        self._trees: dict[str, dict[str, ast.AST]] = {}
        self._classes: dict[str, dict | None] = {}
        self._transparent: dict[str, bool] = {}

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
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._plain(node, origin):
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
        fields_of_base = False  # a base makes this class a dataclass (``dataclass_transform``, linen ``Module``)
        named_tuple = False
        # bases first, so that the class's own members override them (a simplified MRO: later bases lose)
        for base in reversed(node.bases):
            base_origin = self._base_origin(base, info) if info is not None else ""
            read = self.read_class(self.w.resolve(base_origin), depth + 1) if base_origin else None
            if read is None:
                text = ast.unparse(base.value if isinstance(base, ast.Subscript) else base)
                is_open = is_open or text not in _CLOSED_BASES
                named_tuple = named_tuple or text in _NAMEDTUPLE
                continue
            members.update(read["members"])
            is_open = is_open or read["open"]
            init = read["init"] if read["init"] is not None else init
            fields_of_base = fields_of_base or read.get("transform", False)
        own = class_members(node, lambda d: self._transparent_decorator(d, mod))
        if "__getattr__" in own:
            is_open = True
        members.update({n: m for n, m in own.items() if n not in ("__init__", "__new__")})
        # ``inspect.signature``'s order: the first class of the MRO that defines ``__new__`` or ``__init__``
        if "__init__" in own:
            init = own["__init__"]
        elif "__new__" in own:
            init = own["__new__"]
        elif _is_dataclass(node) or fields_of_base or named_tuple or origin in _DATACLASS_BASES:
            params, defaults = dataclass_init(node, (init or {}).get("params"), (init or {}).get("defaults"),
                                              kw_only=named_tuple is False and _class_kw_only(node))
            init = {"kind": "constructor", "params": params, "defaults": defaults}
        members = {n: m for n, m in members.items() if not n.startswith("_")}
        transform = fields_of_base or origin in _DATACLASS_BASES or any(
            _dotted(d).rstrip("(") in _DATACLASS_TRANSFORM for d in node.decorator_list)
        result = {"origin": origin, "init": init, "members": members, "open": is_open, "transform": transform}
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

    # -- decorators --------------------------------------------------------------------------------------------
    def _plain(self, node: ast.FunctionDef | ast.AsyncFunctionDef, origin: str) -> bool:
        mod = origin.partition(":")[0]
        return all(_dotted(d) in _PLAIN_DECORATORS or self._transparent_decorator(d, mod) for d in node.decorator_list)

    def _transparent_decorator(self, decorator: ast.expr, mod: str) -> bool:
        """A decorator defined in the wheel that returns the function it is given, or a ``functools.wraps`` wrapper
        of it: the decorated callable keeps its signature (``__wrapped__``)."""
        info = self.w.info(mod)
        if info is None or isinstance(decorator, ast.Call):
            return False
        origin = self.w.resolve(self._base_origin(decorator, info))
        if origin not in self._transparent:
            self._transparent[origin] = False  # a cycle reads as not transparent
            node = self._definition(origin)
            self._transparent[origin] = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and returns_given_function(node)
        return self._transparent[origin]


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


def returns_given_function(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``def compact(fun): fun.compact = True; return fun`` or ``def deco(f): @functools.wraps(f) def inner(*a, **k):
    ...; return inner``: every ``return`` hands back the first parameter, or an inner function wrapped
    (``functools.wraps``) around it."""
    params = fn.args.posonlyargs + fn.args.args
    if not params:
        return False
    given = params[0].arg
    wrappers = {st.name for st in fn.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
                and any(isinstance(d, ast.Call) and _dotted(d.func) in ("wraps", "functools.wraps") and d.args
                        and _is(d.args[0], given) for d in st.decorator_list)}
    returns = [st for st in ast.walk(fn) if isinstance(st, ast.Return)
               and not _inside_inner(fn, st)]
    return bool(returns) and all(r.value is not None and (_is(r.value, given) or isinstance(r.value, ast.Name)
                                                          and r.value.id in wrappers) for r in returns)


def _inside_inner(fn: ast.AST, target: ast.AST) -> bool:
    """Whether ``target`` lies in a function nested in ``fn`` (its ``return`` is the inner function's)."""
    for st in ast.walk(fn):
        if st is not fn and isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                and any(sub is target for sub in ast.walk(st)):
            return True
    return False


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any(_dotted(d).startswith(_DATACLASS) for d in node.decorator_list)


def _class_kw_only(node: ast.ClassDef) -> bool:
    """``@dataclass(kw_only=True)`` or a linen ``class M(nn.Module, kw_only=True)``."""
    keywords = list(node.keywords) + [k for d in node.decorator_list if isinstance(d, ast.Call) for k in d.keywords]
    return any(k.arg == "kw_only" and ast.unparse(k.value) == "True" for k in keywords)


def class_members(node: ast.ClassDef, transparent=lambda decorator: False) -> dict[str, dict]:
    """Name -> ``{"kind", "params", "defaults"}`` for what the class body defines; ``params`` None when a decorator
    may change the signature (a project decorator; ``transparent(decorator)`` says which keep it)."""
    members: dict[str, dict] = {}
    for st in node.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = [_dotted(d) for d in st.decorator_list]
            if any(d in ("overload", "typing.overload") for d in decorators):
                continue
            if any(d.endswith((".setter", ".deleter")) for d in decorators):
                continue
            kind = next((_KINDS[d] for d in decorators if d in _KINDS), "method")
            plain = all(d in _KINDS or d in _PLAIN_DECORATORS or transparent(node)
                        for d, node in zip(decorators, st.decorator_list))
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


def dataclass_init(node: ast.ClassDef, inherited: list | None, inherited_defaults: dict | None = None,
                   kw_only: bool | None = None) -> tuple[list, dict[str, str]]:
    """The generated ``__init__`` of a dataclass: its bases' fields, then its own annotated fields (``ClassVar``s and
    ``field(init=False)`` are not parameters; keyword-only where the decorator, the class or the field says
    ``kw_only=True``, and placed after the positional ones, as ``dataclasses`` does), with the literal defaults
    (``= 1e-6`` or ``field(default=True)``)."""
    if kw_only is None:
        kw_only = _class_kw_only(node)
    params = [p for p in (inherited or []) if p[1] in ("pk", "kw")]
    defaults = dict(inherited_defaults or {})
    for st in node.body:
        if not isinstance(st, ast.AnnAssign) or not isinstance(st.target, ast.Name) or not st.simple:
            continue
        call = st.value if isinstance(st.value, ast.Call) else None
        keywords = {k.arg: ast.unparse(k.value) for k in call.keywords} if call else {}
        if "ClassVar" in ast.unparse(st.annotation) or keywords.get("init") == "False":
            continue
        name = st.target.id
        params = [p for p in params if p[0] != name]
        defaults.pop(name, None)
        field = call is not None and _dotted(call.func).rsplit(".", 1)[-1] in ("field", "module_field")
        default = next((k.value for k in call.keywords if k.arg == "default"), None) if field else st.value
        has_default = st.value is not None and (not field or "default" in keywords or "default_factory" in keywords)
        params.append([name, "kw" if kw_only or keywords.get("kw_only") == "True" else "pk",
                       "d" if has_default else ""])
        if default is not None:
            try:
                ast.literal_eval(default)
                defaults[name] = ast.unparse(default)
            except Exception:
                pass
    params = [p for p in params if p[1] == "pk"] + [p for p in params if p[1] == "kw"]
    return params, defaults


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
