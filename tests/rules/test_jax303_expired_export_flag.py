"""JAX303: messages."""
from dataclasses import replace

from jaxlint.lint.engine import lint_source
from jaxlint.rules.jax303_expired_export_flag import ExpiredExportFlag
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version


def test_message_says_reserialize_and_remove_and_old_versions_raise():
    settings = replace(Settings(select=("JAX303",)), explicit_min_version=Version("0.10.2"))
    source = 'import jax\njax.config.update("jax_export_deserialize_expired_versions", 1)\n'
    (finding,) = lint_source(source, "x.py", settings, rules=[ExpiredExportFlag]).diagnostics
    assert "re-serialize the artifacts" in finding.message and "remove this setting" in finding.message
    assert "Unrecognized config option: jax_export_deserialize_expired_versions" in finding.message
    assert finding.fix is None
