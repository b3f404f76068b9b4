"""A folder's ``jax`` requirements, read from its dependency files (as django-upgrade reads Django's), each with the
file and line that states it; and the bounds one requirement sets. ``version_pins`` turns them into a file's range."""
from __future__ import annotations

import ast
import configparser
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection

from jaxlint.project.versions import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# ``jax`` itself (not jaxlib, jax-md, jaxtyping), optional extras, then the specifier.
_REQUIREMENT = re.compile(r"^\s*jax\s*(\[[^\]]*\])?\s*(?P<spec>(?:[<>=!~^][^;#]*)?)(?:[;#].*)?$", re.IGNORECASE)
# The libraries with rules of their own (JAX5xx): their bounds are read from the same lines as ``jax``'s.
LIBRARIES = ("flax", "optax")
_LIBRARY_REQUIREMENT = {name: re.compile(_REQUIREMENT.pattern.replace("jax", name, 1), re.IGNORECASE)
                        for name in LIBRARIES}
_LOWER_BOUND = re.compile(r"(?:>=|==|~=|\^|>)\s*v?(\d+(?:\.\d+){0,3})")
_UPPER_BOUND = re.compile(r"(<=|<|==|~=|\^)\s*v?(\d+(?:\.\d+){0,3})(?![\d.]*\*)")


def _pattern(package: str) -> re.Pattern[str]:
    return _REQUIREMENT if package == "jax" else _LIBRARY_REQUIREMENT[package]


def lower_bound(requirement: str, package: str = "jax") -> Version | None:
    """``jax[cuda12]>=0.4.30,<0.6`` -> 0.4.30; None for other packages or an unpinned ``jax`` (``package``: one of
    ``LIBRARIES`` instead of ``jax``)."""
    match = _pattern(package).match(requirement.strip())
    if not match:
        return None
    bounds = [Version(v) for v in _LOWER_BOUND.findall(match.group("spec"))]
    return max(bounds) if bounds else None


def upper_bound(requirement: str, package: str = "jax") -> Version | None:
    """``jax>=0.4.6,<0.5`` -> 0.5 (``~=0.4.30`` and ``^0.4.30`` -> 0.5, ``==0.4.30`` -> 0.4.30); None when the
    requirement leaves newer releases open, or is not about ``jax`` (or ``package``)."""
    match = _pattern(package).match(requirement.strip())
    if not match:
        return None
    bounds = []
    for operator, text in _UPPER_BOUND.findall(match.group("spec")):
        if operator in ("~=", "^"):
            parts = [int(p) for p in text.split(".")]
            # ~=X.Y.Z allows X.Y.*; ^0.Y.Z allows 0.Y.* and ^X.Y allows X.* (poetry)
            cut = len(parts) - 1 if operator == "~=" else next((i for i, p in enumerate(parts) if p), 0) + 1
            cut = max(cut, 1)
            kept = parts[:cut]
            kept[-1] += 1
            text = ".".join(str(p) for p in kept)
        bounds.append(Version(text))
    return min(bounds) if bounds else None


def mentions_jax(requirement: str) -> bool:
    """A requirement on ``jax`` itself, bounded or not."""
    return _REQUIREMENT.match(requirement.strip()) is not None


def library_of(requirement: str) -> str | None:
    """Which of ``LIBRARIES`` a requirement is about (``flax>=0.7``), or None."""
    text = requirement.strip()
    return next((name for name, pattern in _LIBRARY_REQUIREMENT.items() if pattern.match(text)), None)


def _pinned_package(requirement: str) -> bool:
    return mentions_jax(requirement) or library_of(requirement) is not None


def _from_pyproject(path: Path) -> list[str]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    project = data.get("project", {})
    requirements = list(project.get("dependencies", []) or [])
    for extra in (project.get("optional-dependencies", {}) or {}).values():
        requirements.extend(extra or [])
    poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {}) or {}
    for name in ("jax", *LIBRARIES):
        if isinstance(poetry.get(name), str):
            requirements.append(f"{name} {poetry[name]}")
        elif isinstance(poetry.get(name), dict) and isinstance(poetry[name].get("version"), str):
            requirements.append(f"{name} {poetry[name]['version']}")
    return [r for r in requirements if isinstance(r, str)]


def _from_setup_cfg(path: Path) -> list[str]:
    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return []
    lines: list[str] = []
    if parser.has_option("options", "install_requires"):
        lines.extend(parser.get("options", "install_requires").splitlines())
    if parser.has_section("options.extras_require"):
        for _, value in parser.items("options.extras_require"):
            lines.extend(value.splitlines())
    return lines


def _from_setup_py(path: Path) -> list[str]:
    """Literal ``install_requires`` / ``extras_require`` of a ``setup(...)`` call (read with ``ast``, never run)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return []
    requirements: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if callee != "setup":
            continue
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                requirements.extend(_literal_strings(keyword.value))
            elif keyword.arg == "extras_require" and isinstance(keyword.value, ast.Dict):
                for value in keyword.value.values:
                    requirements.extend(_literal_strings(value))
    return requirements


def _literal_strings(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.splitlines()
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


# A conda dependency line (``- jax>=0.4.30``, ``- jax=0.4.30``, ``- jax 0.4.30``, ``- conda-forge::jax=0.4.30``).
_CONDA_ITEM = re.compile(r"^\s*-\s*(?:[\w.-]+::)?(?P<item>[^#\s][^#]*?)\s*(?:#.*)?$")
_CONDA_EXACT = re.compile(r"^(?P<name>(?:jax|flax|optax)(?:\[[^\]]*\])?)\s*(?:=(?!=)|\s+)(?P<version>\d[\w.*]*)$",
                          re.IGNORECASE)


def _from_environment_yml(path: Path) -> list[tuple[int, str]]:
    """Conda and pip dependency items of an ``environment.yml``; conda's ``jax=V`` means ``jax==V``."""
    items = []
    for number, line in enumerate(_lines(path), 1):
        match = _CONDA_ITEM.match(line)
        if not match:
            continue
        item = match.group("item").strip().strip("'\"")
        exact = _CONDA_EXACT.match(item)
        items.append((number, f"{exact.group('name')}=={exact.group('version').rstrip('.*')}" if exact else item))
    return items


def _from_requirements(path: Path) -> list[tuple[int, str]]:
    """pip requirement (and constraint) lines, without their comments."""
    return [(number, line.split(" #")[0].strip()) for number, line in enumerate(_lines(path), 1)]


def _from_pipfile(path: Path) -> list[str]:
    """``[packages]`` and ``[dev-packages]``: ``jax = ">=0.4.6"``, ``"*"`` or ``{version = ">=0.4.6", ...}``."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    requirements = []
    for section in ("packages", "dev-packages"):
        for name, spec in (data.get(section) or {}).items():
            if isinstance(spec, dict):
                spec = spec.get("version", "*")
            if isinstance(spec, str):
                requirements.append(f"{name}{'' if spec.strip() == '*' else spec}")
    return requirements


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def _numbered(reader: Callable[[Path], list[str]]) -> Callable[[Path], list[tuple[int, str]]]:
    """A reader of a structured file (TOML, INI, setup.py), with each requirement's line found in the text: the
    first line that holds the requirement as written, else the first that names ``jax``."""
    def read(path: Path) -> list[tuple[int, str]]:
        requirements = reader(path)
        lines = _lines(path) if any(_pinned_package(r) for r in requirements) else []
        numbered = []
        for requirement in requirements:
            if not _pinned_package(requirement):
                continue
            squeezed = requirement.replace(" ", "")
            number = next((i for i, line in enumerate(lines, 1) if squeezed in line.replace(" ", "")), None)
            if number is None:
                number = next((i for i, line in enumerate(lines, 1) if re.search(r"\bjax\b", line)), 1)
            numbered.append((number, requirement.strip()))
        return numbered
    return read


# The files that declare a package: a folder holding one is a package even when it says nothing about ``jax``.
PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "Pipfile")


def _pin_files(folder: Path | str,
               names: Collection[str]) -> list[tuple[Path, Callable[[Path], list[tuple[int, str]]]]]:
    """The pin files among ``names`` (the folder's entries: one listing per folder, not a stat per candidate)."""
    files = [(Path(folder, name), _numbered(reader)) for name, reader in (
        ("pyproject.toml", _from_pyproject), ("setup.cfg", _from_setup_cfg), ("setup.py", _from_setup_py),
        ("Pipfile", _from_pipfile)) if name in names]
    files.extend((Path(folder, name), _from_requirements) for name in sorted(
        name for name in names if name.endswith(".txt") and name.startswith(("requirements", "constraints"))))
    if "requirements" in names:
        files.extend((path, _from_requirements) for path in sorted(Path(folder, "requirements").glob("*.txt")))
    files.extend((Path(folder, name), _from_environment_yml) for name in ("environment.yml", "environment.yaml")
                 if name in names)
    return [(path, reader) for path, reader in files if path.is_file()]


@dataclass(frozen=True)
class Requirement:
    """One requirement on ``jax`` (or on one of ``LIBRARIES``) and where it is written."""

    file: Path
    line: int
    text: str


def folder_pins(folder: Path | str, names: Collection[str] | None = None) -> tuple[bool, list[Requirement]]:
    """Whether ``folder`` holds a project file (``PROJECT_FILES``), and its requirements on ``jax`` and on
    ``LIBRARIES`` (``mentions_jax`` tells them apart). ``names``: the folder's entries when the caller has just
    listed it (a walk); else it is listed here."""
    if names is None:
        try:
            names = set(os.listdir(folder))
        except OSError:
            return False, []
    requirements = []
    for path, reader in _pin_files(folder, names):
        requirements.extend(Requirement(path, line, text) for line, text in reader(path) if _pinned_package(text))
    return any(name in names and Path(folder, name).is_file() for name in PROJECT_FILES), requirements


def declared_requirements(folder: Path | str) -> list[str]:
    """Every requirement the folder's project files and ``requirements*.txt`` declare, on any package (``upgrade``
    follows them to the dependencies the project runs)."""
    folder = Path(folder)
    found: list[str] = []
    for name, reader in (("pyproject.toml", _from_pyproject), ("setup.cfg", _from_setup_cfg),
                         ("setup.py", _from_setup_py), ("Pipfile", _from_pipfile)):
        if (folder / name).is_file():
            found.extend(reader(folder / name))
    for path in sorted(folder.glob("requirements*.txt")):
        found.extend(line.split("#")[0].strip() for line in _lines(path) if not line.lstrip().startswith("-"))
    return [requirement for requirement in found if requirement]
