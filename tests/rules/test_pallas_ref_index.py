"""JAX101's ``ref-index`` rewrite (``catalogue.rewrites._ref_index``): Pallas' removed ``pl.load(ref, idx)`` and
``pl.store(ref, idx, value)`` -> ``ref[idx]`` and ``ref[idx] = value``, unsafe. Executed in
``test_catalogue_rewrites_exec.py``."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.jax101_removed_symbol import RemovedSymbol

HEAD = "from jax.experimental import pallas as pl\ndef kernel(x_ref, o_ref):\n"


def _settings(min_version: str) -> Settings:
    return Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                    explicit_min_version=Version(min_version), min_version_source="test")


def _fixed(body: str, min_version: str = "0.4.24", unsafe: bool = True) -> str:
    return fix_source(HEAD + body, "m.py", _settings(min_version), unsafe=unsafe, rules=[RemovedSymbol]).source


@pytest.mark.parametrize("before, after", [
    ("    x = pl.load(x_ref, (pl.ds(0, 8), slice(None)))\n", "    x = x_ref[pl.ds(0, 8), slice(None)]\n"),
    ("    x = pl.load(x_ref, (pl.ds(0, 8),))\n", "    x = x_ref[(pl.ds(0, 8),)]\n"),
    ("    x = pl.load(refs[0], idx) + 1\n", "    x = refs[0][idx] + 1\n"),
    ("    pl.store(o_ref, (pl.ds(0, 8), 0), x + 1)  # keep\n", "    o_ref[pl.ds(0, 8), 0] = x + 1  # keep\n"),
    ("    pl.store(o_ref, ..., pl.load(x_ref, ...))\n", "    o_ref[...] = x_ref[...]\n"),
])
def test_the_calls_become_indexing_as_an_unsafe_fix(before, after):
    assert _fixed(before, unsafe=False) == HEAD + before
    fixed = _fixed(before)
    assert fixed == HEAD + after
    assert fix_source(fixed, "m.py", _settings("0.4.24"), unsafe=True, rules=[RemovedSymbol]).source == fixed


@pytest.mark.parametrize("body", [
    "    x = pl.load(x_ref, idx, mask=m, other=0)\n",
    "    pl.store(o_ref, idx, x, mask=m)\n",
    "    y = pl.store(o_ref, idx, x)\n",  # not a statement of its own
    "    x = pl.load(*args)\n",
    "    f = pl.load\n",
])
def test_other_shapes_are_reported_without_a_fix(body):
    [diagnostic] = lint_source(HEAD + body, "m.py", _settings("0.4.24"), rules=[RemovedSymbol]).diagnostics
    assert diagnostic.fix is None
    assert _fixed(body) == HEAD + body


def test_below_0_4_24_refs_do_not_take_pl_ds_so_the_fix_is_withheld():
    body = "    x = pl.load(x_ref, (pl.ds(0, 8),))\n"
    [diagnostic] = lint_source(HEAD + body, "m.py", _settings("0.4.23"), rules=[RemovedSymbol]).diagnostics
    assert diagnostic.fix is None and "needs JAX 0.4.24" in (diagnostic.detail or "")
