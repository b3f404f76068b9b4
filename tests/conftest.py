import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


def pytest_configure(config):
    config.addinivalue_line("markers", "jax: needs JAX virtual environments (built on first use with pip); also slow")
    config.addinivalue_line("markers", "slow: takes more than a few seconds; `./scripts/test` leaves these out, "
                                       "`./scripts/test --all` (CI) runs them")


def pytest_collection_modifyitems(config, items):
    # Everything that runs code on a JAX venv is slow: each run imports JAX, and the first builds the venv.
    for item in items:
        if item.get_closest_marker("jax") is not None and item.get_closest_marker("slow") is None:
            item.add_marker("slow")
