"""JAX101's ``pallas-dot`` rewrite (``catalogue.rewrites._pallas_dot``): Pallas' removed ``pl.dot(a, b, ...)`` ->
``jax.lax.dot(a, b, preferred_element_type=jax.numpy.float32)``, the float32 result ``pl.dot`` gave (a plain
``jnp.dot``, which JAX's message names, keeps bfloat16). Unsafe. Executed in ``test_catalogue_rewrites_exec.py``."""
from __future__ import annotations

import pytest

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules.jax101_removed_symbol import RemovedSymbol

HEAD = "import jax\nfrom jax.experimental import pallas as pl\ndef kernel(q, k):\n"
F32 = "preferred_element_type=jax.numpy.float32"


def _settings() -> Settings:
    return Settings(select=("JAX101",), target_version=Version("0.12.0.1"),
                    explicit_min_version=Version("0.4.20"), min_version_source="test")


def _fixed(source: str, unsafe: bool = True) -> str:
    return fix_source(source, "m.py", _settings(), unsafe=unsafe, rules=[RemovedSymbol]).source


@pytest.mark.parametrize("before, after", [
    ("    return pl.dot(q, k)\n", f"    return jax.lax.dot(q, k, {F32})\n"),
    ("    return pl.dot(q, k.T, precision=p)  # keep\n",
     f"    return jax.lax.dot(q, k.T, precision=p, {F32})  # keep\n"),
    ("    return pl.dot(q, k, trans_b=True)\n", f"    return jax.lax.dot(q, k.T, {F32})\n"),
    ("    return pl.dot(q * 2, k + 1, True, True)\n", f"    return jax.lax.dot((q * 2).T, (k + 1).T, {F32})\n"),
    ("    return pl.dot(q, k, False, False, None, p)\n", f"    return jax.lax.dot(q, k, precision=p, {F32})\n"),
    ("    return pl.dot(a=q, b=k, trans_a=False)\n", f"    return jax.lax.dot(q, k, {F32})\n"),
])
def test_the_call_becomes_a_float32_lax_dot_as_an_unsafe_fix(before, after):
    assert _fixed(HEAD + before, unsafe=False) == HEAD + before
    fixed = _fixed(HEAD + before)
    assert fixed == HEAD + after
    assert _fixed(fixed) == fixed


def test_the_spelling_goes_through_jax_and_binds_it_when_the_module_does_not():
    # as every JAX101 rename that is spelled from ``jax``: ``import jax.lax`` binds ``jax`` where nothing else does
    for source in ("import jax as jx\nfrom jax.experimental import pallas as pl\ny = pl.dot(a, b)\n",
                   "from jax.experimental import pallas as pl\ny = pl.dot(a, b)\n"):
        fixed = _fixed(source)
        assert fixed.endswith("y = jax.lax.dot(a, b, preferred_element_type=jax.numpy.float32)\n")
        assert "import jax.lax\n" in fixed and _fixed(fixed) == fixed
        compile(fixed, "m.py", "exec")


@pytest.mark.parametrize("body", [
    "    return pl.dot(q, k, allow_tf32=True)\n",
    "    return pl.dot(q, k, trans_a=flag)\n",
    "    return pl.dot(*args)\n",
    "    return pl.dot(q)\n",
    "    return pl.dot(q, k, out=o)\n",
    "    return pl.dot(q,  # the query\n                  k)\n",
    "    f = pl.dot\n",
])
def test_other_shapes_are_reported_without_a_fix(body):
    [diagnostic] = lint_source(HEAD + body, "m.py", _settings(), rules=[RemovedSymbol]).diagnostics
    assert diagnostic.fix is None
    assert _fixed(HEAD + body) == HEAD + body


def test_the_message_names_the_float32_result_not_a_plain_jnp_dot():
    body = "    return pl.dot(q, k, allow_tf32=True)\n"
    [diagnostic] = lint_source(HEAD + body, "m.py", _settings(), rules=[RemovedSymbol]).diagnostics
    assert "preferred_element_type=jnp.float32" in diagnostic.message
    assert "allow_tf32" in (diagnostic.detail or "")
