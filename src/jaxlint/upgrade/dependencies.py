"""Step 3: the installed distributions that use JAX (or a library jaxlint has rules for), linted read-only at the
target. A dependency with findings that break at the target is *blocking*; ``releases`` then looks for a newer
release on the package index that has none."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from jaxlint.project.config import Overrides, SettingsResolver
from jaxlint.project.pins import lower_bound
from jaxlint.project.versions import Version
from jaxlint.upgrade.environment import Distribution, normalize

# A distribution that declares one of these uses what jaxlint has rules for.
LIBRARIES = ("jax", "jaxlib", "flax", "optax")
# JAX itself and its binary parts: what the upgrade replaces, never a dependency that blocks it.
_JAX_ITSELF = re.compile(r"^(jax|jaxlib|jax-cuda\d+-(plugin|pjrt)|jax-rocm\d*-(plugin|pjrt)|libtpu|libtpu-nightly)$")
# Deprecations still work at the target: reported, but they do not block the upgrade.
NOT_BLOCKING = frozenset({"JAX001", "JAX402"})
# The flax and optax rules report removed and deprecated names alike; a deprecated one still works.
_DEPRECATION_WORDING = {"JAX502": " is deprecated since ", "JAX506": " is deprecated since "}
# jaxlint runs beside the project (a pre-commit or CI environment): it is never a dependency of it.
_NEVER_A_DEPENDENCY = frozenset({"jaxlint"})
# Files a library ships that do not run when the project imports it: its tests, examples, docs and benchmarks.
_NOT_RUN_FOLDERS = frozenset({"tests", "test", "examples", "example", "docs", "doc", "benchmarks", "benchmark"})
# ... also with a prefix: jraph ships ``jraph/ogb_examples/``, other libraries ``*_tests/`` or ``*_test/``.
_NOT_RUN_PREFIXED = re.compile(r"^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*_(?:%s)$" % "|".join(sorted(_NOT_RUN_FOLDERS)))
# Undeclared uses are found by reading the files of small distributions only (a big one declares what it needs).
GREP_AT_MOST = 300
_IMPORTS = re.compile(r"^\s*(?:import|from)\s+(?:jax|flax|optax)\b", re.M)


@dataclass
class Finding:
    file: str  # relative to the folder that holds the distribution's packages (``mydep/core.py``)
    row: int
    column: int
    code: str
    message: str

    def as_json(self) -> dict:
        return {"file": self.file, "row": self.row, "column": self.column, "code": self.code,
                "message": self.message}

    @classmethod
    def from_json(cls, data: dict) -> "Finding":
        return cls(data["file"], data["row"], data["column"], data["code"], data["message"])


@dataclass
class DependencyResult:
    name: str
    version: str
    findings: list[Finding] = field(default_factory=list)  # the blocking ones
    warnings: list[Finding] = field(default_factory=list)  # deprecations: not blocking
    fixed_in: str | None = None  # the oldest newer release checked that has no blocking finding
    releases_checked: list[str] = field(default_factory=list)
    note: str | None = None  # why no release could be checked (no index, not found, no wheel)
    requires_python: str | None = None  # the fixed release's Requires-Python (None: it declares none)
    lookup_python: str | None = None  # the Python the releases were downloaded for (the target's)
    fixed_requires: list[str] | None = None  # ``fixed_in``'s Requires-Dist (None: not known)
    no_longer_needed: str | None = None  # why the upgraded releases and the project no longer need it

    @property
    def blocking(self) -> bool:
        return bool(self.findings)

    def as_json(self) -> dict:
        return {"name": self.name, "version": self.version, "findings": [f.as_json() for f in self.findings],
                "fixed_in": self.fixed_in, "warnings": [f.as_json() for f in self.warnings],
                "releases_checked": self.releases_checked, "note": self.note,
                "requires_python": self.requires_python, "lookup_python": self.lookup_python,
                "no_longer_needed": self.no_longer_needed}


def uses_jax(dist: Distribution) -> bool:
    """Declares jax/jaxlib/flax/optax, or (a small distribution) imports one of them."""
    if _JAX_ITSELF.match(dist.key):
        return False
    for requirement in dist.requires:
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        if name and normalize(name.group(1)) in LIBRARIES:
            return True
    if len(dist.files) > GREP_AT_MOST:
        return False
    for path in dist.files:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                if _IMPORTS.search(handle.read(65536)):
                    return True
        except OSError:
            continue
    return False


def project_dependencies(distributions: Iterable[Distribution], project: Path,
                         imported: set[str] | None = None) -> list[Distribution]:
    """The distributions that use JAX and that the project's code reaches (``import_graph``), less the project
    itself (installed editable, or from its folder) and jaxlint (a tool beside the project, never part of it)."""
    from jaxlint.project.pins import declared_requirements
    from jaxlint.upgrade.import_graph import project_imports, reachable

    project = project.resolve()
    if imported is None:
        imported = project_imports(project)
    chosen = []
    for dist in reachable(distributions, imported, declared_requirements(project)):
        files = [f for f in dist.files if f.suffix == ".py"]
        if files and all(_is_under(f, project) and not _installed(f) for f in files):
            continue  # the project's own code (an editable install): the fixes step handles it
        if dist.key in _NEVER_A_DEPENDENCY:
            continue
        if uses_jax(dist):
            chosen.append(dist)
    return sorted(chosen, key=lambda d: d.key)


def _installed(path: Path) -> bool:
    """In an environment's site-packages (a ``.venv`` inside the project holds dependencies, not the project)."""
    return any(part in ("site-packages", "dist-packages") for part in path.parts)


def _is_under(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder)
        return True
    except (ValueError, OSError):
        return False


def own_min_version(requires: Iterable[str], target: Version) -> Version:
    """The dependency's own floor (``jax>=0.4.30`` in its metadata), never above the target; else the target."""
    floors = [bound for r in requires if (bound := lower_bound(r.split(";")[0])) is not None]
    return min([*floors, target]) if floors else target


def lint_files(files: Iterable[Path], target: Version, min_version: Version) -> tuple[list[Finding], list[Finding]]:
    """(blocking, warnings) in ``files``, read only: nothing is written, no cache, no configuration of theirs."""
    from jaxlint.lint.engine import lint_source
    from jaxlint.run.sources import DecodeError, read_source

    files = sorted(f for f in files if f.suffix == ".py")
    if not files:
        return [], []
    base = Path(os.path.commonpath([str(f.parent) for f in files])).parent
    files = [f for f in files if runs_when_imported(f, base)]
    resolver = SettingsResolver(Overrides(target_version=target, min_version=min_version, isolated=True), cwd=base)
    blocking, warnings = [], []
    for path in files:
        try:
            source = read_source(path)
        except (OSError, DecodeError):
            continue
        settings = resolver.for_path(path)
        try:
            diagnostics = lint_source(source.text, str(path), settings).diagnostics
        except Exception:  # noqa: BLE001 - a file jaxlint cannot lint says nothing about the upgrade
            continue
        guarded = (guarded_rows(source.text) | jax_mode_dead_rows(source.text)) if diagnostics else set()
        for d in diagnostics:
            if d.code == "JAX000":
                continue  # not Python jaxlint can parse (a template, a file for another Python): not a finding
            finding = Finding(path.relative_to(base).as_posix(), d.start.row, d.start.column, d.code, d.message)
            if about_its_own_names(finding):
                continue  # flax's own code using a flax name of its own release: it is there in that release
            (warnings if still_works(d) or d.start.row in guarded else blocking).append(finding)
    return blocking, warnings


def about_its_own_names(finding: Finding) -> bool:
    """A flax or optax rule (JAX5xx) on that library's own files: ``from optax import monte_carlo`` in optax 0.2.1's
    ``__init__.py`` names a module that release ships; the rules speak of the library's later releases."""
    from jaxlint.rules import rule_by_code

    rule = rule_by_code(finding.code)
    label = (rule.library_version or "") if rule is not None else ""
    folders = finding.file.split("/")[:-1]
    return any(package in folders and package in label and f"{package}." in finding.message
               for package in ("flax", "optax"))


def runs_when_imported(path: Path, base: Path) -> bool:
    """Not a test, example, doc or benchmark file of the distribution: those never run in the project."""
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        parts = path.parts
    name = parts[-1] if parts else ""
    if name == "conftest.py" or name.startswith("test_") or name.endswith(("_test.py", "_tests.py")):
        return False
    return not any(part in _NOT_RUN_FOLDERS or _NOT_RUN_PREFIXED.match(part) for part in parts[:-1])


def still_works(diagnostic) -> bool:
    """A deprecation (it warns at the target, it does not fail), or a use Python never evaluates."""
    wording = _DEPRECATION_WORDING.get(diagnostic.code)
    return (diagnostic.code in NOT_BLOCKING or bool(wording and wording in diagnostic.message)
            or diagnostic.unevaluated_annotation)


# A ``try`` that catches one of these around a use is a compatibility shim (``try: new spelling / except
# TypeError: old spelling``): libraries support several JAX releases that way, and the old spelling never runs where
# the new one works.
_SHIM_ERRORS = {"AttributeError", "TypeError", "ImportError", "ModuleNotFoundError", "NameError", "Exception",
                "BaseException"}


def guarded_rows(text: str) -> set[int]:
    """The rows of every ``try`` statement (body and handlers) that catches ``_SHIM_ERRORS`` (or everything)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    rows: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_shim_error(h.type) for h in node.handlers):
            last = max(h.end_lineno or h.lineno for h in node.handlers)
            rows.update(range(node.lineno, last + 1))
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            rows |= _fallback_rows(node)
    return rows


def _fallback_rows(node) -> set[int]:
    """``getattr(mod, "new", None) or mod.old``: the operands after a ``getattr`` with a default run only where the
    new name is missing (an older JAX), so the old name there is a fallback, not a use at the target."""
    import ast

    rows: set[int] = set()
    for index, value in enumerate(node.values):
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr" \
                and len(value.args) == 3 and not value.keywords:
            for fallback in node.values[index + 1:]:
                rows.update(range(fallback.lineno, (fallback.end_lineno or fallback.lineno) + 1))
            break
    return rows


def _catches_shim_error(caught) -> bool:
    import ast

    if caught is None:
        return True  # a bare ``except:``
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any((n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else None)
               in _SHIM_ERRORS for n in names)


# Libraries that run on several backends (TensorFlow Probability's substrates) branch on a module-level flag:
# ``if JAX_MODE: return ...`` ends the function under JAX, so what follows never runs there.
_JAX_MODE_FLAG = re.compile(r"^_*JAX_MODE$")


def jax_mode_dead_rows(text: str) -> set[int]:
    """The rows that never run under JAX: after ``if JAX_MODE: return/raise`` in the same block, in the body of
    ``if not JAX_MODE:``, in the ``else`` of ``if JAX_MODE:``."""
    import ast

    if "JAX_MODE" not in text:
        return set()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    rows: set[int] = set()
    for node in ast.walk(tree):
        for body in _blocks(node):
            for index, statement in enumerate(body):
                if not isinstance(statement, ast.If):
                    continue
                flag = _jax_mode_test(statement.test)
                if flag is True:
                    rows |= _rows(statement.orelse)
                    if not statement.orelse and _ends_block(statement.body):
                        rows |= _rows(body[index + 1:])
                elif flag is False:
                    rows |= _rows(statement.body)
    return rows


def _blocks(node) -> list[list]:
    return [block for block in (getattr(node, name, None) for name in ("body", "orelse", "finalbody"))
            if isinstance(block, list)]


def _jax_mode_test(test) -> bool | None:
    """True for ``JAX_MODE`` (or ``X or JAX_MODE``: true whenever JAX_MODE is), False for ``not JAX_MODE``."""
    import ast

    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return False if _jax_mode_test(test.operand) is True else None
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return True if any(_jax_mode_test(value) is True for value in test.values) else None
    name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
    return True if _JAX_MODE_FLAG.match(name) else None


def _ends_block(body: list) -> bool:
    import ast

    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def _rows(statements: list) -> set[int]:
    rows: set[int] = set()
    for statement in statements:
        rows.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return rows


def scan(distributions: Iterable[Distribution], target: Version,
         echo: Callable[[str], None] = lambda line: None) -> list[DependencyResult]:
    """Each dependency linted at the target, from its own floor (or the target) up."""
    results = []
    for dist in distributions:
        echo(f"  linting {dist.name} {dist.version} ({len(dist.files)} file(s))")
        blocking, warnings = lint_files(dist.files, target, own_min_version(dist.requires, target))
        results.append(DependencyResult(dist.name, dist.version, blocking, warnings))
    return results
