"""jaxlint: find, fix and verify breaking JAX API changes."""

__version__ = "0.1.0"
