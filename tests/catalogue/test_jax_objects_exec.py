"""Every row of rules/objects_generated.toml, executed in the real JAX environments ($JAXLINT_JAXENVS): a name is
there in each environment between its first and last release seen, and gone from its removal on (a jax.config
member: ``getattr(jax.config, name)``; a jaxlib module or name: imported, then ``getattr``)."""
from __future__ import annotations

import json
import subprocess
import tomllib

import pytest

from jaxlint.catalogue import OBJECTS
from jaxlint.project.versions import Version
from tests.support.jaxenv import GET_DOTTED, jax_python, old_jax_python

# The releases probed: jax and the jaxlib of the same release (0.4.13 on Python 3.10), built on first use.
VERSIONS = ("0.4.13", "0.4.20", "0.4.24", "0.8.0", "0.10.2", "0.12.0.1")

PROBE = """
import importlib, importlib.util, json, sys, warnings
warnings.simplefilter("ignore")
import jax
""" + GET_DOTTED + """
def there(name, kind):
    try:
        if name.startswith("jax.config."):
            getattr(jax.config, name[len("jax.config."):])
        elif kind == "module":  # found, not run: ``jaxlib.triton.compat`` imports triton
            try:
                return importlib.util.find_spec(name) is not None
            except (ImportError, ValueError):  # a submodule of an extension (``xla_extension.pytree``): no spec
                get(name)
        else:
            get(name)
        return True
    except Exception:
        return False
print(json.dumps({name: there(name, kind) for name, kind in json.load(sys.stdin)}))
"""


def rows() -> list[dict]:
    with open(OBJECTS, "rb") as fh:
        data = tomllib.load(fh)
    return [dict(row, kind=kind) for kind in ("symbol", "module") for row in data.get(kind, [])]


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
def test_each_row_is_there_in_its_releases_and_gone_after(version):
    # built (or waited for, under its lock) on first use: a folder another worker is still filling is never read
    python = old_jax_python(version, "3.10") if version == "0.4.13" else jax_python(version)
    at = Version(version)
    expect, kinds = {}, {}
    for row in rows():
        kinds[row["name"]] = row["kind"]
        if at >= Version(row["removed_in"]):
            expect[row["name"]] = False
        elif Version(row["first_seen"]) <= at <= Version(row["last_seen"]):
            expect[row["name"]] = True
    if not expect:
        pytest.skip(f"no row is known at {version}")
    done = subprocess.run([str(python), "-c", PROBE], input=json.dumps(sorted((name, kinds[name]) for name in expect)), capture_output=True,
                          text=True, timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    wrong = sorted(name for name, there in expect.items() if found[name] != there)
    assert wrong == [], f"{len(wrong)} of {len(expect)} rows disagree at {version}: {wrong[:20]}"
