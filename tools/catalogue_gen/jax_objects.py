"""What the module diff of ``name_diff`` cannot see: the members of the ``jax.config`` object, and jaxlib.

- ``jax.config`` is an instance of ``Config`` (``jax/config.py``, later ``jax/_src/config.py``): its methods
  (``define_bool_state``, ``enable_omnistaging``...), the attributes its ``__init__`` sets (``FLAGS``) and, from
  0.4.20, the names its ``__getattr__`` still hands out with a ``DeprecationWarning`` (``_CONFIG_DEPRECATIONS``).
- jaxlib ships compiled modules: a module is a ``.py``, an extension (``.so``/``.pyd``) or a stub package
  (``xla_extension/__init__.pyi``); its names come from the ``.py`` (``wheel.Wheel``) or the ``.pyi`` stubs. An
  extension without stubs has no readable names: only its presence is diffed.

Both are read per release and diffed like ``name_diff``: a member or module seen in some release and absent from the
newest is removed in the first release of the absence that lasts to the newest. The diff needs consecutive releases
around each change: ``gaps`` lists the changes whose two sides are not (the generator downloads a release between).
"""
from __future__ import annotations

import ast
import re
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from catalogue_gen.releases import vkey
from catalogue_gen.wheel import Wheel, const_str, is_public_module

CONFIG_FILES = ("jax/_src/config.py", "jax/config.py")
# Modules whose names a jaxlib module imports for its own use (annotations, helpers): never its API.
_HELPER_MODULES = frozenset({"__future__", "typing", "typing_extensions", "collections", "collections.abc", "abc",
                             "enum", "dataclasses", "functools", "itertools", "contextlib", "types"})
_EXTENSION = re.compile(r"^(?P<path>.+?)(?:\.cpython-[^/]*|\.abi3|\.cp\d+-[^/]*)?\.(?:so|pyd)$")


# -- jax.config ------------------------------------------------------------------------------------------------
@dataclass
class ConfigMembers:
    members: set[str]  # public methods, properties and attributes of the Config object
    deprecated: dict[str, str]  # name -> JAX's warning: ``__getattr__`` hands it out with one, or the method warns
    failing: dict[str, str] = field(default_factory=dict)  # a method that only raises -> its message (not a member)


def read_source(archive: Path, candidates: tuple[str, ...]) -> str | None:
    """The first of ``candidates`` (paths under the package) in a wheel or a source archive, as text."""
    if archive.name.endswith(".tar.gz"):
        with tarfile.open(archive) as tar:
            members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name and m.isfile()}
            for path in candidates:
                if path in members:
                    return tar.extractfile(members[path]).read().decode("utf-8", "replace")
        return None
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
        for path in candidates:
            if path in names:
                return zf.read(path).decode("utf-8", "replace")
    return None


def config_members(source: str) -> ConfigMembers | None:
    """The public members of the ``Config`` class that the module's ``config = Config()`` instantiates."""
    tree = ast.parse(source)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    owner = classes.get("Config")
    if owner is None:
        return None
    members: set[str] = set()
    deprecated: dict[str, str] = {}
    failing: dict[str, str] = {}
    for statement in owner.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = _without_docstring(statement.body)
            if statement.name == "__init__":
                members |= _self_attributes(statement)
            elif statement.name == "__getattr__":
                deprecated.update(_getattr_deprecations(statement, tree))
            elif statement.name.startswith("_"):
                continue
            elif len(body) == 1 and isinstance(body[0], ast.Raise):
                # ``disable_omnistaging`` from 0.2.12: "no longer supported": a call fails, as if it were gone
                failing[statement.name] = _raised(body[0])
            else:
                members.add(statement.name)
                warning = next((node for node in body if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                                and ast.unparse(node.value.func).endswith("warn")), None)
                if warning is not None:  # ``enable_omnistaging`` from 0.2.12: "a no-op", with a warning
                    deprecated[statement.name] = _message(warning.value, statement)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            members |= {t.id for t in targets if isinstance(t, ast.Name) and not t.id.startswith("_")}
    # ``setattr(Config, "x64_enabled", property(...))`` at module level (0.4.x on): a member all the same
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "setattr" and len(call.args) == 3 \
                and ast.unparse(call.args[0]) == "Config" and const_str(call.args[1]):
            members.add(const_str(call.args[1]))
    return ConfigMembers(members, deprecated, failing)


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[1:]
    return body


def _raised(node: ast.Raise) -> str:
    call = node.exc
    text = const_str(call.args[0]) if isinstance(call, ast.Call) and call.args else None
    return " ".join((text or "").split())


def _self_attributes(init: ast.FunctionDef) -> set[str]:
    receiver = init.args.args[0].arg if init.args.args else "self"
    found = set()
    for node in ast.walk(init):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                    and target.value.id == receiver and not target.attr.startswith("_"):
                found.add(target.attr)
    return found


def _getattr_deprecations(method: ast.FunctionDef, tree: ast.Module) -> dict[str, str]:
    """``if name in _CONFIG_DEPRECATIONS: ... warnings.warn(f"jax.config.{name} is deprecated...")``: the names
    of the module-level collection it tests, with the warning's text for each."""
    warns = [node for node in ast.walk(method) if isinstance(node, ast.Call)
             and ast.unparse(node.func).endswith("warn") and "DeprecationWarning" in ast.unparse(node)]
    if not warns:
        return {}
    tables = {node.comparators[0].id for node in ast.walk(method) if isinstance(node, ast.Compare)
              and isinstance(node.ops[0], ast.In) and isinstance(node.comparators[0], ast.Name)}
    names: list[str] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id in tables
                                                     for t in statement.targets):
            try:
                names += [str(n) for n in ast.literal_eval(statement.value)]
            except ValueError:
                pass
    message = _message(warns[0], method)
    parameter = method.args.args[1].arg if len(method.args.args) > 1 else "name"
    return {name: message.replace("{" + parameter + "}", name) for name in names}


def _message(call: ast.Call, method: ast.FunctionDef) -> str:
    arg = call.args[0] if call.args else None
    if isinstance(arg, ast.Name):  # ``message = (f"..." "...")`` assigned above the call
        variable = arg.id
        for node in ast.walk(method):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == variable
                                                    for t in node.targets):
                arg = node.value
    text = const_str(arg) if arg is not None else None
    return " ".join((text or "").split())


# -- jaxlib ----------------------------------------------------------------------------------------------------
def jaxlib_modules(wheel: Path) -> dict[str, set[str] | None]:
    """Public module -> its public names (None: an extension without stubs, names unknown)."""
    with zipfile.ZipFile(wheel) as zf:
        paths = [n for n in zf.namelist() if n.startswith("jaxlib/")]
        stubs = {n: zf.read(n) for n in paths if n.endswith(".pyi")}
    modules: dict[str, set[str] | None] = {}
    for path in paths:
        module = _module_of(path)
        if module is None or not is_public_module(module) or module.split(".")[1:2] == ["include"]:
            continue
        modules.setdefault(module, None)
    reader = Wheel(wheel, package="jaxlib")
    for module in list(modules):
        if module in reader.files:  # its names, not ``np`` or ``Any`` (a name's origin may change: kept whatever)
            modules[module] = {name for name, origin in reader.public_names(module).items()
                               if not origin.endswith(":") and origin.partition(":")[0] not in _HELPER_MODULES}
    for path, data in stubs.items():
        module = _module_of(path)
        if module in modules and modules[module] is None:
            modules[module] = _stub_names(data)
    return modules


def _module_of(path: str) -> str | None:
    if path.endswith((".py", ".pyi")):
        parts = path.rsplit(".", 1)[0].split("/")
    else:
        match = _EXTENSION.match(path)
        if match is None:
            return None
        parts = match.group("path").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if any(not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part) for part in parts):
        return None
    return ".".join(parts)


def _stub_names(data: bytes) -> set[str]:
    try:
        tree = ast.parse(data)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname for a in node.names if a.asname and a.asname == a.name}  # ``import x as x``: re-export
    return {name for name in names if not name.startswith("_")}


# -- the diff --------------------------------------------------------------------------------------------------
@dataclass
class Removal:
    name: str
    kind: str  # "symbol" or "module"
    removed_in: str
    first_seen: str
    last_seen: str
    deprecated_in: str | None = None
    message: str | None = None


def removals(versions: list[str], present: dict[str, dict[str, bool]], deprecated: dict[str, dict[str, str]],
             kind: str) -> list[Removal]:
    """``present[name][version]`` for the releases read (in ``versions`` order); a name absent from the newest is
    removed in the first release of its last absence. ``deprecated[name][version]``: JAX's warning there."""
    found = []
    newest = versions[-1]
    for name, seen in sorted(present.items()):
        if seen.get(newest):
            continue
        held = [v for v in versions if seen.get(v)]
        if not held:
            continue
        last = held[-1]
        removed_in = versions[versions.index(last) + 1]
        first = last
        for v in reversed(versions[:versions.index(last) + 1]):
            if not seen.get(v):
                break
            first = v
        warned = [v for v in versions[:versions.index(last) + 1] if v in deprecated.get(name, {})]
        deprecated_in = None
        if warned and warned[-1] == last:
            deprecated_in = warned[-1]
            for v in reversed(versions[:versions.index(last) + 1]):
                if v not in deprecated.get(name, {}):
                    break
                deprecated_in = v
        message = deprecated.get(name, {}).get(last)
        found.append(Removal(name, kind, removed_in, first, last, deprecated_in, message))
    return found


def gaps(removed: list[Removal], all_versions: list[str], read: list[str]) -> list[tuple[str, str]]:
    """(last seen, removed in) pairs with releases in between that were not read: the change lies among them."""
    out = set()
    for row in removed:
        between = [v for v in all_versions if vkey(row.last_seen) < vkey(v) < vkey(row.removed_in)]
        if any(v not in read for v in between):
            out.add((row.last_seen, row.removed_in))
    return sorted(out, key=lambda pair: vkey(pair[0]))
