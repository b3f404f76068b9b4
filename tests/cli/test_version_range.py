"""A version range past what the catalogue knows is said out loud, and no rule fixes below the oldest release."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.catalogue import load
from jaxlint.ui.cli import main
from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.version_range import fixes_allowed, range_warnings
from jaxlint.project.versions import Version

OLDEST, NEWEST = Version(load().first_version), Version(load().newest_version)
BELOW = "0.0.1"  # older than any jax release on PyPI (the catalogue starts at the oldest, 0.1.1)
ABOVE = "99.0"
# JAX101 (rename) and JAX103 (argument by keyword): both fixable at a min version jaxlint knows.
SOURCE = "import jax\nimport jax.numpy as jnp\ny = jax.tree_map(f, t)\nz = jnp.array(x, None, False)\n"


def run(args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def settings(min_version: str | None = None, target: str | None = None) -> Settings:
    return Settings(target_version=Version(target) if target else NEWEST,
                    explicit_min_version=Version(min_version) if min_version else None, min_version_source="test")


def test_a_range_inside_what_jaxlint_knows_warns_nothing():
    assert range_warnings(settings(str(OLDEST))) == []
    assert fixes_allowed(settings(str(OLDEST)))


def test_each_edge_is_one_line():
    below = range_warnings(settings(BELOW))
    above = range_warnings(settings(target=ABOVE))
    assert len(below) == 1 and str(OLDEST) in below[0] and "no fix" in below[0]
    assert len(above) == 1 and str(NEWEST) in above[0]
    assert len(range_warnings(settings(BELOW, ABOVE))) == 2


@pytest.mark.parametrize("min_version, fixable", [(str(OLDEST), True), (BELOW, False)])
def test_every_rule_fixes_or_withholds_alike(min_version, fixable):
    found = lint_source(SOURCE, "m.py", settings(min_version)).diagnostics
    assert sorted(d.code for d in found) == ["JAX101", "JAX103"]
    assert [d.fix is not None for d in found] == [fixable, fixable]


def test_the_warning_goes_to_stderr_once_and_show_settings_explains(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    result = run(["check", "--no-cache", "--min-version", BELOW, "m.py"], tmp_path)
    warnings = [line for line in result.stderr.splitlines() if line.startswith("jaxlint: warning:")]
    assert len(warnings) == 1 and BELOW in warnings[0]
    assert "jaxlint: warning" not in result.stdout
    shown = run(["check", "--min-version", BELOW, "--show-settings", "m.py"], tmp_path)
    assert f"fixes:          none: the min version is older than {OLDEST}" in shown.stdout
    newer = run(["check", "--no-cache", "--target-version", ABOVE, "m.py"], tmp_path)
    assert f"newer than the newest JAX release jaxlint knows ({NEWEST})" in newer.stderr
    inside = run(["check", "--no-cache", "--min-version", str(OLDEST), "--show-settings", "m.py"], tmp_path)
    assert inside.stderr == ""
    assert f"fixes:          valid on every JAX release from {OLDEST} to {NEWEST}" in inside.stdout


def test_known_range_is_read_from_the_catalogue_header_without_loading_the_catalogue():
    """The start-of-run warning reads two lines, not the catalogue (a warm run over cached files never loads it)."""
    import subprocess
    import sys

    from jaxlint.catalogue import GENERATED
    from jaxlint.project import version_range

    assert version_range._generated_file() == str(GENERATED)
    assert version_range._header_range(str(GENERATED)) == (OLDEST, NEWEST)
    code = ("import sys; from jaxlint.project.version_range import known_range; known_range(); "
            "print('jaxlint.catalogue' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() == ["False"]


def test_known_range_falls_back_to_the_catalogue_without_a_header(tmp_path):
    from jaxlint.project import version_range

    headless = tmp_path / "generated.toml"
    headless.write_text('[[entries]]\nfirst_version = "9.9"\n')
    assert version_range._header_range(str(headless)) is None
    assert version_range._header_range(str(tmp_path / "missing.toml")) is None
