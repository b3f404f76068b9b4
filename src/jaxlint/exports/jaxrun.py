"""Run a worker script in another Python that has JAX, and collect its one-line JSON result."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from jaxlint.verify.supervise import end_process_group

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
    """The worker's result. It runs in a session of its own: a timeout, Ctrl-C or SIGTERM (``verify.signals``
    raises) ends its whole process group, whatever it started included, before the exception goes on."""
    cmd = [str(python), str(WORKERS / script)]
    try:
        process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env=env if env is not None else worker_env(), start_new_session=True)
    except FileNotFoundError as err:
        raise WorkerError(f"cannot run {python}: {err.strerror}") from err
    try:
        stdout, stderr = process.communicate(json.dumps(request), timeout=timeout)
    except subprocess.TimeoutExpired as err:
        end_process_group(process)
        raise WorkerError(f"{script} in {python} did not finish within {timeout:.0f}s") from err
    except BaseException:
        end_process_group(process)
        raise
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX):])
    tail = "\n".join(stderr.strip().splitlines()[-5:])
    raise WorkerError(f"{script} failed in {python} (exit {process.returncode}): {tail or 'no output'}")


def jax_version_of(python: Path | str) -> str:
    return run_worker(python, "jax_version.py", {})["jax_version"]
