"""``tools/generate_catalogue.py --only-signatures`` over tiny fake flax and optax wheels besides two jax ones,
offline: constructors written as ``__new__``, ``functools.wraps`` decorators and decorators that hand the function
back (``nn.compact``), the dataclass fields of linen Modules and ``struct.PyTreeNode``s, ``NamedTuple`` states, each
row tagged with its library and counted in the library's own releases."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MODULE_1 = """
    import dataclasses
    import functools
    import typing_extensions as tpe

    def compact(fun):
        fun.compact = True
        return fun

    def deprecated(fun):
        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            return fun(*args, **kwargs)
        return wrapper

    def opaque(fun):
        def inner(*args, **kwargs):
            return fun(*args, **kwargs)
        return inner

    @tpe.dataclass_transform(field_specifiers=(dataclasses.field,))
    class ModuleBase:
        pass

    class Module(ModuleBase):
        name: str | None = dataclasses.field(kw_only=True, default=None)

        def make_rng(self, name="default"):
            pass

    class Dense(Module):
        features: int = 8
        use_bias: bool = True

        @compact
        def __call__(self, x):
            pass

        @deprecated
        def project(self, x, axis=0):
            pass

        @opaque
        def hidden(self, x, axis=0):
            pass

    class Mesh:
        def __new__(cls, devices, axis_names, axis_types=None):
            pass

    @deprecated
    def freeze(x, strict=True):
        pass
"""
MODULE_2 = MODULE_1.replace("features: int = 8", "features: int").replace(
    "def make_rng(self, name=\"default\")", "def make_rng(self, name=\"params\")").replace(
    "def project(self, x, axis=0)", "def project(self, x, dim=0)").replace(
    "def hidden(self, x, axis=0)", "def hidden(self, x, dim=0)").replace(
    "def __new__(cls, devices, axis_names, axis_types=None)", "def __new__(cls, devices, axis_names, *, types=None)").replace(
    "def freeze(x, strict=True)", "def freeze(x, strict=False)")
FLAX_INIT = "from flax.linen.module import Dense, Mesh, Module, freeze\n"

STATES_1 = """
    from typing import NamedTuple

    class DoGState(NamedTuple):
        first_step: bool
        init_params: int
        estim_dist: float = 1.0
"""
STATES_2 = STATES_1.replace("first_step", "is_init_step").replace("estim_dist", "max_dist")
OPTAX_INIT = "from optax._src.states import DoGState\n"


def wheel(path: Path, files: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, textwrap.dedent(text))


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict:
    cache = tmp_path_factory.mktemp("wheels")
    for version in ("0.1.0", "0.2.0"):
        wheel(cache / f"jax-{version}-py3-none-any.whl", {"jax/__init__.py": "def f(x):\n    pass\n"})
    (cache / "ecosystem").mkdir()
    for version, module in (("0.6.0", MODULE_1), ("0.7.0", MODULE_2)):
        wheel(cache / "ecosystem" / f"flax-{version}-py3-none-any.whl",
              {"flax/__init__.py": "", "flax/linen/__init__.py": FLAX_INIT, "flax/linen/module.py": module})
    for version, states in (("0.2.5", STATES_1), ("0.2.6", STATES_2)):
        wheel(cache / "ecosystem" / f"optax-{version}-py3-none-any.whl",
              {"optax/__init__.py": OPTAX_INIT, "optax/_src/__init__.py": "", "optax/_src/states.py": states})
    out = cache / "signatures_generated.toml"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "generate_catalogue.py"), "--only-signatures",
                           "--cache", str(cache), "--signatures-out", str(out), "--versions", "0.1.0", "0.2.0",
                           "--offline", "--libraries", "flax", "optax"], check=True, capture_output=True, text=True)
    with open(out, "rb") as fh:
        data = tomllib.load(fh)
    return {"stdout": done.stdout, "head": data,
            "rows": {(row["owner"], row.get("member", ""), row.get("parameter", ""), row["change"]): row
                     for row in data["signature"]}}


def test_rows_carry_their_library_and_its_releases(generated):
    row = generated["rows"][("flax.linen.Dense", "__init__", "features", "newly-required")]
    assert (row["library"], row["changed_in"], row["last_seen"], row["position"]) == ("flax", "0.7.0", "0.6.0", 0)
    assert generated["head"]["flax_versions"] == ["0.6.0", "0.7.0"]
    assert generated["head"]["optax_versions"] == ["0.2.5", "0.2.6"]
    assert "flax: 2 releases 0.6.0..0.7.0" in generated["stdout"]


def test_linen_module_fields_are_its_constructor(generated):
    """A subclass of a ``dataclass_transform`` base is a dataclass: its fields (and ``name``, keyword-only) are the
    constructor's parameters, their literal defaults read."""
    rows = generated["rows"]
    assert ("flax.linen.Dense", "__init__", "use_bias", "default-changed") not in rows  # unchanged
    inherited = rows[("flax.linen.Dense", "make_rng", "name", "default-changed")]
    assert (inherited["old_default"], inherited["new_default"]) == ("'default'", "'params'")


def test_constructor_written_as_new(generated):
    row = generated["rows"][("flax.linen.Mesh", "__init__", "axis_types", "renamed")]
    assert (row["replacement"], row["changed_in"]) == ("types", "0.7.0")


def test_wraps_and_returning_decorators_keep_the_signature(generated):
    rows = generated["rows"]
    assert rows[("flax.linen.Dense", "project", "axis", "removed")]["changed_in"] == "0.7.0"
    assert rows[("flax.linen.freeze", "", "strict", "default-changed")]["new_default"] == "False"
    # a decorator that returns another function without ``functools.wraps``: its signature is unknown
    assert not [key for key in rows if key[1] == "hidden"]


def test_namedtuple_fields_are_its_constructor(generated):
    rows = generated["rows"]
    assert rows[("optax.DoGState", "__init__", "first_step", "renamed")]["replacement"] == "is_init_step"
    assert rows[("optax.DoGState", "__init__", "estim_dist", "renamed")]["library"] == "optax"
