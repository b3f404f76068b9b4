"""A folder's ``jax`` requirements, read from its dependency files (as django-upgrade reads Django's), each with the
file and line that states it; and the bounds one requirement sets. ``version_pins`` turns them into a file's range."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection

from jaxlint.project.toml_parser import toml_parser
from jaxlint.project.versions import Version

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


@dataclass(frozen=True)
class Requirement:
    """One requirement (on ``jax``, one of ``LIBRARIES``, or, for ``package_requirements``, anything) and where it
    is written."""

    file: Path
    line: int
    text: str


@dataclass(frozen=True)
class PinFileWarning:
    """A pin file that could not be read (whole or in part): its pins are not used, and the user is told."""

    file: Path
    line: int | None  # None: not a parse error (the file cannot be opened or decoded as a whole)
    message: str


Reader = Callable[[Path, list], list[Requirement]]


def _text(path: Path, warnings: list[PinFileWarning]) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as error:
        warnings.append(PinFileWarning(path, None, f"cannot be read ({error.strerror or error})"))
    except UnicodeDecodeError as error:
        line = error.object[:error.start].count(b"\n") + 1
        warnings.append(PinFileWarning(path, line, "is not UTF-8"))
    return None


def _toml(path: Path, warnings: list[PinFileWarning]) -> tuple[dict | None, str]:
    text = _text(path, warnings)
    if text is None:
        return None, ""
    tomllib = toml_parser()
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"at line (\d+)", str(error))
        at_end = max(len(text.splitlines()), 1) if "end of document" in str(error) else None
        line = getattr(error, "lineno", None) or (int(found.group(1)) if found else at_end)
        warnings.append(PinFileWarning(path, line, f"is not valid TOML ({str(error).split(' (at ')[0]})"))
        return None, text


def _from_pyproject(path: Path, warnings: list[PinFileWarning]) -> list[Requirement]:
    from jaxlint.project.pyproject_requirements import pyproject_requirements

    data, text = _toml(path, warnings)
    if data is None:
        return []
    declared, files = pyproject_requirements(data)
    lines = text.splitlines()
    found = _located(path, lines, declared)
    for name in files:
        named_at = next((i for i, line in enumerate(lines, 1) if name in line), None)
        found.extend(_from_named_file(path.parent / name, warnings, path, named_at))
    return found


def _from_setup_cfg(path: Path, warnings: list[PinFileWarning]) -> list[Requirement]:
    text = _text(path, warnings)
    if text is None:
        return []
    import configparser  # here: only a folder with a setup.cfg needs it (1 ms of every start-up)

    parser = configparser.ConfigParser()
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error as error:
        line = getattr(error, "lineno", None) or next((n for n, _ in getattr(error, "errors", ())), None)
        warnings.append(PinFileWarning(path, line, f"is not a valid setup.cfg ({type(error).__name__})"))
        return []
    lines: list[str] = []
    if parser.has_option("options", "install_requires"):
        lines.extend(parser.get("options", "install_requires").splitlines())
    if parser.has_section("options.extras_require"):
        for _, value in parser.items("options.extras_require"):
            lines.extend(value.splitlines())
    return _located(path, text.splitlines(), [(line, None) for line in lines if line.strip()])


def _from_setup_py(path: Path, warnings: list[PinFileWarning]) -> list[Requirement]:
    """``setup(...)``'s requirements, as ``setup_py`` resolves them (read with ``ast``, never run)."""
    from jaxlint.project.setup_py import setup_requirements

    text = _text(path, warnings)
    if text is None:
        return []
    try:
        found = setup_requirements(text, path.parent, lambda named, line: _numbered_lines(named, warnings, path, line))
    except (SyntaxError, ValueError, RecursionError) as error:
        warnings.append(PinFileWarning(path, getattr(error, "lineno", None), f"cannot be parsed ({error})"))
        return []
    own = _located(path, text.splitlines(), [(r.text, None) for r in found if r.file is None])
    return own + [Requirement(r.file, r.line, r.text) for r in found if r.file is not None]


def _numbered_lines(path: Path, warnings: list[PinFileWarning], named_by: Path,
                    named_at: int | None = None) -> list[tuple[int, str]] | None:
    """The lines of a requirements file that another pin file names; a missing one is a warning (its pins are not
    read); None when it cannot be read."""
    if not path.is_file():
        warnings.append(PinFileWarning(named_by, named_at, f"names {path.name}, which does not exist"))
        return None
    text = _text(path, warnings)
    if text is None:
        return None
    return [(number, line.split(" #")[0].strip()) for number, line in enumerate(text.splitlines(), 1)]


def _from_named_file(path: Path, warnings: list[PinFileWarning], named_by: Path,
                     named_at: int | None) -> list[Requirement]:
    return [Requirement(path, number, line)
            for number, line in _numbered_lines(path, warnings, named_by, named_at) or []]


# A conda dependency line (``- jax>=0.4.30``, ``- jax=0.4.30``, ``- jax 0.4.30``, ``- conda-forge::jax=0.4.30``).
_CONDA_ITEM = re.compile(r"^\s*-\s*(?:[\w.-]+::)?(?P<item>[^#\s][^#]*?)\s*(?:#.*)?$")
_CONDA_EXACT = re.compile(r"^(?P<name>(?:jax|flax|optax)(?:\[[^\]]*\])?)\s*(?:=(?!=)|\s+)(?P<version>\d[\w.*]*)$",
                          re.IGNORECASE)


def _from_environment_yml(path: Path, warnings: list[PinFileWarning]) -> list[Requirement]:
    """Conda and pip dependency items of an ``environment.yml``; conda's ``jax=V`` means ``jax==V``."""
    items = []
    for number, line in enumerate((_text(path, warnings) or "").splitlines(), 1):
        match = _CONDA_ITEM.match(line)
        if not match:
            continue
        item = match.group("item").strip().strip("'\"")
        exact = _CONDA_EXACT.match(item)
        items.append(Requirement(path, number, f"{exact.group('name')}=={exact.group('version').rstrip('.*')}"
                                 if exact else item))
    return items


def _from_requirements(path: Path, warnings: list[PinFileWarning]) -> list[Requirement]:
    """pip requirement (and constraint) lines, without their comments."""
    return [Requirement(path, number, line.split(" #")[0].strip())
            for number, line in enumerate((_text(path, warnings) or "").splitlines(), 1)]


def _from_pipfile(path: Path, warnings: list[PinFileWarning]) -> list[Requirement]:
    """``[packages]`` and ``[dev-packages]``: ``jax = ">=0.4.6"``, ``"*"`` or ``{version = ">=0.4.6", ...}``."""
    data, text = _toml(path, warnings)
    if data is None:
        return []
    requirements = []
    for section in ("packages", "dev-packages"):
        for name, spec in (data.get(section) or {}).items():
            if isinstance(spec, dict):
                spec = spec.get("version", "*")
            if isinstance(spec, str):
                requirements.append((f"{name}{'' if spec.strip() == '*' else spec}", (section, name)))
    return _located(path, text.splitlines(), requirements)


def _located(path: Path, lines: list[str],
             requirements: list[tuple[str, tuple[str, str] | None]]) -> list[Requirement]:
    """Each requirement of a structured file (TOML, INI, setup.py) with its line: the first line that holds it as
    written, else the ``NAME =`` line of its (table, name) key (poetry, Pipfile), else the first that names the
    package."""
    squeezed_lines = [line.replace(" ", "") for line in lines]
    located = []
    for requirement, key in requirements:
        squeezed = requirement.replace(" ", "")
        number = next((i for i, line in enumerate(squeezed_lines, 1) if squeezed in line), None)
        if number is None and key is not None:
            number = _key_line(lines, squeezed_lines, *key)
        if number is None:
            head = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
            word = re.compile(rf"\b{re.escape(head.group(1))}\b" if head else r"\bjax\b", re.IGNORECASE)
            number = next((i for i, line in enumerate(lines, 1) if word.search(line)), 1)
        located.append(Requirement(path, number, requirement.strip()))
    return located


def _key_line(lines: list[str], squeezed_lines: list[str], table: str, name: str) -> int | None:
    """The line of ``name = ...`` inside ``[table]`` (from its header to the next one), else anywhere."""
    header = f"[{table}]"
    start = next((i for i, line in enumerate(squeezed_lines) if line.replace('"', "").replace("'", "") == header), 0)
    assigned = re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*=", re.IGNORECASE)
    for index in range(start, len(lines)):
        if index > start and squeezed_lines[index].startswith("[") and not squeezed_lines[index].startswith("[["):
            break
        if assigned.match(lines[index]):
            return index + 1
    return next((i for i, line in enumerate(lines, 1) if assigned.match(line)), None)


# The files that declare a package: a folder holding one is a package even when it says nothing about ``jax``.
PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "Pipfile")


def _pin_files(folder: Path | str, names: Collection[str]) -> list[tuple[Path, Reader]]:
    """The pin files among ``names`` (the folder's entries: one listing per folder, not a stat per candidate)."""
    files: list[tuple[Path, Reader]] = [(Path(folder, name), reader) for name, reader in (
        ("pyproject.toml", _from_pyproject), ("setup.cfg", _from_setup_cfg), ("setup.py", _from_setup_py),
        ("Pipfile", _from_pipfile)) if name in names]
    files.extend((Path(folder, name), _from_requirements) for name in sorted(
        name for name in names if name.endswith(".txt") and name.startswith(("requirements", "constraints"))))
    if "requirements" in names:
        files.extend((path, _from_requirements) for path in sorted(Path(folder, "requirements").glob("*.txt")))
    files.extend((Path(folder, name), _from_environment_yml) for name in ("environment.yml", "environment.yaml")
                 if name in names)
    return [(path, reader) for path, reader in files if path.is_file()]


def package_requirements(folder: Path | str, names: Collection[str] | None = None,
                         warnings: list[PinFileWarning] | None = None) -> list[Requirement]:
    """Every requirement the folder's pin files declare (each once, in file order), on any package; a file that
    cannot be read adds to ``warnings``."""
    if names is None:
        try:
            names = set(os.listdir(folder))
        except OSError:
            return []
    found: dict[Requirement, None] = {}
    for path, reader in _pin_files(folder, names):
        for requirement in reader(path, warnings if warnings is not None else []):
            found.setdefault(requirement)
    return list(found)


def folder_pins(folder: Path | str, names: Collection[str] | None = None,
                warnings: list[PinFileWarning] | None = None) -> tuple[bool, list[Requirement]]:
    """Whether ``folder`` holds a project file (``PROJECT_FILES``), and its requirements on ``jax`` and on
    ``LIBRARIES`` (``mentions_jax`` tells them apart). ``names``: the folder's entries when the caller has just
    listed it (a walk); else it is listed here. A pin file that cannot be read adds to ``warnings``."""
    if names is None:
        try:
            names = set(os.listdir(folder))
        except OSError:
            return False, []
    requirements = [r for r in package_requirements(folder, names, warnings) if _pinned_package(r.text)]
    return any(name in names and Path(folder, name).is_file() for name in PROJECT_FILES), requirements


def declared_requirements(folder: Path | str) -> list[str]:
    """Every requirement the folder's pin files declare, on any package, as text (``upgrade`` follows them to the
    dependencies the project runs)."""
    return [requirement.text for requirement in package_requirements(folder)]
