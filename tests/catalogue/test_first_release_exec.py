"""``rules/first_release.toml`` checked by execution: every name it dates between two releases that install here
resolves in the newer one and does not in the older one (resolved as user code reaches it, as the catalogue's other
rows are: ``tools/catalogue_gen/resolve.py``). Names under modules that need optional packages are left out, as in
``test_sample_execution``, and those that import absl or xprof. The ~500 names dated from 0.4.14 on take ~100 s
(one subprocess per release of each pair)."""
from __future__ import annotations

import pytest

from jaxlint.catalogue.first_release import first_releases
from jaxlint.project.versions import Version
from tests.catalogue.test_sample_execution import OPTIONAL, probe
from tests.support.jaxenv import jax_python, old_jax_python

# Modules that import a package JAX does not install (absl; xprof), so they cannot be imported in these venvs.
NEEDS_EXTRAS = ("jax.experimental.sparse.test_util", "jax.experimental.roofline", "jax.experimental.source_mapper",
                "jax.collect_profile")
# Releases with a venv (pairs of neighbours among them): (version, Python of an old one).
RELEASES = [("0.4.13", "3.10"), ("0.4.20", "3.12"), ("0.4.24", "3.12"), ("0.8.0", None), ("0.10.2", None),
            ("0.12.0.1", None)]


def _python(version: str, python: str | None):
    return old_jax_python(version, python) if python else jax_python(version)


def dated_between(older: str, newer: str) -> list[str]:
    low, high = Version(older), Version(newer)
    return sorted(name for name, since in first_releases().items()
                  if low < since <= high and not name.startswith(OPTIONAL + NEEDS_EXTRAS))


@pytest.mark.jax
@pytest.mark.slow
@pytest.mark.parametrize("older, newer", [(a[0], b[0]) for a, b in zip(RELEASES, RELEASES[1:])])
def test_each_dated_name_is_new_between_two_releases(older, newer):
    names = dated_between(older, newer)
    assert names
    pythons = dict(RELEASES)
    before = probe(_python(older, pythons[older]), names)["names"]
    after = probe(_python(newer, pythons[newer]), names)["names"]
    assert [n for n in names if not after[n]] == []
    assert [n for n in names if before[n]] == []
