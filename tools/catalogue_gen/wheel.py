"""One release read statically (``ast``, nothing imported): its public modules, their names and where each comes
from, ``_deprecations`` tables, module-level ``DeprecationWarning``s, function signatures and config flags."""
from __future__ import annotations

import ast
import re
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

# Flags that only JAX's own test harness defines.
FLAG_FILE_EXCLUDES = ("jax/_src/test_util.py", "jax/_src/test_loader.py", "jax/_src/test_warning_util.py",
                      "jax/test_util.py", "jax/_src/internal_test_util/", "jax/experimental/jax2tf/tests/",
                      "jax/tools/", "jax/experimental/jax2tf/examples/")


def module_name(path: str, package: str = "jax") -> str | None:
    if not path.endswith(".py") or not path.startswith(package + "/"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def is_public_module(mod: str) -> bool:
    parts = mod.split(".")
    return (all(not p.startswith("_") for p in parts) and not ({"tests", "examples"} & set(parts))
            and not parts[-1].endswith("_test"))


def const_str(node: ast.AST) -> str | None:
    try:
        value = ast.literal_eval(node)
    except Exception:
        if isinstance(node, ast.JoinedStr):
            return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                           for v in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = const_str(node.left), const_str(node.right)
            if left is not None and right is not None:
                return left + right
        return None
    return value if isinstance(value, str) else None


def is_type_checking(test: ast.AST) -> bool:
    text = ast.unparse(test)
    return text.endswith("TYPE_CHECKING") and not text.startswith("not ")


@dataclass
class ModuleInfo:
    name: str
    is_package: bool
    # name -> origin ("module:name") or "" when unknown; insertion order kept
    bindings: dict[str, str] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)
    all_names: list[str] | None = None
    deprecations: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # name -> (msg, origin|None)
    module_warning: str | None = None
    consts: dict[str, str] = field(default_factory=dict)  # module-level string constants (``_msg = "..."``)
    signatures: dict[str, list[list[str]]] = field(default_factory=dict)  # function name -> parameters


def parameters(args: ast.arguments) -> list[list[str]]:
    """``[name, kind, default]`` per parameter: kind ``po`` (positional-only), ``pk``, ``kw`` (keyword-only), ``var``
    (``*args``), ``varkw`` (``**kwargs``); default ``""`` (none), ``"d"`` (has one) or ``"deprecated"`` (JAX's
    ``DeprecatedArg()`` marker: accepted with a warning)."""
    def default(node: ast.AST | None) -> str:
        if node is None:
            return ""
        return "deprecated" if "Deprecated" in ast.unparse(node) else "d"
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [[a.arg, "po" if i < len(args.posonlyargs) else "pk", default(d)]
           for i, (a, d) in enumerate(zip(positional, defaults))]
    if args.vararg:
        out.append([args.vararg.arg, "var", ""])
    out += [[a.arg, "kw", default(d)] for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append([args.kwarg.arg, "varkw", ""])
    return out


class Archive:
    """The ``jax/`` (``package/``) files of a wheel (zip) or of a source archive (``jax-V/jax/...`` in a tar.gz)."""

    def __init__(self, path: Path, package: str = "jax"):
        prefix = package + "/"
        self.data: dict[str, bytes] = {}
        if path.name.endswith(".tar.gz"):
            with tarfile.open(path) as tar:
                for member in tar.getmembers():
                    name = member.name.split("/", 1)[1] if "/" in member.name else member.name
                    if member.isfile() and name.startswith(prefix) and name.endswith(".py"):
                        self.data[name] = tar.extractfile(member).read()
        else:
            with zipfile.ZipFile(path) as zf:
                self.data = {n: zf.read(n) for n in zf.namelist() if n.startswith(prefix) and n.endswith(".py")}

    def namelist(self) -> list[str]:
        return list(self.data)

    def read(self, name: str) -> bytes:
        return self.data[name]


class Wheel:
    """The ``jax`` package (or another: flax, optax) of one wheel, parsed lazily."""

    def __init__(self, path: Path, package: str = "jax"):
        self.zip = Archive(path, package)
        self.files: dict[str, str] = {}
        for n in self.zip.namelist():
            mod = module_name(n, package)
            if mod:
                self.files[mod] = n
        self.infos: dict[str, ModuleInfo | None] = {}
        self._public: dict[str, dict[str, str]] = {}

    def info(self, mod: str) -> ModuleInfo | None:
        if mod in self.infos:
            return self.infos[mod]
        self.infos[mod] = None
        fname = self.files.get(mod)
        if fname is None:
            return None
        try:
            tree = ast.parse(self.zip.read(fname))
        except SyntaxError:
            return None
        info = ModuleInfo(mod, fname.endswith("__init__.py"))
        self._walk(tree.body, info, top=True)
        self.infos[mod] = info
        return info

    def _abs(self, info: ModuleInfo, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = info.name.split(".")
        if not info.is_package:
            base = base[:-1]
        if node.level > 1:
            base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def _walk(self, body: list[ast.stmt], info: ModuleInfo, top: bool) -> None:
        for st in body:
            if isinstance(st, ast.If):
                if is_type_checking(st.test):
                    self._walk(st.orelse, info, top)
                    continue
                self._walk(st.body, info, top)
                self._walk(st.orelse, info, top)
            elif isinstance(st, ast.Try):
                self._walk(st.body, info, top)
                for h in st.handlers:
                    self._walk(h.body, info, top)
                self._walk(st.orelse, info, top)
                self._walk(st.finalbody, info, top)
            elif isinstance(st, ast.With):
                self._walk(st.body, info, top)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                info.bindings[st.name] = f"{info.name}:{st.name}"
                if isinstance(st, ast.ClassDef):
                    info.signatures.pop(st.name, None)
                else:
                    info.signatures[st.name] = parameters(st.args)
            elif isinstance(st, ast.Import):
                for a in st.names:
                    if a.asname:
                        info.bindings[a.asname] = f"{a.name}:"  # a module object
                    else:
                        info.bindings[a.name.split(".")[0]] = f"{a.name.split('.')[0]}:"
            elif isinstance(st, ast.ImportFrom):
                src = self._abs(info, st)
                for a in st.names:
                    if a.name == "*":
                        info.star_imports.append(src)
                    else:
                        info.bindings[a.asname or a.name] = f"{src}:{a.name}"
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                value = st.value
                for t in targets:
                    if isinstance(t, ast.Name):
                        if t.id == "_deprecations" and isinstance(value, ast.Dict):
                            self._table(value, info)
                        elif t.id == "__all__" and value is not None:
                            try:
                                info.all_names = [str(x) for x in ast.literal_eval(value)]
                            except Exception:
                                pass
                        origin = ""
                        if isinstance(value, ast.Name):
                            origin = info.bindings.get(value.id, "")
                        elif isinstance(value, ast.Attribute):
                            origin = self._attr_origin(value, info)
                        text = const_str(value) if value is not None else None
                        if text is not None:
                            info.consts[t.id] = text
                        info.bindings[t.id] = origin or f"{info.name}:{t.id}"
                    elif isinstance(t, ast.Tuple):
                        for e in t.elts:
                            if isinstance(e, ast.Name):
                                info.bindings[e.id] = f"{info.name}:{e.id}"
            elif isinstance(st, ast.Delete):
                for t in st.targets:
                    if isinstance(t, ast.Name):
                        info.bindings.pop(t.id, None)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and top:
                call = st.value
                fn = ast.unparse(call.func)
                if fn.endswith("warnings.warn") and call.args:
                    cats = [ast.unparse(a) for a in call.args[1:2]] + [
                        ast.unparse(k.value) for k in call.keywords if k.arg == "category"]
                    if any("DeprecationWarning" in c for c in cats):
                        arg = call.args[0]
                        text = info.consts.get(arg.id) if isinstance(arg, ast.Name) else const_str(arg)
                        info.module_warning = " ".join((text or ast.unparse(arg)).split())

    def _attr_origin(self, node: ast.Attribute, info: ModuleInfo) -> str:
        """``_src_core.DebugInfo`` where ``_src_core`` is an imported module -> ``jax._src.core:DebugInfo``."""
        if isinstance(node.value, ast.Name):
            base = info.bindings.get(node.value.id, "")
            mod, _, name = base.partition(":")
            if base and not name:
                return f"{mod}:{node.attr}"
            if name and f"{mod}.{name}" in self.files:
                return f"{mod}.{name}:{node.attr}"
        return ""

    def _table(self, node: ast.Dict, info: ModuleInfo) -> None:
        for k, v in zip(node.keys, node.values):
            key = const_str(k) if k is not None else None
            if key is None or not isinstance(v, ast.Tuple) or len(v.elts) != 2:
                continue
            msg = const_str(v.elts[0])
            if msg is None:
                msg = ast.unparse(v.elts[0])
            obj = v.elts[1]
            if isinstance(obj, ast.Constant) and obj.value is None:
                origin = None
            elif isinstance(obj, ast.Name):
                origin = info.bindings.get(obj.id, "") or f"{info.name}:{obj.id}"
            elif isinstance(obj, ast.Attribute) and self._attr_origin(obj, info):
                origin = self._attr_origin(obj, info)
            else:
                origin = "?" + ast.unparse(obj)
            info.deprecations[key] = (" ".join(msg.split()) if msg else msg, origin)

    def public_names(self, mod: str, _seen: set[str] | None = None) -> dict[str, str]:
        """Public name -> origin for a module (star imports followed)."""
        if mod in self._public:
            return self._public[mod]
        info = self.info(mod)
        if info is None:
            return {}
        seen = _seen if _seen is not None else set()
        if mod in seen:
            return {}
        seen.add(mod)
        names: dict[str, str] = {}
        for src in info.star_imports:
            sub = self.public_names(src, seen)
            src_info = self.info(src)
            if src_info is not None and src_info.all_names is not None:
                sub = {n: sub.get(n, f"{src}:{n}") for n in src_info.all_names}
            names.update(sub)
        for n, origin in info.bindings.items():
            if not n.startswith("_"):
                names[n] = origin
        if _seen is None:
            self._public[mod] = names
        return names

    def resolve(self, origin: str, depth: int = 0) -> str:
        """Follow ``module:name`` through re-exports to the defining module."""
        if not origin or origin.startswith("?") or depth > 30:
            return origin
        mod, _, name = origin.partition(":")
        if not name:
            return origin
        if f"{mod}.{name}" in self.files:  # a submodule
            return f"{mod}.{name}:"
        info = self.info(mod)
        if info is None:
            return origin
        nxt = info.bindings.get(name)
        if nxt is None:
            for src in info.star_imports:
                if name in self.public_names(src):
                    return self.resolve(f"{src}:{name}", depth + 1)
            return origin
        if nxt == origin:
            return origin
        return self.resolve(nxt, depth + 1)

    def flags(self) -> dict[str, str]:
        """Config flag name -> the kind of its definition (``bool_state``, ``int_flag``...)."""
        found: dict[str, str] = {}
        for mod, fname in self.files.items():
            if fname.startswith(FLAG_FILE_EXCLUDES) or fname.endswith("_test.py") or "/tests/" in fname:
                continue
            src = without_docstrings(self.zip.read(fname).decode("utf-8", "replace"))
            for m in FLAG_RE.finditer(src):
                if m.group(1) not in ("_state", "_flag"):
                    found.setdefault(m.group(2), m.group(1))
            # absl-style definitions of releases before 0.4: flags.DEFINE_bool('jax_enable_x64', ...)
            for m in ABSL_FLAG_RE.finditer(src):
                found.setdefault(m.group(2), m.group(1))
        return found

    def signature(self, origin: str) -> list[list[str]] | None:
        """The parameters of the function ``module:name`` defines, if it is a plain ``def``."""
        mod, _, name = origin.partition(":")
        info = self.info(mod) if name else None
        return info.signatures.get(name) if info is not None else None


def without_docstrings(src: str) -> str:
    """``src`` with its docstrings blanked: config.py's docstring defines an example flag (``jax_enable_foo``)."""
    if "jax" not in src:
        return src
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return src
    lines = src.splitlines()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            for i in range(body[0].lineno - 1, body[0].end_lineno):
                lines[i] = ""
    return "\n".join(lines)


FLAG_RE = re.compile(r"\b((?:define_)?[a-z_]*(?:_state|_flag))\(\s*(?:name\s*=\s*)?['\"](jax\w*)['\"]")
ABSL_FLAG_RE = re.compile(r"\b(DEFINE_[a-z_]+)\(\s*(?:name\s*=\s*)?['\"](jax_\w+)['\"]")
