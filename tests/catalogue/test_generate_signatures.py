"""``tools/generate_catalogue.py --only-signatures`` on three tiny fake jax wheels, offline: the methods and
constructors of public classes (through bases, decorators and ``**kwargs`` that the body pops and rejects) and the
required parameters and literal defaults of functions, diffed release by release."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STAGES_1 = """
    import functools

    class _Base:
        def as_text(self, dialect=None, debug_info=False):
            pass

        def cost_analysis(self):
            pass

    class Lowered(_Base):
        def __init__(self, lowering, args_info):
            pass

        def compile(self, compiler_options=None, **kwargs):
            legacy = kwargs.pop("legacy", True)
            if kwargs:
                raise TypeError(f"unexpected {kwargs}")

        @property
        def in_tree(self):
            pass

        @staticmethod
        def make(x, axis_id=None):
            pass

        def shard(self, platform=None):
            pass

        @functools.wraps(print)
        def wrapped(self, *args):
            pass

    def lower(f, static=(), donate=()):
        pass

    def shard(x, check=True):
        pass
"""
STAGES_2 = STAGES_1.replace("dialect=None, debug_info=False", "dialect=None, debug_info=True").replace(
    "def make(x, axis_id=None)", "def make(x, axis_idx=None)").replace(
    "def shard(self, platform=None)", "def shard(self, platforms=None)").replace(
    "def lower(f, static=(), donate=())", "def lower(f, static, donate=())")
STAGES_3 = STAGES_2.replace("""        def cost_analysis(self):
            pass
""", "").replace('legacy = kwargs.pop("legacy", True)', "pass").replace(
    "def shard(x, check=True)", "def shard(x, check=False)")
INIT = "from jax._src.stages import Lowered, lower, shard\nfrom jax import stages\n"
RELEASES = {
    "0.1.0": {"jax/_src/stages.py": STAGES_1},
    "0.2.0": {"jax/_src/stages.py": STAGES_2},
    "0.3.0": {"jax/_src/stages.py": STAGES_3},
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict:
    cache = tmp_path_factory.mktemp("wheels")
    for version, files in RELEASES.items():
        with zipfile.ZipFile(cache / f"jax-{version}-py3-none-any.whl", "w") as zf:
            for name, text in {"jax/_src/__init__.py": "", "jax/__init__.py": INIT,
                               "jax/stages.py": "from jax._src.stages import Lowered\n", **files}.items():
                zf.writestr(name, textwrap.dedent(text))
    out = cache / "signatures_generated.toml"
    subprocess.run([sys.executable, str(ROOT / "tools" / "generate_catalogue.py"), "--only-signatures", "--cache",
                    str(cache), "--signatures-out", str(out), "--versions", *RELEASES, "--libraries"], check=True,
                   capture_output=True, text=True)
    with open(out, "rb") as fh:
        data = tomllib.load(fh)
    return {(row["owner"], row.get("member", ""), row.get("parameter", ""), row["change"]): row
            for row in data["signature"]}


def test_a_class_under_all_its_public_names_is_one_owner(generated):
    owners = {owner for owner, *_ in generated}
    assert owners == {"jax.Lowered", "jax.lower", "jax.shard"}
    assert generated[("jax.Lowered", "make", "axis_id", "renamed")]["spellings"] == ["jax.stages.Lowered"]


def test_renamed_keyword_of_a_static_method(generated):
    row = generated[("jax.Lowered", "make", "axis_id", "renamed")]
    assert (row["replacement"], row["replacement_since"], row["changed_in"], row["last_seen"]) == \
        ("axis_idx", "0.2.0", "0.2.0", "0.1.0")


def test_a_plural_successor_is_no_rename_a_fix_may_write(generated):
    """``platform=`` -> ``platforms=`` takes a sequence: the row says removed, with the successor as a hint."""
    row = generated[("jax.Lowered", "shard", "platform", "removed")]
    assert row["replacement"] == "platforms"


def test_inherited_method_default_changed(generated):
    row = generated[("jax.Lowered", "as_text", "debug_info", "default-changed")]
    assert (row["old_default"], row["new_default"], row["changed_in"], row["position"]) == \
        ("False", "True", "0.2.0", 1)


def test_inherited_method_removed(generated):
    row = generated[("jax.Lowered", "cost_analysis", "", "member-removed")]
    assert (row["changed_in"], row["last_seen"], row["member_kind"]) == ("0.3.0", "0.2.0", "method")


def test_kwargs_popped_and_rejected_are_keywords(generated):
    """``compile(**kwargs)`` popped ``legacy`` and raised on the rest: 0.3.0 pops nothing, so ``legacy`` is gone."""
    row = generated[("jax.Lowered", "compile", "legacy", "removed")]
    assert (row["changed_in"], row["last_seen"]) == ("0.3.0", "0.2.0")


def test_function_parameter_newly_required_and_default_changed(generated):
    required = generated[("jax.lower", "", "static", "newly-required")]
    assert (required["changed_in"], required["position"]) == ("0.2.0", 1)
    changed = generated[("jax.shard", "", "check", "default-changed")]
    assert (changed["old_default"], changed["new_default"], changed["changed_in"]) == ("True", "False", "0.3.0")


def test_decorated_methods_and_properties_have_no_keyword_rows(generated):
    assert not [key for key in generated if key[1] in ("wrapped", "in_tree")]
    assert not [key for key in generated if key[0] == "jax.Lowered" and key[1] == "__init__"]
