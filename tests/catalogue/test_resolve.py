"""The one run-time name resolver (tools/catalogue_gen/resolve.py) that the catalogue generator, the execution test
and the recall oracle share: run as they run it (its text prepended to a driver, in a separate interpreter) on a tiny
fake package, so no JAX is needed."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import recall_oracle  # noqa: E402
from catalogue_gen import resolve, runtime_check  # noqa: E402

PACKAGE = {
    # ``config`` is an attribute of the package and a submodule of the same name (jax.config in old releases)
    "fj/__init__.py": "from fj import sub\nconfig = 'attribute config'\n",
    "fj/sub.py": "value = 42\n",
    "fj/config.py": "config = 'module config'\n",
    # a subpackage the package does not import: reached by importing it
    "fj/lazy/__init__.py": "",
    "fj/lazy/deep.py": "thing = 'deep'\n",
    # exists, but needs a package the venv lacks (jax.experimental.jax2tf needs tensorflow)
    "fj/needs_tf.py": "import tensorflow_not_installed_here\n",
    # exists, but fails on import for another reason
    "fj/broken.py": "raise RuntimeError('broken on import')\n",
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("fakepkg")
    for name, text in PACKAGE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)

    def run(script: str, stdin: object) -> object:
        proc = subprocess.run([sys.executable, "-c", script], input=json.dumps(stdin), capture_output=True, text=True,
                              cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, check=True)
        return json.loads(proc.stdout.strip().splitlines()[-1])
    return run


GET = resolve.probe(r"""
import json, sys
out = {}
for name in json.load(sys.stdin):
    try:
        out[name] = repr(get(name))
    except Exception as exc:
        out[name] = type(exc).__name__
print(json.dumps(out))
""")


def test_get_reaches_names_as_user_code_does(run):
    got = run(GET, ["fj.sub.value", "fj.config", "fj.config.config", "fj.lazy.deep.thing", "fj.sub"])
    assert got == {
        "fj.sub.value": "42",
        "fj.config": "'attribute config'",  # the attribute wins over the submodule of the same name
        "fj.config.config": "'module config'",  # ``from fj.config import config``: the shadowed submodule
        "fj.lazy.deep.thing": "'deep'",  # not an attribute until imported
        "fj.sub": got["fj.sub"],
    }
    assert got["fj.sub"].startswith("<module 'fj.sub'")


def test_get_fails_on_missing_names(run):
    got = run(GET, ["fj.sub.gone", "fj.nothere", "fj.needs_tf.x", "nopackage_xyz.a", "fj.broken.x"])
    assert got == {"fj.sub.gone": "AttributeError", "fj.nothere": "AttributeError", "fj.needs_tf.x": "AttributeError",
                   "nopackage_xyz.a": "ImportError", "fj.broken.x": "AttributeError"}


MISSING = resolve.probe(r"""
import json, sys
print(json.dumps({name: missing(name) for name in json.load(sys.stdin)}))
""")


def test_missing_names_the_first_prefix_that_fails(run):
    got = run(MISSING, ["fj.sub.gone", "fj.sub.gone.deeper", "fj.nothere.x", "nopackage_xyz.a", "fj.broken.x"])
    assert got == {"fj.sub.gone": "fj.sub.gone", "fj.sub.gone.deeper": "fj.sub.gone", "fj.nothere.x": "fj.nothere",
                   "nopackage_xyz.a": "nopackage_xyz", "fj.broken.x": "fj.broken"}


def test_missing_is_none_for_names_that_resolve_or_need_a_foreign_package(run):
    names = ["fj", "fj.sub.value", "fj.config.config", "fj.lazy.deep.thing", "fj.needs_tf", "fj.needs_tf.x"]
    assert run(MISSING, names) == {name: None for name in names}


def test_the_oracle_resolves_with_the_shared_resolver(run):
    assert resolve.probe("") in recall_oracle._RESOLVE
    assert run(recall_oracle._RESOLVE, ["fj.sub.value", "fj.sub.gone", "fj.needs_tf.x"]) == {
        "fj.sub.value": None, "fj.sub.gone": "fj.sub.gone", "fj.needs_tf.x": None}


def test_the_generator_compares_objects_with_the_shared_resolver(run):
    assert resolve.probe("") in runtime_check.RUNTIME_PROBE
    pairs = [["fj.config.config", "fj.config.config"], ["fj.sub", "fj.config"], ["fj.sub.value", "fj.sub.gone"]]
    same, different, error = run(runtime_check.RUNTIME_PROBE, pairs)
    assert (same, different) == (True, False)
    assert "AttributeError" in error


def test_the_execution_test_prepends_the_same_file():
    text = (ROOT / "tests" / "catalogue" / "test_sample_execution.py").read_text()
    assert '"tools" / "catalogue_gen" / "resolve.py"' in text
    assert not (ROOT / "tools" / "resolve_names.py").exists()


def test_no_other_resolver_is_left_in_the_tools():
    # each of them once had its own loop importing a dotted name's prefixes
    for path in [*(ROOT / "tools").glob("*.py"), *(ROOT / "tools" / "catalogue_gen").glob("*.py")]:
        if path.name != "resolve.py":
            assert 'import_module(".".join(' not in path.read_text(), path
