"""tools/generate_catalogue.py (the entry point of tools/catalogue_gen/) end to end on three tiny fake jax wheels,
offline: each job of the pipeline leaves its row in the TOML it writes."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

API_1 = """
    def old_fn():
        pass

    def new_fn():
        pass

    def clip(x, a_min=None, a_max=None):
        pass
"""
RELEASES = {
    "0.1.0": {
        "jax/__init__.py": "from jax._src.api import old_fn, new_fn\nfrom jax import numpy\n",
        "jax/_src/api.py": API_1,
        "jax/_src/config.py": "bool_state('jax_old_flag', False)\nbool_state('jax_kept_flag', True)\n",
        "jax/numpy/__init__.py": "from jax._src.api import clip\n\ndef gap():\n    pass\n",
        "jax/oldmod.py": "x = 1\n",
    },
    "0.2.0": {
        "jax/__init__.py": """
            from jax._src.api import new_fn
            from jax import numpy
            _deprecations = {"old_fn": ("jax.old_fn is deprecated; use jax.new_fn instead.", new_fn)}
        """,
        "jax/_src/api.py": API_1,
        "jax/_src/config.py": "bool_state('jax_old_flag', False)\nbool_state('jax_kept_flag', True)\n",
        "jax/numpy/__init__.py": "from jax._src.api import clip\n",
    },
    "0.3.0": {
        "jax/__init__.py": """
            from jax._src.api import new_fn
            from jax import numpy
            _deprecations = {"old_fn": ("jax.old_fn was removed; use jax.new_fn instead.", None)}
        """,
        "jax/_src/api.py": API_1.replace("a_min=None, a_max=None", "min=None, max=None"),
        "jax/_src/config.py": "bool_state('jax_kept_flag', True)\n",
        "jax/numpy/__init__.py": "from jax._src.api import clip\n\ndef gap():\n    pass\n\ndef fresh():\n    pass\n",
        "jax/newmod.py": "x = 1\n",
    },
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, dict]:
    cache = tmp_path_factory.mktemp("wheels")
    for version, files in RELEASES.items():
        with zipfile.ZipFile(cache / f"jax-{version}-py3-none-any.whl", "w") as zf:
            for name, text in {"jax/_src/__init__.py": "", **files}.items():
                zf.writestr(name, textwrap.dedent(text))
    out = cache / "generated.toml"
    subprocess.run([sys.executable, str(ROOT / "tools" / "generate_catalogue.py"), "--cache", str(cache), "--out",
                    str(out), "--jaxenvs", str(cache / "no-venvs"), "--versions", *RELEASES], check=True,
                   capture_output=True, text=True)
    with open(out, "rb") as fh:
        return out, tomllib.load(fh)


def rows(data: dict, kind: str) -> dict[str, dict]:
    return {row["name"]: row for row in data.get(kind, [])}


def test_header_lists_the_releases(generated):
    _, data = generated
    assert (data["first_version"], data["newest_version"], data["versions"]) == ("0.1.0", "0.3.0", list(RELEASES))


def test_symbol_deprecated_then_removed_with_its_replacement(generated):
    _, data = generated
    row = rows(data, "symbol")["jax.old_fn"]
    assert (row["deprecated_in"], row["removed_in"], row["replacement"], row["replacement_since"]) == \
        ("0.2.0", "0.3.0", "jax.new_fn", "0.1.0")
    assert (row["same_object"], row["same_object_checked"]) == (True, "static:0.2.0")
    assert (row["first_seen"], row["last_seen"], row["source"]) == ("0.1.0", "0.2.0", "table")
    assert "jax.new_fn" not in rows(data, "symbol")


def test_removed_module_and_config_flag(generated):
    _, data = generated
    module = rows(data, "module")["jax.oldmod"]
    assert (module["removed_in"], module["last_seen"]) == ("0.2.0", "0.1.0")
    assert rows(data, "config")["jax_old_flag"]["removed_in"] == "0.3.0"
    assert "jax_kept_flag" not in rows(data, "config")


def test_renamed_keyword(generated):
    _, data = generated
    found = {(p["name"], p["parameter"]): p for p in data["parameter"]}
    row = found[("jax.numpy.clip", "a_min")]
    assert (row["change"], row["replacement"], row["removed_in"], row["replacement_since"]) == \
        ("renamed", "min", "0.3.0", "0.3.0")


def test_a_second_run_from_the_cached_snapshots_writes_the_same_bytes(generated, tmp_path):
    out, _ = generated
    cache = out.parent
    assert sorted(p.name for p in cache.glob("snapshot-*.json")) == [f"snapshot-{v}-v4.json" for v in RELEASES]
    again = tmp_path / "again.toml"
    subprocess.run([sys.executable, str(ROOT / "tools" / "generate_catalogue.py"), "--cache", str(cache), "--out",
                    str(again), "--jaxenvs", str(cache / "no-venvs"), "--versions", *RELEASES], check=True,
                   capture_output=True)
    assert again.read_bytes() == out.read_bytes()


def test_first_releases_of_the_newest_names(generated):
    """A name from the first release read has no row, nor one that came back after a gap (``gap``: 0.1.0 and
    0.3.0); a module's names are dated by the module."""
    out, _ = generated
    with open(out.parent / "first_release.toml", "rb") as fh:
        data = tomllib.load(fh)
    assert (data["first_version"], data["newest_version"]) == ("0.1.0", "0.3.0")
    assert {block["version"]: block["names"] for block in data["release"]} == {
        "0.3.0": ["jax.newmod", "jax.numpy.fresh"]}


def test_only_first_releases_leaves_the_catalogue_alone(generated, tmp_path):
    out, _ = generated
    again = tmp_path / "generated.toml"
    subprocess.run([sys.executable, str(ROOT / "tools" / "generate_catalogue.py"), "--cache", str(out.parent),
                    "--out", str(again), "--only-first-releases", "--versions", *RELEASES], check=True,
                   capture_output=True)
    assert not again.exists()
    assert (tmp_path / "first_release.toml").read_bytes() == (out.parent / "first_release.toml").read_bytes()
