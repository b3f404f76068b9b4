"""A safe fix is offered only where what it writes exists at every release of the range: below the first release of
the replacement the finding stays, without a fix, and ``fix_withheld`` names the release the fix needs."""
from __future__ import annotations

import json

from click.testing import CliRunner

from jaxlint.catalogue import load
from jaxlint.catalogue.floors import CALL_LIMITS, FLOORS
from jaxlint.ui.cli import main

PJIT = """from jax.experimental.pjit import pjit
step = pjit(f, in_axis_resources=None, out_axis_resources=None)
"""
VAR = """import jax
v = jax.core.Var("", aval)
w = jax.core.Var(aval)
"""


def findings(tmp_path, source: str, *args: str) -> list[dict]:
    (tmp_path / "m.py").write_text(source)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", *args, str(tmp_path / "m.py")])
    return json.loads(result.output)


def fixed(tmp_path, source: str, *args: str) -> str:
    (tmp_path / "m.py").write_text(source)
    CliRunner().invoke(main, ["check", "--no-cache", "--fix", *args, str(tmp_path / "m.py")])
    return (tmp_path / "m.py").read_text()


def test_pjit_keywords_with_jax_0_3_16_pinned_in_setup_py_are_not_renamed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the project is where jaxlint runs
    (tmp_path / "setup.py").write_text('from setuptools import setup\nsetup(name="p", install_requires=["jax==0.3.16"])\n')
    (jax103,) = [d for d in findings(tmp_path, PJIT) if d["code"] == "JAX103"]
    assert jax103["fix"] is None
    assert jax103["fix_withheld"] == {
        "reason": "`pjit(in_shardings=, out_shardings=)` exists from JAX 0.4.4; the min version is 0.3.16 "
                  "(setup.py:2: jax==0.3.16)",
        "needs_min_version": "0.4.4"}
    assert fixed(tmp_path, PJIT, "--select", "JAX103") == PJIT


def test_pjit_keywords_are_renamed_from_the_first_release_with_in_shardings(tmp_path):
    assert FLOORS["pjit.in_shardings"].since == "0.4.4"
    assert fixed(tmp_path, PJIT, "--select", "JAX103", "--min-version", "0.4.4") == PJIT.replace(
        "in_axis_resources", "in_shardings").replace("out_axis_resources", "out_shardings")
    assert fixed(tmp_path, PJIT, "--select", "JAX103", "--min-version", "0.4.3") == PJIT


def test_keyword_rename_below_the_new_keyword_says_which_release_it_needs(tmp_path):
    # keywords out of positional order cannot be passed by position (their evaluation order would change): withheld
    source = "import jax.numpy as jnp\ny = jnp.clip(x, a_max=1.0, a_min=0.0)\n"
    (finding,) = findings(tmp_path, source, "--select", "JAX103", "--min-version", "0.4.20")
    assert finding["fix"] is None
    assert finding["fix_withheld"] == {"reason": "`max=` exists from JAX 0.4.27; the min version is 0.4.20 "
                                                 "(--min-version)", "needs_min_version": "0.4.27"}


def test_catalogue_rename_below_its_replacement_says_which_release_it_needs(tmp_path):
    source = "import jax\nw = jax.core.Var(aval)\n"
    (finding,) = findings(tmp_path, source, "--select", "JAX101", "--min-version", "0.4.20")
    assert finding["fix"] is None
    assert finding["fix_withheld"]["needs_min_version"] == load().symbol("jax.core.Var").replacement_since == "0.4.27"


def test_var_with_the_suffix_argument_is_not_renamed_where_the_replacement_rejects_it(tmp_path):
    assert CALL_LIMITS["jax.extend.core.Var"].since == "0.6.2"
    out = fixed(tmp_path, VAR, "--select", "JAX101", "--min-version", "0.5.0")
    assert out == 'import jax\nimport jax.extend.core\nv = jax.core.Var("", aval)\nw = jax.extend.core.Var(aval)\n'
    suffix = findings(tmp_path, VAR, "--select", "JAX101", "--min-version", "0.5.0")[0]
    assert suffix["fix"] is None
    assert suffix["fix_withheld"] == {
        "reason": "`jax.extend.core.Var` takes at most 1 positional argument(s) from JAX 0.6.2 (`TypeError` with 2); "
                  "the renamed call would still fail at the target", "needs_min_version": None}


def test_var_with_the_suffix_argument_is_renamed_at_a_target_that_still_takes_it(tmp_path):
    out = fixed(tmp_path, VAR, "--select", "JAX101", "--min-version", "0.5.0", "--target-version", "0.6.0")
    assert out == 'import jax\nimport jax.extend.core\nv = jax.extend.core.Var("", aval)\nw = jax.extend.core.Var(aval)\n'


def test_array_attributes_below_jax_array_are_not_rewritten(tmp_path):
    source = "import jax.numpy as jnp\nx = jnp.arange(4.0)\nprint(x.device_buffer)\n"
    (finding,) = findings(tmp_path, source, "--select", "JAX104", "--min-version", "0.3.16")
    assert finding["fix"] is None
    assert finding["fix_withheld"]["needs_min_version"] == "0.4.1"
    assert findings(tmp_path, source, "--select", "JAX104", "--min-version", "0.4.1")[0]["fix"] is not None


def test_jax302_says_the_rename_needs_jax_0_4_30_when_only_the_range_withholds_it(tmp_path):
    source = "from jax.experimental import export\n\nexp = export.deserialize(blob)\n"
    (item,) = findings(tmp_path, source, "--min-version", "0.4.20", "--select", "JAX302")
    assert item["fix"] is None
    assert item["fix_withheld"] == {"reason": "`jax.export` exists from JAX 0.4.30; the min version is 0.4.20 "
                                              "(--min-version)", "needs_min_version": "0.4.30"}
    (item,) = findings(tmp_path, source, "--min-version", "0.4.30", "--select", "JAX302")
    assert item["fix"]["applicability"] == "safe" and item["fix_withheld"] is None
    # Another obstacle too (export.export needs a jit-wrapped function): no release would make it safe.
    (item,) = findings(tmp_path, "from jax.experimental import export\n\nexp = export.export(f)(x)\n",
                       "--min-version", "0.4.20", "--select", "JAX302")
    assert item["fix"] is None and item["fix_withheld"] is None
