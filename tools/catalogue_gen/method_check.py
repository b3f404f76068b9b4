"""The ``[[method_change]]`` rows confirmed at run time: each method read by ``inspect`` in a venv of a release with
the old form and one with the new (``tests/catalogue/test_method_changes_exec.py`` runs it).

What a venv answers per method: its kind as the class holds it (``static``, ``class``, ``instance``) and how many
positional arguments a call must pass (the receiver aside), or the error that kept it from being read.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from catalogue_gen.resolve import probe

METHOD_PROBE = probe(r"""
import inspect, json, sys, warnings
warnings.simplefilter("ignore")
def read(dotted):
    owner, _, method = dotted.rpartition(".")
    try:
        cls = get(owner)
        raw = inspect.getattr_static(cls, method)
    except Exception as exc:
        return repr(exc)
    kind = "static" if isinstance(raw, staticmethod) else "class" if isinstance(raw, classmethod) else "instance"
    function = raw.__func__ if kind != "instance" else raw
    params = list(inspect.signature(function).parameters.values())
    if kind != "static":
        params = params[1:]
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return [kind, None]
    required = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty for p in params)
    return [kind, required]
print(json.dumps([read(name) for name in json.load(sys.stdin)]))
""")


def observed(python: Path, names: list[str]) -> list:
    """``[kind, required]`` (or an error's text) per method, read in ``python``'s venv."""
    proc = subprocess.run([str(python), "-c", METHOD_PROBE], input=json.dumps(names), capture_output=True, text=True,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def confirmed(change: str, old: list | str, new: list | str, required: int | None = None,
              was_required: int | None = None) -> bool:
    """The old release shows the old form and the new release the new one."""
    if isinstance(old, str) or isinstance(new, str):
        return False
    if change == "instance-method":
        return old[0] == "static" and new[0] == "instance"
    return old[0] == new[0] != "static" and (old[1], new[1]) == (was_required, required)
