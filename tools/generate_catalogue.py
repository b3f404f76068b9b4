#!/usr/bin/env python3
"""Generate ``rules/generated.toml`` from JAX's own wheels.

For every ``jax`` release on the package index (0.1.x to the newest) this script:

1. downloads the (pure-Python) wheel, or the source archive of releases before 0.4.14, with
   ``pip download --no-deps jax==V`` into a cache folder (``tools/.wheels``);
2. reads, statically (``ast``, nothing is imported), every public module of the wheel: its public names, its
   ``_deprecations`` table (``name -> (message, object or None)``), a module-level ``DeprecationWarning``, and the
   config flags defined anywhere in the package (``jax/_src/config.py``, old ``flags.DEFINE_*`` calls, the
   host_callback options...), and the signature of every public function;
3. diffs consecutive releases to find, per symbol / module / config flag / function parameter, when it was
   deprecated (first release whose table returns the object with a warning) and removed (first release where it
   raises or is gone);
4. extracts the replacement named in JAX's own message, checks that it exists, since which release, and whether it
   is the very same object as the deprecated name (statically, by following imports to the defining module, and at
   run time by importing both names in a venv of the last release where both exist, when such a venv is available;
   ``--build-venvs`` creates the missing ones, Python 3.12 + CPU jaxlib from PyPI, one at a time).

Supporting a new JAX release is: ``python tools/generate_catalogue.py --jaxenvs DIR --build-venvs`` (see
``docs/catalogue.md``).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import ast
import tarfile
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CACHE = REPO / "tools" / ".wheels"
DEFAULT_OUT = REPO / "rules" / "generated.toml"
# The oldest release with a ``jax`` package (0.0 and 0.1 are empty placeholders).
FIRST_VERSION = "0.1.1"
# Bump when the snapshot format or the analysis changes: cached snapshots are then recomputed.
SNAPSHOT_FORMAT = 4
CHANGELOG = "https://docs.jax.dev/en/latest/changelog.html"

# Abbreviations JAX's own messages use.
MESSAGE_ALIASES = {
    "jnp": "jax.numpy",
    "lax": "jax.lax",
    "pl": "jax.experimental.pallas",
    "pltpu": "jax.experimental.pallas.tpu",
    "plgpu": "jax.experimental.pallas.mosaic_gpu",
    "jsp": "jax.scipy",
}
# Flags that only JAX's own test harness defines.
FLAG_FILE_EXCLUDES = ("jax/_src/test_util.py", "jax/_src/test_loader.py", "jax/_src/test_warning_util.py",
                      "jax/test_util.py", "jax/_src/internal_test_util/", "jax/experimental/jax2tf/tests/",
                      "jax/tools/", "jax/experimental/jax2tf/examples/")


# ----------------------------------------------------------------------------------------------- versions / wheels


def vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v))


def pip_cmd(python: str) -> list[str]:
    return [python, "-m", "pip"]


def list_versions(python: str) -> list[str]:
    """Every final ``jax`` release >= FIRST_VERSION the package index offers."""
    out = subprocess.run(pip_cmd(python) + ["index", "versions", "jax"], capture_output=True, text=True, check=True)
    m = re.search(r"Available versions:\s*(.*)", out.stdout)
    if not m:
        raise SystemExit(f"could not read the jax versions from pip:\n{out.stdout}\n{out.stderr}")
    versions = [v.strip() for v in m.group(1).split(",")]
    versions = [v for v in versions if re.fullmatch(r"\d+(\.\d+)+", v) and vkey(v) >= vkey(FIRST_VERSION)]
    return sorted(set(versions), key=vkey)


def wheel_path(cache: Path, version: str) -> Path:
    """The release's wheel (``py3-none-any``, a few ``py2.py3``), or its source archive (most releases before 0.4)."""
    wheels = sorted(cache.glob(f"jax-{version}-*.whl"))
    sdist = cache / f"jax-{version}.tar.gz"
    if wheels:
        return wheels[0]
    return sdist if sdist.exists() else cache / f"jax-{version}-py3-none-any.whl"


def download(python: str, cache: Path, version: str) -> Path:
    path = wheel_path(cache, version)
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    # An sdist makes pip prepare its metadata (a setuptools run in an isolated environment): a few seconds each.
    subprocess.run(pip_cmd(python) + ["download", "-q", "--no-deps", f"jax=={version}", "-d", str(cache)],
                   check=True, stdout=subprocess.DEVNULL)
    path = wheel_path(cache, version)
    if not path.exists():
        raise SystemExit(f"pip did not produce {path}")
    return path


# ------------------------------------------------------------------------------------------------ static analysis


def module_name(path: str) -> str | None:
    if not path.endswith(".py") or not path.startswith("jax/"):
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


def is_not_type_checking(test: ast.AST) -> bool:
    return ast.unparse(test).replace("(", "").replace(")", "").startswith("not ") and "TYPE_CHECKING" in ast.unparse(test)


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
    """The ``jax/`` files of a wheel (zip) or of a source archive (``jax-V/jax/...`` in a tar.gz)."""

    def __init__(self, path: Path):
        self.data: dict[str, bytes] = {}
        if path.name.endswith(".tar.gz"):
            with tarfile.open(path) as tar:
                for member in tar.getmembers():
                    name = member.name.split("/", 1)[1] if "/" in member.name else member.name
                    if member.isfile() and name.startswith("jax/") and name.endswith(".py"):
                        self.data[name] = tar.extractfile(member).read()
        else:
            with zipfile.ZipFile(path) as zf:
                self.data = {n: zf.read(n) for n in zf.namelist() if n.startswith("jax/") and n.endswith(".py")}

    def namelist(self) -> list[str]:
        return list(self.data)

    def read(self, name: str) -> bytes:
        return self.data[name]


class Wheel:
    """The ``jax`` package of one wheel, parsed lazily."""

    def __init__(self, path: Path):
        self.zip = Archive(path)
        self.files: dict[str, str] = {}
        for n in self.zip.namelist():
            mod = module_name(n)
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


def snapshot(wheel_file: Path) -> dict:
    w = Wheel(wheel_file)
    modules: dict[str, dict] = {}
    for mod in sorted(w.files):
        if not is_public_module(mod):
            continue
        info = w.info(mod)
        if info is None:
            continue
        names = {n: w.resolve(o) for n, o in w.public_names(mod).items()}
        # submodules are attributes of their package only when imported; keep them out of the names
        table = {}
        for n, (msg, origin) in info.deprecations.items():
            table[n] = [msg, None if origin is None else w.resolve(origin)]
        signatures = {}
        for n, origin in names.items():
            sig = w.signature(origin)
            if sig is not None:
                signatures[n] = sig
        modules[mod] = {"names": names, "deprecations": table, "warning": info.module_warning,
                        "signatures": signatures}
    return {"format": SNAPSHOT_FORMAT, "modules": modules, "flags": w.flags()}


def load_snapshot(cache: Path, version: str, wheel_file: Path) -> dict:
    snap_file = cache / f"snapshot-{version}-v{SNAPSHOT_FORMAT}.json"
    if snap_file.exists():
        return json.loads(snap_file.read_text())
    snap = snapshot(wheel_file)
    snap_file.write_text(json.dumps(snap))
    return snap


# --------------------------------------------------------------------------------------------------------- diffing

NAME_RE = re.compile(r"(?<![\w.])((?:jax|jnp|lax|pl|pltpu|plgpu|jsp)(?:\.[A-Za-z_]\w*)+)")
VERSION_RE = r"v?(\d+\.\d+(?:\.\d+)*)"


def expand(dotted: str) -> str:
    head, _, rest = dotted.partition(".")
    if head in MESSAGE_ALIASES:
        return MESSAGE_ALIASES[head] + "." + rest
    return dotted


def message_versions(msg: str | None) -> tuple[str | None, str | None]:
    if not msg:
        return None, None
    dep = re.search(r"deprecated (?:in|since|as of) (?:JAX )?" + VERSION_RE, msg, re.I)
    rem = re.search(r"removed in (?:JAX )?" + VERSION_RE, msg, re.I)
    return (dep.group(1) if dep else None), (rem.group(1) if rem else None)


def message_urls(msg: str | None) -> list[str]:
    return re.findall(r"https?://[^\s)\"']+[^\s)\"'.,]", msg or "")


@dataclass
class Entry:
    name: str
    kind: str
    module: str
    deprecated_in: str | None = None
    removed_in: str | None = None
    replacement: str | None = None
    replacement_since: str | None = None
    same_object: bool | None = None
    same_object_checked: str | None = None  # "static" / "runtime:<version>"
    any_version_replacement: str | None = None
    any_version_same_object: bool | None = None
    any_version_since: str | None = None
    message: str | None = None
    url: str | None = None
    source: str = "table"
    last_seen: str | None = None  # last release where the name still worked
    first_seen: str | None = None  # first release of the last unbroken run where it worked (no gap up to last_seen)
    attribute_survives: bool | None = None  # a removed module whose name is still an attribute of its parent

    def toml(self) -> str:
        lines = [f"[[{self.kind}]]"]
        for key in ("name", "module", "deprecated_in", "removed_in", "replacement", "replacement_since",
                    "same_object", "same_object_checked", "any_version_replacement", "any_version_since",
                    "any_version_same_object", "first_seen", "last_seen", "attribute_survives", "message",
                    "url", "source"):
            value = getattr(self, key)
            if value is None:
                continue
            lines.append(f"{key} = {toml_value(value)}")
        return "\n".join(lines)


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(v)


def state_of(snap: dict, mod: str, name: str) -> str:
    m = snap["modules"].get(mod)
    if m is None:
        return "absent"
    if name in m["deprecations"]:
        return "removed" if m["deprecations"][name][1] is None else "deprecated"
    if name in m["names"]:
        return "ok"
    return "absent"


def exists(snap: dict, dotted: str) -> bool:
    if dotted in snap["modules"]:
        return True
    mod, _, name = dotted.rpartition(".")
    while mod and mod not in snap["modules"]:
        # attribute of a class, e.g. jax.sharding.Mesh.abstract_mesh: accept if the class exists
        mod, _, name = mod.rpartition(".")
    return bool(mod) and state_of(snap, mod, name) == "ok"


def origin_of(snap: dict, dotted: str) -> str | None:
    if dotted in snap["modules"]:
        return dotted + ":"
    mod, _, name = dotted.rpartition(".")
    m = snap["modules"].get(mod)
    if m is None:
        return None
    if name in m["names"]:
        return m["names"][name]
    if name in m["deprecations"]:
        return m["deprecations"][name][1]
    return None


def since(versions: list[str], snaps: dict[str, dict], dotted: str) -> str | None:
    """First release from which ``dotted`` exists continuously up to the newest."""
    first = None
    for v in versions:
        if exists(snaps[v], dotted):
            first = first or v
        else:
            first = None
    return first


def run_start(versions: list[str], worked: list[bool]) -> str | None:
    """First release of the last unbroken run of releases where it worked: [first_seen, last_seen] has no gap."""
    if True not in worked:
        return None
    end = len(worked) - 1 - worked[::-1].index(True)
    start = end
    while start > 0 and worked[start - 1]:
        start -= 1
    return versions[start]


def is_api_origin(origin: str) -> bool:
    """A name defined in JAX (not a stdlib/typing helper, not a module imported for internal use)."""
    mod, _, name = origin.partition(":")
    return (mod == "jax" or mod.startswith("jax.")) and bool(name)


def diff(versions: list[str], snaps: dict[str, dict]) -> list[Entry]:
    newest = versions[-1]
    entries: list[Entry] = []
    # ------------------------------------------------------------------ symbols
    keys: set[tuple[str, str]] = set()
    for v in versions:
        for mod, m in snaps[v]["modules"].items():
            keys.update((mod, n) for n in m["deprecations"])
            keys.update((mod, n) for n in m["names"])
    for mod, name in sorted(keys):
        states = [state_of(snaps[v], mod, name) for v in versions]
        final = states[-1]
        if final == "ok":
            continue
        if final == "absent" and "deprecated" not in states and "removed" not in states:
            # disappeared without a table: only when its module still exists (else the module entry covers it)
            if mod not in snaps[newest]["modules"]:
                continue
            last_ok = versions[len(states) - 1 - states[::-1].index("ok")]
            origin = snaps[last_ok]["modules"][mod]["names"].get(name, "")
            if not is_api_origin(origin):
                continue  # ``Any`` from typing, ``partial`` from functools, ``np`` (a module): not JAX API
            source = "diff"
        else:
            source = "table"
        # the trailing run of not-ok states
        i = len(states) - 1
        while i > 0 and states[i - 1] != "ok":
            i -= 1
        tail = states[i:]
        if "removed" in tail or "absent" in tail:
            j = next(k for k, s in enumerate(tail) if s in ("removed", "absent"))
            if any(s == "deprecated" for s in tail[j:]):
                # back to a warning after an error: use the latest run
                j = max(k for k, s in enumerate(tail) if s in ("removed", "absent") and
                        (k == 0 or tail[k - 1] == "deprecated"))
            removed_in = versions[i + j]
            dep_idx = [k for k in range(j) if tail[k] == "deprecated"]
            deprecated_in = versions[i + dep_idx[0]] if dep_idx else None
            if removed_in == versions[0] and "ok" not in states and "deprecated" not in states:
                removed_in = None  # removed before the window: decided from the message below
        else:
            removed_in = None
            deprecated_in = versions[i]
        if final == "removed" or final == "deprecated":
            msg = snaps[newest]["modules"][mod]["deprecations"][name][0]
        else:
            msgs = [snaps[v]["modules"].get(mod, {}).get("deprecations", {}).get(name) for v in versions]
            msgs = [m[0] for m in msgs if m]
            msg = msgs[-1] if msgs else None
        m_dep, m_rem = message_versions(msg)
        if deprecated_in == versions[0] and m_dep and vkey(m_dep) < vkey(deprecated_in):
            deprecated_in = m_dep
        if deprecated_in is None and m_dep and (removed_in is None or vkey(m_dep) <= vkey(removed_in)):
            deprecated_in = m_dep if (removed_in is None or vkey(m_dep) < vkey(removed_in)) else None
        if removed_in is None and final in ("removed", "absent"):
            removed_in = m_rem if m_rem and vkey(m_rem) <= vkey(versions[0]) else versions[0]
            if deprecated_in and vkey(deprecated_in) > vkey(removed_in):
                deprecated_in = None
        worked = [v for v, s in zip(versions, states) if s in ("ok", "deprecated")]
        e = Entry(name=f"{mod}.{name}", kind="symbol", module=mod, deprecated_in=deprecated_in,
                  removed_in=removed_in, message=msg, source=source, last_seen=worked[-1] if worked else None,
                  first_seen=run_start(versions, [st in ("ok", "deprecated") for st in states]))
        entries.append(e)
    # ------------------------------------------------------------------ modules
    all_mods = sorted({mod for v in versions for mod in snaps[v]["modules"]})
    for mod in all_mods:
        present = [mod in snaps[v]["modules"] for v in versions]
        warned = [bool(snaps[v]["modules"].get(mod, {}).get("warning")) for v in versions]
        if present[-1] and not warned[-1]:
            continue
        i = len(versions) - 1
        while i > 0 and (not present[i - 1] or warned[i - 1]) == (not present[i] or warned[i]) and \
                present[i - 1] == present[i]:
            i -= 1
        msgs = [snaps[v]["modules"][mod]["warning"] for v in versions if snaps[v]["modules"].get(mod, {}).get("warning")]
        if present[-1]:  # deprecated, still importable
            first_warn = len(versions) - 1
            while first_warn > 0 and warned[first_warn - 1]:
                first_warn -= 1
            e = Entry(name=mod, kind="module", module=mod, deprecated_in=versions[first_warn],
                      message=msgs[-1], source="warning", last_seen=newest,
                      first_seen=run_start(versions, present))
        else:
            gone = len(versions) - 1
            while gone > 0 and not present[gone - 1]:
                gone -= 1
            if gone == 0:
                continue
            dep = [k for k in range(gone) if warned[k] and all(warned[k:gone])]
            e = Entry(name=mod, kind="module", module=mod, removed_in=versions[gone],
                      deprecated_in=versions[dep[0]] if dep else None, message=msgs[-1] if msgs else None,
                      source="warning" if msgs else "diff", last_seen=versions[gone - 1],
                      first_seen=run_start(versions, present))
            # a module whose parent package disappeared too is reported once, at the top
            parent = mod.rpartition(".")[0]
            if parent and parent not in snaps[newest]["modules"] and any(parent in snaps[v]["modules"] for v in versions):
                e.source = "diff-child"
        m_dep, _ = message_versions(e.message)
        if e.deprecated_in == versions[0] and m_dep and vkey(m_dep) < vkey(e.deprecated_in):
            e.deprecated_in = m_dep
        entries.append(e)
    entries = [e for e in entries if e.source != "diff-child"]
    for e in entries:
        # ``jax.numpy.vectorize`` the module went in 0.2.4, ``jnp.vectorize`` the function stays: only imports fail
        parent, _, last = e.name.rpartition(".")
        if e.kind == "module" and e.removed_in and last in snaps[newest]["modules"].get(parent, {}).get("names", {}):
            e.attribute_survives = True
    # symbols of removed modules are covered by the module entry
    gone_mods = {e.name for e in entries if e.kind == "module" and e.removed_in}
    entries = [e for e in entries if not (e.kind == "symbol" and e.module in gone_mods and e.source == "diff")]
    # ------------------------------------------------------------------ config flags
    flags = sorted({f for v in versions for f in snaps[v]["flags"]})
    for f in flags:
        present = [f in snaps[v]["flags"] for v in versions]
        if present[-1]:
            continue
        gone = len(versions) - 1
        while gone > 0 and not present[gone - 1]:
            gone -= 1
        entries.append(Entry(name=f, kind="config", module="jax.config", removed_in=versions[gone],
                             source="diff", last_seen=versions[gone - 1], first_seen=run_start(versions, present)))
    # ------------------------------------------------------------------ replacements
    for e in entries:
        add_replacement(e, versions, snaps)
        # a documentation link from JAX's message; "please file an issue on .../issues" is not one
        urls = [u for u in message_urls(e.message) if not re.search(r"github\.com/[^/]+/[^/]+/issues", u)]
        e.url = urls[0] if urls else CHANGELOG
    return entries


# ---------------------------------------------------------------------------------------------- parameter diffs


@dataclass
class Parameter:
    """A keyword a public function accepted and the newest release rejects."""

    name: str  # the function, as the user spells it (jax.numpy.clip)
    parameter: str
    change: str  # "removed", "renamed" or "positional-only"
    removed_in: str
    last_seen: str
    first_seen: str
    deprecated_in: str | None = None
    replacement: str | None = None  # the keyword that took its place
    replacement_since: str | None = None  # first release from which that keyword is accepted, without a gap

    def toml(self) -> str:
        lines = ["[[parameter]]"]
        for key in ("name", "parameter", "change", "deprecated_in", "removed_in", "first_seen", "last_seen",
                    "replacement",
                    "replacement_since"):
            value = getattr(self, key)
            if value is not None:
                lines.append(f"{key} = {toml_value(value)}")
        return "\n".join(lines)


def keyword_state(sig: list[list[str]] | None, param: str) -> str | None:
    """``ok``/``deprecated`` (accepted by keyword), ``gone`` (rejected), None (unknown: no plain ``def``, or a
    ``**kwargs`` that may take it)."""
    if sig is None:
        return None
    for name, kind, default in sig:
        if name == param and kind in ("pk", "kw"):
            return "deprecated" if default == "deprecated" else "ok"
    if any(kind == "varkw" for _, kind, _ in sig):
        return None
    return "gone"


def renamed_to(before: list[list[str]], after: list[list[str]], param: str) -> str | None:
    """The parameter that took ``param``'s place when it changed: a new name at the same position, or the single new
    name when exactly one keyword left."""
    old_names = [p[0] for p in before]
    new = [p for p in after if p[0] not in old_names and p[1] != "varkw" and not p[0].startswith("_")]
    index = old_names.index(param)
    if index < len(after) and after[index] in new:
        return after[index][0]
    left = [p[0] for p in before if keyword_state(after, p[0]) != "ok" and p[1] in ("pk", "kw")]
    if len(new) == 1 and left == [param]:
        return new[0][0]
    return None


def similar_successor(param: str, first: list[list[str]], last: list[list[str]], newest: list[list[str]]) -> str | None:
    """The keyword that grew up beside ``param`` and replaced it (``a_min`` -> ``min``): accepted by the last release
    that took ``param`` and by the newest, absent when ``param`` appeared, and its name contained in ``param``'s (or
    the other way round) or nearly equal to it; None unless exactly one fits."""
    existing = {p[0] for p in first}
    candidates = [name for name, kind, _ in newest if kind in ("pk", "kw") and name not in existing
                  and keyword_state(last, name) == "ok"]
    fits = [name for name in candidates if similar_names(name, param)]
    return fits[0] if len(fits) == 1 else None


def similar_names(a: str, b: str) -> bool:
    """``a_min``/``min``, ``init_value``/``init_values``, ``maxiter``/``max_iterations``: a rename, not a different
    parameter that happens to sit at the same position (``subscripts``/``preferred_element_type``)."""
    import difflib

    return ((min(len(a), len(b)) >= 3 and (a in b or b in a))
            or difflib.SequenceMatcher(None, a, b).ratio() >= 0.6)


def parameter_diff(versions: list[str], snaps: dict[str, dict]) -> list[Parameter]:
    """Keywords of public functions (still public in the newest release) that the newest release rejects."""
    newest = snaps[versions[-1]]
    rows: list[Parameter] = []
    for mod, m in sorted(newest["modules"].items()):
        for fn, new_sig in sorted(m.get("signatures", {}).items()):
            if any(kind == "varkw" for _, kind, _ in new_sig) or fn in m["deprecations"]:
                continue
            sigs = [snaps[v]["modules"].get(mod, {}).get("signatures", {}).get(fn) for v in versions]
            params = sorted({p[0] for sig in sigs if sig for p in sig if p[1] in ("pk", "kw")} -
                            {p[0] for p in new_sig if p[1] in ("pk", "kw")})
            for param in params:
                if param.startswith("_"):
                    continue
                states = [keyword_state(sig, param) for sig in sigs]
                accepted = [i for i, st in enumerate(states) if st in ("ok", "deprecated")]
                if not accepted:
                    continue
                last = accepted[-1]
                gone = next((i for i in range(last + 1, len(versions)) if states[i] == "gone"), None)
                if gone is None:
                    continue
                # the deprecated run right before the removal (unknown releases do not break it)
                first_dep = None
                for i in range(last, -1, -1):
                    if states[i] == "deprecated":
                        first_dep = i
                    elif states[i] is not None:
                        break
                changed = first_dep if first_dep is not None else gone
                prev = next((i for i in range(changed - 1, -1, -1) if states[i] in ("ok", "deprecated")), None)
                replacement = None
                if prev is not None and sigs[changed] is not None:
                    replacement = renamed_to(sigs[prev], sigs[changed], param)
                    # a different parameter at the same position is not a rename
                    replacement = replacement if replacement and similar_names(replacement, param) else None
                if replacement is None or keyword_state(new_sig, replacement) != "ok":
                    replacement = similar_successor(param, sigs[accepted[0]], sigs[last], new_sig)
                positional_only = any(p[0] == param and p[1] == "po" for p in new_sig)
                row = Parameter(name=f"{mod}.{fn}", parameter=param, removed_in=versions[gone],
                                last_seen=versions[last],
                                first_seen=run_start(versions, [st is not None and st != "gone" for st in states]),
                                change="positional-only" if positional_only else "removed",
                                deprecated_in=versions[first_dep] if first_dep is not None else None)
                if replacement and keyword_state(new_sig, replacement) == "ok":
                    row.change = "renamed"
                    row.replacement = replacement
                    since_i = len(versions) - 1
                    while since_i > 0 and keyword_state(sigs[since_i - 1], replacement) == "ok":
                        since_i -= 1
                    row.replacement_since = versions[since_i]
                rows.append(row)
    return rows


def add_replacement(e: Entry, versions: list[str], snaps: dict[str, dict]) -> None:
    if not e.message:
        return
    newest = snaps[versions[-1]]
    candidates = []
    for m in NAME_RE.finditer(e.message):
        dotted = expand(m.group(1).rstrip("."))
        if dotted == e.name or dotted in candidates:
            continue
        # a trailing "(...)" call in the message: jax.tree.map(...)
        candidates.append(dotted)
    valid = [c for c in candidates if exists(newest, c)]
    if not valid:
        return
    # "use X (jax vA or newer) or Y (any JAX version)"
    any_m = re.search(r"((?:jax|jnp|lax)(?:\.\w+)+)\s*\(any JAX version\)", e.message)
    if any_m and expand(any_m.group(1)) in valid:
        e.any_version_replacement = expand(any_m.group(1))
    e.replacement = valid[0]
    e.replacement_since = since(versions, snaps, e.replacement)
    if e.any_version_replacement:
        e.any_version_since = since(versions, snaps, e.any_version_replacement)
    # same object, statically, in the last release where both exist
    if e.kind != "symbol":
        return
    for attr, target in (("same_object", e.replacement), ("any_version_same_object", e.any_version_replacement)):
        if target is None:
            continue
        for v in reversed(versions):
            snap = snaps[v]
            old = origin_of(snap, e.name)
            if old and exists(snap, target):
                new = origin_of(snap, target)
                if new is not None:
                    setattr(e, attr, old == new and not old.startswith("?") and old != "")
                    if attr == "same_object":
                        e.same_object_checked = f"static:{v}"
                break


# --------------------------------------------------------------------------------------------- runtime confirmation

# How names are reached (attribute first, else import) is shared with the execution test: tools/resolve_names.py.
RUNTIME_PROBE = Path(__file__).with_name("resolve_names.py").read_text() + r"""
import json, sys, warnings
warnings.simplefilter("ignore")
def safe(dotted):
    try:
        return True, get(dotted)
    except Exception as exc:
        return False, repr(exc)
pairs = json.load(sys.stdin)
# every new name first: importing an old name's deprecated submodule (jax/config.py) may rebind a package attribute
new = [safe(n) for _, n in pairs]
old = [safe(o) for o, _ in pairs]
print(json.dumps([(a[1] is b[1]) if a[0] and b[0] else (a[1] if not a[0] else b[1]) for a, b in zip(old, new)]))
"""


PYPI = "https://pypi.org/simple"
# Releases whose jaxlib was built against NumPy 1 and whose jax.scipy.linalg wraps scipy.linalg.tril/triu (gone in
# SciPy 1.13).
OLD_NUMPY_BEFORE = "0.4.26"


def python312() -> str | None:
    """A Python 3.12 interpreter to build the venvs with (JAX 0.11+ needs 3.12; older jaxlibs have 3.12 wheels)."""
    candidates = [sys.executable] if sys.version_info[:2] == (3, 12) else []
    found = shutil.which("python3.12")
    if found:
        candidates.append(found)
    candidates += [str(p) for p in sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python"))]
    for c in candidates:
        proc = subprocess.run([c, "-c", "import sys; print(sys.version_info[:2] == (3, 12))"],
                              check=False, capture_output=True, text=True)
        if proc.returncode == 0 and proc.stdout.strip() == "True":  # a pyenv shim may exist and still fail
            return c
    return None


def pypi_env() -> dict[str, str]:
    """pip's environment for the venv builds: PyPI only (no configured extra indexes, find-links or constraints)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONSTRAINT")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def jaxlib_versions(base: str) -> set[str]:
    """jaxlib releases on PyPI that have a wheel this Python 3.12 can install."""
    proc = subprocess.run([base, "-m", "pip", "index", "versions", "jaxlib", "--index-url", PYPI],
                          check=False, capture_output=True, text=True, env=pypi_env())
    m = re.search(r"Available versions:\s*(.*)", proc.stdout)
    return {v.strip() for v in m.group(1).split(",")} if m else set()


def build_venvs(jaxenvs: Path, versions: list[str]) -> float:
    """Create ``<jaxenvs>/jax-<V>`` (CPU jaxlib from PyPI, Python 3.12) for each version that lacks a complete one.

    Sequential on purpose: one pip at a time. A venv is marked ``.complete`` only after ``import jax`` and a tiny
    computation work in it; a failed build is removed and reported, and the run goes on (those answers stay static).
    """
    missing = [v for v in sorted(versions, key=vkey) if not (jaxenvs / f"jax-{v}" / ".complete").exists()]
    if not missing:
        return 0.0
    base = python312()
    if base is None:
        print("  --build-venvs: no Python 3.12 interpreter found; no venv built", file=sys.stderr)
        return 0.0
    free = shutil.disk_usage(jaxenvs if jaxenvs.exists() else jaxenvs.parent).free
    need = len(missing) * 700 * 2**20  # ~600 MB a venv, plus pip's cache
    if free < need + 2 * 2**30:
        print(f"  --build-venvs: {len(missing)} venvs need ~{need / 2**30:.1f} GB, only {free / 2**30:.1f} GB free; "
              "no venv built", file=sys.stderr)
        return 0.0
    jaxlibs = jaxlib_versions(base)
    jaxenvs.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for v in missing:
        env_dir = jaxenvs / f"jax-{v}"
        if v in jaxlibs:
            jaxlib = f"jaxlib=={v}"
        else:
            older = [x for x in jaxlibs if vkey(x) < vkey(v)]
            if not older:
                print(f"  skip jax {v}: no jaxlib <= {v} with a Python 3.12 wheel on PyPI", file=sys.stderr)
                continue
            # a jax-only release (0.4.37 came with jaxlib 0.4.36): jax's own `jaxlib >=min, <=V` requirement decides
            jaxlib = f"jaxlib<={v}"
            print(f"  jax {v}: jaxlib {v} has no Python 3.12 wheel on PyPI; installing the jaxlib jax {v} requires",
                  file=sys.stderr)
        # absl-py: jax.experimental.pallas.tpu imports it in some releases (0.9.x), and the probe must import it
        extra = ["absl-py"] + (["numpy<2", "scipy<1.13"] if vkey(v) < vkey(OLD_NUMPY_BEFORE) else [])
        t = time.perf_counter()
        if env_dir.exists():
            shutil.rmtree(env_dir)
        subprocess.run([base, "-m", "venv", str(env_dir)], check=True)
        py = str(env_dir / "bin" / "python")
        proc = subprocess.run([py, "-m", "pip", "install", "-q", "--index-url", PYPI, f"jax=={v}", jaxlib, *extra],
                              check=False, capture_output=True, text=True, env=pypi_env())
        if proc.returncode == 0:
            smoke = (f"import jax, jaxlib, jax.numpy as jnp; assert jax.__version__ == {v!r}, jax.__version__; "
                     "float(jnp.ones(2).sum()); print(jaxlib.__version__)")
            proc = subprocess.run([py, "-W", "ignore", "-c", smoke], check=False, capture_output=True, text=True,
                                  env={**os.environ, "JAX_PLATFORMS": "cpu"})
        if proc.returncode != 0:
            print(f"  skip jax {v}: {(proc.stderr.strip().splitlines() or ['?'])[-1][:300]}", file=sys.stderr)
            shutil.rmtree(env_dir, ignore_errors=True)
            continue
        got = proc.stdout.strip().splitlines()[-1]
        (env_dir / ".complete").write_text(f"jax {v}\njaxlib {got}\n")
        print(f"  built {env_dir} (jaxlib {got}) in {time.perf_counter() - t:.0f}s", file=sys.stderr)
    spent = time.perf_counter() - t0
    print(f"venv building: {spent:.1f}s for {len(missing)} missing", file=sys.stderr)
    return spent


def static_groups(entries: list[Entry]) -> dict[str, list[tuple[Entry, str, str]]]:
    """Version -> the 'same object' questions answered statically in that release."""
    by_version: dict[str, list[tuple[Entry, str, str]]] = {}
    for e in entries:
        if e.same_object_checked and e.same_object_checked.startswith("static:"):
            v = e.same_object_checked.split(":", 1)[1]
            by_version.setdefault(v, []).append((e, "same_object", e.replacement))
            if e.any_version_replacement:
                by_version[v].append((e, "any_version_same_object", e.any_version_replacement))
    return by_version


def previous_runtime_answers(out: Path) -> dict[str, dict]:
    """The symbol rows of the last generated file whose 'same object' answer was confirmed at run time."""
    if not out.exists():
        return {}
    import tomllib

    with open(out, "rb") as fh:
        rows = tomllib.load(fh).get("symbol", [])
    return {r["name"]: r for r in rows if str(r.get("same_object_checked", "")).startswith("runtime:")}


def reuse_runtime_answers(group: list[tuple[Entry, str, str]], version: str, previous: dict[str, dict]) -> int:
    """Without a venv of ``version``, keep the run-time answers an earlier run recorded for the very same question
    (same name, same replacement, same release); returns how many were kept."""
    kept = 0
    for e, attr, target in group:
        row = previous.get(e.name)
        if row is None or row.get("same_object_checked") != f"runtime:{version}":
            continue
        key = "replacement" if attr == "same_object" else "any_version_replacement"
        if row.get(key) != target or attr not in row:
            continue
        setattr(e, attr, row[attr])
        if attr == "same_object":
            e.same_object_checked = f"runtime:{version}"
        kept += 1
    return kept


def runtime_check(entries: list[Entry], jaxenvs: Path | None, build: bool = False,
                  previous: dict[str, dict] | None = None) -> float:
    """Confirm ``same_object`` by importing both names in a venv of the release the static check used.

    With ``build``, the missing venvs of exactly those releases are created first (``build_venvs``); returns the
    seconds that took.
    """
    built = build_venvs(jaxenvs, list(static_groups(entries))) if build and jaxenvs is not None else 0.0
    by_version = static_groups(entries)
    for v, group in sorted(by_version.items(), key=lambda kv: vkey(kv[0])):
        python = jaxenvs / f"jax-{v}" / "bin" / "python" if jaxenvs is not None else None
        if python is None or not (jaxenvs / f"jax-{v}" / ".complete").exists():
            kept = reuse_runtime_answers(group, v, previous or {})
            print(f"  no venv for jax {v}: {len(group) - kept} 'same object' answers stay static"
                  + (f", {kept} kept from the previous run's run-time check" if kept else ""), file=sys.stderr)
            continue
        proc = subprocess.run([str(python), "-c", RUNTIME_PROBE], input=json.dumps([[e.name, t] for e, _, t in group]),
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"runtime check in jax {v} failed: {proc.stderr[-500:]}", file=sys.stderr)
            continue
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        for (e, attr, target), r in zip(group, result):
            if isinstance(r, bool):
                if r != getattr(e, attr):
                    print(f"  {e.name} -> {target}: static {getattr(e, attr)}, runtime {r} (jax {v})", file=sys.stderr)
                setattr(e, attr, r)
                if attr == "same_object":
                    e.same_object_checked = f"runtime:{v}"
            else:
                print(f"  {e.name} -> {target}: {r} (jax {v})", file=sys.stderr)
    return built


# ------------------------------------------------------------------------------------------------------------- main


def write(entries: list[Entry], versions: list[str], out: Path, parameters: list[Parameter] = ()) -> None:
    order = {"symbol": 0, "module": 1, "config": 2}
    entries = sorted(entries, key=lambda e: (order[e.kind], e.name))
    head = [
        "# Generated by tools/generate_catalogue.py from the jax wheels; do not edit by hand (see docs/catalogue.md).",
        "# Hand-written additions and corrections belong in overlay.toml.",
        f"first_version = {toml_value(versions[0])}",
        f"newest_version = {toml_value(versions[-1])}",
        f"versions = {toml_value(versions)}",
        "",
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    blocks = [e.toml() for e in entries] + [p.toml() for p in sorted(parameters, key=lambda p: (p.name, p.parameter))]
    out.write_text("\n".join(head) + "\n\n".join(blocks) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=os.environ.get("JAXLINT_PIP_PYTHON", sys.executable),
                    help="interpreter whose pip downloads the wheels (needs a Python that sees every release)")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="wheel and snapshot cache (gitignored)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--versions", nargs="*", help="explicit versions (default: every release >= 0.4.20)")
    ap.add_argument("--jaxenvs", type=Path, default=Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs")),
                    help="folder of jax-<version> venvs used to confirm 'same object' at run time")
    ap.add_argument("--build-venvs", action="store_true",
                    help="create the missing jax-<version> venvs the run-time check needs (Python 3.12, CPU jaxlib "
                         "from PyPI, one pip at a time; ~600 MB each) in --jaxenvs before checking")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    versions = sorted(args.versions, key=vkey) if args.versions else list_versions(args.python)
    wheels = {v: download(args.python, args.cache, v) for v in versions}
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        futures = {v: pool.submit(load_snapshot, args.cache, v, wheels[v]) for v in versions}
        snaps = {v: futures[v].result() for v in versions}
    t1 = time.perf_counter()
    entries = diff(versions, snaps)
    previous = previous_runtime_answers(args.out)
    built = runtime_check(entries, args.jaxenvs if args.jaxenvs.exists() or args.build_venvs else None,
                          args.build_venvs, previous)
    parameters = parameter_diff(versions, snaps)
    write(entries, versions, args.out, parameters)
    counts: dict[str, int] = {}
    for e in entries:
        k = f"{e.kind}/{'removed' if e.removed_in else 'deprecated'}"
        counts[k] = counts.get(k, 0) + 1
    counts["parameter"] = len(parameters)
    print(f"{len(versions)} releases {versions[0]}..{versions[-1]}; {len(entries)} entries {counts}; "
          f"wheels+snapshots {t1 - t0:.1f}s, venv building {built:.1f}s, "
          f"total {time.perf_counter() - t0:.1f}s (without venv building {time.perf_counter() - t0 - built:.1f}s) "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
