"""Run a worker script in another Python that has JAX, and collect its one-line JSON result."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

WORKERS = Path(__file__).with_name("workers")
RESULT_PREFIX = "JAXLINT-RESULT "
DEFAULT_TIMEOUT_S = 600


class WorkerError(RuntimeError):
    """The JAX subprocess failed before it could answer (bad interpreter, no JAX, crash, timeout)."""


def worker_env(devices: int = 1, platforms: list[str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # CPU-lowered artifacts must run on CPU; leave a platform the user chose alone.
    if platforms is not None and "cpu" in platforms:
        env.setdefault("JAX_PLATFORMS", "cpu")
    if devices > 1 and "xla_force_host_platform_device_count" not in env.get("XLA_FLAGS", ""):
        env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={devices}".strip()
    env.pop("PYTHONPATH", None)  # the JAX venv must not see jaxlint's own packages
    return env


def run_worker(python: Path | str, script: str, request: dict, *, env: dict[str, str] | None = None,
               timeout: float = DEFAULT_TIMEOUT_S) -> dict:
    cmd = [str(python), str(WORKERS / script)]
    try:
        proc = subprocess.run(cmd, input=json.dumps(request), capture_output=True, text=True,
                              env=env if env is not None else worker_env(), timeout=timeout)
    except FileNotFoundError as err:
        raise WorkerError(f"cannot run {python}: {err.strerror}") from err
    except subprocess.TimeoutExpired as err:
        raise WorkerError(f"{script} in {python} did not finish within {timeout:.0f}s") from err
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX):])
    tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
    raise WorkerError(f"{script} failed in {python} (exit {proc.returncode}): {tail or 'no output'}")


def jax_version_of(python: Path | str) -> str:
    return run_worker(python, "jax_version.py", {})["jax_version"]
