"""JAX301: location and message."""
from jaxlint.lint.engine import lint_source
from jaxlint.rules.jax301_exported_shardings_hlo import ExportedShardingsHlo
from jaxlint.project.settings import Settings


def test_reported_at_the_attribute_with_the_replacement():
    source = "import jax\n\nhlo = restored.in_shardings_hlo\n"
    (finding,) = lint_source(source, "x.py", Settings(select=("JAX301",)), rules=[ExportedShardingsHlo]).diagnostics
    assert (finding.start.row, finding.start.column) == (3, 7)
    assert "in_shardings_jax(mesh)" in finding.message and finding.fix is None
