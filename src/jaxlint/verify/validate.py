"""Checks of every ``jaxlint verify`` argument that can be wrong, done before any environment is built (a venv build
takes minutes and gigabytes: a typo must not cost that)."""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

from jaxlint.project.versions import Version
from jaxlint.verify.run import interpreter_info


class InvalidArgument(ValueError):
    """A usage error found before anything was run or built."""


def require_jax(python: str, label: str, platform: str | None) -> dict:
    """The interpreter's versions; an interpreter without JAX is refused at once."""
    try:
        info = interpreter_info(python, platform)
    except RuntimeError as error:
        raise InvalidArgument(f"the {label} interpreter: {error}") from None
    if info["jax_version"] is None:
        hint = (" (pass --target-python PATH: the interpreter whose environment has the new JAX; the default is "
                "the one running jaxlint)") if label == "target" else ""
        raise InvalidArgument(f"the {label} interpreter {python} has no JAX installed{hint}")
    return info


def parse_jax_version(value: str) -> Version:
    try:
        return Version(value)
    except ValueError:
        raise InvalidArgument(f"--baseline-jax {value!r} is not a JAX version (e.g. 0.10.2)") from None


_AVAILABLE = re.compile(r"^Available versions:\s*(.*)$", re.MULTILINE)


def published_jax_versions(python: str, package: str = "jax") -> list[str] | None:
    """The versions of ``package`` the configured package index has for ``python`` (``pip index versions``: only
    releases with a file that installs there), or None if pip can't say."""
    try:
        out = subprocess.run([python, "-m", "pip", "index", "versions", package, "--disable-pip-version-check"],
                             capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _AVAILABLE.search(out.stdout)
    if out.returncode != 0 or not match:
        return None
    return [v.strip() for v in match.group(1).split(",") if v.strip()]


def check_baseline_jax(value: str, pip_python: str, echo) -> str:
    """``--baseline-jax``: a version string that the package index actually has (asked through pip)."""
    version = parse_jax_version(value)
    available = published_jax_versions(pip_python)
    if available is None:
        echo(f"warning: could not list the jax versions of the package index (pip index versions jax); "
             f"trying jax=={value} as given")
        return value
    if value not in available:
        near = sorted(available, key=lambda v: _distance(v, version))[:5]
        raise InvalidArgument(f"--baseline-jax {value}: the package index has no jax {value} (closest: "
                              f"{', '.join(near)})")
    # jax is pure Python and installs anywhere; its jaxlib has wheels for the Pythons of its time only. Found here,
    # not after pip has built half an environment and failed.
    wheels = published_jax_versions(pip_python, "jaxlib")
    if wheels is not None and value not in wheels:
        python = _python_version(pip_python)
        oldest = min(wheels, key=lambda v: _distance(v, Version("0")), default=None)
        raise InvalidArgument(f"--baseline-jax {value}: the package index has no jaxlib {value} for Python {python} "
                              f"(the target's interpreter, which builds the baseline environment)"
                              + (f"; the oldest jaxlib it has for Python {python} is {oldest}" if oldest else "")
                              + ". Give --baseline-python with an environment of an older Python that has it")
    return value


def _python_version(python: str) -> str:
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True,
                             text=True, timeout=60)
        return out.stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def _distance(text: str, version: Version) -> tuple:
    try:
        other = Version(text)
    except ValueError:
        return (1, text)
    return (0, abs(_number(other) - _number(version)))


def _number(version: Version) -> float:
    parts = [int(p) for p in re.findall(r"\d+", str(version))[:3]] + [0, 0, 0]
    return parts[0] * 1e6 + parts[1] * 1e3 + parts[2]


def accelerator_present(platform: str) -> bool:
    if platform == "gpu":
        if glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/proc/driver/nvidia/gpus"):
            return True
        smi = shutil.which("nvidia-smi")
        if smi:
            try:
                out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
                return out.returncode == 0 and "GPU" in out.stdout
            except (OSError, subprocess.TimeoutExpired):
                return False
        return bool(glob.glob("/dev/kfd"))  # ROCm
    if platform == "tpu":
        return bool(glob.glob("/dev/accel[0-9]*") or glob.glob("/dev/vfio/[0-9]*"))
    return True


def check_platform(platform: str | None) -> None:
    if platform in ("gpu", "tpu") and not accelerator_present(platform):
        what = "NVIDIA or AMD GPU (no /dev/nvidia*, no /dev/kfd, nvidia-smi lists none)" if platform == "gpu" else \
            "TPU (no /dev/accel*, no /dev/vfio device)"
        raise InvalidArgument(f"--platform {platform}: this host has no {what}; both runs would fail (and a "
                              f"baseline environment with the {platform.upper()} wheels would be built for nothing)")


def check_paths(paths: list[Path]) -> None:
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InvalidArgument(f"no such file or directory: {', '.join(missing)}")
