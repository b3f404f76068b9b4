"""The oldest JAX a project supports, read from its own dependency pins (as django-upgrade reads Django's)."""
from __future__ import annotations

import ast
import configparser
import re
import sys
from pathlib import Path

from jaxlint.project.versions import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# ``jax`` itself (not jaxlib, jax-md, jaxtyping), optional extras, then the specifier.
_REQUIREMENT = re.compile(r"^\s*jax\s*(\[[^\]]*\])?\s*(?P<spec>(?:[<>=!~^][^;#]*)?)(?:[;#].*)?$", re.IGNORECASE)
_LOWER_BOUND = re.compile(r"(?:>=|==|~=|\^|>)\s*v?(\d+(?:\.\d+){0,3})")


def lower_bound(requirement: str) -> Version | None:
    """``jax[cuda12]>=0.4.30,<0.6`` -> 0.4.30; None for other packages or an unpinned ``jax``."""
    match = _REQUIREMENT.match(requirement.strip())
    if not match:
        return None
    bounds = [Version(v) for v in _LOWER_BOUND.findall(match.group("spec"))]
    return max(bounds) if bounds else None


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
    if isinstance(poetry.get("jax"), str):
        requirements.append(f"jax {poetry['jax']}")
    elif isinstance(poetry.get("jax"), dict) and isinstance(poetry["jax"].get("version"), str):
        requirements.append(f"jax {poetry['jax']['version']}")
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
_CONDA_EXACT = re.compile(r"^(?P<name>jax(?:\[[^\]]*\])?)\s*(?:=(?!=)|\s+)(?P<version>\d[\w.*]*)$", re.IGNORECASE)


def _from_environment_yml(path: Path) -> list[str]:
    """Conda and pip dependency items of an ``environment.yml``; conda's ``jax=V`` means ``jax==V``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    items = []
    for line in lines:
        match = _CONDA_ITEM.match(line)
        if not match:
            continue
        item = match.group("item").strip().strip("'\"")
        exact = _CONDA_EXACT.match(item)
        items.append(f"{exact.group('name')}=={exact.group('version').rstrip('.*')}" if exact else item)
    return items


def _from_requirements(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def _candidate_files(root: Path) -> list[tuple[Path, object]]:
    files: list[tuple[Path, object]] = [(root / "pyproject.toml", _from_pyproject), (root / "setup.cfg", _from_setup_cfg),
                                        (root / "setup.py", _from_setup_py)]
    files.extend((path, _from_requirements) for path in sorted(root.glob("requirements*.txt")))
    files.extend((path, _from_requirements) for path in sorted(root.glob("requirements/*.txt")))
    files.extend((root / name, _from_environment_yml) for name in ("environment.yml", "environment.yaml"))
    return files


def infer_min_version(start: Path) -> tuple[Version, str] | None:
    """Search ``start`` and its parents up to the project root; the first pinned file wins (pyproject.toml, setup.cfg,
    setup.py, requirements*.txt, environment.yml, in that order)."""
    for folder in [start, *start.parents]:
        for path, reader in _candidate_files(folder):
            if not path.is_file():
                continue
            for line in reader(path):  # type: ignore[operator]
                bound = lower_bound(line)
                if bound is not None:
                    return bound, f"{path.name}: {line.strip()}"
        if (folder / ".git").exists() or (folder / "pyproject.toml").is_file():
            break  # the project root: pins above it belong to someone else
    return None
