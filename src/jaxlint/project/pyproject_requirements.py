"""Every place a ``pyproject.toml`` declares requirements, as PEP 508 strings.

PEP 621 ``[project]`` dependencies and optional-dependencies; PEP 735 ``[dependency-groups]`` (an
``{include-group = ...}`` item names another group, read in its own right); poetry's dependencies,
dev-dependencies and ``[tool.poetry.group.X.dependencies]`` (``"^0.4"``, ``"0.4.30"`` meaning ``==0.4.30``,
``{version = ...}``, a list of those); ``[tool.pdm.dev-dependencies]``; uv's dev- and constraint-dependencies;
hatch environments' dependencies and extra-dependencies; and the requirements files a build backend reads
(``[tool.setuptools.dynamic]``'s ``{file = [...]}``, hatch-requirements-txt's ``files``), returned as paths.
"""
from __future__ import annotations

import re
from typing import Any

_POETRY_VERSION = re.compile(r"^\s*v?\d")


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _table(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def poetry_requirement(name: str, spec: Any) -> list[str]:
    """``jax = "^0.4"`` -> ``jax ^0.4``; ``"0.4.30"`` -> ``jax==0.4.30``; ``"~0.4"`` -> ``jax>=0.4,<0.5``; a table's
    ``version``; each item of a list of tables (one per platform or Python)."""
    if isinstance(spec, list):
        return [text for item in spec for text in poetry_requirement(name, item)]
    if isinstance(spec, dict):
        spec = spec.get("version")
    if not isinstance(spec, str):
        return []
    parts = []
    for part in (p.strip() for p in spec.split(",")):
        if not part or part == "*":
            continue
        if _POETRY_VERSION.match(part):
            part = f"=={part}"  # poetry: a bare version is an exact pin
        elif part.startswith("~") and not part.startswith("~="):
            part = _poetry_tilde(part[1:].strip())
        parts.append(part)
    return [f"{name}{','.join(parts)}" if parts else name]


def _poetry_tilde(version: str) -> str:
    """Poetry's ``~X.Y.Z`` (>=X.Y.Z,<X.(Y+1)), ``~X.Y`` (>=X.Y,<X.(Y+1)) and ``~X`` (>=X,<X+1)."""
    numbers = [int(n) for n in re.findall(r"\d+", version)[:3]] or [0]
    kept = numbers[:2] if len(numbers) > 1 else numbers[:1]
    kept[-1] += 1
    return f">={version},<{'.'.join(str(n) for n in kept)}"


Key = "tuple[str, str] | None"  # a poetry requirement's (table, name): its ``name = ...`` line in that table


def pyproject_requirements(data: dict) -> tuple[list[tuple[str, Key]], list[str]]:
    """(requirement, poetry key or None) for every declared requirement, and the requirements files named."""
    found: list[tuple[str, Key]] = []
    files: list[str] = []
    project = _table(data.get("project"))
    found += [(r, None) for r in _strings(project.get("dependencies"))]
    for extra in _table(project.get("optional-dependencies")).values():
        found += [(r, None) for r in _strings(extra)]
    for group in _table(data.get("dependency-groups")).values():
        found += [(r, None) for r in _strings(group)]  # include-group items name groups read here too
    tool = _table(data.get("tool"))
    poetry = _table(tool.get("poetry"))
    tables = [("tool.poetry.dependencies", poetry.get("dependencies")),
              ("tool.poetry.dev-dependencies", poetry.get("dev-dependencies"))]
    tables += [(f"tool.poetry.group.{name}.dependencies", _table(group).get("dependencies"))
               for name, group in _table(poetry.get("group")).items()]
    for section, table in tables:
        for name, spec in _table(table).items():
            if name.lower() != "python":
                found += [(text, (section, name)) for text in poetry_requirement(name, spec)]
    for group in _table(_table(tool.get("pdm")).get("dev-dependencies")).values():
        found += [(r, None) for r in _strings(group)]
    uv = _table(tool.get("uv"))
    for key in ("dev-dependencies", "constraint-dependencies"):
        found += [(r, None) for r in _strings(uv.get(key))]
    for env in _table(_table(tool.get("hatch")).get("envs")).values():
        for key in ("dependencies", "extra-dependencies"):
            found += [(r, None) for r in _strings(_table(env).get(key))]
    files += _dynamic_files(_table(_table(tool.get("setuptools")).get("dynamic")))
    hook = _table(_table(_table(_table(tool.get("hatch")).get("metadata")).get("hooks")).get("requirements_txt"))
    files += _strings(hook.get("files"))
    for extra in _table(hook.get("optional-dependencies")).values():
        files += _strings(extra)
    return found, files


def _dynamic_files(dynamic: dict) -> list[str]:
    """``dependencies = {file = ["requirements.txt"]}`` and each ``optional-dependencies.X = {file = ...}``."""
    tables = [_table(dynamic.get("dependencies"))]
    tables += [_table(value) for value in _table(dynamic.get("optional-dependencies")).values()]
    files = []
    for table in tables:
        named = table.get("file")
        files += [named] if isinstance(named, str) else _strings(named)
    return files
