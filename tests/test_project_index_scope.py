"""The project facts do not depend on which paths are linted (``files.project_modules``).

``jaxlint check pkg/worker.py`` (as pre-commit runs it) must offer exactly the fixes that ``jaxlint check .``
offers: the index covers every module of the project root (the folder of the configuration file, else of the pin
file) whatever the command line names, through the cache (cold and warm) and without it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.project.files import MAX_PROJECT_MODULES, SourceFile, index_root, project_modules
from jaxlint.project.settings import Settings
from jaxlint.ui.cli import main
from test_project_attribute_reach import IN_INIT, PJIT_MODEL, TRAINER
from test_project_index import HARMLESS_MODEL, PJIT_STEP

PINS = '[project]\nname = "demo"\ndependencies = ["jax>=0.10.2"]\n'
CONFIG = "[tool.jaxlint]\nmin-version = \"0.10.2\"\n"
WORKER = TRAINER.format(store=IN_INIT)
DIRECT = "import jax\nfrom pkg.train import step\n\nwith jax.make_mesh((2,), ('x',)):\n    step(1)\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def check(root: Path, monkeypatch, *args: str, cwd: Path | None = None) -> dict[str, list[dict]]:
    """``jaxlint check --select JAX401 --output-format json ARGS`` in ``cwd`` (``root``): the findings by file,
    named from ``root``."""
    monkeypatch.chdir(cwd or root)
    result = CliRunner().invoke(main, ["check", "--select", "JAX401", "--output-format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    found: dict[str, list[dict]] = {}
    for finding in json.loads(result.stdout):
        found.setdefault(str(Path(finding["filename"]).relative_to(root)), []).append(finding)
    return found


@pytest.mark.parametrize("project_file", [("pyproject.toml", PINS), ("pyproject.toml", CONFIG),
                                          ("requirements.txt", "jax>=0.10.2\n")])
@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_one_file_gets_the_fix_the_whole_project_gets(tmp_path, monkeypatch, project_file, cache):
    write(tmp_path, {project_file[0]: project_file[1], "pkg/__init__.py": "", "pkg/model.py": PJIT_MODEL,
                     "pkg/train.py": PJIT_STEP, "pkg/worker.py": WORKER, "scripts/direct.py": DIRECT})
    whole = check(tmp_path, monkeypatch, *cache, ".")
    for name in ("pkg/worker.py", "scripts/direct.py"):
        (finding,) = whole[name]
        assert finding["fix"] is None and finding["fix_withheld"] is not None, name
        for _ in range(2):  # cold, then warm (the results cache and the index cache)
            assert check(tmp_path, monkeypatch, *cache, name) == {name: whole[name]}
        # From another folder too (pre-commit runs from the root; an editor from anywhere). Paths in the reason
        # are shown from the working folder where no configuration file says where the root is.
        (elsewhere,) = check(tmp_path, monkeypatch, *cache, str(tmp_path / name), cwd=tmp_path / "pkg")[name]
        assert elsewhere["fix"] is None and elsewhere["fix_withheld"] is not None


def test_a_module_that_becomes_harmless_gives_the_fix_back_to_a_one_file_check(tmp_path, monkeypatch):
    write(tmp_path, {"pyproject.toml": PINS, "pkg/__init__.py": "", "pkg/model.py": PJIT_MODEL,
                     "pkg/worker.py": WORKER})
    (finding,) = check(tmp_path, monkeypatch, "pkg/worker.py")["pkg/worker.py"]
    assert finding["fix"] is None
    write(tmp_path, {"pkg/model.py": HARMLESS_MODEL + "\n    def train(self, batch):\n        return batch\n"})
    (finding,) = check(tmp_path, monkeypatch, "pkg/worker.py")["pkg/worker.py"]
    assert finding["fix"] is not None and finding["fix_withheld"] is None


def test_without_a_project_file_the_index_covers_the_linted_paths_only(tmp_path, monkeypatch):
    # No configuration and no pins: the working folder is no project (it may be a home folder), so nothing else
    # is walked, as before; naming the module on the command line still withholds the fix.
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path, {".git/HEAD": "", "pkg/__init__.py": "", "pkg/model.py": PJIT_MODEL, "pkg/worker.py": WORKER})
    assert index_root(Settings(root=tmp_path)) is None
    (alone,) = check(tmp_path, monkeypatch, "pkg/worker.py")["pkg/worker.py"]
    assert alone["fix"] is not None
    (together,) = check(tmp_path, monkeypatch, "pkg/worker.py", "pkg/model.py")["pkg/worker.py"]
    assert together["fix"] is None


def test_the_walk_skips_what_check_dot_skips_and_the_linted_files(tmp_path, monkeypatch):
    write(tmp_path, {"pyproject.toml": CONFIG.replace("\"\n", "\"\nextend-exclude = [\"vendor\"]\n"),
                     "pkg/__init__.py": "", "pkg/worker.py": WORKER, "pkg/model.py": PJIT_MODEL,
                     "vendor/lib.py": "", ".venv/lib/site.py": "", "notes.ipynb": "{}", "stubs/a.pyi": ""})
    from jaxlint.project.config import Overrides, SettingsResolver

    monkeypatch.chdir(tmp_path)
    resolver = SettingsResolver(Overrides())
    worker = SourceFile(Path("pkg/worker.py"), resolver.for_path(Path("pkg/worker.py")))
    found = sorted(str(Path(path).relative_to(tmp_path)) for path in project_modules([worker], resolver))
    assert found == ["pkg/__init__.py", "pkg/model.py", "stubs/a.pyi"]
    assert project_modules([worker], resolver, walked=[tmp_path]) == []  # ``check .`` walked it already
    assert project_modules([worker], resolver, walked=[tmp_path / "pkg"]) != []  # a part of it only


def test_a_project_too_large_is_not_walked(tmp_path, monkeypatch):
    import jaxlint.project.files as files

    write(tmp_path, {"pyproject.toml": PINS, "pkg/worker.py": WORKER, "pkg/a.py": "", "pkg/b.py": ""})
    monkeypatch.chdir(tmp_path)
    from jaxlint.project.config import Overrides, SettingsResolver

    resolver = SettingsResolver(Overrides())
    worker = SourceFile(Path("pkg/worker.py"), resolver.for_path(Path("pkg/worker.py")))
    assert len(project_modules([worker], resolver)) == 2
    monkeypatch.setattr(files, "MAX_PROJECT_MODULES", 1)
    assert project_modules([worker], resolver) == []
    assert MAX_PROJECT_MODULES == 20_000
