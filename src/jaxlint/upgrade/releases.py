"""Newer releases of a blocking dependency, from the package index pip is configured for (``PIP_INDEX_URL``,
``PIP_FIND_LINKS``, ``PIP_NO_INDEX`` work as for pip): the first release that no longer breaks at the target is
the version to pin.

The lookup is for the Python the target runs on, not the old environment's: JAX drops old Pythons, and so do the
releases of its users that follow it, so a fixed release often needs a newer Python than the project runs now. Every
release is listed whatever Python it needs (``--ignore-requires-python``), downloaded as the wheel pip would pick for
that Python (``--python-version``, ``--only-binary=:all:``, ``--no-deps``), unpacked, linted, and its
``Requires-Python`` read from its metadata: a fixed release that needs a newer Python still is the fix, with the
Python it needs. The releases newer than the installed one are searched newest first, then by bisection (a few
downloads among many releases; a release fixed stays fixed, as libraries follow JAX forward).

Results are cached per release, target and Python in ``~/.cache/jaxlint/upgrade`` (or ``$JAXLINT_UPGRADE_CACHE``),
plain JSON signed with the user's cache key (``project.cache_key``) for that release, target, Python and jaxlint's
engine fingerprint: a file planted there (a CI cache restored from another branch) would otherwise choose the pin
that ``upgrade`` proposes. An unsigned or foreign file is a miss: the wheel is downloaded and linted again, and the
file replaced. Each entry also records the hash of the wheel it was linted from (a release's files never change on
an index that, as PyPI, refuses re-uploads)."""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from jaxlint import __version__
from jaxlint.project.versions import Version
from jaxlint.upgrade.dependencies import DependencyResult, Finding, lint_files, own_min_version

# At most this many releases are downloaded and linted per blocking dependency: the newest, then a bisection
# (1 + log2 of 100 releases).
MAX_RELEASES = 8
_AVAILABLE = re.compile(r"^Available versions:\s*(.*)$", re.M)


def cache_dir() -> Path:
    configured = os.environ.get("JAXLINT_UPGRADE_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "jaxlint" / "upgrade"


def _pip(python: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run([python, "-m", "pip", *args, "--disable-pip-version-check"], capture_output=True,
                          text=True, env=env, timeout=timeout)


def pip_python(python: str) -> str:
    """The environment's own pip (its configuration), else this interpreter's: only to query and download, for the
    Python given by ``--python-version``; nothing is installed."""
    if subprocess.run([python, "-c", "import pip"], capture_output=True).returncode == 0:
        return python
    return sys.executable


def lookup_python(target: Version, python: Version | None, target_python: Version | None) -> Version | None:
    """The Python the releases are looked up for: ``--target-python``'s; else the ``--python`` environment's,
    raised to the oldest Python the target JAX supports (the project must move there to run it)."""
    from jaxlint.upgrade.python_support import oldest_python

    if target_python is not None:
        return _minor(target_python)
    needed = oldest_python(target)
    if python is None or (needed is not None and _minor(python) < needed):
        return needed
    return _minor(python)


def _minor(version: Version) -> Version:
    return Version(".".join(str(version).split(".")[:2]))


def _python_options(python_version: Version | None) -> list[str]:
    """Any release whatever Python it needs (its Requires-Python is read and reported), the wheel for this one."""
    return ["--ignore-requires-python"] + (["--python-version", str(python_version)] if python_version else [])


def available_versions(name: str, python: str, python_version: Version | None = None) -> list[Version] | None:
    """The index's releases of ``name`` for every Python, newest first; None when the index cannot be asked or
    does not know it."""
    try:
        done = _pip(python, "index", "versions", name, *_python_options(python_version), timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _AVAILABLE.search(done.stdout)
    if done.returncode != 0 or not match:
        return None
    versions = []
    for text in match.group(1).split(","):
        try:
            versions.append(Version(text.strip()))
        except ValueError:
            continue  # a pre-release or local spelling jaxlint's Version does not read
    return sorted(set(versions), reverse=True)


_RELEASE_BASE = re.compile(r"^\d+(?:\.\d+)*")


def prereleases(name: str, python: str, python_version: Version | None = None) -> list[str]:
    """The index's pre-releases of ``name`` (``0.0.6.dev0``, ``1.1rc1``), newest first as pip lists them: jaxlint's
    Version reads final releases only, so these are named in the verdict, never downloaded or pinned."""
    try:
        done = _pip(python, "index", "versions", name, "--pre", *_python_options(python_version), timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return []
    match = _AVAILABLE.search(done.stdout)
    if done.returncode != 0 or not match:
        return []
    listed = [text.strip() for text in match.group(1).split(",") if text.strip()]
    return [text for text in listed if not _is_final(text)]


def _is_final(text: str) -> bool:
    try:
        Version(text)
        return True
    except ValueError:
        return False


def newer_prereleases(installed: str, listed: list[str], newest_final: Version | None) -> list[str]:
    """The pre-releases newer than the installed release and than every final one: those whose release number is
    higher (``1.1rc1`` after ``1.0``; ``1.0rc1`` comes before ``1.0``)."""
    def base(text: str) -> Version | None:
        found = _RELEASE_BASE.match(text)
        return Version(found.group(0)) if found else None

    floor = [v for v in (base(installed), newest_final) if v is not None]
    newer = []
    for text in listed:
        number = base(text)
        if text == installed or number is None:
            continue
        if all(number > v for v in floor):  # 1.0rc2 after an installed 1.0rc1 is not told apart: not named
            newer.append(text)
    return newer


def _prerelease_note(name: str, installed: str, listed: list[str], newer: list[str]) -> str:
    if newer:
        return (f"newer pre-release(s) of {name} ({', '.join(newer)}) are not checked: jaxlint pins final releases "
                f"only; try one by hand if a pre-release will do")
    if listed and listed[0] == installed:
        return (f"{name} publishes only pre-releases ({', '.join(listed)}) and {installed}, the one installed, is "
                f"the newest: no release fixes it")
    return f"{name} publishes only pre-releases ({', '.join(listed)}), none newer than {installed}"


def newer_releases(installed: str, available: list[Version]) -> list[Version]:
    """The releases newer than ``installed``, newest first (all of them when its version cannot be read)."""
    try:
        current = Version(installed)
    except ValueError:
        return list(available)
    return [v for v in available if v > current]


@dataclass
class ReleaseLint:
    """One release looked at: its blocking findings (None: not linted), and what happened, for the progress."""
    version: Version
    findings: list[Finding] | None
    requires_python: str | None = None  # the wheel's Requires-Python ("" when it declares none)
    how: str = "downloaded"  # "downloaded", "cached", "no wheel", "not downloaded"
    detail: str = ""  # why it was not downloaded (pip's last line)
    requires: list[str] | None = None  # the wheel's Requires-Dist: what the release still needs

    @property
    def linted(self) -> bool:
        return self.findings is not None


def _cache_key(name: str, version: Version, target: Version, python: Version | None = None) -> Path:
    from jaxlint.rules import all_rules

    rules = hashlib.sha256(",".join(sorted(r.code for r in all_rules())).encode()).hexdigest()[:12]
    return cache_dir() / f"{name.lower()}-{version}-jax{target}-py{python or 'any'}-{__version__}-{rules}.json"


def _signed_for(name: str, version: Version, target: Version, python: Version | None = None) -> str:
    """What a cache file's signature binds it to: this release, this target, the Python its wheel was for, this
    jaxlint."""
    from jaxlint.project.fingerprint import engine_fingerprint

    return f"{name.lower()}|{version}|{target}|{python or 'any'}|{engine_fingerprint()}"


def _cached(cached: Path, context: str, version: Version) -> ReleaseLint | None:
    """The release's stored result, if the file is jaxlint's own (signed with the user's key)."""
    from jaxlint.project.cache_key import read_signed

    data = read_signed(cached, "release", context)
    if data is None:
        return None  # missing, or not signed with the key: planted, another user's or machine's
    try:
        # An entry without Requires-Dist (an older jaxlint's) is a miss: the pin proposals need it.
        return ReleaseLint(version, [Finding.from_json(item) for item in data["findings"]],
                           str(data["requires_python"]), "cached", requires=[str(r) for r in data["requires_dist"]])
    except (ValueError, KeyError, TypeError):
        return None


def _store(cached: Path, context: str, found: ReleaseLint, wheel_hash: str) -> None:
    from jaxlint.project.cache_key import write_signed

    try:
        write_signed(cached, "release", context, {"findings": [f.as_json() for f in found.findings or []],
                                                  "requires_python": found.requires_python,
                                                  "requires_dist": found.requires or [],
                                                  "wheel_sha256": wheel_hash})
    except OSError:
        pass


def lint_release(name: str, version: Version, target: Version, python: str,
                 python_version: Version | None = None) -> ReleaseLint:
    """``name==version``'s wheel for ``python_version`` (whatever Python the release needs), linted at the target
    (cached); ``findings`` None when no wheel could be downloaded."""
    cached = _cache_key(name, version, target, python_version)
    context = _signed_for(name, version, target, python_version)
    found = _cached(cached, context, version)
    if found is not None:
        return found
    with tempfile.TemporaryDirectory(prefix="jaxlint-upgrade-") as scratch:
        try:
            done = _pip(python, "download", f"{name}=={version}", "--no-deps", "--only-binary=:all:",
                        *_python_options(python_version), "-q", "-d", scratch)
        except (OSError, subprocess.TimeoutExpired) as error:
            return ReleaseLint(version, None, how="not downloaded", detail=str(error))
        wheels = list(Path(scratch).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            return _not_downloaded(version, done.stderr)
        wheel_hash = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
        unpacked = Path(scratch, "unpacked")
        with zipfile.ZipFile(wheels[0]) as wheel:
            wheel.extractall(unpacked)
        metadata = _metadata_of(unpacked)
        requires = [value for key, value in metadata if key == "requires-dist"]
        requires_python = next((value for key, value in metadata if key == "requires-python"), "")
        blocking, _ = lint_files(unpacked.rglob("*.py"), target, own_min_version(requires, target))
    # Paths are relative to the unpacked wheel, i.e. as installed.
    found = ReleaseLint(version, blocking, requires_python, requires=requires)
    _store(cached, context, found, wheel_hash)
    return found


def _not_downloaded(version: Version, stderr: str) -> ReleaseLint:
    """pip found no file it may use for this release and Python (a release with only an sdist, or wheels for other
    Pythons or platforms), or could not reach the index."""
    if "Could not find a version that satisfies" in stderr or "No matching distribution" in stderr:
        return ReleaseLint(version, None, how="no wheel")
    lines = [line.strip() for line in stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    return ReleaseLint(version, None, how="not downloaded", detail=lines[-1] if lines else "pip failed")


def _metadata_of(unpacked: Path) -> list[tuple[str, str]]:
    """The (lower-cased key, value) header lines of the wheel's METADATA."""
    for metadata in unpacked.glob("*.dist-info/METADATA"):
        text = metadata.read_text(encoding="utf-8", errors="replace")
        headers = text.split("\n\n", 1)[0]
        return [(key.strip().lower(), value.strip()) for key, _, value in
                (line.partition(":") for line in headers.splitlines() if ":" in line and not line[:1].isspace())]
    return []


def admits(requires_python: str | None, python: Version | None) -> bool:
    """Whether a Requires-Python admits some release of ``python``'s minor (no requirement admits every one)."""
    if not requires_python or python is None:
        return True
    from jaxlint.upgrade.preflight import admitted_minors

    return _minor(python) in admitted_minors(requires_python)


@dataclass
class _Search:
    """The bisection's state over ``candidates`` (oldest first): ``broken`` the newest known to break (-1: the
    installed release), ``clean`` the oldest known clean."""
    candidates: list[Version]
    looked: dict[int, ReleaseLint] = field(default_factory=dict)
    broken: int = -1
    clean: int | None = None

    def next_to_look_at(self) -> int | None:
        """The release halfway between the known broken and the known clean one not yet looked at (one without a
        wheel is stepped over)."""
        untried = [i for i in range(self.broken + 1, self.clean) if i not in self.looked]
        middle = (self.broken + self.clean) / 2
        return min(untried, key=lambda i: (abs(i - middle), -i)) if untried else None

    def unlinted_between(self) -> list[Version]:
        return [self.candidates[i] for i in range(self.broken + 1, self.clean)
                if i in self.looked and not self.looked[i].linted]


def find_fixed_release(result: DependencyResult, target: Version, python: str,
                       echo: Callable[[str], None] = lambda line: None,
                       python_version: Version | None = None) -> None:
    """Fill ``result.fixed_in`` (the first release with no blocking finding) and ``result.requires_python``: the
    newest release first (if it still breaks, nothing newer can be pinned), then a bisection down to the installed
    one, at most ``MAX_RELEASES`` downloads, for ``python_version`` (the target's Python)."""
    pip = pip_python(python)
    result.lookup_python = str(python_version) if python_version else None
    available = available_versions(result.name, pip, python_version)
    if available is None and pip != sys.executable:
        pip = sys.executable  # an environment's pip older than ``pip index`` (21.2): jaxlint's own asks instead
        available = available_versions(result.name, pip, python_version)
    if available is None:
        listed = prereleases(result.name, pip, python_version)
        if listed:  # pip lists pre-releases only with --pre: a package that publishes nothing else
            result.note = _prerelease_note(result.name, result.version, listed,
                                           newer_prereleases(result.version, listed, None))
            echo(f"  {result.note}")  # the note names the package
        else:
            result.note = "no newer release could be looked up on the package index"
        return
    newest_first = newer_releases(result.version, available)
    if not newest_first:
        result.note = f"{result.version} is the newest release on the package index"
        _add_prerelease_note(result, pip, python_version, available, echo)
        return
    search = _Search(list(reversed(newest_first)))

    def look(index: int) -> ReleaseLint:
        found = lint_release(result.name, search.candidates[index], target, pip, python_version)
        search.looked[index] = found
        echo(_progress(result.name, found, target, python_version))
        return found

    for index in reversed(range(len(search.candidates))):  # the newest release that has a wheel
        if len(search.looked) == MAX_RELEASES:
            break
        found = look(index)
        if found.linted:
            if found.findings:
                search.broken = index
            else:
                search.clean = index
            break
    while search.clean is not None and len(search.looked) < MAX_RELEASES:
        index = search.next_to_look_at()
        if index is None:
            break
        found = look(index)
        if found.linted:
            if found.findings:
                search.broken = index
            else:
                search.clean = index
    result.releases_checked = [str(search.candidates[i]) for i in sorted(search.looked, reverse=True)]
    _conclude(result, search, target, python_version)
    if result.fixed_in is None:
        _add_prerelease_note(result, pip, python_version, available, echo)
    if result.fixed_in:
        echo(f"  {result.name}: {result.fixed_in} is the first release that does not break at JAX {target}"
             f" (Requires-Python: {result.requires_python or 'any'})")


def _add_prerelease_note(result: DependencyResult, pip: str, python_version: Version | None,
                         available: list[Version], echo: Callable[[str], None]) -> None:
    """No final release fixes it: say so when the only newer releases are pre-releases."""
    newer = newer_prereleases(result.version, prereleases(result.name, pip, python_version),
                              available[0] if available else None)
    if newer:
        note = _prerelease_note(result.name, result.version, [], newer)
        result.note = f"{result.note}; {note}" if result.note else note
        echo(f"  {note}")  # the note names the package


def _conclude(result: DependencyResult, search: _Search, target: Version, python_version: Version | None) -> None:
    """``fixed_in``, ``requires_python`` and the note from where the search stopped."""
    if search.clean is None:
        linted = [search.looked[i] for i in sorted(search.looked, reverse=True) if search.looked[i].linted]
        if linted:
            result.note = (f"the newest release checked ({linted[0].version}) still breaks at JAX {target}: no "
                           "newer release can be pinned")
        else:
            result.note = (f"no wheel of {result.name} {', '.join(result.releases_checked)} could be downloaded"
                           + (f" for Python {python_version}" if python_version else "")
                           + f" ({_why_not(search.looked.values())})")
        return
    fixed = search.looked[search.clean]
    result.fixed_in = str(fixed.version)
    result.requires_python = fixed.requires_python or None
    result.fixed_requires = fixed.requires
    notes = []
    if not admits(fixed.requires_python, python_version):
        notes.append(f"{result.name} {fixed.version} needs Python {fixed.requires_python}, newer than the "
                     f"target's Python {python_version}: the project must move to such a Python to use it")
    skipped = search.unlinted_between()
    unsearched = [search.candidates[i] for i in range(search.broken + 1, search.clean) if i not in search.looked]
    if skipped:
        notes.append(f"{', '.join(map(str, skipped))} (older) had no wheel to check: an older release may fix it")
    if unsearched:
        notes.append(f"the search stopped after {MAX_RELEASES} downloads: a release between "
                     f"{search.candidates[search.broken] if search.broken >= 0 else result.version} and "
                     f"{fixed.version} may fix it")
    result.note = "; ".join(notes) or None


def _why_not(looked) -> str:
    details = sorted({found.detail or found.how for found in looked})
    return "; ".join(details)


def _progress(name: str, found: ReleaseLint, target: Version, python_version: Version | None) -> str:
    """What happened to one release: downloaded (or read from the cache) and linted, or why not."""
    shown = f"  {name}=={found.version}"
    for_python = f" for Python {python_version}" if python_version else ""
    if found.how == "no wheel":
        return f"{shown}: no wheel{for_python} on the package index (not checked)"
    if found.how == "not downloaded":
        return f"{shown}: not downloaded ({found.detail}; not checked)"
    how = "read from the release cache" if found.how == "cached" else "wheel downloaded"
    python = ""
    if found.requires_python:
        python = f", Requires-Python {found.requires_python}"
        if not admits(found.requires_python, python_version):
            python += f": not available for Python {python_version}"
    verdict = (f"{len(found.findings)} finding(s) that break at JAX {target}" if found.findings
               else f"nothing breaks at JAX {target}")
    return f"{shown}: {how}{python}; {verdict}"
