"""The public same-origin successor of a removed name (tools/catalogue_gen/successors.py) and the per-family advice
for what is left (tools/catalogue_gen/module_advice.py): on fake wheels through the whole generator, and on the
real catalogue's rows."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from catalogue_gen.module_advice import MODULE_ADVICE, add_module_advice, family  # noqa: E402
from catalogue_gen.name_diff import Entry  # noqa: E402
from catalogue_gen.successors import add_successors, rank  # noqa: E402

CORE = """
    class Primitive:
        pass

    def get_aval(x):
        pass

    def retired(x):
        pass
"""
DTYPES = "float0 = object()\n"
RELEASES = {
    "0.1.0": {
        "jax/__init__.py": "from jax import dtypes, core\n",
        "jax/_src/core.py": CORE,
        "jax/_src/dtypes.py": DTYPES,
        "jax/dtypes.py": "from jax._src.dtypes import float0 as float0\n",
        "jax/core.py": "from jax._src.core import Primitive as Primitive, get_aval as get_aval\n",
        "jax/interpreters/__init__.py": "",
        # float0: a re-export of what jax.dtypes exports too; Primitive: its successor comes later;
        # own_helper: defined here, no successor; Any: not JAX's; retired: its only other name is deprecated later
        "jax/interpreters/ad.py": """
            from typing import Any
            from jax._src.dtypes import float0
            from jax._src.core import Primitive, get_aval, retired

            def own_helper():
                pass
        """,
        "jax/interpreters/xla.py": "from jax._src.core import get_aval as abstractify\n\ndef lower():\n    pass\n",
        "jax/experimental/__init__.py": "",
        "jax/experimental/old.py": "from jax._src.core import retired\n",
    },
    "0.2.0": {
        "jax/__init__.py": "from jax import dtypes, core\n",
        "jax/_src/core.py": CORE,
        "jax/_src/dtypes.py": DTYPES,
        "jax/dtypes.py": "from jax._src.dtypes import float0 as float0\n",
        "jax/core.py": "from jax._src.core import get_aval as get_aval\n",
        "jax/interpreters/__init__.py": "",
        "jax/interpreters/ad.py": "x = 1\n",
        "jax/interpreters/xla.py": "x = 1\n",
        "jax/experimental/__init__.py": "",
        "jax/experimental/old.py": """
            from jax._src.core import retired as _retired
            _deprecations = {"retired": ("jax.experimental.old.retired is deprecated.", _retired)}
        """,
    },
    "0.3.0": {
        "jax/__init__.py": "from jax import dtypes, core\n",
        "jax/_src/core.py": CORE,
        "jax/_src/dtypes.py": DTYPES,
        "jax/dtypes.py": "from jax._src.dtypes import float0 as float0\n",
        "jax/core.py": "from jax._src.core import get_aval as get_aval\n",
        "jax/extend/__init__.py": "",
        "jax/extend/core.py": "from jax._src.core import Primitive as Primitive\n",
        # a helper the module imports for its own use (no ``as`` alias, no ``__all__``): not an export
        "jax/example_libraries/__init__.py": "",
        "jax/example_libraries/optimizers.py": "from jax._src.core import retired\n",
        "jax/interpreters/__init__.py": "",
        "jax/interpreters/ad.py": "from jax._src.dtypes import float0 as zero_dtype\n",
        "jax/interpreters/xla.py": "x = 1\n",
        "jax/experimental/__init__.py": "",
        "jax/experimental/old.py": """
            from jax._src.core import retired as _retired
            _deprecations = {"retired": ("jax.experimental.old.retired is deprecated.", _retired)}
        """,
    },
}


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Path:
    """The generator's output for the fake releases (the wheels and snapshots stay beside it)."""
    cache = tmp_path_factory.mktemp("successor-wheels")
    for version, files in RELEASES.items():
        with zipfile.ZipFile(cache / f"jax-{version}-py3-none-any.whl", "w") as zf:
            for name, text in {"jax/_src/__init__.py": "", **files}.items():
                zf.writestr(name, textwrap.dedent(text))
    out = cache / "generated.toml"
    subprocess.run([sys.executable, str(ROOT / "tools" / "generate_catalogue.py"), "--cache", str(cache), "--out",
                    str(out), "--jaxenvs", str(cache / "no-venvs"), "--versions", *RELEASES], check=True,
                   capture_output=True, text=True)
    return out


@pytest.fixture(scope="module")
def symbols(catalogue) -> dict[str, dict]:
    with open(catalogue, "rb") as fh:
        return {row["name"]: row for row in tomllib.load(fh).get("symbol", [])}


def test_a_re_export_gets_the_public_name_of_the_same_object(symbols):
    row = symbols["jax.interpreters.ad.float0"]
    assert row["replacement"] == "jax.dtypes.float0"  # not jax.interpreters.ad.zero_dtype: an internal module
    assert row["replacement_since"] == "0.1.0"
    assert row["same_object"] is True and row["same_object_checked"] == "static:0.1.0"
    assert row["source"] == "diff+origin"
    assert "advice" not in row


def test_a_renamed_re_export_too(symbols):
    row = symbols["jax.interpreters.xla.abstractify"]
    assert row["replacement"] == "jax.core.get_aval" and row["same_object"] is True


def test_a_successor_that_came_later_is_named_not_proven(symbols):
    for name in ("jax.interpreters.ad.Primitive", "jax.core.Primitive"):
        row = symbols[name]
        assert row["replacement"] == "jax.extend.core.Primitive"
        assert row["replacement_since"] == "0.3.0"
        assert "same_object" not in row  # no release had both names: advice, never a rename
        assert row["same_object_checked"] == "origin:0.1.0"


def test_no_successor_gets_the_family_advice(symbols):
    assert "replacement" not in symbols["jax.interpreters.ad.own_helper"]  # defined in the removed module itself
    assert symbols["jax.interpreters.ad.own_helper"]["advice"] == MODULE_ADVICE["jax.interpreters.ad"]
    assert symbols["jax.interpreters.xla.lower"]["advice"] == MODULE_ADVICE["jax.interpreters.xla"]
    # a deprecated public name is no successor
    assert "replacement" not in symbols["jax.interpreters.ad.retired"]
    assert symbols["jax.interpreters.ad.retired"]["source"] == "diff"


def test_names_that_are_not_jax_objects_are_not_in_the_catalogue(symbols):
    assert "jax.interpreters.ad.Any" not in symbols


def test_rank_prefers_documented_namespaces():
    names = ["jax.interpreters.ad.zeros", "jax.extend.core.zeros", "jax.lax.zeros", "jax.experimental.a.zeros"]
    assert sorted(names, key=rank) == ["jax.lax.zeros", "jax.extend.core.zeros", "jax.interpreters.ad.zeros",
                                       "jax.experimental.a.zeros"]


def snaps_of(**releases: dict[str, dict[str, str]]) -> dict[str, dict]:
    return {v[1:].replace("_", "."): {"modules": {mod: {"names": names, "deprecations": {}}
                                                  for mod, names in mods.items()}}
            for v, mods in releases.items()}


def test_a_different_origin_at_a_shared_release_is_not_the_same_object():
    snaps = snaps_of(v0_1={"jax.a": {"f": "jax._src.x:f"}, "jax.b": {"f": "jax._src.y:f"}},
                     v0_2={"jax.a": {}, "jax.b": {"f": "jax._src.x:f"}})
    entry = Entry(name="jax.a.f", kind="symbol", module="jax.a", removed_in="0.2", last_seen="0.1")
    assert add_successors([entry], ["0.1", "0.2"], snaps) == 1
    assert entry.replacement == "jax.b.f" and entry.same_object is None
    assert entry.same_object_checked == "origin:0.1"


def test_an_entry_with_a_replacement_or_still_deprecated_is_left_alone():
    snaps = snaps_of(v0_1={"jax.a": {"f": "jax._src.x:f"}, "jax.b": {"f": "jax._src.x:f"}})
    named = Entry(name="jax.a.f", kind="symbol", module="jax.a", removed_in="0.2", last_seen="0.1",
                  replacement="jax.c")
    warned = Entry(name="jax.a.f", kind="symbol", module="jax.a", deprecated_in="0.1", last_seen="0.1")
    assert add_successors([named, warned], ["0.1"], snaps) == 0
    assert named.replacement == "jax.c" and warned.replacement is None


def test_family_is_the_longest_prefix_at_a_dot():
    assert family("jax.interpreters.xla.abstractify") == "jax.interpreters.xla"
    assert family("jax.interpreters.masking") == "jax.interpreters"
    assert family("jax.interpreters.xlab.f") == "jax.interpreters"
    assert family("jax.coreutils.f") is None and family("jax.numpy.f") is None


def test_advice_is_only_for_removed_names_without_a_replacement():
    rows = [Entry(name="jax.core.a", kind="symbol", module="jax.core", removed_in="0.2"),
            Entry(name="jax.core.b", kind="symbol", module="jax.core", removed_in="0.2", replacement="jax.b"),
            Entry(name="jax.core.c", kind="symbol", module="jax.core", deprecated_in="0.2")]
    assert add_module_advice(rows) == 1
    assert rows[0].advice == MODULE_ADVICE["jax.core"] and rows[1].advice is None and rows[2].advice is None


def test_only_successors_on_a_full_run_writes_the_same_bytes(catalogue):
    """The quick path (rows of an existing file, earlier answers undone, snapshots without signatures) agrees with
    the full run."""
    out, cache = catalogue, catalogue.parent
    before = out.read_bytes()
    subprocess.run([sys.executable, str(ROOT / "tools" / "generate_catalogue.py"), "--cache", str(cache), "--out",
                    str(out), "--only-successors"], check=True, capture_output=True, text=True)
    assert out.read_bytes() == before
    assert list(cache.glob("origins-*.json")) == []  # the full snapshots were there: none recomputed


def test_exports_are_aliased_re_exports_definitions_and_all():
    from catalogue_gen.exports import module_exports

    source = textwrap.dedent("""
        from jax._src.dtypes import float0 as float0, dtype
        from jax._src.util import safe_zip as zip
        import jax._src.core as core
        from jax._src import api
        try:
            from jax._src.lib import gpu as gpu
        except ImportError:
            pass
        __all__ = ["listed"]

        def defined():
            pass
    """)
    assert module_exports(source) == {"float0", "gpu", "listed", "defined"}


def test_a_name_in_a_deprecated_module_is_no_successor():
    snaps = snaps_of(v0_1={"jax.a": {"f": "jax._src.x:f"}, "jax.old": {"f": "jax._src.x:f"}},
                     v0_2={"jax.a": {}, "jax.old": {"f": "jax._src.x:f"}})
    entry = Entry(name="jax.a.f", kind="symbol", module="jax.a", removed_in="0.2", last_seen="0.1")
    module = Entry(name="jax.old", kind="module", module="jax.old", deprecated_in="0.2")
    assert add_successors([entry, module], ["0.1", "0.2"], snaps) == 0
