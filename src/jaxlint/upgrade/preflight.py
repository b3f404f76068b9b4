"""Before anything is written: can the target JAX run at all for this project?

JAX's releases drop old Pythons (``python_support``). The ``--python`` environment (where the target environment is
built from) and ``--target-python`` must be a Python the target supports; the project's declared ``requires-python``
must admit one (else it cannot install the target anywhere), and should not admit older ones (its users there would
get an old JAX, without the fixes' floor). What cannot work is said first, with the step that makes it work; a
blocking problem stops the upgrade before any fix is written.
"""
from __future__ import annotations

import ast
import configparser
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from jaxlint.project.versions import Version
from jaxlint.upgrade.python_support import KNOWN_UNTIL, SOURCE, oldest_python

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# Python minors a requires-python is tried on: 3.0 to 3.29 (a floor is always a 3.x minor).
_MINORS = tuple(Version(f"3.{minor}") for minor in range(30))


@dataclass(frozen=True)
class Problem:
    problem: str  # what cannot work, or what is wrong
    step: str  # what makes it work
    blocking: bool  # the target cannot run: nothing is written

    def as_json(self) -> dict:
        return {"problem": self.problem, "step": self.step, "blocking": self.blocking}


@dataclass(frozen=True)
class DeclaredPython:
    spec: str  # ``>=3.9``
    where: str  # ``pyproject.toml:5``
    key: str  # ``requires-python``, ``python_requires``, ``python`` (poetry)


def interpreter_version(python: str) -> Version | None:
    """``3.10.13`` for an interpreter; None when it cannot be run."""
    try:
        done = subprocess.run([python, "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                              capture_output=True, text=True, timeout=60)
        return Version(done.stdout.strip()) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None


def declared_python(package: Path | None, cwd: Path) -> DeclaredPython | None:
    """The package's ``requires-python`` (pyproject.toml), poetry ``python``, or ``python_requires`` (setup.cfg,
    a literal or module-level variable in setup.py), with its file:line."""
    if package is None:
        return None
    readers = (("pyproject.toml", _from_pyproject), ("setup.cfg", _from_setup_cfg), ("setup.py", _from_setup_py))
    for name, read in readers:
        path = package / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            found = read(text)
        except (OSError, UnicodeDecodeError, ValueError, SyntaxError, RecursionError, tomllib.TOMLDecodeError,
                configparser.Error):
            continue  # the pin readers warn about an unreadable file
        if found is not None:
            key, spec = found
            number = next((i for i, line in enumerate(text.splitlines(), 1) if spec in line), 1)
            return DeclaredPython(spec.strip(), f"{_shown(path, cwd)}:{number}", key)
    return None


def _from_pyproject(text: str) -> tuple[str, str] | None:
    data = tomllib.loads(text)
    spec = (data.get("project") or {}).get("requires-python")
    if isinstance(spec, str):
        return "requires-python", spec
    poetry = ((data.get("tool") or {}).get("poetry") or {}).get("dependencies") or {}
    spec = poetry.get("python") if isinstance(poetry, dict) else None
    return ("python", spec) if isinstance(spec, str) else None


def _from_setup_cfg(text: str) -> tuple[str, str] | None:
    parser = configparser.ConfigParser()
    parser.read_string(text)
    if parser.has_option("options", "python_requires"):
        return "python_requires", parser.get("options", "python_requires")
    return None


def _from_setup_py(text: str) -> tuple[str, str] | None:
    tree = ast.parse(text)
    assigned = {t.id: s.value for s in tree.body if isinstance(s, ast.Assign) for t in s.targets
                if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "python_requires":
                    value = assigned.get(keyword.value.id) if isinstance(keyword.value, ast.Name) else keyword.value
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        return "python_requires", value.value
    return None


def admitted_minors(spec: str) -> list[Version]:
    """The Python 3 minors ``spec`` admits (``>=3.9,<3.12`` -> 3.9, 3.10, 3.11); poetry's ``^``/``~`` too."""
    from jaxlint.project.pyproject_requirements import poetry_requirement
    from jaxlint.upgrade.pins import _allows

    # ``||`` (poetry) is a union, commas an intersection; a minor is admitted when some release of it is
    alternatives = [[c for part in alternative.split(",") if part.strip()
                     for c in poetry_requirement("python", part.strip())]
                    for alternative in spec.split("||")]
    return [minor for minor in _MINORS
            if any(all(_allows(clause, minor) or _allows(clause, Version(f"{minor}.99")) for clause in alternative)
                   for alternative in alternatives)]


def needs_raising(spec: str, needed: Version) -> bool:
    """``spec`` admits a Python older than ``needed``, or none at or above it."""
    admitted = admitted_minors(spec)
    return bool(admitted) and (any(minor < needed for minor in admitted) or not any(m >= needed for m in admitted))


def raised_spec(spec: str, floor: Version) -> str:
    """``>=3.9,<3.13`` raised to ``>=3.12,<3.13``: the lower bounds replaced by the floor, the other clauses kept
    where they admit it (``<3.11`` goes)."""
    from jaxlint.upgrade.pins import _allows

    kept = [part.strip() for part in spec.split(",")
            if part.strip() and not re.match(r"^(>=|>|~=|\^|~|==)", part.strip())
            and _allows(f"python{part.strip()}", floor)]
    return ",".join([f">={floor}", *kept])


def check(target: Version, python: str, python_version: Version | None, target_python: str | None,
          target_python_version: Version | None, declared: DeclaredPython | None) -> list[Problem]:
    """The problems, blocking ones first."""
    needed = oldest_python(target)
    if needed is None:
        reason = (f"JAX {target} is newer than the releases jaxlint knows the Python of (up to {KNOWN_UNTIL})"
                  if target > KNOWN_UNTIL else f"jaxlint does not know which Python JAX {target} needs")
        return [Problem(f"{reason}: the Python of the environments and of requires-python was not checked",
                        f"check jax {target}'s Requires-Python on PyPI", False)]
    problems = []
    if target_python is not None:
        if target_python_version is not None and target_python_version < needed:
            problems.append(Problem(
                f"JAX {target} needs Python >= {needed} ({SOURCE}); --target-python is {target_python_version}",
                f"rerun with --target-python pointing at an environment on Python {needed} or newer", True))
    elif python_version is not None and python_version < needed:
        problems.append(Problem(
            f"JAX {target} needs Python >= {needed} ({SOURCE}); --python is {python_version} ({python}), and the "
            "target environment is built from it",
            f"rerun with --python python{needed} (an environment on Python {needed} or newer with the project's "
            "dependencies), or give --target-python", True))
    if declared is not None:
        admitted = admitted_minors(declared.spec)
        shown = f"{declared.key} = '{declared.spec}' in {declared.where}"
        if admitted and not any(minor >= needed for minor in admitted):
            problems.append(Problem(
                f"{shown} excludes every Python JAX {target} supports (>= {needed})",
                f"raise it to {raised_spec(declared.spec, needed)}, and run the project on Python {needed} or newer",
                True))
        elif any(minor < needed for minor in admitted):
            problems.append(Problem(f"{shown} admits Pythons JAX {target} does not support",
                                    f"raise it to {raised_spec(declared.spec, needed)}", False))
    return sorted(problems, key=lambda p: not p.blocking)


def _shown(path: Path, cwd: Path) -> str:
    relative = os.path.relpath(path, cwd)
    return path.as_posix() if relative.startswith("..") else Path(relative).as_posix()
