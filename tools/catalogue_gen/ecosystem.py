"""The flax and optax catalogue, generated from their wheels the way ``generate_catalogue.py`` does it for JAX.

For every release of ``flax`` and ``optax`` on the package index:

1. the wheel is downloaded (``pip download --no-deps --only-binary :all:``) into a gitignored cache folder;
2. every public module is read statically (JAX's ``Wheel``: nothing is imported): its public names and where each
   is defined, its ``_deprecations`` table (optax's tables have JAX's shape: ``name -> (message, object or None)``),
   a module-level ``DeprecationWarning``, the functions (and classes) whose body warns unconditionally (optax 0.2.7's
   ``global_norm``), and the signature of every public function;
3. consecutive releases are diffed: a removed name (public once, gone later: ``since`` is the first release without
   it), a deprecated one (in a table, or warning), a removed module (``flax.optim``);
4. the replacement is the public name bound to the very same object: the table's object, or the alias
   (``additive_weight_decay = add_decayed_weights``) in the last release that had the old name, proven statically by
   following both names to their definition. Only such a replacement is a ``rename = "safe"``; a replacement named
   in the library's message but defined elsewhere (``global_norm`` -> ``optax.tree.norm``) is reported without one.

The keyword (parameter) diff of JAX's generator is run too (``parameter_rows``): keywords a public function stopped
accepting become ``[[parameter]]`` rows (JAX507), each tagged with its library. A rename stands only where the
signatures show it plainly: the new keyword sits where the old one sat, of the same kind and default, and nothing
else of the signature changed in that release (``flax.core.freeze(x)`` -> ``freeze(xs)``); a release that also
dropped or reordered other parameters changed more than a name (``flax.core.scan``'s ``variable_in_axes``/
``variable_out_axes`` -> ``variable_axes``/``variable_broadcast``), and its keyword is a removal.
"""
from __future__ import annotations

import ast
import concurrent.futures
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from catalogue_gen.parameter_diff import Parameter, parameter_diff
from catalogue_gen.releases import pip_cmd, vkey
from catalogue_gen.class_attributes import refused_attributes, stored_attributes
from catalogue_gen.method_changes import MethodChange, method_changes
from catalogue_gen.snapshot import cached, exists, origin_of, public_modules, run_start, since, state_of
from catalogue_gen.toml_writer import toml_value
from catalogue_gen.wheel import ModuleInfo, Wheel, const_str, parameters

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CACHE = REPO / "tools" / ".wheels" / "ecosystem"
DEFAULT_OUT = REPO / "rules" / "ecosystem_generated.toml"
LIBRARIES = ("flax", "optax")
# Bump when the snapshot format or the analysis changes: cached snapshots are then recomputed.
SNAPSHOT_FORMAT = 8
ROW_KEYS = ("name", "library", "module", "status", "since", "deprecated_since", "replacement", "replacement_since",
            "same_object", "same_object_checked", "same_from", "rename", "first_seen", "last_seen", "import_fails_since", "within",
            "message", "source")


# ----------------------------------------------------------------------------------------------- versions / wheels


def wheel_path(cache: Path, library: str, version: str) -> Path | None:
    found = sorted(cache.glob(f"{library}-{version}-*.whl"))
    return found[0] if found else None


def download(python: str, cache: Path, library: str, version: str) -> Path | None:
    """The release's wheel, downloaded once; None when the release has no wheel (an sdist-only release is skipped)."""
    path = wheel_path(cache, library, version)
    if path is None:
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(pip_cmd(python) + ["download", "-q", "--no-deps", "--only-binary", ":all:",
                                          f"{library}=={version}", "-d", str(cache)], check=False, capture_output=True)
        path = wheel_path(cache, library, version)
    return path


# ------------------------------------------------------------------------------------------------ static analysis


class PackageWheel(Wheel):
    """JAX's ``Wheel`` (imports, aliases, ``_deprecations`` tables, signatures) over another package of a wheel, with
    what flax and optax deprecate through: aliases, functions that warn, a module ``__getattr__``."""

    def __init__(self, path: Path, package: str):
        super().__init__(path, package)
        self._scanned: dict[str, tuple[dict[str, str], dict[str, str], dict[str, tuple[str, str | None]]]] = {}
        self._classes: dict[str, dict[str, dict[str, list[list[str]]]]] = {}
        self._kinds: dict[str, dict[str, str]] = {}  # module -> "Class.method" -> "static" | "class"
        self._attributes: dict[str, dict[str, tuple[list[str], dict[str, str]]]] = {}  # module -> class -> both

    def chain(self, origin: str) -> list[str]:
        """The hops ``resolve`` follows from ``origin`` to the definition: ``transform:AdditiveWeightDecayState``,
        ``transform:AddDecayedWeightsState``, ``base:EmptyState``. The nearest hop names the closest alias."""
        hops: list[str] = []
        while origin and not origin.startswith("?") and len(hops) < 30:
            hops.append(origin)
            mod, _, name = origin.partition(":")
            info = self.info(mod) if name and f"{mod}.{name}" not in self.files else None
            if info is None:
                break
            alias = self.local_aliases(mod).get(name)
            if alias and alias in info.bindings:
                hops.append(f"{mod}:{alias}")
            nxt = info.bindings.get(name) or next(
                (f"{src}:{name}" for src in info.star_imports if name in self.public_names(src)), None)
            if nxt is None or nxt == origin:
                break
            origin = nxt
        return hops

    def warned(self, mod: str) -> dict[str, str]:
        """Functions (and classes, through ``__init__``) of ``mod`` whose body warns of a deprecation before any
        branch: a call always warns. A warning under an ``if`` (a deprecated argument) does not count."""
        return self._scan(mod)[0]

    def local_aliases(self, mod: str) -> dict[str, str]:
        """``old -> new`` for the module-level ``old = new`` of ``mod`` (the bindings skip to ``new``'s origin)."""
        return self._scan(mod)[1]

    def getattr_deprecations(self, mod: str) -> dict[str, tuple[str, str | None]]:
        """flax's deprecations: a module ``__getattr__`` whose ``if name == "X":`` warns and (or not) returns an
        object: ``X -> (message, origin of the object or None)``."""
        return self._scan(mod)[2]

    def methods(self, mod: str, cls: str) -> dict[str, list[list[str]]]:
        """The public methods a class of ``mod`` defines in its own body (not inherited ones, not properties), with
        their parameters (``self``/``cls`` included)."""
        if mod not in self._classes:
            found: dict[str, dict[str, list[list[str]]]] = {}
            try:
                tree = ast.parse(self.zip.read(self.files[mod]))
            except (KeyError, SyntaxError):
                tree = ast.Module(body=[], type_ignores=[])
            for st in tree.body:
                if isinstance(st, ast.ClassDef):
                    found[st.name] = {f.name: parameters(f.args) for f in st.body
                                      if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                                      and not f.name.startswith("_") and not any(
                                          "property" in ast.unparse(d) or "setter" in ast.unparse(d)
                                          for d in f.decorator_list)}
            self._classes[mod] = found
            self._kinds[mod] = {f"{st.name}.{f.name}": kind for st in tree.body if isinstance(st, ast.ClassDef)
                                for f in st.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                                and (kind := _decorated_kind(f)) is not None}
            self._attributes[mod] = {st.name: (stored_attributes(st), refused_attributes(st))
                                     for st in tree.body if isinstance(st, ast.ClassDef)}
        return self._classes[mod].get(cls, {})

    def attributes(self, mod: str, cls: str) -> tuple[list[str], dict[str, str]]:
        """What ``__init__`` stores on the instance, and what ``__getattr__`` refuses (``class_attributes``)."""
        self.methods(mod, cls)
        return self._attributes.get(mod, {}).get(cls, ([], {}))

    def method_kinds(self, mod: str, cls: str) -> dict[str, str]:
        """``method -> "static" | "class"`` for the decorated methods of a class of ``mod`` (after ``methods``)."""
        self.methods(mod, cls)
        return {key.partition(".")[2]: kind for key, kind in self._kinds.get(mod, {}).items()
                if key.partition(".")[0] == cls}

    def _scan(self, mod: str) -> tuple[dict[str, str], dict[str, str], dict[str, tuple[str, str | None]]]:
        if mod in self._scanned:
            return self._scanned[mod]
        warned: dict[str, str] = {}
        aliases: dict[str, str] = {}
        by_getattr: dict[str, tuple[str, str | None]] = {}
        try:
            tree = ast.parse(self.zip.read(self.files[mod]))
        except (KeyError, SyntaxError):
            tree = ast.Module(body=[], type_ignores=[])
        info = self.info(mod)
        for st in [*tree.body, *(s for top in tree.body if isinstance(top, ast.If) for s in top.body + top.orelse)]:
            if isinstance(st, ast.FunctionDef) and st.name == "__getattr__" and info is not None:
                by_getattr.update(getattr_branches(st, info))
                continue
            if isinstance(st, ast.Assign) and isinstance(st.value, ast.Name):
                aliases.update((t.id, st.value.id) for t in st.targets if isinstance(t, ast.Name))
                continue
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                message = body_warning(st.body)
            elif isinstance(st, ast.ClassDef):
                inits = [f for f in st.body
                         if isinstance(f, ast.FunctionDef) and f.name in ("__init__", "__post_init__")]
                message = body_warning(inits[0].body) if inits else None
            else:
                continue
            if message is not None:
                warned[st.name] = message
        self._scanned[mod] = (warned, aliases, by_getattr)
        return self._scanned[mod]


def _decorated_kind(fn: ast.FunctionDef) -> str | None:
    """``static``/``class`` for a ``@staticmethod``/``@classmethod`` (the name a ``self`` takes proves nothing:
    flax 0.12.9 spells one ``_``)."""
    names = {ast.unparse(d) for d in fn.decorator_list}
    return "static" if "staticmethod" in names else "class" if "classmethod" in names else None


def getattr_branches(fn: ast.FunctionDef, info: ModuleInfo) -> dict[str, tuple[str, str | None]]:
    found = {}
    for branch in ast.walk(fn):
        test = branch.test if isinstance(branch, ast.If) else None
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, str)):
            continue
        message = body_warning(branch.body)
        if message is None:
            continue
        returned = next((st.value for st in branch.body if isinstance(st, ast.Return)), None)
        origin = None
        if isinstance(returned, ast.Name):
            origin = info.bindings.get(returned.id) or f"{info.name}:{returned.id}"
        found[test.comparators[0].value] = (message, origin)
    return found


def body_warning(body: list[ast.stmt]) -> str | None:
    """The message of a deprecation ``warnings.warn`` among the statements of ``body`` (not nested)."""
    for st in body:
        call = st.value if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) else None
        if call is None or not ast.unparse(call.func).endswith("warn") or not call.args:
            continue
        category = " ".join([ast.unparse(a) for a in call.args[1:2]] +
                            [ast.unparse(k.value) for k in call.keywords if k.arg == "category"])
        text = const_str(call.args[0]) or ast.unparse(call.args[0])
        if "DeprecationWarning" in category or "FutureWarning" in category or "deprecat" in text.lower():
            return " ".join(text.split())
    return None


def snapshot(wheel_file: Path, package: str) -> dict:
    """What a release offers, per public module: JAX's snapshot (``catalogue_gen.snapshot.public_modules``, so its
    ``state_of``/``exists``/``since``/``parameter_diff`` apply), plus the names a module ``__getattr__`` deprecates,
    ``warned`` (names that always warn), ``package`` and ``chains`` (the alias hops, for ``public_aliases``)."""
    w = PackageWheel(wheel_file, package)
    modules = public_modules(w)
    for mod, m in modules.items():
        names, table = m["names"], m["deprecations"]
        for n, (msg, origin) in w.getattr_deprecations(mod).items():
            if n not in names and n not in table:  # a bound name never reaches ``__getattr__``
                table[n] = [msg, None if origin is None else w.resolve(origin)]
        warned = {}
        for n, origin in names.items():
            def_mod, _, def_name = origin.partition(":")
            if def_name and def_mod in w.files and def_name in w.warned(def_mod):
                warned[n] = w.warned(def_mod)[def_name]
        # methods of the module's public classes, as functions ``Class.method`` (``parameter_diff`` reads them)
        for n, origin in names.items():
            def_mod, _, def_name = origin.partition(":")
            if def_name and def_mod in w.files and not n.startswith("_"):
                for method, sig in w.methods(def_mod, def_name).items():
                    m["signatures"].setdefault(f"{n}.{method}", sig)
                for method, kind in w.method_kinds(def_mod, def_name).items():
                    m.setdefault("method_kinds", {}).setdefault(f"{n}.{method}", kind)
                stored, refused = w.attributes(def_mod, def_name)
                if stored or refused:
                    m.setdefault("attributes", {}).setdefault(n, [stored, refused])
        m["warned"], m["package"] = warned, w.info(mod).is_package
        m["chains"] = {n: hops for n, o in w.public_names(mod).items() if len(hops := w.chain(o)) > 1}
    return {"format": SNAPSHOT_FORMAT, "modules": modules, "flags": {}}


def load_snapshot(cache: Path, library: str, version: str, wheel_file: Path) -> dict:
    snap_file = cache / f"snapshot-{library}-{version}-v{SNAPSHOT_FORMAT}.json"
    return cached(snap_file, lambda: snapshot(wheel_file, library))


# --------------------------------------------------------------------------------------------------------- diffing


@dataclass
class Row:
    """A removed or deprecated name (``kind="symbol"``) or module (``"module"``) of flax or optax."""

    name: str
    kind: str
    library: str
    module: str
    status: str  # "removed" or "deprecated"
    since: str  # the first release where it fails (removed) or warns (deprecated)
    deprecated_since: str | None = None  # a removed name that warned first: since when
    replacement: str | None = None
    replacement_since: str | None = None  # first release from which the replacement exists, without a gap
    same_object: bool | None = None
    same_object_checked: str | None = None  # "static:<release>": the release where both names were followed
    # The same object: the earliest release from which both names are that object in every release up to the last
    # that has both (``flax.nnx.VariableState`` is a class of its own in 0.10.2, ``Variable`` from 0.11.0)
    same_from: str | None = None
    rename: str = ""  # "safe": the same object, public at replacement_since; "" otherwise
    first_seen: str | None = None
    last_seen: str | None = None  # the last release where it worked without a warning... or with one
    import_fails_since: str | None = None  # a module: ``import a.b`` fails from here while ``a`` still binds ``b``
    within: str | None = None  # a module inside a removed module (that module's row covers it)
    message: str | None = None  # the library's own words (table or warning)
    source: str = "diff"  # "table", "warning" or "diff"

    def toml(self) -> str:
        lines = [f"[[{self.kind}]]"]
        for key in ROW_KEYS:
            value = getattr(self, key)
            if value is not None and value != "":
                lines.append(f"{key} = {toml_value(value)}")
        return "\n".join(lines)


def state(snap: dict, mod: str, name: str, table_named: bool) -> str:
    """``ok``, ``deprecated`` (table object, or a call that warns), ``removed`` (table: None) or ``absent``. A name
    a table lists counts as ``ok`` where it was a submodule (``optax.monte_carlo`` before its table entry)."""
    found = state_of(snap, mod, name)
    if found == "ok" and name in snap["modules"][mod].get("warned", {}):
        return "deprecated"
    if found == "absent" and table_named and f"{mod}.{name}" in snap["modules"]:
        return "ok"
    return found


def is_api_origin(origin: str, library: str) -> bool:
    """Defined in the library (not ``typing.Any``, not ``jax.numpy``, not a module object)."""
    mod, _, name = origin.partition(":")
    return (mod == library or mod.startswith(library + ".")) and bool(name)


def symbol_rows(library: str, versions: list[str], snaps: dict[str, dict]) -> list[Row]:
    newest = snaps[versions[-1]]
    keys: set[tuple[str, str]] = set()
    tabled: set[tuple[str, str]] = set()
    for v in versions:
        for mod, m in snaps[v]["modules"].items():
            tabled.update((mod, n) for n in m["deprecations"])
            keys.update((mod, n) for n, origin in m["names"].items() if is_api_origin(origin, library))
    rows = []
    for mod, name in sorted(keys | tabled):
        states = [state(snaps[v], mod, name, (mod, name) in tabled) for v in versions]
        final = states[-1]
        worked = [s in ("ok", "deprecated") for s in states]
        if final == "ok" or True not in worked:
            continue
        if final == "absent" and mod not in newest["modules"]:
            continue  # its module went: the module's row covers it
        last = len(versions) - 1 - worked[::-1].index(True)
        warned = [s == "deprecated" for s in states]
        row = Row(name=f"{mod}.{name}", kind="symbol", library=library, module=mod, status="deprecated",
                  since="", first_seen=run_start(versions, worked), last_seen=versions[last])
        if final == "deprecated":
            row.since = run_start(versions, warned)
        else:
            row.status, row.since = "removed", versions[last + 1]
            if warned[last]:
                row.deprecated_since = run_start(versions, warned)
        tables = [snaps[v]["modules"].get(mod, {}).get("deprecations", {}).get(name) for v in versions]
        warnings = [snaps[v]["modules"].get(mod, {}).get("warned", {}).get(name) for v in versions]
        if any(tables):
            row.source, row.message = "table", [t for t in tables if t][-1][0]
        elif any(warnings):
            row.source, row.message = "warning", [m for m in warnings if m][-1]
        add_replacement(row, name, versions, snaps, tables)
        rows.append(row)
    return rows


def hops(snap: dict, mod: str, name: str) -> list[str]:
    m = snap["modules"][mod]
    return m.get("chains", {}).get(name) or [m["names"].get(name, "")]


def public_aliases(snap: dict, origin: str, library: str, old_hops: list[str] = ()) -> list[str]:
    """The public names bound to ``origin`` in a release, best first: the nearest alias along the old name's own
    chain (``AdditiveWeightDecayState = AddDecayedWeightsState`` before ``AddDecayedWeightsState = EmptyState``),
    then a package's name (``optax.x``, not ``optax.transforms._foo.x``), then the one the definition carries."""
    if not is_api_origin(origin, library):
        return []
    found = [(mod, n) for mod, m in snap["modules"].items() for n, o in m["names"].items() if o == origin]
    def_name = origin.partition(":")[2]

    def nearness(mod: str, name: str) -> int:
        theirs = set(hops(snap, mod, name))
        return next((i for i, hop in enumerate(old_hops) if hop in theirs), len(old_hops))

    found.sort(key=lambda mn: (nearness(*mn), not snap["modules"][mn[0]].get("package"), mn[1] != def_name,
                               len(mn[0]), mn))
    return [f"{mod}.{n}" for mod, n in found]


def message_names(message: str | None, library: str, module: str) -> list[str]:
    """Qualified names in the library's message, and the bare ones after "use" (``use inject_hyperparams
    instead``), read in the deprecated name's module."""
    found = [m.rstrip(".") for m in re.findall(rf"(?<![\w.]){library}(?:\.[A-Za-z_]\w*)+", message or "")]
    for bare in re.findall(r"\buse\s+[`'\"]?([A-Za-z_]\w*)\b(?!\.)", message or "", re.I):
        found.append(bare if bare.startswith(library) else f"{module}.{bare}")
    return found


def add_replacement(row: Row, name: str, versions: list[str], snaps: dict[str, dict], tables: list) -> None:
    """The same object under a name that still works, else the name the library's message gives."""
    newest = snaps[versions[-1]]
    mentioned = message_names(row.message, row.library, row.module)

    def usable(dotted: str) -> bool:
        """Works in the newest release, without a warning (an alias of a deprecated function is no way out)."""
        mod, _, attr = dotted.rpartition(".")
        origin = origin_of(newest, dotted) or ""
        return dotted != row.name and exists(newest, dotted) and \
            (is_api_origin(origin, row.library) or dotted in newest["modules"]) and \
            attr not in newest["modules"].get(mod, {}).get("warned", {})

    # the object: the table's (the deprecated name returns it), or the old name's own in its last release
    questions = []
    if tables[-1] and tables[-1][1] and row.status == "deprecated":
        questions.append((versions[-1], tables[-1][1]))
    last = versions.index(row.last_seen)
    origin = snaps[row.last_seen]["modules"][row.module]["names"].get(name)
    if origin:
        questions.append((row.last_seen, origin))
    elif tables[last] and tables[last][1]:
        questions.append((row.last_seen, tables[last][1]))
    for version, origin in questions:
        old_hops = hops(snaps[version], row.module, name) if name in snaps[version]["modules"][row.module]["names"] \
            else [origin]
        aliases = [a for a in public_aliases(snaps[version], origin, row.library, old_hops) if usable(a)]
        aliases.sort(key=lambda a: a not in mentioned)  # the library's own choice among equals first
        if aliases:
            row.replacement, row.same_object, row.same_object_checked = aliases[0], True, f"static:{version}"
            break
    if row.replacement is None:
        named = [n for n in mentioned if usable(n)]
        if not named:
            return
        row.replacement, row.same_object = named[0], False
        # the last release with both: are they the same object after all?
        for v in reversed(versions[: last + 1]):
            old = origin_of(snaps[v], row.name)
            if old and exists(snaps[v], row.replacement):
                new = origin_of(snaps[v], row.replacement)
                row.same_object = bool(new) and old == new and is_api_origin(old, row.library)
                row.same_object_checked = f"static:{v}"
                break
    row.replacement_since = since(versions, snaps, row.replacement)
    if row.same_object:
        row.same_from = same_from(row, versions, snaps)
    row.rename = "safe" if row.same_object and row.replacement_since and row.same_from else ""


def same_from(row: Row, versions: list[str], snaps: dict[str, dict]) -> str | None:
    """Walking back from the last release that has both names: the earliest release of the unbroken run in which
    the old name and the replacement resolve to one object of the library. A fix to the replacement is safe only
    for a project that never runs an older release."""
    first = None
    for v in reversed(versions):
        old = origin_of(snaps[v], row.name)
        if not (old and exists(snaps[v], row.replacement)):
            if first:
                break
            continue  # after the old name's last release
        if old != origin_of(snaps[v], row.replacement) or not is_api_origin(old, row.library):
            break
        first = v
    return first


def module_rows(library: str, versions: list[str], snaps: dict[str, dict]) -> list[Row]:
    """Removed modules (``flax.optim``), and modules that warn at import in the newest release."""
    newest = snaps[versions[-1]]

    def reachable(snap: dict, mod: str) -> bool:
        """Importable, or at least bound by its package (``from flax import nn`` in flax 0.3.6)."""
        parent, _, last = mod.rpartition(".")
        return mod in snap["modules"] or snap["modules"].get(parent, {}).get("names", {}).get(last, "") == f"{mod}:"

    def resolved_module(snap: dict, mod: str) -> bool:
        parent, _, last = mod.rpartition(".")
        origin = snap["modules"].get(parent, {}).get("names", {}).get(last, "")
        return origin.endswith(":") and origin[:-1] in snap["modules"]

    rows = []
    all_mods = sorted({mod for v in versions for mod in snaps[v]["modules"]})
    removed = {mod for mod in all_mods if not (mod in newest["modules"] or resolved_module(newest, mod))}
    for mod in all_mods:
        present = [mod in snaps[v]["modules"] for v in versions]
        if mod in removed:
            alive = [present[i] or resolved_module(snaps[v], mod) or reachable(snaps[v], mod)
                     for i, v in enumerate(versions)]
            last = len(versions) - 1 - alive[::-1].index(True)
            last_present = len(versions) - 1 - present[::-1].index(True)
            row = Row(name=mod, kind="module", library=library, module=mod, status="removed",
                      since=versions[last + 1], first_seen=run_start(versions, alive),
                      last_seen=versions[last], source="diff")
            if last_present < last:
                row.import_fails_since = versions[last_present + 1]
            parents = [p for p in (".".join(mod.split(".")[:k]) for k in range(1, mod.count(".") + 1)) if p in removed]
            row.within = parents[0] if parents else None
        elif newest["modules"].get(mod, {}).get("warning"):
            warned = [bool(snaps[v]["modules"].get(mod, {}).get("warning")) for v in versions]
            row = Row(name=mod, kind="module", library=library, module=mod, status="deprecated",
                      since=run_start(versions, warned), source="warning",
                      message=newest["modules"][mod]["warning"], first_seen=run_start(versions, present))
        else:
            continue
        rows.append(row)
    return rows


def rows_of(library: str, versions: list[str], snaps: dict[str, dict]) -> list[Row]:
    return symbol_rows(library, versions, snaps) + module_rows(library, versions, snaps)


@dataclass
class LibraryParameter(Parameter):
    """A keyword of a flax or optax function that a release stopped accepting (``parameter_diff``'s row, with its
    library)."""

    library: str = ""
    method_of: str | None = None  # a method: its class's public name (``LSTMCell``), between module and method

    def toml(self) -> str:
        head, _, rest = super().toml().partition("\n")
        method = f"method_of = {toml_value(self.method_of)}\n" if self.method_of else ""
        return f"{head}\nlibrary = {toml_value(self.library)}\n{method}{rest}"


def parameter_rows(library: str, versions: list[str], snaps: dict[str, dict]) -> list[LibraryParameter]:
    """JAX's keyword diff over the library's public functions and the methods of its public classes (``snapshot``
    lists them as ``Class.method``), each rename checked by ``plain_rename``. A method's ``self``/``cls`` that
    "went" is a method turned static (or the other way round), no keyword anyone passes."""
    modules = {mod for v in versions for mod in snaps[v]["modules"]}
    rows = []
    for row in parameter_diff(versions, snaps):
        module = max((mod for mod in modules if row.name.startswith(mod + ".")), key=len)
        function = row.name[len(module) + 1:]
        method_of = function.partition(".")[0] if "." in function else None
        if method_of and row.parameter in ("self", "cls"):
            continue
        if row.change == "renamed" and not plain_rename(row, snaps, module, function):
            row.change, row.replacement, row.replacement_since = "removed", None, None
        rows.append(LibraryParameter(**vars(row), library=library, method_of=method_of))
    return rows


def plain_rename(row: Parameter, snaps: dict[str, dict], mod: str, fn: str) -> bool:
    """Whether the signatures of the last release with the old keyword and of the first without it differ only in
    that one name: same position, kind and default for the new keyword, every other parameter as it was."""

    def signature(version: str) -> list[list[str]] | None:
        return snaps[version]["modules"].get(mod, {}).get("signatures", {}).get(fn)

    before, after = signature(row.last_seen), signature(row.removed_in)
    if before is None or after is None or len(before) != len(after) or row.replacement_since != row.removed_in:
        return False
    changed = [(old, new) for old, new in zip(before, after) if old != new]
    return len(changed) == 1 and changed[0][0][0] == row.parameter and changed[0][1][0] == row.replacement \
        and changed[0][0][1:] == changed[0][1][1:]


# ------------------------------------------------------------------------------------------------------------- main


def render(rows: list[Row], versions: dict[str, list[str]], parameters: list[LibraryParameter] = (),
           changes: list[MethodChange] = ()) -> str:
    head = ["# Generated by tools/generate_ecosystem_catalogue.py from the flax and optax wheels; do not edit by hand.",
            "# Read by jaxlint.catalogue.ecosystem_generated."]
    for library in sorted(versions):
        head.append(f"{library}_versions = {toml_value(versions[library])}")
    order = {"symbol": 0, "module": 1}
    rows = sorted(rows, key=lambda r: (r.library, order[r.kind], r.name))
    parameters = sorted(parameters, key=lambda p: (p.library, p.name, p.parameter))
    changes = sorted(changes, key=lambda c: (c.library, c.name, c.change))
    blocks = [r.toml() for r in rows] + [p.toml() for p in parameters] + [c.toml() for c in changes]
    return "\n".join(head) + "\n\n" + "\n\n".join(blocks) + "\n"


def generate(wheels: dict[str, dict[str, Path]], cache: Path, workers: int = 2) -> tuple[str, dict[str, list]]:
    """The data file's text from ``{library: {version: wheel}}``, and the parameter rows per library."""
    rows: list[Row] = []
    parameters: dict[str, list] = {}
    changes: list[MethodChange] = []
    versions = {lib: sorted(found, key=vkey) for lib, found in wheels.items()}
    keys = [(lib, v) for lib in versions for v in versions[lib]]
    if workers < 1:  # in this process (the tests)
        snaps = {(lib, v): load_snapshot(cache, lib, v, wheels[lib][v]) for lib, v in keys}
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {(lib, v): pool.submit(load_snapshot, cache, lib, v, wheels[lib][v]) for lib, v in keys}
            snaps = {key: future.result() for key, future in futures.items()}
    for lib, vs in versions.items():
        lib_snaps = {v: snaps[(lib, v)] for v in vs}
        rows += rows_of(lib, vs, lib_snaps)
        parameters[lib] = parameter_rows(lib, vs, lib_snaps)
        changes += method_changes(lib, vs, lib_snaps)
    return render(rows, versions, [row for found in parameters.values() for row in found], changes), parameters
