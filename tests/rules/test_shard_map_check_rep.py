"""``check_rep`` -> ``check_vma``: JAX402's move of ``jax.experimental.shard_map.shard_map`` to ``jax.shard_map``
(fix kind ``shard-map-call``) and JAX103's ``jax.shard_map(check_rep=)``."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.jax103_changed_signature import ChangedSignature
from jaxlint.rules.jax402_deprecated_symbol import DeprecatedSymbol

ADVICE = "`jax.shard_map` takes `check_rep` as `check_vma=`"


def settings(code: str, min_version: str = "0.8.0") -> Settings:
    return Settings(select=(code,), target_version=Version("0.12.0.1"), explicit_min_version=Version(min_version),
                    min_version_source="test")


def messages(source: str, rule, min_version: str = "0.8.0") -> list[str]:
    return [d.message for d in lint_source(source, "m.py", settings(rule.code, min_version), rules=[rule]).diagnostics]


def fixed(source: str, rule, min_version: str = "0.8.0") -> str:
    return fix_source(source, "m.py", settings(rule.code, min_version), rules=[rule]).source


@pytest.mark.parametrize("source", [
    "import jax\ng = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P(), check_rep=False)\n",
    "import jax\ng = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P(), False)\n",  # check_rep 5th
    "from jax.experimental.shard_map import shard_map\ng = shard_map(f, mesh, in_specs=P('x'), out_specs=P(),\n"
    "    check_rep=False)\n",  # the from-import's finding
    "from jax.experimental.shard_map import shard_map as smap\ndef build(f, mesh):\n"
    "    return smap(f, mesh, P('x'), P(), check_rep=False)\n",
])
def test_the_move_names_check_vma_where_check_rep_is_passed(source):
    (message,) = messages(source, DeprecatedSymbol, "0.7.0")
    assert ADVICE in message


@pytest.mark.parametrize("source", [
    "import jax\ng = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P())\n",
    "from jax.experimental.shard_map import shard_map\ng = shard_map(f, mesh, P('x'), P())\n"
    "def other(check_rep=True):\n    return check_rep\nh = other(check_rep=False)\n",  # another function's check_rep
])
def test_no_word_of_check_vma_without_check_rep(source):
    (message,) = messages(source, DeprecatedSymbol, "0.7.0")
    assert "check_vma" not in message


@pytest.mark.parametrize("source,expected", [
    ("import jax\ng = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P(), check_rep=False)\n",
     "import jax\ng = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma=False)\n"),
    ("import jax\ng = jax.experimental.shard_map.shard_map(\n    f,\n    mesh,  # the mesh\n    P('x'),\n    P(),\n)\n",
     "import jax\ng = jax.shard_map(\n    f,\n    mesh=mesh,  # the mesh\n    in_specs=P('x'),\n    out_specs=P(),\n)\n"),
    ("from jax.experimental import shard_map as sm\ng = sm.shard_map(f, mesh, P('x'), P(), False)\n",
     "import jax\nfrom jax.experimental import shard_map as sm\n"
     "g = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma=False)\n"),
])
def test_the_move_is_fixed_from_0_8_0_and_idempotent(source, expected):
    once = fixed(source, DeprecatedSymbol)
    assert once == expected
    assert fixed(once, DeprecatedSymbol) == once


@pytest.mark.parametrize("source,min_version", [
    ("import jax\ng = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P(), check_rep=False)\n", "0.7.0"),
    ("import jax\ng = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P(), auto=frozenset('y'))\n", "0.8.0"),
    ("import jax\ng = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P(), **kw)\n", "0.8.0"),
    ("import jax\ng = jax.experimental.shard_map.shard_map(f=f, mesh=mesh, in_specs=P(), out_specs=P())\n", "0.8.0"),
    ("import jax\nsm = jax.experimental.shard_map.shard_map\n", "0.8.0"),  # not a call
])
def test_the_move_is_not_fixed(source, min_version):
    assert fixed(source, DeprecatedSymbol, min_version) == source
    assert len(messages(source, DeprecatedSymbol, min_version)) == 1


def test_jax_shard_map_check_rep_is_renamed():
    source = "import jax\ng = jax.shard_map(f, mesh=mesh, in_specs=P(), out_specs=P(), check_rep=False)\n"
    (message,) = messages(source, ChangedSignature)
    assert "use `check_vma=` (JAX 0.6.1+)" in message and "never took `check_rep=`" in message
    assert fixed(source, ChangedSignature) == source.replace("check_rep", "check_vma")


@pytest.mark.parametrize("source", [
    "import jax\ndef shard_map(f, check_rep=True):\n    return f\ng = shard_map(f, check_rep=False)\n",
    "from jax.experimental.shard_map import shard_map\ng = shard_map(f, mesh, P(), P(), check_rep=False)\n",
    "import jax\ng = jax.shard_map(f, mesh=mesh, in_specs=P(), out_specs=P(), **{'check_rep': False})\n",
])
def test_jax103_leaves_other_check_reps_alone(source):
    assert messages(source, ChangedSignature) == []


def test_below_0_8_0_the_fix_is_withheld_with_the_release_it_needs():
    source = "import jax\ng = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P(), check_rep=False)\n"
    (found,) = lint_source(source, "m.py", settings("JAX402", "0.7.0"), rules=[DeprecatedSymbol]).diagnostics
    assert found.fix is None and found.fix_withheld.needs_min_version == "0.8.0"
