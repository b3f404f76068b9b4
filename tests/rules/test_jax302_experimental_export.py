"""JAX302: the module rename is one decision for the whole file."""
from dataclasses import replace

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.rules.jax302_experimental_export import ExperimentalExport
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version

SETTINGS = replace(Settings(select=("JAX302",)), explicit_min_version=Version("0.10.2"))


def test_every_finding_carries_the_whole_rename():
    source = ("import jax.experimental.export\n"
              "exp = jax.experimental.export.export(jax.jit(f))(x)\n"
              "back = jax.experimental.export.deserialize(blob)\n")
    found = lint_source(source, "x.py", SETTINGS, rules=[ExperimentalExport]).diagnostics
    assert len(found) == 3
    edits = {d.fix.edits for d in found}
    assert len(edits) == 1 and len(next(iter(edits))) == 3
    assert fix_source(source, "x.py", SETTINGS, rules=[ExperimentalExport]).source == (
        "import jax.export\nexp = jax.export.export(jax.jit(f))(x)\nback = jax.export.deserialize(blob)\n")


def test_one_unsafe_use_blocks_the_safe_rename_everywhere():
    source = ("import jax\nfrom jax.experimental import export\n"
              "a = export.export(jax.jit(f))(x)\nb = export.serialize(a)\n")
    (finding,) = lint_source(source, "x.py", SETTINGS, rules=[ExperimentalExport]).diagnostics
    assert finding.fix.applicability.value == "unsafe"
    assert "is a method in `jax.export`" in finding.message
    assert fix_source(source, "x.py", SETTINGS, rules=[ExperimentalExport]).source == source


def test_attribute_named_export_is_not_the_module():
    source = "from jax.experimental import export\nclass A:\n    export = 1\nprint(A.export)\n"
    (finding,) = lint_source(source, "x.py", SETTINGS, rules=[ExperimentalExport]).diagnostics
    assert finding.start.row == 1
