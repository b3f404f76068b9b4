"""Shared fixtures for the `jaxlint exports` tests."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
for entry in (REPO, REPO / "src"):  # tests.support and jaxlint, also when pytest runs without PYTHONPATH
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

DATA = REPO / "tests" / "data" / "exports"
ARTIFACTS = sorted(DATA.glob("*.jaxexport"))
WRITERS = ["0.8.1", "0.8.2", "0.9.0", "0.9.2", "0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.12.0.1"]
KINDS = ["simple", "sharded2", "poly"]


def pytest_configure(config):
    config.addinivalue_line("markers", "jax: needs a JAX virtual environment (built through tests/support/jaxenv.py)")


def artifact(writer: str, kind: str) -> Path:
    return DATA / f"jax-{writer}-{kind}.jaxexport"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A copy of every test artifact in a scratch directory (tests may add or damage files there)."""
    target = tmp_path / "store"
    target.mkdir()
    for path in ARTIFACTS:
        shutil.copy(path, target / path.name)
    return target


@pytest.fixture(autouse=True)
def _no_stray_jax_env(monkeypatch):
    # The worker subprocesses pick their own platform and device count; a developer's settings must not leak in.
    for name in ("JAX_PLATFORMS", "XLA_FLAGS", "JAX_EXPORT_DESERIALIZE_EXPIRED_VERSIONS"):
        monkeypatch.delenv(name, raising=False)
