"""Every common way a project declares its JAX (and flax/optax) pins is read, each bound with its file:line; a pin
file that cannot be read is a warning with its file and line, never a silent default."""
from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.project.version_pins import ProjectPins
from jaxlint.project.versions import Version
from tests.cli.test_cli import run


def _tree(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _range(root: Path):
    return ProjectPins(root).for_directory(root)


def _floor(root: Path) -> tuple[Version, str]:
    pinned = _range(root)
    return pinned.lower.version, pinned.lower.where


# -- setup.py ----------------------------------------------------------------------------------------------------
def test_setup_py_install_requires_from_a_module_variable(tmp_path):
    _tree(tmp_path, {"setup.py": "from setuptools import setup\n\nREQUIREMENTS = [\n    'numpy',\n"
                                 "    'jax>=0.4.20',\n]\nsetup(name='p', install_requires=REQUIREMENTS)\n"})
    assert _floor(tmp_path) == (Version("0.4.20"), "setup.py:5")


def test_setup_py_extras_require_from_a_variable_and_list_concatenation(tmp_path):
    _tree(tmp_path, {"setup.py": "from setuptools import setup\nBASE = ('numpy',)\nEXTRAS = {\n"
                                 "    'jax': list(BASE) + ['jax>=0.4.6'],\n    'all': [*BASE, 'flax>=0.7.1'],\n}\n"
                                 "CORE = ['optax>=0.1.4']\nCORE += ['jax>=0.4.30']\n"
                                 "setup(name='p', install_requires=CORE + ['scipy'], extras_require=EXTRAS)\n"})
    pinned = _range(tmp_path)
    # ``list(BASE)`` is a call it does not follow; the ``+ [...]`` beside it is still read
    assert (pinned.lower.version, pinned.lower.where) == (Version("0.4.6"), "setup.py:4")
    assert pinned.library("flax")[0].version == Version("0.7.1")
    assert (pinned.library("optax")[0].version, pinned.library("optax")[0].where) == (Version("0.1.4"), "setup.py:7")


def test_setup_py_install_requires_read_from_a_requirements_file(tmp_path):
    _tree(tmp_path, {
        "setup.py": "from setuptools import setup\nwith open('deps/base.txt') as f:\n    pass\n"
                    "REQS = open('deps/base.txt').read().splitlines()\n"
                    "setup(name='p', install_requires=REQS, extras_require={'dev': read('deps/dev.txt')})\n",
        "deps/base.txt": "numpy\njax>=0.4.26  # runtime\n",
        "deps/dev.txt": "jax==0.4.14\n",
    })
    pinned = _range(tmp_path)
    assert (pinned.lower.version, pinned.lower.where) == (Version("0.4.14"), "deps/dev.txt:1")
    from jaxlint.project.pins import package_requirements

    texts = [(r.file.name, r.line, r.text) for r in package_requirements(tmp_path)]
    assert ("base.txt", 2, "jax>=0.4.26") in texts


def test_setup_py_naming_a_missing_requirements_file_is_a_warning_with_its_line(tmp_path):
    _tree(tmp_path, {"setup.py": "from setuptools import setup\n\n"
                                 "setup(install_requires=open('requirements-core.txt').read().splitlines())\n"})
    assert _range(tmp_path).warnings == (
        "setup.py:3: names requirements-core.txt, which does not exist: its pins are not read",)


@pytest.mark.parametrize("spelled", [
    "os.path.join(HERE, 'requirements', 'requirements.txt')",
    "os.path.join(os.path.dirname(__file__), 'requirements/requirements.txt')",
    "pathlib.Path(HERE) / 'requirements' / 'requirements.txt'",
])
def test_setup_py_reading_a_requirements_file_in_a_sub_folder(tmp_path, spelled):
    # clrs and lightweight_mmm: the file lies in requirements/, not beside setup.py (was: a warning that
    # requirements.txt does not exist, and its pins not read through setup.py)
    _tree(tmp_path, {
        "setup.py": "import os, pathlib\nfrom setuptools import setup\nHERE = os.path.dirname(__file__)\n\n"
                    "def _parse(path):\n    with open(path) as f:\n        return f.read().splitlines()\n\n"
                    f"setup(name='p', install_requires=_parse({spelled}))\n",
        "requirements/requirements.txt": "numpy\njax>=0.4.31\n",
    })
    pinned = _range(tmp_path)
    assert pinned.warnings == ()
    assert (pinned.lower.version, pinned.lower.where) == (Version("0.4.31"), "requirements/requirements.txt:2")


def test_setup_py_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    _tree(tmp_path, {"setup.py": f"open({str(marker)!r}, 'w').write('x')\nREQS = ['jax>=0.5.0']\n"
                                 "setup(install_requires=REQS)\n"})
    assert _floor(tmp_path) == (Version("0.5.0"), "setup.py:2")
    assert not marker.exists()


# -- pyproject.toml ----------------------------------------------------------------------------------------------
POETRY = """[tool.poetry]
name = "p"

[tool.poetry.dependencies]
python = "^3.10"
numpy = "*"

[tool.poetry.dev-dependencies]
jax = "^0.4.20"

[tool.poetry.group.test.dependencies]
jax = {version = "0.4.16", extras = ["cpu"]}
flax = "~0.7.2"
"""


def test_poetry_dev_dependencies_and_groups(tmp_path):
    _tree(tmp_path, {"pyproject.toml": POETRY})
    pinned = _range(tmp_path)
    # a bare poetry version is an exact pin: ==0.4.16 is the floor (and the ceiling is the ^0.4.20 one's, <0.5)
    assert (pinned.lower.version, pinned.lower.where) == (Version("0.4.16"), "pyproject.toml:12")
    assert (pinned.upper.version, pinned.upper.where) == (Version("0.5"), "pyproject.toml:9")
    flax_lower, flax_upper = pinned.library("flax")
    assert (flax_lower.version, flax_upper.version) == (Version("0.7.2"), Version("0.8"))


def test_pdm_dev_dependencies(tmp_path):
    _tree(tmp_path, {"pyproject.toml": '[project]\nname = "p"\ndependencies = ["numpy"]\n\n'
                                       '[tool.pdm.dev-dependencies]\ntest = [\n  "pytest",\n  "jax>=0.4.7",\n]\n'})
    assert _floor(tmp_path) == (Version("0.4.7"), "pyproject.toml:8")


def test_pep_735_dependency_groups_with_include_group(tmp_path):
    _tree(tmp_path, {"pyproject.toml": '[project]\nname = "p"\n\n[dependency-groups]\n'
                                       'test = ["pytest", {include-group = "jax"}]\njax = ["jax>=0.4.11,<0.6"]\n'})
    pinned = _range(tmp_path)
    assert (pinned.lower.version, pinned.lower.where) == (Version("0.4.11"), "pyproject.toml:6")
    assert pinned.upper.version == Version("0.6")


def test_uv_dev_dependencies_and_hatch_environments(tmp_path):
    _tree(tmp_path, {"pyproject.toml": '[project]\nname = "p"\n\n[tool.uv]\ndev-dependencies = ["optax>=0.1.9"]\n\n'
                                       '[tool.hatch.envs.default]\ndependencies = ["pytest"]\n'
                                       '[tool.hatch.envs.oldest]\nextra-dependencies = ["jax==0.4.25"]\n'})
    pinned = _range(tmp_path)
    assert (pinned.lower.version, pinned.lower.where) == (Version("0.4.25"), "pyproject.toml:10")
    assert pinned.library("optax")[0].where == "pyproject.toml:5"


def test_requirements_files_a_build_backend_reads(tmp_path):
    _tree(tmp_path, {"pyproject.toml": '[project]\nname = "p"\ndynamic = ["dependencies"]\n\n'
                                       '[tool.setuptools.dynamic]\ndependencies = {file = ["deps/run.txt"]}\n',
                     "deps/run.txt": "numpy\njax>=0.4.33\n"})
    assert _floor(tmp_path) == (Version("0.4.33"), "deps/run.txt:2")


def test_a_broken_pyproject_is_a_warning_with_its_file_and_line(tmp_path):
    _tree(tmp_path, {"pyproject.toml": '[project]\nname = "p"\ndependencies = [\n  "jax>=0.4.30",\n  oops\n]\n',
                     "a.py": "import jax\n"})
    [warning] = _range(tmp_path).warnings
    assert warning.startswith("pyproject.toml:5: is not valid TOML (") and warning.endswith(
        ": its pins are not read")
    result = run(["a.py"], tmp_path)
    assert "jaxlint: warning: pyproject.toml:5: is not valid TOML" in result.output
    assert "pin files that could not be read:" in run(["--show-settings", "a.py"], tmp_path).output


def test_a_broken_setup_py_is_a_warning_with_its_line(tmp_path):
    _tree(tmp_path, {"setup.py": "from setuptools import setup\nsetup(install_requires=['jax>=0.4'],\n"})
    [warning] = _range(tmp_path).warnings
    assert warning.startswith("setup.py:2: cannot be parsed")


# -- display and the flax-only package ---------------------------------------------------------------------------
@pytest.mark.parametrize("files, shown", [
    ({"requirements.txt": "jax==0.1.3\n"}, "==0.1.3 (requirements.txt:1)"),
    ({"pyproject.toml": '[tool.poetry.dependencies]\njax = "0.4.30"\n'}, "==0.4.30 (pyproject.toml:2)"),
    ({"requirements.txt": "jax>=0.4.1,<=0.4.30\n"}, ">=0.4.1 (requirements.txt:1), <=0.4.30 (requirements.txt:1)"),
])
def test_an_exact_pin_is_shown_as_one(tmp_path, files, shown):
    _tree(tmp_path, files)
    assert _range(tmp_path).describe() == shown


def test_a_requirements_file_pinning_flax_without_jax_gives_the_flax_range(tmp_path):
    _tree(tmp_path, {"requirements.txt": "flax==0.7.2\nnumpy\n", "src/model.py": "import flax\n"})
    pinned = ProjectPins(tmp_path).for_directory(tmp_path / "src")
    assert pinned is not None and pinned.package == tmp_path and pinned.lower is None
    assert pinned.library("flax")[0].version == Version("0.7.2")
    output = run(["--show-settings", "src/model.py"], tmp_path).output
    assert "flax ==0.7.2 (requirements.txt:1)" in output or "flax >=0.7.2 (requirements.txt:1)" in output


def test_setup_py_reading_a_requirements_file_in_a_with_block(tmp_path):
    _tree(tmp_path, {
        "setup.py": "import setuptools\n\nwith open('requirements.txt') as f:\n    REQS = f.read().splitlines()\n"
                    "if True:\n    EXTRA = {'test': ['jax==0.4.13']}\n"
                    "setuptools.setup(name='p', install_requires=REQS, extras_require=EXTRA)\n",
        "deps.txt": "",
        "requirements.txt": "numpy\njax>=0.4.26\n",
    })
    pinned = _range(tmp_path)
    assert (pinned.lower.version, pinned.lower.where) == (Version("0.4.13"), "setup.py:6")
    assert [(r.file.name, r.line, r.text) for r in _requirements(tmp_path) if "jax" in r.text] == [
        ("setup.py", 6, "jax==0.4.13"), ("requirements.txt", 2, "jax>=0.4.26")]


def _requirements(root: Path):
    from jaxlint.project.pins import package_requirements

    return package_requirements(root)


def test_setup_py_names_redefined_through_themselves(tmp_path):
    _tree(tmp_path, {"setup.py": "A = ['numpy']\nA = A + ['jax>=0.4.2'] + A\nB = B + B\n"
                                 "setup(install_requires=A + B, extras_require={'x': B})\n"})
    assert _floor(tmp_path) == (Version("0.4.2"), "setup.py:2")  # ``B`` refers to nothing: no pins, no hang
