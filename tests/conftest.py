import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


def pytest_configure(config):
    config.addinivalue_line("markers", "jax: needs JAX virtual environments (built on first use with pip)")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
