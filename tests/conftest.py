import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


# The caches' signing key (``jaxlint.project.cache_key``) of this test session: never the user's own in ~/.config.
# Not ``XDG_CONFIG_HOME``: pip reads its configuration (the package index) from there.
_KEY_FOLDER = tempfile.mkdtemp(prefix="jaxlint-tests-key-")
os.environ["JAXLINT_CACHE_KEY"] = os.path.join(_KEY_FOLDER, "cache-key")

# jaxlint's catalogue copies and replay manifests (``$XDG_CACHE_HOME/jaxlint``) of this test session: never the
# user's own, which a test run would overwrite (signed with the session's key: the user's next run then read the
# catalogue's TOML again) and prune. The tools the slow tests run keep their caches where they were (uv, pip and
# pre-commit read ``XDG_CACHE_HOME`` too).
_USER_CACHE = os.environ.get("XDG_CACHE_HOME", "")
if not os.path.isabs(_USER_CACHE):
    _USER_CACHE = os.path.join(os.path.expanduser("~"), ".cache")
for _variable, _folder in (("UV_CACHE_DIR", "uv"), ("PIP_CACHE_DIR", "pip"), ("PRE_COMMIT_HOME", "pre-commit")):
    os.environ.setdefault(_variable, os.path.join(_USER_CACHE, _folder))
os.environ["XDG_CACHE_HOME"] = os.path.join(_KEY_FOLDER, "cache")


def pytest_unconfigure(config):
    shutil.rmtree(_KEY_FOLDER, ignore_errors=True)


@pytest.fixture(autouse=True)
def _cache_key_read_afresh():
    """A test that moves or spoils the key file sees it as it is now, not as an earlier test's run read it."""
    from jaxlint.project.cache_key import forget_key

    forget_key()
    yield
    forget_key()


def pytest_configure(config):
    config.addinivalue_line("markers", "jax: needs JAX virtual environments (built on first use with pip); also slow")
    config.addinivalue_line("markers", "slow: takes more than a few seconds; `./scripts/test` leaves these out, "
                                       "`./scripts/test --all` (CI) runs them")


def pytest_collection_modifyitems(config, items):
    # Everything that runs code on a JAX venv is slow: each run imports JAX, and the first builds the venv.
    for item in items:
        if item.get_closest_marker("jax") is not None and item.get_closest_marker("slow") is None:
            item.add_marker("slow")
