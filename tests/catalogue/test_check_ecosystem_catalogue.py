"""tools/check_ecosystem_catalogue.py on tiny fake optax wheels, offline: it reads names with the generators' own
reader (catalogue_gen.ecosystem.snapshot), and a row that disagrees with a wheel is reported."""
from __future__ import annotations

import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from jaxlint.catalogue.ecosystem import Change

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import check_ecosystem_catalogue as check_module  # noqa: E402

CORE = """
    import warnings

    def old_fn():
        pass

    def new_fn():
        pass

    def dep_fn():
        pass

    def warn_fn():
        {warning}
"""
RELEASES = {
    "0.1.0": {"optax/__init__.py": "from optax._src.core import old_fn, new_fn, dep_fn, warn_fn\n"
                                   "from optax import sub\n",
              "optax/sub/__init__.py": "from optax._src.core import *\n", "optax/_src/core.py": CORE},
    "0.2.0": {"optax/__init__.py": "from optax._src.core import new_fn, dep_fn, warn_fn\n",
              "optax/_src/core.py": CORE},
    # dep_fn only through the table (a module __getattr__ serves it), warn_fn warns in its body
    "0.3.0": {"optax/__init__.py": textwrap.dedent("""
                  from optax._src.core import new_fn, warn_fn
                  from optax._src import core as _core
                  _deprecations = {"dep_fn": ("optax.dep_fn is deprecated, use optax.new_fn", _core.dep_fn)}
              """), "optax/_src/core.py": CORE.replace("{warning}", 'warnings.warn("deprecated", DeprecationWarning)')},
}


@pytest.fixture
def wheels(tmp_path) -> Path:
    for version, files in RELEASES.items():
        with zipfile.ZipFile(tmp_path / f"optax-{version}-py3-none-any.whl", "w") as zf:
            for name, text in files.items():
                zf.writestr(name, textwrap.dedent(text).replace("{warning}", "pass"))
    return tmp_path


AGREE = {
    "optax.old_fn": Change("optax.old_fn", "removed", "0.2.0", "optax.new_fn", "0.1.0"),
    "optax.dep_fn": Change("optax.dep_fn", "deprecated", "0.3.0", "optax.new_fn", "0.1.0"),
    "optax.warn_fn": Change("optax.warn_fn", "deprecated", "0.3.0", None),
    "optax.sub": Change("optax.sub", "removed", "0.2.0", None),
}


def test_rows_that_agree_with_the_wheels(wheels, monkeypatch):
    monkeypatch.setattr(check_module, "OPTAX", AGREE)
    assert check_module.check(wheels) == []


@pytest.mark.parametrize("row, problem", [
    (Change("optax.new_fn", "removed", "0.2.0", None), "optax.new_fn: still works in optax 0.2.0"),
    (Change("optax.old_fn", "removed", "0.3.0", None), "optax.old_fn: does not work in optax 0.2.0"),
    # served by a _deprecations table with an object: deprecated, not removed
    (Change("optax.dep_fn", "removed", "0.3.0", None), "optax.dep_fn: still works in optax 0.3.0"),
    (Change("optax.new_fn", "deprecated", "0.3.0", None), "optax.new_fn: no deprecation in optax 0.3.0"),
    (Change("optax.warn_fn", "deprecated", "0.2.0", None), "optax.warn_fn: no deprecation in optax 0.2.0"),
    (Change("optax.old_fn", "removed", "0.2.0", "optax.gone", "0.1.0"), "optax.old_fn: optax.gone not in optax 0.1.0"),
    (Change("optax.old_fn", "removed", "0.1.0", None), "optax.old_fn: since 0.1.0, the first release on hand"),
])
def test_rows_that_disagree_are_reported(wheels, monkeypatch, row, problem):
    monkeypatch.setattr(check_module, "OPTAX", {row.name: row})
    assert problem in check_module.check(wheels)
