def pytest_configure(config):
    # Also registered in tests/conftest.py; repeated here so `pytest tests/catalogue` alone knows it.
    config.addinivalue_line("markers", "jax: needs JAX virtual environments (built on first use with pip)")
