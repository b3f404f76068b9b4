"""Execution check for JAX401 across modules: a ``with mesh:`` block whose *other* module needs the legacy mesh.

A small program of three files, run on JAX 0.12.0.1 (CPU, two host devices): ``main.py`` enters the mesh and, in
the block, constructs ``Model`` from ``pkg/model.py`` (which reads ``thread_resources``) and calls ``step`` from
``pkg/train.py`` (a ``pjit`` with bare ``PartitionSpec``s). As written it runs; with the ``jax.set_mesh(mesh)`` the
unsafe fix would write, the first block raises ``KeyError`` and the second ``RuntimeError``. ``jaxlint --fix
--unsafe-fixes`` over the project leaves ``main.py`` as it is, and each finding says which module and why.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jaxlint.project.files import SourceFile
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.run.runner import Mode, run_files
from support.jaxenv import jax_python

pytestmark = pytest.mark.jax

FILES = {
    "pkg/__init__.py": "",
    "pkg/model.py": """\
from jax.interpreters.pxla import thread_resources


class Model:
    def __init__(self):
        self.width = thread_resources.env.physical_mesh.shape["x"]
""",
    "pkg/train.py": """\
from jax.experimental.pjit import pjit
from jax.sharding import PartitionSpec as P

step = pjit(lambda a: a * 2, in_shardings=P("x"), out_shardings=P("x"))
""",
    "main.py": """\
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
import jax
import jax.numpy as jnp
from jax.sharding import Mesh

from pkg.model import Model
from pkg.train import step


def main():
    mesh = Mesh(jax.devices(), ("x",))
    with mesh:
        print(Model().width)
    with mesh:
        print(step(jnp.arange(4.0)).tolist())


main()
""",
}


def write_project(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def run_main(root: Path, source: str) -> tuple[int, str]:
    (root / "main.py").write_text(source, encoding="utf-8")
    proc = subprocess.run([str(jax_python("0.12.0.1")), "-W", "ignore", "main.py"], cwd=root, capture_output=True,
                          text=True, timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    return proc.returncode, proc.stdout + proc.stderr


def test_the_fix_is_withheld_where_another_module_needs_the_legacy_mesh(tmp_path):
    write_project(tmp_path, FILES)
    settings = Settings(select=("JAX401",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test", root=tmp_path)
    files = [SourceFile(tmp_path / name, settings) for name in sorted(FILES)]
    results = run_files(files, Mode.FIX, unsafe=True, jobs=1, use_cache=False)
    main = next(result for result in results if result.path.endswith("main.py"))
    assert (tmp_path / "main.py").read_text(encoding="utf-8") == FILES["main.py"]
    assert [(d.code, d.start.row, d.fix) for d in main.diagnostics] == [("JAX401", 13, None), ("JAX401", 15, None)]
    reasons = [d.fix_withheld.reason for d in main.diagnostics]
    assert reasons[0].startswith("the block calls `Model` from `pkg/model.py`, which reads the legacy "
                                 "`thread_resources`")
    assert reasons[1].startswith("the block calls `step` from `pkg/train.py`, which runs a `pjit` whose shardings "
                                 "are (or may be) bare `PartitionSpec`s")

    # As written, the program runs; in the form the unsafe fix would have written, each block breaks.
    assert run_main(tmp_path, FILES["main.py"]) == (0, "2\n[0.0, 2.0, 4.0, 6.0]\n")
    first = FILES["main.py"].replace("    with mesh:\n        print(Model", "    with jax.set_mesh(mesh):\n"
                                     "        print(Model")
    code, output = run_main(tmp_path, first)
    assert code != 0 and "KeyError: 'x'" in output
    second = FILES["main.py"].replace("    with mesh:\n        print(step", "    with jax.set_mesh(mesh):\n"
                                      "        print(step")
    code, output = run_main(tmp_path, second)
    assert code != 0 and "RuntimeError: pjit requires a non-empty mesh in context" in output
    # The safe spelling keeps the legacy context: both blocks work under ``with jax.sharding.Mesh(...)``.
    legacy = FILES["main.py"].replace("with mesh:", "with jax.sharding.Mesh(jax.devices(), (\"x\",)):")
    assert run_main(tmp_path, legacy) == (0, "2\n[0.0, 2.0, 4.0, 6.0]\n")


PLAIN_NAME = {
    "pkg/__init__.py": "",
    "pkg/model.py": """\
from jax.experimental.pjit import pjit
from jax.sharding import PartitionSpec as P


class Model:
    def train(self, batch):
        return pjit(lambda a: a * 2, in_shardings=P("x"), out_shardings=P("x"))(batch)
""",
    "pkg/trainer.py": """\
import jax
from jax.sharding import Mesh


class Trainer:
    def __init__(self, model):
        self.model = model

    def fit(self, batch):
        mesh = Mesh(jax.devices(), ("x",))
        with mesh:
            return self.model.train(batch)
""",
    "main.py": """\
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
import jax.numpy as jnp

from pkg.model import Model
from pkg.trainer import Trainer

print(Trainer(model=Model()).fit(jnp.arange(4.0)).tolist())
""",
}


def test_the_fix_is_withheld_where_a_construction_in_another_module_passes_a_pjit_class(tmp_path):
    # ``self.model`` comes from an unannotated ``__init__`` parameter; ``main.py`` passes ``Model``, whose method
    # runs a ``pjit`` with bare ``PartitionSpec``s (``analysis.construction_sites``).
    write_project(tmp_path, PLAIN_NAME)
    settings = Settings(select=("JAX401",), target_version=Version("0.12.0.1"),
                        explicit_min_version=Version("0.10.2"), min_version_source="test", root=tmp_path)
    files = [SourceFile(tmp_path / name, settings) for name in sorted(PLAIN_NAME)]
    results = run_files(files, Mode.FIX, unsafe=True, jobs=1, use_cache=False)
    trainer = next(result for result in results if result.path.endswith("trainer.py"))
    assert (tmp_path / "pkg" / "trainer.py").read_text(encoding="utf-8") == PLAIN_NAME["pkg/trainer.py"]
    (finding,) = trainer.diagnostics
    assert finding.fix is None and finding.fix_withheld.reason.startswith(
        "the block calls `self.model.train` from `pkg/model.py`, which runs a `pjit`")

    assert run_main(tmp_path, PLAIN_NAME["main.py"]) == (0, "[0.0, 2.0, 4.0, 6.0]\n")
    fixed = PLAIN_NAME["pkg/trainer.py"].replace("with mesh:", "with jax.set_mesh(mesh):")
    (tmp_path / "pkg" / "trainer.py").write_text(fixed, encoding="utf-8")
    code, output = run_main(tmp_path, PLAIN_NAME["main.py"])
    assert code != 0 and "RuntimeError: pjit requires a non-empty mesh in context" in output
