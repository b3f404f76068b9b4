"""Newer releases of a blocking dependency, from the package index pip is configured for (``PIP_INDEX_URL``,
``PIP_FIND_LINKS``, ``PIP_NO_INDEX`` work as for pip): the newest few are downloaded as wheels, unpacked and
linted; the oldest clean one in a row from the newest is the version to pin. Results are cached per release and
target, so a second run downloads nothing.

The cache (``~/.cache/jaxlint/upgrade``, or ``$JAXLINT_UPGRADE_CACHE``) is plain JSON signed with the user's cache
key (``project.cache_key``) for its release, target and jaxlint's engine fingerprint: a file planted there (a CI
cache restored from another branch) would otherwise choose the pin that ``upgrade`` proposes. An unsigned or foreign
file is a miss: the wheel is downloaded and linted again, and the file replaced. Each entry also records the hash of
the wheel it was linted from (a release's files never change on an index that, as PyPI, refuses re-uploads)."""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable

from jaxlint import __version__
from jaxlint.project.versions import Version
from jaxlint.upgrade.dependencies import DependencyResult, Finding, lint_files, own_min_version

# At most this many releases, newest first, are downloaded and linted per blocking dependency.
MAX_RELEASES = 3
_AVAILABLE = re.compile(r"^Available versions:\s*(.*)$", re.M)


def cache_dir() -> Path:
    configured = os.environ.get("JAXLINT_UPGRADE_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "jaxlint" / "upgrade"


def _pip(python: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run([python, "-m", "pip", *args, "--disable-pip-version-check"], capture_output=True,
                          text=True, env=env, timeout=timeout)


def pip_python(python: str) -> str:
    """The environment's own pip, else this interpreter's (only to query and download: nothing is installed)."""
    if subprocess.run([python, "-c", "import pip"], capture_output=True).returncode == 0:
        return python
    return sys.executable


def available_versions(name: str, python: str) -> list[Version] | None:
    """The index's releases of ``name``, newest first; None when the index cannot be asked or does not know it."""
    try:
        done = _pip(python, "index", "versions", name, timeout=120)
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


def newer_releases(installed: str, available: list[Version]) -> list[Version]:
    try:
        current = Version(installed)
    except ValueError:
        return available[:MAX_RELEASES]
    return [v for v in available if v > current][:MAX_RELEASES]


def _cache_key(name: str, version: Version, target: Version) -> Path:
    from jaxlint.rules import all_rules

    rules = hashlib.sha256(",".join(sorted(r.code for r in all_rules())).encode()).hexdigest()[:12]
    return cache_dir() / f"{name.lower()}-{version}-jax{target}-{__version__}-{rules}.json"


def _signed_for(name: str, version: Version, target: Version) -> str:
    """What a cache file's signature binds it to: this release, this target, this jaxlint."""
    from jaxlint.project.fingerprint import engine_fingerprint

    return f"{name.lower()}|{version}|{target}|{engine_fingerprint()}"


def _cached_findings(cached: Path, context: str) -> list[Finding] | None:
    """The findings stored for this release, if the file is jaxlint's own (signed with the user's key)."""
    from jaxlint.project.cache_key import unseal

    try:
        payload = unseal("release", context, cached.read_bytes())
        if payload is None:
            return None  # missing key, or a file not signed with it: planted, another user's or machine's
        return [Finding.from_json(item) for item in json.loads(payload)["findings"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store_findings(cached: Path, context: str, findings: list[Finding], wheel_hash: str) -> None:
    from jaxlint.project.cache import replace_file
    from jaxlint.project.cache_key import seal

    signed = seal("release", context, json.dumps({"findings": [f.as_json() for f in findings],
                                                  "wheel_sha256": wheel_hash}).encode())
    if signed is None:
        return  # no cache key: caching is off
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        replace_file(cached, signed, prefix=".release-")
    except OSError:
        pass


def lint_release(name: str, version: Version, target: Version, python: str) -> list[Finding] | None:
    """The blocking findings of ``name==version``'s wheel (cached); None when no wheel could be downloaded."""
    cached = _cache_key(name, version, target)
    context = _signed_for(name, version, target)
    found = _cached_findings(cached, context)
    if found is not None:
        return found
    with tempfile.TemporaryDirectory(prefix="jaxlint-upgrade-") as scratch:
        try:
            done = _pip(python, "download", f"{name}=={version}", "--no-deps", "--only-binary=:all:", "-q",
                        "-d", scratch)
        except (OSError, subprocess.TimeoutExpired):
            return None
        wheels = list(Path(scratch).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            return None
        wheel_hash = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
        unpacked = Path(scratch, "unpacked")
        with zipfile.ZipFile(wheels[0]) as wheel:
            wheel.extractall(unpacked)
        requires = _requires_of(unpacked)
        blocking, _ = lint_files(unpacked.rglob("*.py"), target, own_min_version(requires, target))
    # Paths are relative to the unpacked wheel, i.e. as installed.
    _store_findings(cached, context, blocking, wheel_hash)
    return blocking


def _requires_of(unpacked: Path) -> list[str]:
    for metadata in unpacked.glob("*.dist-info/METADATA"):
        text = metadata.read_text(encoding="utf-8", errors="replace")
        return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]
    return []


def find_fixed_release(result: DependencyResult, target: Version, python: str,
                       echo: Callable[[str], None] = lambda line: None) -> None:
    """Fill ``result.fixed_in``: newest first, while the releases are clean; the oldest clean one is the pin."""
    pip = pip_python(python)
    available = available_versions(result.name, pip)
    if available is None:
        result.note = "no newer release could be looked up on the package index"
        return
    candidates = newer_releases(result.version, available)
    if not candidates:
        result.note = f"{result.version} is the newest release on the package index"
        return
    for version in candidates:
        echo(f"  linting {result.name}=={version} (its wheel, downloaded once and cached)")
        findings = lint_release(result.name, version, target, pip)
        result.releases_checked.append(str(version))
        if findings is None:
            result.note = f"no wheel of {result.name}=={version} could be downloaded"
            break
        if findings:
            break
        result.fixed_in = str(version)
    if result.fixed_in is None and result.note is None:
        result.note = (f"the newest release{'s' if len(candidates) > 1 else ''} checked "
                       f"({', '.join(result.releases_checked)}) still break at JAX {target}")
