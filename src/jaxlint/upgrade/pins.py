"""Steps 1 and 6: the project's pinned JAX range (the project model, ``version_pins``) and the pin changes the
upgrade needs, for jax, jaxlib and each blocking dependency, each with the file:line of the requirement it changes.
Proposed only: jaxlint never edits a pin file (the resolver, the lock file and the CI matrix are the team's)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from jaxlint.project.pins import package_requirements
from jaxlint.project.version_pins import PinnedRange
from jaxlint.project.versions import Version
from jaxlint.upgrade.environment import normalize

_SPEC = re.compile(r"(<=|<|==|~=|>=|>|!=|\^)\s*v?([0-9][0-9A-Za-z.*]*)")


@dataclass(frozen=True)
class PinChange:
    name: str
    current: str | None  # the requirement as written, None when the project does not name the package
    where: str | None  # ``pyproject.toml:7``
    proposed: str | None  # None: no release to pin to (the reason says what to do)
    reason: str

    def as_json(self) -> dict:
        return {"name": self.name, "current": self.current, "where": self.where, "proposed": self.proposed,
                "reason": self.reason}


def requirement_lines(package: Path, name: str, cwd: Path) -> list[tuple[str, str]]:
    """(``file:line``, requirement) for each requirement on ``name`` that the package's pin files declare, read as
    the project model reads them (``pins.package_requirements``: setup.py variables, poetry groups, PEP 735 groups,
    the requirements files a backend reads, ...), without its environment marker."""
    spelled = re.compile(rf"\s*{_name_pattern(name)}(?![\w.-])", re.IGNORECASE)
    found = []
    for requirement in package_requirements(package):
        if spelled.match(requirement.text):
            text = requirement.text.split(";")[0].split(" #")[0].strip()
            found.append((f"{_shown(requirement.file, cwd)}:{requirement.line}", text))
    return found


def _name_pattern(name: str) -> str:
    """``flax-nn`` matches ``flax_nn``, ``Flax.NN``: names compare as PEP 503 normalizes them."""
    return "[-_.]+".join(re.escape(part) for part in normalize(name).split("-"))


def _next_minor(version: Version) -> str:
    parts = [int(p) for p in str(version).split(".")[:2]] + [0]
    return f"{parts[0]}.{parts[1] + 1}"


def _allows(requirement: str, version: Version) -> bool:
    """Whether ``requirement``'s specifiers admit ``version`` (the operators pins use; wildcards as prefixes)."""
    for operator, text in _SPEC.findall(requirement):
        if text.endswith(".*"):
            prefix = text[:-2]
            same = str(version) == prefix or str(version).startswith(prefix + ".")
            if (operator == "==" and not same) or (operator == "!=" and same):
                return False
            continue
        try:
            bound = Version(text)
        except ValueError:
            continue
        if operator in ("==",) and version != bound:
            return False
        if operator == "!=" and version == bound:
            return False
        if operator == "<" and not version < bound:
            return False
        if operator == "<=" and bound < version:
            return False
        if operator in (">=", "~=", "^") and version < bound:
            return False
        if operator == ">" and not bound < version:
            return False
        if operator in ("~=", "^"):
            from jaxlint.project.pins import upper_bound

            ceiling = upper_bound(f"jax{operator}{text}")
            if ceiling is not None and not version < ceiling:
                return False
    return True


def upgraded_requirement(name: str, requirement: str, target: Version) -> str:
    """The requirement changed as little as it takes to admit ``target``: an exact pin moves to it, an upper bound
    moves past it (to the next minor release), a lower bound stays."""
    head = re.match(r"\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(\[[^\]]*\])?", requirement)
    prefix = head.group(0).strip() if head else name
    specs = _SPEC.findall(requirement)
    if any(op == "==" for op, _ in specs):
        return f"{prefix}=={target}"
    kept = []
    for operator, text in specs:
        if operator in (">=", ">"):
            kept.append(f"{operator}{text}")
        elif operator in ("~=", "^"):
            kept.append(f">={text}")
    if any(op in ("<", "<=", "~=", "^") for op, _ in specs):
        kept.append(f"<{_next_minor(target)}")
    return prefix + ",".join(kept)


def propose_jax(pinned: PinnedRange | None, package: Path | None, target: Version, cwd: Path,
                floor=None) -> list[PinChange]:
    """jax and jaxlib: each requirement that does not admit the target, changed to admit it; nothing pinned at all
    (the fixes assumed min = target): ``jax>=TARGET`` to add. With ``floor`` (``run.effective_floor``: the code
    needs a newer JAX than the pins say), each jax requirement whose lower bound is older is raised to it."""
    changes = []
    lines = {name: requirement_lines(package, name, cwd) if package is not None else [] for name in ("jax", "jaxlib")}
    if not lines["jax"]:
        where = f"{_shown(package, cwd)}/" if package is not None else None
        changes.append(PinChange("jax", None, where, f"jax>={target}",
                                 "the project does not pin jax: the fixes assumed it runs on the target and newer"))
    for name in ("jax", "jaxlib"):
        for where, requirement in lines[name]:
            proposed = requirement if _allows(requirement, target) else upgraded_requirement(name, requirement, target)
            reasons = [] if proposed == requirement else [f"does not admit JAX {target}"]
            if floor is not None and name == "jax" and _below(proposed, floor.needs):
                proposed = raised_floor(proposed, floor.needs)
                reasons.append(f"the code needs JAX {floor.needs} (`{floor.use.name}` at "
                               f"{_shown(Path(floor.use.path), cwd)}:{floor.use.row}): raising the floor unlocks the "
                               "fixes withheld below it")
            if reasons:
                changes.append(PinChange(name, requirement, where, proposed, "; ".join(reasons)))
    return changes


def _below(requirement: str, version: Version) -> bool:
    """Whether ``requirement`` admits some release older than ``version`` (no lower bound, or an older one)."""
    lowers = []
    for operator, text in _SPEC.findall(requirement):
        if operator in (">=", ">", "~=", "^", "=="):
            try:
                lowers.append(Version(text))
            except ValueError:
                continue
    return not lowers or max(lowers) < version


def raised_floor(requirement: str, version: Version) -> str:
    """``requirement`` with its lower bound moved up to ``version`` (upper bounds kept): ``jax>=0.4.0,<0.13`` ->
    ``jax>=0.4.36,<0.13``."""
    head = re.match(r"\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(\[[^\]]*\])?", requirement)
    prefix = head.group(0).strip() if head else "jax"
    kept = [f"{operator}{text}" for operator, text in _SPEC.findall(requirement) if operator in ("<", "<=", "!=")]
    return prefix + ",".join([f">={version}", *kept])


def propose_dependencies(blocking, package: Path | None, cwd: Path) -> list[PinChange]:
    """Each blocking dependency: ``NAME>=fixed_in`` where a newer release is clean, else no pin (say why)."""
    changes = []
    for dep in blocking:
        written = requirement_lines(package, dep.name, cwd) if package is not None else []
        where, current = written[0] if written else (None, None)
        if dep.no_longer_needed:  # the fixed releases of the others dropped it: a raise would pin what goes
            changes.append(PinChange(dep.name, current, where, None,
                                     f"{dep.name} {dep.version} breaks at the target, but it is "
                                     f"{dep.no_longer_needed}: no pin (re-resolving the environment drops it)"))
        elif dep.fixed_in:
            python = f" (it needs Python {dep.requires_python})" if dep.requires_python else ""
            changes.append(PinChange(dep.name, current, where, f"{dep.name}>={dep.fixed_in}",
                                     f"{dep.name} {dep.version} breaks at the target; {dep.fixed_in} does not"
                                     + python))
        else:
            changes.append(PinChange(dep.name, current, where, None,
                                     f"{dep.name} {dep.version} breaks at the target and no newer release checked "
                                     "fixes it: patch it, replace it, or stay on the old JAX"))
    return changes


def _shown(path: Path, cwd: Path) -> str:
    relative = os.path.relpath(path, cwd)
    return path.as_posix() if relative.startswith("..") else Path(relative).as_posix()
