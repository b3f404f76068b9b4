"""The installed distributions of another interpreter's environment, read in a subprocess of that interpreter
(``importlib.metadata``: the files each one installed, from its RECORD), so that jaxlint never imports them."""
from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

# Runs in the other interpreter: every distribution on its sys.path (the first of each name, as imports see it),
# with its declared requirements and the Python files it installed.
_LIST_DISTRIBUTIONS = r"""
import json, sys
from importlib import metadata
seen, out = set(), []
for dist in metadata.distributions():
    name = (dist.metadata["Name"] or "").strip()
    key = name.lower().replace("_", "-").replace(".", "-")
    if not name or key in seen:
        continue
    seen.add(key)
    files, top = [], set()
    for item in dist.files or ():
        first = item.parts[0] if item.parts else ""
        if first and first != ".." and not first.endswith((".dist-info", ".egg-info", ".data", ".pth")) \
                and first != "__pycache__":
            top.add(first[:-3] if first.endswith(".py") else first)
        if str(item).endswith(".py"):
            files.append(str(dist.locate_file(item)))
    out.append({"name": name, "version": dist.version, "requires": list(dist.requires or []), "files": files,
                "top_level": sorted(top)})
json.dump(out, sys.stdout)
"""


class EnvironmentError_(RuntimeError):
    """The interpreter could not be run or did not list its distributions."""


@dataclass
class Distribution:
    name: str
    version: str
    requires: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    # The top-level modules it installs (``mydep`` for ``mydep/core.py``), from its RECORD.
    top_level: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return normalize(self.name)


def normalize(name: str) -> str:
    """PEP 503: ``Flax``, ``flax_nn`` and ``flax.nn`` are ``flax``, ``flax-nn``, ``flax-nn``."""
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def list_distributions(python: str, env: dict[str, str] | None = None) -> list[Distribution]:
    """Every distribution installed for ``python`` (its files absolute), in ``sys.path`` order."""
    try:
        done = subprocess.run([python, "-I" if env is None else "-s", "-c", _LIST_DISTRIBUTIONS],
                              capture_output=True, text=True, timeout=120,
                              env=env if env is not None else _without_pythonpath())
    except (OSError, subprocess.TimeoutExpired) as error:
        raise EnvironmentError_(f"cannot run {python}: {error}") from error
    if done.returncode != 0:
        raise EnvironmentError_(f"{python} could not list its distributions: {done.stderr.strip()[-500:]}")
    return [Distribution(item["name"], item["version"], item["requires"], [Path(f) for f in item["files"]],
                         item.get("top_level", [])) for item in json.loads(done.stdout)]


def _without_pythonpath() -> dict[str, str]:
    """The environment as installed: a ``PYTHONPATH`` (jaxlint's own checkout) is not part of it."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
