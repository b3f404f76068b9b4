"""Which JAX releases exist, and their wheels (or source archives) downloaded once into a cache folder."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

# The oldest release with a ``jax`` package (0.0 and 0.1 are empty placeholders).
FIRST_VERSION = "0.1.1"


def vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v))


def pip_cmd(python: str) -> list[str]:
    return [python, "-m", "pip"]


def list_versions(python: str) -> list[str]:
    """Every final ``jax`` release >= FIRST_VERSION the package index offers."""
    return [v for v in index_versions(python, "jax") if vkey(v) >= vkey(FIRST_VERSION)]


def index_versions(python: str, package: str) -> list[str]:
    """Every final release of ``package`` the package index offers (yanked ones excluded, as pip does), oldest
    first."""
    out = subprocess.run(pip_cmd(python) + ["index", "versions", package], capture_output=True, text=True, check=True)
    m = re.search(r"Available versions:\s*(.*)", out.stdout)
    if not m:
        raise SystemExit(f"could not read the {package} versions from pip:\n{out.stdout}\n{out.stderr}")
    versions = [v.strip() for v in m.group(1).split(",")]
    return sorted({v for v in versions if re.fullmatch(r"\d+(\.\d+)+", v)}, key=vkey)


def wheel_path(cache: Path, version: str) -> Path:
    """The release's wheel (``py3-none-any``, a few ``py2.py3``), or its source archive (most releases before 0.4)."""
    wheels = sorted(cache.glob(f"jax-{version}-*.whl"))
    sdist = cache / f"jax-{version}.tar.gz"
    if wheels:
        return wheels[0]
    return sdist if sdist.exists() else cache / f"jax-{version}-py3-none-any.whl"


def download(python: str, cache: Path, version: str) -> Path:
    path = wheel_path(cache, version)
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    # An sdist makes pip prepare its metadata (a setuptools run in an isolated environment): a few seconds each.
    subprocess.run(pip_cmd(python) + ["download", "-q", "--no-deps", f"jax=={version}", "-d", str(cache)],
                   check=True, stdout=subprocess.DEVNULL)
    path = wheel_path(cache, version)
    if not path.exists():
        raise SystemExit(f"pip did not produce {path}")
    return path


# jaxlib ships one wheel per platform; any of these has the same ``.py`` modules.
JAXLIB_PLATFORMS = ("manylinux2014_x86_64", "manylinux_2_27_x86_64", "manylinux_2_28_x86_64")


def jaxlib_wheel(cache: Path, version: str) -> Path | None:
    found = sorted(cache.glob(f"jaxlib-{version}-*manylinux*x86_64.whl"))
    return found[0] if found else None


def download_jaxlib(cache: Path, version: str) -> bool:
    """A Linux x86-64 wheel of jaxlib ``version`` into ``cache`` (the newest Python that has one); False when PyPI
    offers none."""
    for python in ("3.12", "3.11", "3.10"):
        platforms = [arg for tag in JAXLIB_PLATFORMS for arg in ("--platform", tag)]
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                               *platforms, "--python-version", python, f"jaxlib=={version}", "-d", str(cache)],
                              capture_output=True, text=True)
        if done.returncode == 0 and jaxlib_wheel(cache, version):
            return True
    return False
