"""The jax.config/jaxlib generator (tools/catalogue_gen/jax_objects.py) on tiny fake sources and wheels, offline;
its rows in the catalogue (rules/objects_generated.toml, merged under generated.toml and the overlay)."""
from __future__ import annotations

import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from jaxlint import catalogue
from jaxlint.catalogue import load
from tests.cli.test_cli import run

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from catalogue_gen.jax_objects import config_members, gaps, jaxlib_modules, read_source, removals  # noqa: E402

OLD_CONFIG = '''
class Config:
    _HAS_DYNAMIC_ATTRIBUTES = True
    def __init__(self):
        self.values = {}
        self.FLAGS = NameSpace(self.read)
        self._private = 1
    def update(self, name, val): ...
    def define_bool_state(self, name, default, help): ...
    def _read(self, name): ...
config = Config()
'''
DEPRECATING_CONFIG = '''
_CONFIG_DEPRECATIONS = {
    "define_bool_state",
    "DEFINE_bool",
}
class Config:
    def __init__(self):
        self.values = {}
    def __getattr__(self, name):
        fn = None
        if name in _CONFIG_DEPRECATIONS:
            fn = globals().get(name, None)
        if fn is None:
            raise AttributeError(name)
        message = (
            f"jax.config.{name} is deprecated. Please use other libraries "
            "for configuration instead."
        )
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return fn
    def update(self, name, val): ...
config = Config()
'''


def test_config_members_are_methods_and_init_attributes():
    found = config_members(OLD_CONFIG)
    assert found.members == {"values", "FLAGS", "update", "define_bool_state"}
    assert found.deprecated == {}


def test_config_names_handed_out_with_a_warning():
    found = config_members(DEPRECATING_CONFIG)
    assert found.members == {"values", "update"}
    assert found.deprecated == {
        "define_bool_state": "jax.config.define_bool_state is deprecated. Please use other libraries for "
                             "configuration instead.",
        "DEFINE_bool": "jax.config.DEFINE_bool is deprecated. Please use other libraries for configuration instead."}


def test_no_config_class():
    assert config_members("x = 1\n") is None


def test_removals_take_the_last_absence_and_the_warning_run():
    versions = ["1", "2", "3", "4", "5"]
    present = {"gone": {"1": True, "2": True, "3": True}, "kept": {v: True for v in versions},
               "back": {"1": True, "3": True}}
    deprecated = {"gone": {"2": "warned", "3": "warned"}}
    rows = {row.name: row for row in removals(versions, present, deprecated, "symbol")}
    assert set(rows) == {"gone", "back"}
    assert (rows["gone"].removed_in, rows["gone"].first_seen, rows["gone"].last_seen) == ("4", "1", "3")
    assert rows["gone"].deprecated_in == "2" and rows["gone"].message == "warned"
    assert (rows["back"].removed_in, rows["back"].first_seen, rows["back"].deprecated_in) == ("4", "3", None)


def test_gaps_are_changes_with_unread_releases_between():
    rows = removals(["1", "5"], {"gone": {"1": True}}, {}, "module")
    assert gaps(rows, ["1", "2", "3", "4", "5"], ["1", "5"]) == [("1", "5")]
    rows = removals(["1", "2", "5"], {"gone": {"1": True, "2": True}}, {}, "module")
    assert gaps(rows, ["1", "2", "5"], ["1", "2", "5"]) == []


def fake_jaxlib(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, textwrap.dedent(text))
    return path


def test_jaxlib_modules_from_files_modules_and_stubs(tmp_path):
    wheel = fake_jaxlib(tmp_path / "jaxlib-1.0-cp312-cp312-manylinux2014_x86_64.whl", {
        "jaxlib/__init__.py": "",
        "jaxlib/xla_client.py": "import numpy as np\nfrom jaxlib import xla_extension as _xla\n"
                                "XlaBuilder = _xla.XlaBuilder\ndef register_custom_call_target(name): ...\n",
        "jaxlib/xla_extension.cpython-312-x86_64-linux-gnu.so": "",
        "jaxlib/xla_extension/__init__.pyi": "class XlaBuilder: ...\ndef _hidden(): ...\nimport numpy as np\n",
        "jaxlib/cpu_feature_guard.so": "",
        "jaxlib/_private.py": "x = 1\n",
        "jaxlib/include/header.h": "",
    })
    modules = jaxlib_modules(wheel)
    assert set(modules) == {"jaxlib", "jaxlib.xla_client", "jaxlib.xla_extension", "jaxlib.cpu_feature_guard"}
    assert modules["jaxlib.xla_client"] == {"XlaBuilder", "register_custom_call_target"}  # not numpy's np
    assert modules["jaxlib.xla_extension"] == {"XlaBuilder"}  # from the stub
    assert modules["jaxlib.cpu_feature_guard"] is None  # an extension without stubs: names unknown
    assert read_source(wheel, ("jaxlib/missing.py", "jaxlib/xla_client.py")).startswith("import numpy")


# -- the rows in the catalogue -------------------------------------------------------------------------------------
def test_the_objects_file_is_merged_under_the_generated_rows():
    assert catalogue.OBJECTS.is_file()
    assert catalogue.OBJECTS in catalogue._sources()
    entry = load().get("jax.config.define_bool_state")
    assert entry is not None and entry.removed_in == "0.4.25" and entry.deprecated_in == "0.4.20"
    assert "Please use other libraries for configuration instead" in entry.message
    # a name both files know keeps generated.toml's row (the module diff), the overlay stays on top
    assert load().get("jax.config.config").source == "table"
    assert load().get("jax.config.FLAGS").source == "overlay"


@pytest.mark.parametrize("source,words", [
    ("import jax\njax.config.define_bool_state('jax_x', True, 'help')\n",
     "`jax.config.define_bool_state` was removed in JAX 0.4.25"),
    ("from jax import config\nconfig.enable_omnistaging()\n", "`jax.config.enable_omnistaging` was removed in JAX"),
    ("import jaxlib.xla_extension\n", "`jaxlib.xla_extension` was removed in JAX"),
])
def test_flagged_by_jax101(tmp_path, source, words):
    (tmp_path / "requirements.txt").write_text("jax>=0.2.0\n")
    (tmp_path / "a.py").write_text(source)
    result = run(["--output-format", "json", "--no-cache", "--select", "JAX101"], tmp_path)
    import json
    messages = [finding["message"] for finding in json.loads(result.output)]
    assert any(words in message for message in messages), messages


@pytest.mark.parametrize("source", [
    "import jax\njax.config.update('jax_enable_x64', True)\nx = jax.config.read('jax_enable_x64')\n",
    "import jax\njax.config.parse_flags_with_absl()\n",  # still a method of the newest Config
    "class Config:\n    def define_bool_state(self): ...\nconfig = Config()\nconfig.define_bool_state()\n",
])
def test_current_members_and_look_alikes_stay_silent(tmp_path, source):
    (tmp_path / "requirements.txt").write_text("jax>=0.2.0\n")
    (tmp_path / "a.py").write_text(source)
    result = run(["--output-format", "json", "--no-cache", "--select", "JAX101"], tmp_path)
    import json
    assert json.loads(result.output) == []
