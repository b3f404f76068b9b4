"""The baseline interpreter for ``--baseline-jax VERSION``: a venv with that JAX (matching jaxlib; the CUDA plugin for
GPU), plus the target environment's other packages at the versions installed there, built once and cached in
``$JAXLINT_ENV_DIR`` (default ``~/.cache/jaxlint/envs``). Only the installer downloads (uv when it is there, else
pip: ``jaxlint.verify.installer``), from the index it is configured for.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from jaxlint.verify.env_store import COMPLETE, build_lock, claim, is_ours, owner, record_packages
from jaxlint.verify.installer import Installer, choose

_JAX_PACKAGE = re.compile(r"^(jax|jaxlib|jax-cuda\d+-(plugin|pjrt)|jax-rocm\d*-(plugin|pjrt)|libtpu|libtpu-nightly|"
                          r"jax-tpu.*)$")
_CUDA_PLUGIN = re.compile(r"^jax-cuda(\d+)-plugin$")
MARKER = COMPLETE


def env_root() -> Path:
    return Path(os.environ.get("JAXLINT_ENV_DIR") or Path.home() / ".cache" / "jaxlint" / "envs")


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Requirements:
    jax: list[str]
    others: list[str]
    # Lines of the target's ``pip freeze`` that cannot be reinstalled from an index (local paths, VCS).
    skipped: list[str] = field(default_factory=list)
    # ``name==version`` in place of the installed release, which breaks at this JAX (``upgrade``'s dependency step
    # found the release that works there): exact, never relaxed.
    releases: list[str] = field(default_factory=list)

    @property
    def all(self) -> list[str]:
        return self.jax + self.releases + self.others


def with_releases(requirements: Requirements, releases: dict[str, str]) -> Requirements:
    """``requirements`` with each package of ``releases`` (name -> version) at that version, in place of the one
    installed in the environment they were taken from."""
    if not releases:
        return requirements
    wanted = {normalize(name): f"{name}=={version}" for name, version in releases.items()}
    others = [line for line in requirements.others if normalize(line.split("==", 1)[0]) not in wanted]
    return Requirements(requirements.jax, others, requirements.skipped, sorted(wanted.values(), key=str.lower))


def pip_environment() -> dict[str, str]:
    """pip sees what is on ``sys.path``: without this, a ``PYTHONPATH`` (a checkout's ``src/``) would be taken for
    packages installed in the environment."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def freeze(python: str, installer: Installer | None = None) -> list[str]:
    """The environment's packages as ``name==version`` lines. With pip, and with uv where pip fails (an environment
    uv built has no pip)."""
    argv = (installer or Installer()).freeze(python)
    out = subprocess.run(argv, capture_output=True, text=True, env=pip_environment())
    if out.returncode != 0 and installer is None and choose().uv:
        return freeze(python, choose())
    if out.returncode != 0:
        raise RuntimeError(f"`{' '.join(argv)}` failed: {out.stderr.strip()[-500:]}")
    return [line.strip() for line in out.stdout.splitlines() if line.strip() and not line.startswith("#")]


def requirements_for(version: str, platform: str | None, frozen: list[str]) -> Requirements:
    others, skipped, cuda = [], [], None
    for line in frozen:
        if line.startswith("-e ") or " @ " in line or "==" not in line:
            if " @ " in line or line.startswith("-e "):
                skipped.append(line)
            continue
        name = normalize(line.split("==", 1)[0])
        match = _CUDA_PLUGIN.match(name)
        if match:
            cuda = match.group(1)
        if _JAX_PACKAGE.match(name):
            continue
        if name in ("jaxlint", "pip", "setuptools", "wheel"):
            continue
        others.append(line)
    jax = [f"jax=={version}", f"jaxlib=={version}"]
    if platform == "gpu" or (platform is None and cuda):
        jax[0] = f"jax[cuda{cuda or '12'}]=={version}"
    elif platform == "tpu":
        jax[0] = f"jax[tpu]=={version}"
    return Requirements(jax, sorted(others, key=str.lower), skipped)


# Packages an old jaxlib needs older than the target's, because its wheels do not say so (jaxlib 0.4.25 declares
# `numpy>=1.22`, was built against NumPy 1 and crashes at import under NumPy 2). Measured here on Python 3.12 with
# NumPy 2.5.5: jaxlib 0.4.25 segfaults (`_ARRAY_API not found`), 0.4.26, 0.4.28 and 0.4.30 run. With SciPy 1.17.1,
# `import jax.scipy.linalg` fails in 0.4.20, 0.4.21 and 0.4.23 (`scipy.linalg` has no `tril` since SciPy 1.13) and
# works in 0.4.24 and 0.4.25. ml_dtypes needs no row: pip picks one that works with the NumPy it is given.
# (the release from which the row no longer applies, its pins)
PERIOD_CONSTRAINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("0.4.24", ("scipy<1.13",)),
    ("0.4.26", ("numpy<2",)),
)


def period_constraints(version: str) -> list[str]:
    """The constraints a baseline of JAX ``version`` needs besides the target's packages (``PERIOD_CONSTRAINTS``)."""
    from jaxlint.project.versions import Version

    return [pin for before, pins in PERIOD_CONSTRAINTS if Version(version) < Version(before) for pin in pins]


def env_path(version: str, platform: str | None, python_version: str, requirements: Requirements) -> Path:
    key = hashlib.sha256(json.dumps([python_version, requirements.all, period_constraints(version)]).encode()
                         ).hexdigest()[:10]
    xy = "".join(python_version.split(".")[:2])
    return env_root() / f"jax-{version}-{platform or 'auto'}-py{xy}-{key}"


def install(installer: Installer, python: Path, args: list[str], echo: Callable[[str], None]
            ) -> tuple[int, list[str]]:
    """Runs the installer, echoing its progress lines as they come; (exit status, every line)."""
    process = subprocess.Popen(installer.install(python, args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=pip_environment())
    lines = []
    for line in process.stdout:
        line = line.rstrip()
        lines.append(line)
        if installer.shows(line):
            echo(f"  {installer.name} | {line}")
    return process.wait(), lines


def echo_failure(installer: Installer, lines: list[str], echo: Callable[[str], None]) -> None:
    """The installer's explanation in full: from its first error line on (the conflict report lists every
    constraint)."""
    for line in lines[installer.failure_start(lines):]:
        echo(f"  {installer.name} | {line}")


# Packages never taken from the target (see requirements_for): their own requirements are not the baseline's concern.
_NOT_OURS = {"jaxlint", "pip", "setuptools", "wheel"}


def pip_check(python: Path, installer: Installer | None = None) -> list[str]:
    """The problems ``pip check`` (or ``uv pip check``) finds (empty when every installed package's requirements
    are met), except those of packages jaxlint does not install (a jaxlint copied into the environment without its
    dependencies)."""
    installer = installer or _installer_of(python)
    out = subprocess.run(installer.check(python), capture_output=True, text=True, env=pip_environment())
    if out.returncode == 0:
        return []
    found = installer.check_problems([line for line in (out.stdout + out.stderr).splitlines() if line.strip()])
    problems = [line for package, line in found if normalize(package) not in _NOT_OURS]
    return problems if problems or not found else []


def _installer_of(python: Path) -> Installer:
    """pip where the environment has it; an environment uv built has none, and is checked with uv."""
    return Installer() if (Path(python).parent / "pip").exists() else choose()


def relaxed_requirements(requirements: Requirements) -> list[str]:
    """The target's packages bounded by the versions installed there, for pip to resolve against the old JAX."""
    return [line.replace("==", "<=", 1) for line in requirements.others]


def baseline_env(version: str, target_python: str, platform: str | None, *,
                 echo: Callable[[str], None] = lambda line: None, allow_broken: bool = False,
                 releases: dict[str, str] | None = None) -> Path:
    """The python of the cached baseline venv (built now if missing).

    First the target's exact versions with ``jax==version``; if pip finds them incompatible (a flax or NumPy too
    new for the old JAX), its conflict report is shown in full and pip's resolver picks, for each package, the
    newest version up to the target's that works with ``jax==version`` (a constraint). The result must pass
    ``pip check`` unless ``allow_broken``. ``releases`` (name -> version) replace the versions installed there
    (``upgrade``: a dependency's release that works with this JAX, in place of one that breaks).
    """
    info = json.loads(subprocess.run([target_python, "-c", "import json, sys; print(json.dumps("
                                      "{'v': sys.version.split()[0]}))"], capture_output=True, text=True,
                                     check=True).stdout)
    requirements = with_releases(requirements_for(version, platform, freeze(target_python)), releases or {})
    path = env_path(version, platform, info["v"], requirements)
    python = path / "bin" / "python"
    with build_lock(path, echo):  # another run building it is waited for; then its build is reused
        if (path / MARKER).exists() and is_ours(path):
            problems = missing_packages(python, packages_built(path, {"jax": version, "jaxlib": version}),
                                        ["jax", "jaxlib"])
            if not problems:
                echo(f"baseline env (JAX {version}): reusing {path} (remove it with `rm -rf {path}`)")
                _refuse_if_broken(python, path, allow_broken, echo)
                return python
            echo(f"baseline env (JAX {version}): {path} no longer holds what it was built with "
                 f"({summarize(problems)}); rebuilding it")
        problems = _build_baseline(version, target_python, platform, requirements, path, echo)
    _refuse_if_broken(python, path, allow_broken, echo, problems)
    return python


def _build_baseline(version: str, target_python: str, platform: str | None, requirements: Requirements, path: Path,
                    echo: Callable[[str], None]) -> list[str]:
    """Builds the baseline venv at ``path`` (under its lock); the problems ``pip check`` and the smoke test found."""
    python = path / "bin" / "python"
    installer = choose()
    echo(f"baseline env (JAX {version}): building {path} with {installer.name}")
    echo(f"  with {', '.join(requirements.jax + requirements.releases)} and {len(requirements.others)} other "
         f"package(s) at the target's versions")
    for line in requirements.skipped:
        echo(f"  not reinstallable from an index, left out: {line}")
    started = time.monotonic()
    start_afresh(path, {"jax": version, "platform": platform, "builder": "verify"})
    echo("  [1/3] creating the venv")
    made = subprocess.run(installer.create_venv(target_python, path), capture_output=True, text=True)
    if made.returncode != 0:
        raise RuntimeError(f"could not create a venv at {path}: {made.stderr.strip()[-1000:]}")
    constraints = path / "jaxlint-constraints.txt"
    period = period_constraints(version)
    constraints.write_text("".join(pin + "\n" for pin in period))
    for pin in period:
        echo(f"  JAX {version} needs {pin} (its jaxlib was built for it; `jaxlint.verify.envs.PERIOD_CONSTRAINTS`)")
    echo(f"  [2/3] {installer.name} install ({len(requirements.all)} requirement(s))")
    code, lines = install(installer, python, ["-c", str(constraints), *requirements.all], echo)
    relaxed = []
    if code != 0:
        echo(f"  the target's exact versions do not install with JAX {version}; {installer.name} says:")
        echo_failure(installer, lines, echo)
        echo(f"  resolving them again with jax=={version} as a constraint (each package at most at the target's "
             "version)")
        constraints.write_text("".join(re.sub(r"\[.*?\]", "", pin) + "\n" for pin in requirements.jax + period))
        code, lines = install(installer, python, ["-c", str(constraints), *requirements.jax, *requirements.releases,
                                                  *relaxed_requirements(requirements)], echo)
        if code == 0:
            now = {normalize(l.split("==")[0]): l for l in freeze(str(python), installer) if "==" in l}
            relaxed = [f"{pin} -> {now.get(normalize(pin.split('==')[0]), 'absent')}" for pin in requirements.others
                       if now.get(normalize(pin.split("==")[0])) != pin]
    if code != 0:
        echo_failure(installer, lines, echo)
        raise RuntimeError(f"could not install JAX {version} with the target's packages into {path} "
                           f"({installer.name}'s report above)\n(remove it with `rm -rf {path}`)")
    record_packages(path, installed_versions(str(python), installer, [*requirements.all, f"jaxlib=={version}"]))
    echo(f"  [3/3] {'uv pip' if installer.uv else 'pip'} check, and JAX computes a sum")
    problems = pip_check(python, installer) + smoke_test(python)
    seconds = time.monotonic() - started
    (path / MARKER).write_text(json.dumps({"jax": version, "platform": platform, "requirements": requirements.all,
                                           "relaxed": relaxed, "pip_check": problems, "seconds": round(seconds, 1),
                                           "installer": installer.name},
                                          indent=2))
    for line in relaxed:
        echo(f"  version differs from the target: {line}")
    echo(f"baseline env (JAX {version}): built in {seconds:.0f}s with {installer.name} at {path}; reused next time "
         f"(remove it with `rm -rf {path}`, or all of them with `jaxlint envs prune --all`)")
    return problems


def start_afresh(path: Path, spec: dict) -> None:
    """An empty ``path`` marked as jaxlint's (an interrupted earlier build of it removed); a folder there that
    jaxlint did not build is never removed: refused."""
    if path.is_symlink():  # an environment of the user's, linked in: theirs to replace
        raise RuntimeError(f"{path} is a symbolic link to an environment that needs rebuilding: remove the link, or "
                           "rebuild what it points to")
    if path.exists():
        if not is_ours(path):
            raise RuntimeError(f"{path} exists but is not an environment jaxlint built (it has no marker naming "
                               "it): move it away, or set JAXLINT_ENV_DIR to a folder of jaxlint's own")
        shutil.rmtree(path)
    claim(path, spec)


def _name(requirement: str) -> str:
    return normalize(re.split(r"[\[=<>!~ ;]", requirement, maxsplit=1)[0])


def installed_versions(python: str, installer: Installer, requirements: list[str]) -> dict[str, str]:
    """The versions now installed of the packages ``requirements`` name (what a reuse checks later)."""
    wanted = {_name(line) for line in requirements}
    found = {}
    for line in freeze(python, installer):
        name, _, installed = line.partition("==")
        if installed and normalize(name) in wanted:
            found[normalize(name)] = installed
    return found


def packages_built(path: Path, fallback: dict[str, str]) -> dict[str, str]:
    """The packages (and versions) ``path`` was built with, as its marker recorded them; ``fallback`` for an
    environment built before jaxlint recorded them."""
    recorded = (owner(path) or {}).get("packages")
    return recorded if isinstance(recorded, dict) and recorded else fallback


# Run in the environment: each package's installed version, then each module imported (a package whose files were
# deleted keeps its metadata). One line per problem; exit status 1 when there is one.
_CHECK_PACKAGES = r"""
import importlib, importlib.metadata as metadata, json, sys
packages, modules = json.loads(sys.argv[1])
problems = []
for name, version in packages.items():
    try:
        found = metadata.version(name)
    except metadata.PackageNotFoundError:
        problems.append(f"{name} {version} is not installed")
        continue
    if found != version:
        problems.append(f"{name} is {found}, not the {version} it was built with")
for module in modules:
    try:
        importlib.import_module(module)
    except BaseException as err:
        first = (str(err).strip().splitlines() or [""])[0]
        problems.append(f"`import {module}` fails: {type(err).__name__}: {first}")
print("\n".join(problems))
sys.exit(1 if problems else 0)
"""


def missing_packages(python: Path, packages: dict[str, str], modules: list[str]) -> list[str]:
    """What an environment lacks of what it was built with: packages gone or at another version, modules that do
    not import (one subprocess). Empty when it is whole."""
    try:
        out = subprocess.run([str(python), "-c", _CHECK_PACKAGES, json.dumps([packages, modules])],
                             capture_output=True, text=True, timeout=300,
                             env={**pip_environment(), "JAX_PLATFORMS": "cpu"})
    except OSError as err:
        return [f"its python cannot run ({err.strerror})"]
    except subprocess.TimeoutExpired:
        return ["importing its packages took more than 300 s"]
    if out.returncode == 0:
        return []
    last = (out.stderr.strip().splitlines() or [f"exit status {out.returncode}"])[-1]
    return out.stdout.strip().splitlines() or [last]


def summarize(problems: list[str]) -> str:
    return problems[0] + (f", and {len(problems) - 1} more" if len(problems) > 1 else "")


SMOKE = "import jax.numpy as jnp, jax.scipy.linalg; assert float(jnp.ones(3).sum()) == 3.0"


def smoke_test(python: Path) -> list[str]:
    """``pip check`` passes where a jaxlib meets a NumPy it was not built for: JAX must also create an array."""
    try:
        out = subprocess.run([str(python), "-c", SMOKE], capture_output=True, text=True, timeout=300,
                             env={**pip_environment(), "JAX_PLATFORMS": "cpu"})
    except subprocess.TimeoutExpired:
        return ["JAX could not create an array within 300 s"]
    if out.returncode == 0:
        return []
    last = (out.stderr.strip().splitlines() or [f"exit status {out.returncode}"])[-1]
    signal_note = f" (killed by signal {-out.returncode})" if out.returncode < 0 else ""
    return [f"JAX cannot create an array in this environment{signal_note}: {last}"]


def _refuse_if_broken(python: Path, path: Path, allow_broken: bool, echo: Callable[[str], None],
                      problems: list[str] | None = None) -> None:
    problems = pip_check(python) if problems is None else problems
    if not problems:
        return
    for line in problems:
        echo(f"  pip check | {line}")
    if allow_broken:
        echo("  warning: using it anyway (--allow-broken-baseline): a BEFORE failure may come from these conflicts")
        return
    raise RuntimeError(f"the baseline env {path} is broken (above: `pip check`, or JAX failing to create an "
                       "array): the BEFORE run would fail for reasons unrelated to your code. Pass --allow-broken-baseline to use it anyway, "
                       f"or remove it with `rm -rf {path}`")
